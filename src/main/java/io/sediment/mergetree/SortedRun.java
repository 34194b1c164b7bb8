package io.sediment.mergetree;

import io.sediment.manifest.DataFileMeta;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;

/**
 * A sorted run of one bucket: one level-0 file, or all files of one level >= 1 (ordered by key,
 * non-overlapping).
 */
public record SortedRun(int level, List<DataFileMeta> files) {

  public long totalSize() {
    long s = 0;
    for (DataFileMeta f : files) {
      s += f.fileSize();
    }
    return s;
  }

  /** How many sorted runs a bucket's files make: each level-0 file one, each upper level one. */
  public static int count(Iterable<DataFileMeta> files) {
    int runs = 0;
    long upperLevels = 0; // a bit per level: there are fewer than 64
    for (DataFileMeta f : files) {
      if (f.level() == 0) {
        runs++;
      } else {
        upperLevels |= 1L << Math.min(f.level(), 63);
      }
    }
    return runs + Long.bitCount(upperLevels);
  }

  /**
   * The runs of a bucket's files, newest first: level-0 files by descending max sequence number,
   * then levels 1, 2, ... with their files in key order.
   */
  public static List<SortedRun> of(List<DataFileMeta> files, Comparator<RowData> keyRowComparator) {
    List<DataFileMeta> level0 = new ArrayList<>();
    TreeMap<Integer, List<DataFileMeta>> levels = new TreeMap<>();
    for (DataFileMeta f : files) {
      if (f.level() == 0) {
        level0.add(f);
      } else {
        levels.computeIfAbsent(f.level(), l -> new ArrayList<>()).add(f);
      }
    }
    level0.sort(
        Comparator.comparingLong(DataFileMeta::maxSequenceNumber)
            .thenComparingLong(DataFileMeta::minSequenceNumber)
            .reversed());
    List<SortedRun> runs = new ArrayList<>();
    for (DataFileMeta f : level0) {
      runs.add(new SortedRun(0, List.of(f)));
    }
    for (var e : levels.entrySet()) {
      List<DataFileMeta> l = e.getValue();
      l.sort((a, b) -> keyRowComparator.compare(a.minKey(), b.minKey()));
      runs.add(new SortedRun(e.getKey(), l));
    }
    return runs;
  }
}
