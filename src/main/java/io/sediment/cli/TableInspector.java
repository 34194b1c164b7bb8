package io.sediment.cli;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
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
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("table", table.fullName());
    out.put("primaryKey", table.schema().hasPrimaryKey());
    out.put("snapshotCount", table.snapshotManager().listIds().size());
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty()) {
      out.put("latestSnapshot", null);
      out.put("partitions", List.of());
      return out;
    }
    Snapshot s = latest.get();
    Map<String, Object> snap = new LinkedHashMap<>();
    snap.put("id", s.id());
    snap.put("commitKind", s.commitKind().name());
    snap.put("commitUser", s.commitUser());
    snap.put("totalRecordCount", s.totalRecordCount());
    out.put("latestSnapshot", snap);

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
      for (ManifestEntry e : p.getValue()) {
        DataFileMeta f = e.file();
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
      partitions.add(part);
    }
    out.put("partitions", partitions);
    return out;
  }

  @SuppressWarnings("unchecked")
  static String render(Map<String, Object> info) {
    StringBuilder sb = new StringBuilder();
    sb.append("Table ").append(info.get("table"));
    sb.append(Boolean.TRUE.equals(info.get("primaryKey")) ? " (primary key)" : " (append)");
    sb.append('\n');
    Map<String, Object> snap = (Map<String, Object>) info.get("latestSnapshot");
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
        .append(")\n");
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
    }
    return sb.toString();
  }
}
