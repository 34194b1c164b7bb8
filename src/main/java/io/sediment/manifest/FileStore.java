package io.sediment.manifest;

import io.sediment.data.PartitionComputer;
import io.sediment.fs.FileIO;
import io.sediment.fs.JsonSerde;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.time.Clock;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The files of one table and how to reach them: its schema, options, paths, snapshots and
 * manifests. Serializable and cheap to copy, so Flink operators carry it to task managers.
 *
 * <p>The store also carries the {@link #clock() clock} that every decision on time about the table
 * reads (partition idle time, compaction triggers, snapshot retention, orphan age, the time stamped
 * on files and snapshots): the system clock (UTC) unless a test gives it another ({@link
 * #withClock}). The clock is serialized with the store: a task manager gets a copy.
 */
public final class FileStore implements Serializable {

  private static final long serialVersionUID = 1L;

  private final FileIO fileIO;
  private final TablePaths paths;
  private final TableSchema schema;
  private final TableOptions options;
  // Clock.systemUTC() or a test's clock; Serializable at runtime (Clock is not declared so)
  private final Clock clock;
  // schema versions read so far, by id (files written with older or newer schemas are read by id)
  private transient volatile Map<Long, TableSchema> schemas;

  /** {@link #schema} as JSON, made once for {@link #stillThisTable}. */
  private transient volatile String schemaJson;

  /**
   * A store on the system clock (UTC). Where a store enters a process (made here, or deserialized
   * in {@link #readResolve}) the process's manifest cache property is checked; the stores derived
   * from it ({@code with...}) are not checked again.
   */
  public FileStore(FileIO fileIO, Path root, TableSchema schema, TableOptions options) {
    this(fileIO, root, schema, options, Clock.systemUTC());
    ManifestCache.checkConfiguration();
  }

  private FileStore(
      FileIO fileIO, Path root, TableSchema schema, TableOptions options, Clock clock) {
    this.fileIO = fileIO;
    this.paths = new TablePaths(root);
    this.schema = schema;
    this.options = options;
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * A store arriving in another process (a task manager) checks that process's manifest cache
   * property first, as a store made in this one does; a store Java-serialized before it carried a
   * clock (a checkpoint or savepoint of an older version) comes back on the system clock.
   */
  private Object readResolve() {
    ManifestCache.checkConfiguration();
    return clock != null
        ? this
        : new FileStore(fileIO, paths.root(), schema, options, Clock.systemUTC());
  }

  /**
   * Whether the table at this store's path is still the one the store was loaded for: its schema
   * file is there, with the same content (creation time included). False after the table was
   * dropped, or dropped and created again under its name (a new table writes its own schema files);
   * true when the file cannot be read for another reason (the next check looks again). One small
   * file read.
   */
  public boolean stillThisTable() {
    String now;
    try {
      now = fileIO.readUtf8(paths.schema(schema.id()));
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
    String mine = schemaJson;
    if (mine == null) {
      mine = JsonSerde.toJson(schema);
      schemaJson = mine;
    }
    try {
      return JsonSerde.toJson(JsonSerde.fromJson(now, TableSchema.class)).equals(mine);
    } catch (RuntimeException e) {
      return false; // not this table's schema file
    }
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
    FileStore s = new FileStore(fileIO, paths.root(), other, options, clock);
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
    return new FileStore(fileIO, paths.root(), schema, newOptions, clock);
  }

  /**
   * The clock that decides on time for this table: what "now" is when the planner asks whether a
   * partition is idle or a compaction trigger fired, when retention and orphan removal compute an
   * age, and the time stamped on new data files and snapshots. Durations that are only measured and
   * reported (a job's duration) use the system clock instead.
   */
  public Clock clock() {
    return clock;
  }

  /**
   * The same store on another clock (tests: a clock they move instead of waiting). For a store that
   * Flink serializes, {@code clock} must be {@link Serializable}.
   */
  public FileStore withClock(Clock other) {
    FileStore s = new FileStore(fileIO, paths.root(), schema, options, other);
    s.schemas = schemas;
    return s;
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
