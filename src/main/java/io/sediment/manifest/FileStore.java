package io.sediment.manifest;

import io.sediment.data.PartitionComputer;
import io.sediment.fs.FileIO;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
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

  public FileStore(FileIO fileIO, Path root, TableSchema schema, TableOptions options) {
    this.fileIO = fileIO;
    this.paths = new TablePaths(root);
    this.schema = schema;
    this.options = options;
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
        schema.fields().size(),
        schema.id(),
        options.get(TableOptions.MANIFEST_TARGET_FILE_SIZE).getBytes());
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
