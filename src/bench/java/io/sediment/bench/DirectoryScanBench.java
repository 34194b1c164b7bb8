package io.sediment.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * W4 on directories of Parquet files from any writer ({@code sediment bench W4 --scan-dir}): the
 * files are scanned fully and one column alone, with Sediment's reader and with parquet-mr's, the
 * directories taking turns so that a machine whose speed drifts slows them alike. One untimed
 * warm-up round (JIT) precedes the measured rounds; the order of the directories alternates from
 * round to round. Every scan must read the rows the footers hold, and both readers the same values.
 */
public final class DirectoryScanBench {

  private static final String[] SCANS = {
    "sedimentFull", "sedimentColumn", "parquetMrFull", "parquetMrColumn"
  };

  private DirectoryScanBench() {}

  /** One directory's Parquet files, as they are scanned. */
  private record Target(Path dir, List<Path> files, long bytes, ScanBench.RowGroups groups) {
    long rows() {
      return groups.rows();
    }
  }

  /**
   * Scans every directory {@code rounds} times (after a warm-up round) and returns one result per
   * directory, in the given order: its {@code wallSeconds} is the median full scan with Sediment's
   * reader; the details hold each scan's median, minimum, maximum and per-round seconds.
   *
   * @param column the column of the one-column scans
   * @throws IllegalArgumentException if a directory holds no Parquet file, or a file lacks {@code
   *     column} or has a schema Sediment cannot read
   */
  public static List<BenchResult> run(List<Path> dirs, String column, int rounds)
      throws IOException {
    if (dirs.isEmpty()) {
      throw new IllegalArgumentException("No directory to scan");
    }
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds must be at least 1: " + rounds);
    }
    List<Target> targets = new ArrayList<>();
    for (Path dir : dirs) {
      targets.add(target(dir));
    }
    List<List<List<ScanBench.Scan>>> scans = new ArrayList<>(); // per target, per scan, per round
    for (int t = 0; t < targets.size(); t++) {
      List<List<ScanBench.Scan>> perScan = new ArrayList<>();
      for (int s = 0; s < SCANS.length; s++) {
        perScan.add(new ArrayList<>());
      }
      scans.add(perScan);
    }
    for (int round = 0; round <= rounds; round++) {
      List<Integer> order = new ArrayList<>();
      for (int t = 0; t < targets.size(); t++) {
        order.add(t);
      }
      if (round % 2 == 0) {
        Collections.reverse(order);
      }
      for (int t : order) {
        List<ScanBench.Scan> four = scanOnce(targets.get(t).files(), column);
        if (round > 0) { // round 0 warms up the JIT
          for (int s = 0; s < SCANS.length; s++) {
            scans.get(t).get(s).add(four.get(s));
          }
        }
      }
    }
    List<BenchResult> results = new ArrayList<>();
    for (int t = 0; t < targets.size(); t++) {
      results.add(result(targets.get(t), column, scans.get(t)));
    }
    return results;
  }

  private static List<ScanBench.Scan> scanOnce(List<Path> files, String column) throws IOException {
    return List.of(
        ScanBench.sedimentFiles(files, null),
        ScanBench.sedimentFiles(files, column),
        ScanBench.parquetMrOnce(files, null),
        ScanBench.parquetMrOnce(files, column));
  }

  /** The regular files named {@code *.parquet} under {@code dir} (recursively), sorted. */
  static List<Path> parquetFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--scan-dir " + dir + " is not a directory");
    }
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files =
          walk.filter(
                  p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".parquet"))
              .sorted()
              .toList();
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException("--scan-dir " + dir + " holds no *.parquet file");
    }
    return files;
  }

  private static Target target(Path dir) throws IOException {
    List<Path> files = parquetFiles(dir);
    long bytes = 0;
    for (Path f : files) {
      bytes += Files.size(f);
    }
    ScanBench.RowGroups groups = ScanBench.rowGroups(files);
    return new Target(dir, files, bytes, groups);
  }

  private static BenchResult result(
      Target target, String column, List<List<ScanBench.Scan>> perScan) {
    StringBuilder problems = new StringBuilder();
    for (int s = 0; s < SCANS.length; s++) {
      for (ScanBench.Scan scan : perScan.get(s)) {
        if (scan.rows() != target.rows()) {
          problems
              .append(SCANS[s])
              .append(" read ")
              .append(scan.rows())
              .append(" rows, the footers hold ")
              .append(target.rows())
              .append("; ");
          break;
        }
      }
    }
    List<ScanBench.Scan> sedimentFull = perScan.get(0);
    List<ScanBench.Scan> sedimentColumn = perScan.get(1);
    for (int r = 0; r < sedimentFull.size(); r++) {
      if (sedimentFull.get(r).checksum() != perScan.get(2).get(r).checksum()) {
        problems.append("the full scans of the two readers read different values; ");
        break;
      }
      if (sedimentColumn.get(r).checksum() != perScan.get(3).get(r).checksum()) {
        problems.append("the '").append(column).append("' scans read different values; ");
        break;
      }
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("dir", target.dir().toString());
    details.put("column", column);
    details.put("rounds", sedimentFull.size());
    double[] medians = new double[SCANS.length];
    for (int s = 0; s < SCANS.length; s++) {
      List<Double> seconds = perScan.get(s).stream().map(ScanBench.Scan::seconds).toList();
      medians[s] = median(seconds);
      details.put(SCANS[s] + "Seconds", medians[s]);
      details.put(SCANS[s] + "MinSeconds", Collections.min(seconds));
      details.put(SCANS[s] + "MaxSeconds", Collections.max(seconds));
      details.put(SCANS[s] + "RowsPerSecond", target.rows() / medians[s]);
      details.put(SCANS[s] + "RoundSeconds", format(seconds));
      List<Double> cpu = perScan.get(s).stream().map(ScanBench.Scan::cpuSeconds).toList();
      details.put(SCANS[s] + "CpuSeconds", median(cpu));
      details.put(SCANS[s] + "RoundCpuSeconds", format(cpu));
      details.put(
          SCANS[s] + "GcSeconds",
          median(perScan.get(s).stream().map(ScanBench.Scan::gcSeconds).toList()));
    }
    details.put("columnChecksum", sedimentColumn.get(0).checksum());
    details.put("rowGroups", target.groups().count());
    details.put("rowGroupsPerFile", target.groups().perFile().toString());
    details.put("rowGroupMinBytes", target.groups().minBytes());
    details.put("rowGroupMaxBytes", target.groups().maxBytes());
    boolean ok = problems.length() == 0;
    String verification =
        ok
            ? String.format(
                Locale.ROOT,
                "%s: %d rows; median of %d rounds: full scan %.3f s Sediment, %.3f s parquet-mr;"
                    + " '%s' scan %.3f s Sediment, %.3f s parquet-mr; %s",
                target.dir(),
                target.rows(),
                sedimentFull.size(),
                medians[0],
                medians[2],
                column,
                medians[1],
                medians[3],
                target.groups().describe())
            : target.dir() + ": " + problems;
    return new BenchResult(
        "W4",
        "scan-dir",
        medians[0],
        0,
        0,
        target.rows(),
        target.rows() / medians[0],
        target.bytes(),
        target.bytes() / medians[0],
        target.files().size(),
        target.files().size(),
        0,
        "as in the files",
        ok,
        verification,
        details);
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String format(List<Double> seconds) {
    StringBuilder b = new StringBuilder("[");
    for (double s : seconds) {
      b.append(b.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%.3f", s));
    }
    return b.append(']').toString();
  }
}
