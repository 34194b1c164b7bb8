package io.sediment.manifest;

import io.sediment.data.PartitionComputer;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.IOException;
import java.io.Serializable;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The files of one table and how to reach them: its schema, options, paths, snapshots and
 * manifests. Serializable and cheap to copy, so Flink operators carry it to task managers.
 */
public final class FileStore implements Serializable {

  private static final long serialVersionUID = 1L;

  private final FileIO fileIO;
  private final TablePaths paths;
  private final TableSchema schema;
  private final TableOptions options;
  // schema versions read so far, by id (files written with older or newer schemas are read by id)
  private transient volatile Map<Long, TableSchema> schemas;

  public FileStore(FileIO fileIO, Path root, TableSchema schema, TableOptions options) {
    this.fileIO = fileIO;
    this.paths = new TablePaths(root);
    this.schema = schema;
    this.options = options;
  }

  /**
   * Schema version {@code id} of this table: the store's own, or read from {@code
   * schema/schema-<id>} once and kept.
   *
   * @throws IOException naming the schema file if it cannot be read
   */
  public TableSchema schema(long id) throws IOException {
    if (id == schema.id()) {
      return schema;
    }
    Map<Long, TableSchema> cache = schemas;
    if (cache == null) {
      cache = new ConcurrentHashMap<>();
      schemas = cache;
    }
    TableSchema s = cache.get(id);
    if (s == null) {
      Path file = paths.schema(id);
      try {
        s = JsonSerde.fromJson(fileIO.readUtf8(file), TableSchema.class);
      } catch (IOException e) {
        throw new IOException("Cannot read schema version " + id + " of the table: " + file, e);
      }
      cache.put(id, s);
    }
    return s;
  }

  /** The same store seen with another schema version of the table (its options unchanged). */
  public FileStore withSchema(TableSchema other) {
    if (other == schema) {
      return this;
    }
    FileStore s = new FileStore(fileIO, paths.root(), other, options);
    s.schemas = schemas;
    return s;
  }

  /**
   * The store a rewrite of {@code inputs} writes with: this one, or, when an input was written with
   * a newer schema version than this store's (a job that loaded the table before an {@code ALTER
   * TABLE}), the store at the newest such version. So a rewrite's outputs are never older than its
   * inputs, and never drop a column an input has.
   */
  public FileStore forRewriteOf(Collection<DataFileMeta> inputs) throws IOException {
    long newest = schema.id();
    for (DataFileMeta f : inputs) {
      newest = Math.max(newest, f.schemaId());
    }
    return newest == schema.id() ? this : withSchema(schema(newest));
  }

  public FileIO fileIO() {
    return fileIO;
  }

  public TablePaths paths() {
    return paths;
  }

  public TableSchema schema() {
    return schema;
  }

  public TableOptions options() {
    return options;
  }

  /** The same store with other (already validated) options. */
  public FileStore withOptions(TableOptions newOptions) {
    return new FileStore(fileIO, paths.root(), schema, newOptions);
  }

  public RowType rowType() {
    return schema.rowType();
  }

  public RowType partitionType() {
    return schema.partitionType();
  }

  public SnapshotManager snapshotManager() {
    return new SnapshotManager(fileIO, paths);
  }

  public ManifestFile manifestFile() {
    return new ManifestFile(
        fileIO,
        paths,
        partitionType(),
        schema.primaryKeys().size(),
        schema.id(),
        options.get(CommitOptions.MANIFEST_TARGET_FILE_SIZE).getBytes());
  }

  public ManifestList manifestList() {
    return new ManifestList(fileIO, paths, partitionType().getFieldCount());
  }

  public FileStoreScan newScan() {
    return new FileStoreScan(manifestList(), manifestFile());
  }

  /** Relative path of a partition directory, "" for an unpartitioned table. */
  public String partitionPath(RowData partition) {
    return TablePaths.partitionPath(
        schema.partitionKeys(), PartitionComputer.toStrings(partitionType(), partition));
  }

  public Path dataFilePath(RowData partition, int bucket, String fileName) {
    return paths.dataFile(partitionPath(partition), bucket, fileName);
  }

  public Path bucketDir(RowData partition, int bucket) {
    return paths.bucketDir(partitionPath(partition), bucket);
  }
}
