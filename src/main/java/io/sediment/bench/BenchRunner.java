package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import io.sediment.table.TableScan;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;

/**
 * Runs one canonical workload: generates it (not timed), runs the compaction with the given
 * compactor (timed), verifies the result, and reports the figures.
 */
public final class BenchRunner {

  /** Runs a compaction of a table with dynamic options; the Flink job or CompactBuilder. */
  public interface Compactor {
    CompactResult compact(Table table, Map<String, String> options) throws Exception;
  }

  /** W1/W2 compaction options: full compaction, rewrite parallelism 2. */
  public static final Map<String, String> OPTIONS =
      Map.of("compaction.full", "true", "compaction.parallelism", "2");

  private BenchRunner() {}

  public static BenchResult run(String workload, Path dir, String mode, Compactor compactor)
      throws Exception {
    Files.createDirectories(dir);
    FileSystemCatalog catalog = new FileSystemCatalog(dir.toString());
    switch (workload.toUpperCase(java.util.Locale.ROOT)) {
      case "W1":
        return w1(catalog, mode, compactor);
      case "W3":
        return w3(catalog, mode);
      case "W2":
        throw new IllegalArgumentException(
            "W2 needs primary-key tables, which this build cannot compact yet");
      default:
        throw new IllegalArgumentException(
            "Unknown workload '" + workload + "'; workloads are W1, W2 and W3");
    }
  }

  private static BenchResult w1(FileSystemCatalog catalog, String mode, Compactor compactor)
      throws Exception {
    Table table = Workload.generateW1(catalog, "zstd", 1);
    List<DataFileMeta> inputs = liveFiles(table);
    long inputBytes = inputs.stream().mapToLong(DataFileMeta::fileSize).sum();

    long planStart = System.nanoTime();
    List<CompactTask> plan = table.newCompactBuilder().withOptions(OPTIONS).plan();
    double planSeconds = (System.nanoTime() - planStart) / 1e9;

    resetPeakHeap();
    long start = System.nanoTime();
    CompactResult result = compactor.compact(table, OPTIONS);
    double wall = (System.nanoTime() - start) / 1e9;
    long peakHeap = peakHeap();

    // Verify: rows, sum of ids, one COMPACT snapshot, no input file left.
    StringBuilder problems = new StringBuilder();
    Snapshot latest = table.latestSnapshot().orElseThrow();
    if (latest.commitKind() != CommitKind.COMPACT || latest.id() != Workload.W1_COMMITS + 1) {
      problems.append("latest snapshot is ").append(latest.id()).append(' ').append(latest.commitKind()).append("; ");
    }
    Set<String> inputNames = new HashSet<>();
    inputs.forEach(f -> inputNames.add(f.fileName()));
    List<DataFileMeta> after = liveFiles(table);
    for (DataFileMeta f : after) {
      if (inputNames.contains(f.fileName())) {
        problems.append("input ").append(f.fileName()).append(" still live; ");
        break;
      }
    }
    long[] countAndSum = countAndSumIds(table);
    if (countAndSum[0] != Workload.W1_ROWS) {
      problems.append("row count ").append(countAndSum[0]).append("; ");
    }
    if (countAndSum[1] != Workload.W1_SUM_ID) {
      problems.append("sum(id) ").append(countAndSum[1]).append("; ");
    }
    boolean ok = problems.length() == 0;
    return new BenchResult(
        "W1",
        mode,
        wall,
        planSeconds,
        Workload.W1_ROWS,
        Workload.W1_ROWS / wall,
        inputBytes,
        inputBytes / wall,
        inputs.size(),
        after.size(),
        peakHeap,
        "zstd level 1",
        ok,
        ok
            ? "10000000 rows, sum(id) ok, snapshot " + latest.id() + " COMPACT, tasks " + plan.size()
                + ", snapshotId " + result.snapshotId()
            : problems.toString());
  }

  private static BenchResult w3(FileSystemCatalog catalog, String mode) throws Exception {
    Table table = Workload.generateW3(catalog);
    // Full compaction planning of all 20,000 files.
    Map<String, String> full = Map.of("compaction.full", "true");
    long start = System.nanoTime();
    List<CompactTask> all = table.newCompactBuilder().withOptions(full).plan();
    double fullSeconds = (System.nanoTime() - start) / 1e9;
    // One partition.
    String filter =
        "{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"" + Workload.w3Partition(123) + "\"]}";
    start = System.nanoTime();
    List<CompactTask> one = table.newCompactBuilder().withOptions(full).withPartitionFilter(filter).plan();
    double oneSeconds = (System.nanoTime() - start) / 1e9;
    TableScan.Plan scan = table.newReadBuilder().withFilter(filter).newScan().plan();

    int files = all.stream().mapToInt(t -> t.inputs().size()).sum();
    int oneFiles = one.stream().mapToInt(t -> t.inputs().size()).sum();
    boolean ok =
        files == Workload.W3_PARTITIONS * Workload.W3_FILES_PER_PARTITION
            && oneFiles == Workload.W3_FILES_PER_PARTITION;
    long rows = (long) files * Workload.W3_ROWS_PER_FILE;
    return new BenchResult(
        "W3",
        mode,
        fullSeconds,
        oneSeconds,
        rows,
        rows / fullSeconds,
        0,
        0,
        files,
        0,
        peakHeap(),
        "zstd level 1",
        ok,
        String.format(
            java.util.Locale.ROOT,
            "full plan %d tasks/%d files in %.3fs; one-partition plan %d files in %.4fs,"
                + " manifests read %d, skipped %d",
            all.size(), files, fullSeconds, oneFiles, oneSeconds, scan.manifestsRead(),
            scan.manifestsSkipped()));
  }

  static List<DataFileMeta> liveFiles(Table table) {
    List<DataFileMeta> out = new java.util.ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  private static long[] countAndSumIds(Table table) throws IOException {
    var rb = table.newReadBuilder().withProjection("id");
    TableRead read = rb.newRead();
    long count = 0;
    long sum = 0;
    for (DataSplit split : rb.newScan().plan().splits()) {
      try (TableRead.RecordReader r = read.createReader(split)) {
        RowData row;
        while ((row = r.next()) != null) {
          count++;
          sum += row.getLong(0);
        }
      }
    }
    return new long[] {count, sum};
  }

  private static void resetPeakHeap() {
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** Sum of the heap pools' peak usage since the last reset (an upper bound of the peak). */
  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** Deletes a benchmark directory. */
  public static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
