package io.sediment.systable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.data.PartitionComputer;
import io.sediment.fs.JsonSerde;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TagManager;
import io.sediment.mergetree.SortedRun;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableSchema;
import io.sediment.table.Table;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.TimeUtils;

/**
 * The system tables of a table, read as {@code t$<name>} (Paimon's names and columns where Paimon
 * has the table): {@code snapshots}, {@code schemas}, {@code options}, {@code files}, {@code
 * manifests}, {@code partitions}, {@code consumers}, {@code tags}, and {@code buckets}, which
 * answers "what needs compaction" per primary-key bucket. Each is computed from the table's
 * metadata when it is read (the latest snapshot for files, partitions and buckets); none can be
 * written.
 */
public final class SystemTables {

  /** The separator of a system table's name: {@code orders$snapshots}. */
  public static final String SEPARATOR = "$";

  private static final ObjectMapper JSON = new ObjectMapper();

  private SystemTables() {}

  /** Compact JSON (the schema files are pretty-printed; one line reads better in a table). */
  private static StringData json(Object value) {
    try {
      return StringData.fromString(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One system table: its columns, and its rows for a table. */
  public interface SystemTable {
    String name();

    DataType type();

    List<RowData> rows(Table table);
  }

  private static final Map<String, SystemTable> ALL = new TreeMap<>();

  static {
    register(
        "snapshots",
        DataTypes.ROW(
            DataTypes.FIELD("snapshot_id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("schema_id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("commit_user", DataTypes.STRING()),
            DataTypes.FIELD("commit_identifier", DataTypes.BIGINT()),
            DataTypes.FIELD("commit_kind", DataTypes.STRING()),
            DataTypes.FIELD("commit_time", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("base_manifest_list", DataTypes.STRING()),
            DataTypes.FIELD("delta_manifest_list", DataTypes.STRING()),
            DataTypes.FIELD("changelog_manifest_list", DataTypes.STRING()),
            DataTypes.FIELD("total_record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("delta_record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("total_file_count", DataTypes.BIGINT()),
            DataTypes.FIELD("watermark", DataTypes.BIGINT())),
        SystemTables::snapshots);
    register(
        "schemas",
        DataTypes.ROW(
            DataTypes.FIELD("schema_id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("fields", DataTypes.STRING()),
            DataTypes.FIELD("partition_keys", DataTypes.STRING()),
            DataTypes.FIELD("primary_keys", DataTypes.STRING()),
            DataTypes.FIELD("options", DataTypes.STRING()),
            DataTypes.FIELD("comment", DataTypes.STRING()),
            DataTypes.FIELD("update_time", DataTypes.TIMESTAMP(3))),
        SystemTables::schemas);
    register(
        "options",
        DataTypes.ROW(
            DataTypes.FIELD("key", DataTypes.STRING().notNull()),
            DataTypes.FIELD("value", DataTypes.STRING())),
        SystemTables::options);
    register(
        "files",
        DataTypes.ROW(
            DataTypes.FIELD("partition", DataTypes.STRING()),
            DataTypes.FIELD("bucket", DataTypes.INT()),
            DataTypes.FIELD("file_path", DataTypes.STRING()),
            DataTypes.FIELD("file_format", DataTypes.STRING()),
            DataTypes.FIELD("schema_id", DataTypes.BIGINT()),
            DataTypes.FIELD("level", DataTypes.INT()),
            DataTypes.FIELD("record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("deleted_record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("file_size_in_bytes", DataTypes.BIGINT()),
            DataTypes.FIELD("min_sequence_number", DataTypes.BIGINT()),
            DataTypes.FIELD("max_sequence_number", DataTypes.BIGINT()),
            DataTypes.FIELD("creation_time", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("min_key", DataTypes.STRING()),
            DataTypes.FIELD("max_key", DataTypes.STRING())),
        SystemTables::files);
    register(
        "manifests",
        DataTypes.ROW(
            DataTypes.FIELD("file_name", DataTypes.STRING().notNull()),
            DataTypes.FIELD("file_size", DataTypes.BIGINT()),
            DataTypes.FIELD("num_added_files", DataTypes.BIGINT()),
            DataTypes.FIELD("num_deleted_files", DataTypes.BIGINT()),
            DataTypes.FIELD("schema_id", DataTypes.BIGINT()),
            DataTypes.FIELD("min_partition_stats", DataTypes.STRING()),
            DataTypes.FIELD("max_partition_stats", DataTypes.STRING()),
            DataTypes.FIELD("list", DataTypes.STRING())),
        SystemTables::manifests);
    register(
        "partitions",
        DataTypes.ROW(
            DataTypes.FIELD("partition", DataTypes.STRING()),
            DataTypes.FIELD("record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("file_size_in_bytes", DataTypes.BIGINT()),
            DataTypes.FIELD("file_count", DataTypes.BIGINT()),
            DataTypes.FIELD("small_file_count", DataTypes.BIGINT()),
            DataTypes.FIELD("last_update_time", DataTypes.TIMESTAMP(3))),
        SystemTables::partitions);
    register(
        "buckets",
        DataTypes.ROW(
            DataTypes.FIELD("partition", DataTypes.STRING()),
            DataTypes.FIELD("bucket", DataTypes.INT()),
            DataTypes.FIELD("sorted_runs", DataTypes.INT()),
            DataTypes.FIELD("level0_files", DataTypes.INT()),
            DataTypes.FIELD("level0_bytes", DataTypes.BIGINT()),
            DataTypes.FIELD("file_count", DataTypes.INT()),
            DataTypes.FIELD("file_size_in_bytes", DataTypes.BIGINT()),
            DataTypes.FIELD("compaction_trigger", DataTypes.INT()),
            DataTypes.FIELD("needs_compaction", DataTypes.BOOLEAN())),
        SystemTables::buckets);
    register(
        "consumers",
        DataTypes.ROW(
            DataTypes.FIELD("consumer_id", DataTypes.STRING().notNull()),
            DataTypes.FIELD("next_snapshot_id", DataTypes.BIGINT()),
            DataTypes.FIELD("update_time", DataTypes.TIMESTAMP(3))),
        SystemTables::consumers);
    register(
        "tags",
        DataTypes.ROW(
            DataTypes.FIELD("tag_name", DataTypes.STRING().notNull()),
            DataTypes.FIELD("snapshot_id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("schema_id", DataTypes.BIGINT().notNull()),
            DataTypes.FIELD("commit_time", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("record_count", DataTypes.BIGINT()),
            DataTypes.FIELD("create_time", DataTypes.TIMESTAMP(3)),
            DataTypes.FIELD("time_retained", DataTypes.STRING())),
        SystemTables::tags);
  }

  private interface Rows {
    List<RowData> of(Table table);
  }

  private static void register(String name, DataType type, Rows rows) {
    ALL.put(
        name,
        new SystemTable() {
          @Override
          public String name() {
            return name;
          }

          @Override
          public DataType type() {
            return type;
          }

          @Override
          public List<RowData> rows(Table table) {
            return rows.of(table);
          }
        });
  }

  /** The system table {@code name} ({@code snapshots}, ...), if there is one. */
  public static Optional<SystemTable> of(String name) {
    return Optional.ofNullable(ALL.get(name));
  }

  /** The names of the system tables. */
  public static List<String> names() {
    return List.copyOf(ALL.keySet());
  }

  public static RowType rowType(SystemTable t) {
    return (RowType) t.type().getLogicalType();
  }

  private static StringData str(Object s) {
    return s == null ? null : StringData.fromString(s.toString());
  }

  /**
   * A time as a {@code TIMESTAMP(3)} in the JVM's time zone, as Paimon's system tables show it and
   * as {@code older_than} and partition times are read: a time copied out of a system table into a
   * maintenance call means the same instant.
   */
  private static TimestampData time(long millis) {
    return TimestampData.fromLocalDateTime(
        LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneId.systemDefault()));
  }

  private static List<RowData> snapshots(Table table) {
    SnapshotManager sm = table.snapshotManager();
    List<RowData> out = new ArrayList<>();
    for (long id : sm.listIds()) {
      Optional<Snapshot> s = sm.snapshotIfExists(id);
      if (s.isEmpty()) {
        continue; // expired meanwhile
      }
      Snapshot x = s.get();
      out.add(
          GenericRowData.of(
              x.id(),
              x.schemaId(),
              str(x.commitUser()),
              x.commitIdentifier(),
              str(x.commitKind().name()),
              time(x.timeMillis()),
              str(x.baseManifestList()),
              str(x.deltaManifestList()),
              str(x.changelogManifestList()),
              x.totalRecordCount(),
              x.deltaRecordCount(),
              x.totalFileCount(),
              x.watermark()));
    }
    return out;
  }

  private static List<RowData> schemas(Table table) {
    FileStore store = table.store();
    List<RowData> out = new ArrayList<>();
    try {
      TreeMap<Long, Path> files = new TreeMap<>();
      for (FileStatus st : store.fileIO().list(store.paths().schemaDir())) {
        String n = st.getPath().getName();
        if (n.matches("schema-\\d+")) {
          files.put(Long.parseLong(n.substring("schema-".length())), st.getPath());
        }
      }
      for (Path p : files.values()) {
        TableSchema s;
        try {
          s = JsonSerde.fromJson(store.fileIO().readUtf8(p), TableSchema.class);
        } catch (FileNotFoundException gone) {
          continue;
        }
        out.add(
            GenericRowData.of(
                s.id(),
                json(s.fields()),
                json(s.partitionKeys()),
                json(s.primaryKeys()),
                json(new TreeMap<>(s.options())),
                str(s.comment()),
                time(s.timeMillis())));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the schemas of " + table.fullName(), e);
    }
    return out;
  }

  private static List<RowData> options(Table table) {
    List<RowData> out = new ArrayList<>();
    new TreeMap<>(table.schema().options())
        .forEach((k, v) -> out.add(GenericRowData.of(str(k), str(v))));
    return out;
  }

  private static List<ManifestEntry> liveFiles(Table table) {
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty()) {
      return List.of();
    }
    return table.store().newScan().plan(latest.get());
  }

  /** The partition's directory, as {@code sediment inspect} names it ("" when unpartitioned). */
  private static String partition(Table table, ManifestEntry e) {
    return table.store().partitionPath(e.partition());
  }

  private static List<RowData> files(Table table) {
    List<RowData> out = new ArrayList<>();
    for (ManifestEntry e : liveFiles(table)) {
      DataFileMeta f = e.file();
      out.add(
          GenericRowData.of(
              str(partition(table, e)),
              e.bucket(),
              str(table.store().dataFilePath(e.partition(), e.bucket(), f.fileName())),
              str("parquet"),
              f.schemaId(),
              f.level(),
              f.rowCount(),
              f.deleteRowCount(),
              f.fileSize(),
              f.minSequenceNumber(),
              f.maxSequenceNumber(),
              time(f.creationTimeMillis()),
              str(key(table, f.minKey())),
              str(key(table, f.maxKey()))));
    }
    return out;
  }

  /** A primary key's values as {@code [v1, v2]}; null for append tables (files have no key). */
  private static String key(Table table, RowData key) {
    if (!table.schema().hasPrimaryKey()) {
      return null;
    }
    return PartitionComputer.toStrings(table.schema().keyType(), key).toString();
  }

  /**
   * The manifests of the latest snapshot: those of its base list (the live files before it) and of
   * its delta list (its own changes), as Paimon's {@code $manifests}.
   */
  private static List<RowData> manifests(Table table) {
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty()) {
      return List.of();
    }
    FileStore store = table.store();
    List<RowData> out = new ArrayList<>();
    try {
      for (String[] list :
          List.of(
              new String[] {"base", latest.get().baseManifestList()},
              new String[] {"delta", latest.get().deltaManifestList()})) {
        if (list[1] == null) {
          continue;
        }
        for (ManifestFileMeta m : store.manifestList().read(list[1])) {
          out.add(
              GenericRowData.of(
                  str(m.fileName()),
                  m.fileSize(),
                  m.numAddedFiles(),
                  m.numDeletedFiles(),
                  m.schemaId(),
                  str(partitionString(store, m.minPartition())),
                  str(partitionString(store, m.maxPartition())),
                  str(list[0])));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the manifests of " + table.fullName(), e);
    }
    return out;
  }

  private static String partitionString(FileStore store, RowData partition) {
    return store.partitionType().getFieldCount() == 0 ? "" : store.partitionPath(partition);
  }

  private static List<RowData> partitions(Table table) {
    long small =
        (long)
            (table.options().targetFileSize()
                * table.options().get(CompactionOptions.COMPACTION_SMALL_FILE_RATIO));
    Map<String, long[]> byPartition = new TreeMap<>();
    for (ManifestEntry e : liveFiles(table)) {
      DataFileMeta f = e.file();
      long[] a = byPartition.computeIfAbsent(partition(table, e), k -> new long[5]);
      a[0] += f.rowCount() - f.deleteRowCount();
      a[1] += f.fileSize();
      a[2]++;
      a[3] += f.fileSize() < small ? 1 : 0;
      a[4] = Math.max(a[4], f.creationTimeMillis());
    }
    List<RowData> out = new ArrayList<>();
    byPartition.forEach(
        (p, a) -> out.add(GenericRowData.of(str(p), a[0], a[1], a[2], a[3], time(a[4]))));
    return out;
  }

  private static List<RowData> buckets(Table table) {
    int trigger = table.options().numSortedRunCompactionTrigger();
    Map<String, Map<Integer, List<DataFileMeta>>> files = new TreeMap<>();
    for (ManifestEntry e : liveFiles(table)) {
      files
          .computeIfAbsent(partition(table, e), k -> new TreeMap<>())
          .computeIfAbsent(e.bucket(), k -> new ArrayList<>())
          .add(e.file());
    }
    List<RowData> out = new ArrayList<>();
    files.forEach(
        (p, byBucket) ->
            byBucket.forEach(
                (bucket, fs) -> {
                  int level0 = 0;
                  long level0Bytes = 0;
                  long bytes = 0;
                  for (DataFileMeta f : fs) {
                    bytes += f.fileSize();
                    if (f.level() == 0) {
                      level0++;
                      level0Bytes += f.fileSize();
                    }
                  }
                  int runs = SortedRun.count(fs);
                  out.add(
                      GenericRowData.of(
                          str(p),
                          bucket,
                          runs,
                          level0,
                          level0Bytes,
                          fs.size(),
                          bytes,
                          trigger,
                          table.schema().hasPrimaryKey() && runs >= trigger));
                }));
    return out;
  }

  private static List<RowData> consumers(Table table) {
    List<RowData> out = new ArrayList<>();
    new ConsumerManager(table.store().fileIO(), table.store().paths())
        .all()
        .forEach(
            (id, c) ->
                out.add(GenericRowData.of(str(id), c.nextSnapshot(), time(c.modifiedMillis()))));
    return out;
  }

  private static List<RowData> tags(Table table) {
    List<RowData> out = new ArrayList<>();
    new TagManager(table.store().fileIO(), table.store().paths())
        .all()
        .forEach(
            (name, t) -> {
              Snapshot s = t.snapshot();
              out.add(
                  GenericRowData.of(
                      str(name),
                      s.id(),
                      s.schemaId(),
                      time(s.timeMillis()),
                      s.totalRecordCount(),
                      time(t.createdMillis()),
                      t.timeRetained() == null ? null : str(format(t.timeRetained()))));
            });
    return out;
  }

  /** A duration as '7 d' (its largest exact unit), or in ISO-8601 when too long for that. */
  private static String format(java.time.Duration d) {
    try {
      return TimeUtils.formatWithHighestUnit(d);
    } catch (ArithmeticException tooLong) {
      return d.toString();
    }
  }
}
