package io.sediment.bench;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A table's history replayed from its snapshots (each one's added and deleted data files and its
 * commit time): files per group (partition, or bucket of a primary-key table) after every commit,
 * the lag of every file the writer added until a COMPACT commit removed it, and the bytes the
 * writer and the compactions wrote. What W5 reports, computed as the peers' harness does for
 * Paimon, except that a file a compaction only moved to another level (deleted and added under the
 * same name) counts as compacted but not as bytes written.
 */
final class SnapshotReplay {

  private record Group(BinaryRowData partition, int bucket) {}

  private record LiveFile(long addedMillis, boolean fromWriter, int level, Group group) {}

  /** The state after one commit: time, max files per group, all files, max level-0, max runs. */
  private record Point(long millis, long maxPerGroup, long total, long maxLevel0, long maxRuns) {}

  private final boolean primaryKey;
  private final Map<String, LiveFile> live = new HashMap<>();
  private final List<Point> timeline = new ArrayList<>();
  private final List<Long> lags = new ArrayList<>();
  private long writerBytes;
  private long writerFiles;
  private long compactionBytes;
  private long movedBytes;
  private int compactCommits;
  private int appendCommits;
  private long lastAppendMillis = -1;
  private long maxAppendGapMillis;

  private SnapshotReplay(boolean primaryKey) {
    this.primaryKey = primaryKey;
  }

  /** Replays every snapshot of {@code table}, oldest first (none may have expired). */
  static SnapshotReplay of(Table table, boolean primaryKey) throws IOException {
    SnapshotReplay replay = new SnapshotReplay(primaryKey);
    SnapshotManager snapshots = table.snapshotManager();
    if (snapshots.latestId().isEmpty()) {
      return replay;
    }
    long first = snapshots.earliestId().orElseThrow();
    if (first != 1) {
      throw new IllegalStateException(
          "Snapshots before " + first + " expired: the history cannot be replayed");
    }
    for (long id = first; id <= snapshots.latestId().getAsLong(); id++) {
      Snapshot s = snapshots.snapshot(id);
      replay.apply(s, table.store().newScan().readDelta(s));
    }
    return replay;
  }

  private void apply(Snapshot s, List<ManifestEntry> delta) {
    boolean compact = s.commitKind() == CommitKind.COMPACT;
    if (compact) {
      compactCommits++;
    } else {
      appendCommits++;
      if (lastAppendMillis >= 0) {
        maxAppendGapMillis = Math.max(maxAppendGapMillis, s.timeMillis() - lastAppendMillis);
      }
      lastAppendMillis = s.timeMillis();
    }
    Set<String> deleted = new HashSet<>();
    for (ManifestEntry e : delta) {
      if (e.kind() == FileKind.DELETE) {
        deleted.add(e.file().fileName());
        LiveFile f = live.remove(e.file().fileName());
        if (f != null && f.fromWriter() && compact) {
          lags.add(s.timeMillis() - f.addedMillis());
        }
      }
    }
    for (ManifestEntry e : delta) {
      if (e.kind() == FileKind.ADD) {
        DataFileMeta file = e.file();
        Group group = new Group(primaryKey ? null : e.partition(), e.bucket());
        live.put(file.fileName(), new LiveFile(s.timeMillis(), !compact, file.level(), group));
        if (!compact) {
          writerBytes += file.fileSize();
          writerFiles++;
        } else {
          compactionBytes += file.fileSize();
          if (deleted.contains(file.fileName())) {
            movedBytes += file.fileSize();
          }
        }
      }
    }
    timeline.add(point(s.timeMillis()));
  }

  private Point point(long millis) {
    Map<Group, Integer> files = new HashMap<>();
    Map<Group, Integer> level0 = new HashMap<>();
    Map<Group, Set<Integer>> levels = new HashMap<>();
    for (LiveFile f : live.values()) {
      files.merge(f.group(), 1, Integer::sum);
      if (f.level() == 0) {
        level0.merge(f.group(), 1, Integer::sum);
      } else {
        levels.computeIfAbsent(f.group(), g -> new HashSet<>()).add(f.level());
      }
    }
    long maxFiles = 0;
    long maxLevel0 = 0;
    long maxRuns = 0;
    for (Map.Entry<Group, Integer> g : files.entrySet()) {
      int l0 = level0.getOrDefault(g.getKey(), 0);
      maxFiles = Math.max(maxFiles, g.getValue());
      maxLevel0 = Math.max(maxLevel0, l0);
      maxRuns = Math.max(maxRuns, l0 + levels.getOrDefault(g.getKey(), Set.of()).size());
    }
    return new Point(millis, maxFiles, live.size(), maxLevel0, maxRuns);
  }

  long writerBytes() {
    return writerBytes;
  }

  long writerFiles() {
    return writerFiles;
  }

  long liveFiles() {
    return live.size();
  }

  /**
   * Puts the figures into {@code out} under the peers' names: the state sampled every 5 s from
   * {@code start} to {@code tailMillis} after {@code writerEnd}; steady state from 60 s after the
   * start to the writer's end.
   */
  void report(long start, long writerEnd, long tailMillis, Map<String, Object> out) {
    List<Long> steadyFiles = new ArrayList<>();
    List<Long> steadyRuns = new ArrayList<>();
    long maxRuns = 0;
    long maxLevel0 = 0;
    int k = -1;
    for (long t = start; t <= writerEnd + tailMillis; t += StreamingBench.SAMPLE_MILLIS) {
      while (k + 1 < timeline.size() && timeline.get(k + 1).millis() <= t) {
        k++;
      }
      Point p = k >= 0 ? timeline.get(k) : new Point(t, 0, 0, 0, 0);
      maxRuns = Math.max(maxRuns, p.maxRuns());
      maxLevel0 = Math.max(maxLevel0, p.maxLevel0());
      if (t >= start + StreamingBench.STEADY_FROM_MILLIS && t <= writerEnd) {
        steadyFiles.add(p.maxPerGroup());
        steadyRuns.add(p.maxRuns());
      }
    }
    String unit = primaryKey ? "bucket" : "partition";
    out.put("steady_max_files_per_" + unit + "_mean", mean(steadyFiles));
    out.put("steady_max_files_per_" + unit + "_max", max(steadyFiles));
    if (primaryKey) {
      out.put("steady_max_sorted_runs_mean", mean(steadyRuns));
      out.put("steady_max_sorted_runs_max", max(steadyRuns));
      // the largest of the 5 s samples, as read off the peers' samples
      out.put("max_sorted_runs", maxRuns);
      out.put("max_level0_files", maxLevel0);
      // and of every commit, sampled or not: what num-sorted-run.stop-trigger bounds
      out.put(
          "max_sorted_runs_any_commit",
          timeline.stream().mapToLong(Point::maxRuns).max().orElse(0));
    }
    Point end = timeline.isEmpty() ? new Point(0, 0, 0, 0, 0) : timeline.get(timeline.size() - 1);
    out.put("end_max_files_per_" + unit, end.maxPerGroup());
    out.put("end_total_files", end.total());
    List<Long> sorted = new ArrayList<>(lags);
    Collections.sort(sorted);
    out.put("writer_files_compacted", sorted.size());
    out.put(
        "writer_files_never_compacted",
        live.values().stream().filter(LiveFile::fromWriter).count());
    out.put("lag_p50_s", percentile(sorted, 0.50));
    out.put("lag_p99_s", percentile(sorted, 0.99));
    out.put("lag_max_s", percentile(sorted, 1.0));
    out.put("writer_bytes", writerBytes);
    out.put("compaction_bytes", compactionBytes);
    out.put(
        "write_amplification", writerBytes == 0 ? null : (double) compactionBytes / writerBytes);
    out.put(
        "write_amplification_rewritten",
        writerBytes == 0 ? null : (double) (compactionBytes - movedBytes) / writerBytes);
    out.put("append_commits", appendCommits);
    // the writer commits every checkpoint: a longer gap is a stall (or a slow checkpoint)
    out.put("writer_commit_gap_max_s", maxAppendGapMillis / 1000.0);
    out.put("compact_commits", compactCommits);
  }

  private static Double mean(List<Long> values) {
    return values.isEmpty() ? null : values.stream().mapToLong(Long::longValue).average().orElse(0);
  }

  private static Long max(List<Long> values) {
    return values.isEmpty() ? null : Collections.max(values);
  }

  /** The value at quantile {@code q} of sorted millisecond values, in seconds (nearest rank). */
  static Double percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return null;
    }
    int i = (int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1);
    return sorted.get(Math.max(0, i)) / 1000.0;
  }
}
