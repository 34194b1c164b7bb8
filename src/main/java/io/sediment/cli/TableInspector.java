package io.sediment.cli;

import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.schema.TableSchema;
import io.sediment.table.Table;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What {@code sediment inspect} shows about a table, as an ordered map (rendered as text or JSON).
 */
final class TableInspector {

  private TableInspector() {}

  static final long[] BOUNDS = {16L << 10, 128L << 10, 1L << 20, 8L << 20, 64L << 20, 256L << 20};
  static final String[] LABELS = {
    "<16KiB", "<128KiB", "<1MiB", "<8MiB", "<64MiB", "<256MiB", ">=256MiB"
  };

  static Map<String, Object> inspect(Table table) {
    return inspect(table, false);
  }

  /** What {@code inspect} shows; with {@code withFiles} each partition lists its files too. */
  static Map<String, Object> inspect(Table table, boolean withFiles) {
    Map<String, Object> out = new LinkedHashMap<>();
    TableSchema schema = table.schema();
    out.put("table", table.fullName());
    out.put("primaryKey", schema.hasPrimaryKey());
    List<Object> columns = new ArrayList<>();
    for (TableSchema.DataField f : schema.fields()) {
      Map<String, Object> column = new LinkedHashMap<>();
      column.put("name", f.name());
      column.put("type", f.logicalType().asSummaryString());
      columns.add(column);
    }
    out.put("columns", columns);
    out.put("primaryKeys", schema.primaryKeys());
    out.put("partitionKeys", schema.partitionKeys());
    out.put("options", new TreeMap<>(schema.options()));
    out.put("snapshotCount", table.snapshotManager().listIds().size());
    Map<String, Object> consumers = new TreeMap<>();
    ConsumerManager consumerManager =
        new ConsumerManager(table.store().fileIO(), table.store().paths());
    consumerManager
        .all()
        .forEach(
            (id, c) -> {
              Map<String, Object> consumer = new LinkedHashMap<>();
              consumer.put("nextSnapshot", c.nextSnapshot());
              if (consumerManager
                  .position(id)
                  .filter(ConsumerManager.Position::fullRead)
                  .isPresent()) {
                consumer.put("fullRead", true); // resumes by reading that snapshot in full
              }
              consumer.put("updated", Instant.ofEpochMilli(c.modifiedMillis()).toString());
              consumers.put(id, consumer);
            });
    out.put("consumers", consumers);
    Map<String, Object> tags = new TreeMap<>();
    new TagManager(table.store().fileIO(), table.store().paths())
        .all()
        .forEach(
            (name, t) -> {
              Map<String, Object> tag = new LinkedHashMap<>();
              tag.put("snapshot", t.snapshot().id());
              tag.put("created", Instant.ofEpochMilli(t.createdMillis()).toString());
              tags.put(name, tag);
            });
    out.put("tags", tags);
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty()) {
      out.put("latestSnapshot", null);
      out.put("totals", totals(0, 0, 0));
      out.put("partitions", List.of());
      return out;
    }
    Snapshot s = latest.get();
    Map<String, Object> snap = new LinkedHashMap<>();
    snap.put("id", s.id());
    snap.put("commitKind", s.commitKind().name());
    snap.put("commitUser", s.commitUser());
    snap.put("time", Instant.ofEpochMilli(s.timeMillis()).toString());
    snap.put("totalRecordCount", s.totalRecordCount());
    out.put("latestSnapshot", snap);
    long totalFiles = 0;
    long totalRows = 0;
    long totalBytes = 0;

    Map<String, List<ManifestEntry>> byPartition = new TreeMap<>();
    for (ManifestEntry e : table.store().newScan().plan(s)) {
      byPartition
          .computeIfAbsent(table.store().partitionPath(e.partition()), k -> new ArrayList<>())
          .add(e);
    }
    List<Object> partitions = new ArrayList<>();
    for (Map.Entry<String, List<ManifestEntry>> p : byPartition.entrySet()) {
      Map<String, Object> part = new LinkedHashMap<>();
      part.put("partition", p.getKey().isEmpty() ? "(unpartitioned)" : p.getKey());
      long files = 0;
      long rows = 0;
      long bytes = 0;
      long[] hist = new long[LABELS.length];
      Map<Integer, List<DataFileMeta>> buckets = new TreeMap<>();
      List<Object> fileList = new ArrayList<>();
      for (ManifestEntry e : p.getValue()) {
        DataFileMeta f = e.file();
        if (withFiles) {
          Map<String, Object> file = new LinkedHashMap<>();
          file.put("file", f.fileName());
          file.put("bucket", e.bucket());
          file.put("level", f.level());
          file.put("rows", f.rowCount() - f.deleteRowCount());
          file.put("bytes", f.fileSize());
          fileList.add(file);
        }
        files++;
        rows += f.rowCount() - f.deleteRowCount();
        bytes += f.fileSize();
        int i = 0;
        while (i < BOUNDS.length && f.fileSize() >= BOUNDS[i]) {
          i++;
        }
        hist[i]++;
        buckets.computeIfAbsent(e.bucket(), k -> new ArrayList<>()).add(f);
      }
      part.put("files", files);
      part.put("rows", rows);
      part.put("bytes", bytes);
      totalFiles += files;
      totalRows += rows;
      totalBytes += bytes;
      Map<String, Long> histogram = new LinkedHashMap<>();
      for (int i = 0; i < LABELS.length; i++) {
        histogram.put(LABELS[i], hist[i]);
      }
      part.put("fileSizeHistogram", histogram);
      if (table.schema().hasPrimaryKey()) {
        List<Object> bs = new ArrayList<>();
        for (Map.Entry<Integer, List<DataFileMeta>> b : buckets.entrySet()) {
          Map<String, Object> bucket = new LinkedHashMap<>();
          Map<Integer, Integer> levels = new TreeMap<>();
          for (DataFileMeta f : b.getValue()) {
            levels.merge(f.level(), 1, Integer::sum);
          }
          int level0 = levels.getOrDefault(0, 0);
          TreeSet<Integer> higher = new TreeSet<>(levels.keySet());
          higher.remove(0);
          bucket.put("bucket", b.getKey());
          bucket.put("sortedRuns", level0 + higher.size());
          Map<String, Integer> lv = new LinkedHashMap<>();
          levels.forEach((k, v) -> lv.put(Integer.toString(k), v));
          bucket.put("filesPerLevel", lv);
          bs.add(bucket);
        }
        part.put("buckets", bs);
      }
      if (withFiles) {
        part.put("fileList", fileList);
      }
      partitions.add(part);
    }
    out.put("totals", totals(totalFiles, totalRows, totalBytes));
    out.put("partitions", partitions);
    return out;
  }

  private static Map<String, Object> totals(long files, long rows, long bytes) {
    Map<String, Object> totals = new LinkedHashMap<>();
    totals.put("files", files);
    totals.put("rows", rows);
    totals.put("bytes", bytes);
    return totals;
  }

  @SuppressWarnings("unchecked")
  static String render(Map<String, Object> info) {
    StringBuilder sb = new StringBuilder();
    sb.append("Table ").append(info.get("table"));
    sb.append(Boolean.TRUE.equals(info.get("primaryKey")) ? " (primary key)" : " (append)");
    sb.append('\n');
    sb.append("  columns: ");
    List<String> columns = new ArrayList<>();
    for (Object o : (List<Object>) info.get("columns")) {
      Map<String, Object> c = (Map<String, Object>) o;
      columns.add(c.get("name") + " " + c.get("type"));
    }
    sb.append(String.join(", ", columns)).append('\n');
    List<String> primaryKeys = (List<String>) info.get("primaryKeys");
    if (!primaryKeys.isEmpty()) {
      sb.append("  primary key: ").append(String.join(", ", primaryKeys)).append('\n');
    }
    List<String> partitionKeys = (List<String>) info.get("partitionKeys");
    sb.append("  partitioned by: ")
        .append(partitionKeys.isEmpty() ? "(unpartitioned)" : String.join(", ", partitionKeys))
        .append('\n');
    Map<String, String> options = (Map<String, String>) info.get("options");
    sb.append("  options: ");
    if (options.isEmpty()) {
      sb.append("(defaults)");
    } else {
      List<String> kvs = new ArrayList<>();
      options.forEach((k, v) -> kvs.add(k + "=" + v));
      sb.append(String.join(", ", kvs));
    }
    sb.append('\n');
    Map<String, Object> snap = (Map<String, Object>) info.get("latestSnapshot");
    Map<String, Map<String, Object>> consumers =
        (Map<String, Map<String, Object>>) info.get("consumers");
    if (!consumers.isEmpty()) {
      List<String> cs = new ArrayList<>();
      consumers.forEach((id, c) -> cs.add(id + " (next snapshot " + c.get("nextSnapshot") + ")"));
      sb.append("  consumers: ").append(String.join(", ", cs)).append('\n');
    }
    Map<String, Map<String, Object>> tags = (Map<String, Map<String, Object>>) info.get("tags");
    if (!tags.isEmpty()) {
      List<String> ts = new ArrayList<>();
      tags.forEach((name, t) -> ts.add(name + " (snapshot " + t.get("snapshot") + ")"));
      sb.append("  tags: ").append(String.join(", ", ts)).append('\n');
    }
    sb.append("  snapshots: ").append(info.get("snapshotCount"));
    if (snap == null) {
      sb.append(", none yet\n");
      return sb.toString();
    }
    sb.append(", latest ")
        .append(snap.get("id"))
        .append(" (")
        .append(snap.get("commitKind"))
        .append(" by ")
        .append(snap.get("commitUser"))
        .append(" at ")
        .append(snap.get("time"))
        .append(")\n");
    Map<String, Object> totals = (Map<String, Object>) info.get("totals");
    sb.append("  total: ")
        .append(Plurals.of((Long) totals.get("files"), "file"))
        .append(", ")
        .append(Plurals.of((Long) totals.get("rows"), "row"))
        .append(", ")
        .append(Plurals.of((Long) totals.get("bytes"), "byte"))
        .append('\n');
    for (Object o : (List<Object>) info.get("partitions")) {
      Map<String, Object> p = (Map<String, Object>) o;
      sb.append("  ")
          .append(p.get("partition"))
          .append(": ")
          .append(Plurals.of((Long) p.get("files"), "file"))
          .append(", ")
          .append(Plurals.of((Long) p.get("rows"), "row"))
          .append(", ")
          .append(Plurals.of((Long) p.get("bytes"), "byte"))
          .append("; sizes");
      ((Map<String, Long>) p.get("fileSizeHistogram"))
          .forEach(
              (k, v) -> {
                if (v > 0) {
                  sb.append(' ').append(k).append(':').append(v);
                }
              });
      sb.append('\n');
      if (p.containsKey("buckets")) {
        for (Object b : (List<Object>) p.get("buckets")) {
          Map<String, Object> bm = (Map<String, Object>) b;
          sb.append("    bucket ")
              .append(bm.get("bucket"))
              .append(": ")
              .append(Plurals.of((Integer) bm.get("sortedRuns"), "sorted run"))
              .append(", files per level ")
              .append(bm.get("filesPerLevel"))
              .append('\n');
        }
      }
      if (p.containsKey("fileList")) {
        for (Object f : (List<Object>) p.get("fileList")) {
          Map<String, Object> fm = (Map<String, Object>) f;
          sb.append("    ")
              .append(fm.get("file"))
              .append(": bucket ")
              .append(fm.get("bucket"))
              .append(", level ")
              .append(fm.get("level"))
              .append(", ")
              .append(Plurals.of((Long) fm.get("rows"), "row"))
              .append(", ")
              .append(Plurals.of((Long) fm.get("bytes"), "byte"))
              .append('\n');
        }
      }
    }
    return sb.toString();
  }
}
