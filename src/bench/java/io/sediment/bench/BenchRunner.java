package io.sediment.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.compact.SortOrder;
import io.sediment.fs.FileIO;
import io.sediment.fs.ObjectStoreRequests;
import io.sediment.fs.ObjectStoreRequests.Counts;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;

/**
 * Runs one canonical workload: generates it (not timed), runs the compaction with the given
 * compactor (timed), verifies the result, and reports the figures.
 */
public final class BenchRunner {

  /** Runs a compaction of a table with dynamic options; the Flink job or CompactBuilder. */
  public interface Compactor {
    /** Compacts {@code table} with {@code options}, sorted by {@code order} unless it is null. */
    CompactResult compact(Table table, Map<String, String> options, SortOrder order)
        throws Exception;
  }

  /** W1/W2 compaction options: full compaction, rewrite parallelism 2. */
  public static final Map<String, String> OPTIONS =
      Map.of("compaction.full", "true", "compaction.parallelism", "2");

  private BenchRunner() {}

  public static BenchResult run(String workload, Path dir, String mode, Compactor compactor)
      throws Exception {
    return run(workload, dir, mode, compactor, Scale.FULL);
  }

  public static BenchResult run(
      String workload, Path dir, String mode, Compactor compactor, Scale scale) throws Exception {
    Files.createDirectories(dir);
    return run(workload, dir.toString(), mode, compactor, scale, Map.of());
  }

  /**
   * A run in any warehouse ({@code s3://bucket/path} too), its tables created with {@code
   * tableOptions} (the commit lock on an object store). On an object store, W1 and W3 also report
   * the requests they sent ({@link ObjectStoreRequests}): W1's generation (its commits) and
   * compaction, W3's full plan.
   */
  public static BenchResult run(
      String workload,
      String warehouse,
      String mode,
      Compactor compactor,
      Scale scale,
      Map<String, String> tableOptions)
      throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    boolean objectStore = FileIO.isObjectStore(warehouse);
    switch (workload.toUpperCase(Locale.ROOT)) {
      case "W1":
        return w1(catalog, mode, compactor, scale, tableOptions, objectStore);
      case "W3":
        return PlanningBench.run(catalog, mode, scale, tableOptions, objectStore);
      case "W2":
        return w2(catalog, mode, compactor, scale);
      case "W4":
        return w4(catalog, mode, compactor, scale);
      case "W6":
        return SortBench.run(catalog, mode, compactor, scale);
      default:
        throw new IllegalArgumentException(
            "Unknown workload '" + workload + "'; workloads are W1, W2, W3, W4 and W6");
    }
  }

  private static BenchResult w1(
      FileSystemCatalog catalog, String mode, Compactor compactor, Scale scale) throws Exception {
    return w1(catalog, mode, compactor, scale, Map.of(), false);
  }

  private static BenchResult w1(
      FileSystemCatalog catalog,
      String mode,
      Compactor compactor,
      Scale scale,
      Map<String, String> tableOptions,
      boolean countRequests)
      throws Exception {
    Counts beforeGeneration = ObjectStoreRequests.now();
    Table table =
        Workload.generateW1(
            catalog, "zstd", 1, scale.w1Commits(), scale.w1RowsPerCommit(), tableOptions);
    Counts generation = ObjectStoreRequests.now().since(beforeGeneration);
    long totalRows = (long) scale.w1Commits() * scale.w1RowsPerCommit();
    long sumId = totalRows * (totalRows - 1) / 2;
    List<DataFileMeta> inputs = liveFiles(table);
    long inputBytes = inputs.stream().mapToLong(DataFileMeta::fileSize).sum();

    Counts beforeCompaction = ObjectStoreRequests.now();
    Timed timed = timeCompaction(table, compactor);
    Counts compaction = ObjectStoreRequests.now().since(beforeCompaction);

    // Verify: rows, sum of ids, one COMPACT snapshot, no input file left.
    StringBuilder problems = new StringBuilder();
    Snapshot latest = checkOneCompactSnapshot(table, scale.w1Commits() + 1, problems);
    List<DataFileMeta> after = liveFiles(table);
    checkInputsGone(inputs, after, problems);
    long[] countAndSum = countAndSumIds(table);
    if (countAndSum[0] != totalRows) {
      problems.append("row count ").append(countAndSum[0]).append("; ");
    }
    if (countAndSum[1] != sumId) {
      problems.append("sum(id) ").append(countAndSum[1]).append("; ");
    }
    Map<String, Object> details = new LinkedHashMap<>();
    if (countRequests) {
      // The commits of the generation (each also writes its data file) and the compaction, which
      // includes an untimed plan before it (timeCompaction).
      details.put("generationCommits", scale.w1Commits());
      details.putAll(generation.toMap("generationRequests"));
      details.putAll(compaction.toMap("compactionRequests"));
    }
    ScanBench.RowGroups groups =
        countRequests ? null : ScanBench.rowGroups(ScanBench.dataFiles(table));
    if (groups != null) {
      details.putAll(rowGroupDetails(groups));
    }
    return timed
        .report(
            "W1",
            mode,
            totalRows,
            inputBytes,
            inputs.size(),
            after.size(),
            problems,
            () ->
                totalRows
                    + " rows, sum(id) ok, snapshot "
                    + latest.id()
                    + " COMPACT, tasks "
                    + timed.plan().size()
                    + ", snapshotId "
                    + timed.result().snapshotId()
                    + (groups == null ? "" : "; output " + groups.describe()))
        .withDetails(details);
  }

  private static Map<String, Object> rowGroupDetails(ScanBench.RowGroups groups) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("outputRowGroups", groups.count());
    d.put("rowGroupsPerOutputFile", groups.perFile().toString());
    d.put("rowGroupMinBytes", groups.minBytes());
    d.put("rowGroupMaxBytes", groups.maxBytes());
    return d;
  }

  /**
   * W4: W1 generated and compacted (as W1, verified), then its output scanned, fully and the {@code
   * id} column alone, with Sediment's reader and with parquet-mr's (the neutral reader): a faster
   * compaction must not buy its speed with slower reads. The result's wall seconds are Sediment's
   * full scan; every scan's figures are in the details.
   */
  private static BenchResult w4(
      FileSystemCatalog catalog, String mode, Compactor compactor, Scale scale) throws Exception {
    BenchResult compaction = w1(catalog, mode, compactor, scale);
    Table table = catalog.getTable(new Identifier("bench", "w1"));
    long totalRows = (long) scale.w1Commits() * scale.w1RowsPerCommit();
    long sumId = totalRows * (totalRows - 1) / 2;
    List<Path> files = ScanBench.dataFiles(table);
    long bytes = 0;
    for (Path f : files) {
      bytes += Files.size(f);
    }
    ScanBench.RowGroups groups = ScanBench.rowGroups(files);
    resetPeakHeap();
    ScanBench.Scan sedimentFull = ScanBench.sediment(table, null);
    ScanBench.Scan sedimentId = ScanBench.sediment(table, "id");
    ScanBench.Scan parquetFull = ScanBench.parquetMr(files, null);
    ScanBench.Scan parquetId = ScanBench.parquetMr(files, "id");

    StringBuilder problems = new StringBuilder();
    if (!compaction.verified()) {
      problems.append("W1: ").append(compaction.verification()).append("; ");
    }
    for (ScanBench.Scan s : List.of(sedimentFull, sedimentId, parquetFull, parquetId)) {
      if (s.rows() != totalRows) {
        problems.append("a scan read ").append(s.rows()).append(" rows; ");
      }
    }
    if (sedimentId.checksum() != sumId || parquetId.checksum() != sumId) {
      problems.append("sum(id) of a scan wrong; ");
    }
    if (sedimentFull.checksum() != parquetFull.checksum()) {
      problems.append("the full scans read different values; ");
    }
    boolean ok = problems.length() == 0;
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("w1WallSeconds", compaction.wallSeconds());
    details.put("w1CpuSeconds", compaction.cpuSeconds());
    putScan(details, "sedimentFull", sedimentFull);
    putScan(details, "sedimentId", sedimentId);
    putScan(details, "parquetMrFull", parquetFull);
    putScan(details, "parquetMrId", parquetId);
    details.putAll(rowGroupDetails(groups));
    String verification =
        ok
            ? String.format(
                Locale.ROOT,
                "%d rows; full scan %.3f s Sediment, %.3f s parquet-mr; id scan %.3f s Sediment,"
                    + " %.3f s parquet-mr; W1 compaction %.3f s; output %s",
                totalRows,
                sedimentFull.seconds(),
                parquetFull.seconds(),
                sedimentId.seconds(),
                parquetId.seconds(),
                compaction.wallSeconds(),
                groups.describe())
            : problems.toString();
    return new BenchResult(
        "W4",
        mode,
        sedimentFull.seconds(),
        0,
        0,
        totalRows,
        sedimentFull.rowsPerSecond(),
        bytes,
        bytes / sedimentFull.seconds(),
        files.size(),
        files.size(),
        peakHeap(),
        "zstd level 1",
        ok,
        verification,
        details);
  }

  private static void putScan(Map<String, Object> details, String name, ScanBench.Scan scan) {
    details.put(name + "Seconds", scan.seconds());
    details.put(name + "RowsPerSecond", Math.round(scan.rowsPerSecond()));
    details.put(name + "CpuSeconds", scan.cpuSeconds());
  }

  /**
   * Write buffer of the W2 writers: 1 GiB (one level-0 run per bucket and commit, as the peers
   * generate it) when the heap holds it, else a sixth of the heap (more, smaller runs; reported).
   */
  static long w2WriteBuffer(Scale scale) {
    long max = Runtime.getRuntime().maxMemory();
    // A buffered row costs about 250 bytes of heap; both buckets buffer half a commit each.
    long needed = (long) scale.w2RowsPerCommit() * 250;
    return needed * 3 < max ? 1L << 30 : Math.max(4L << 20, max / 6);
  }

  private static BenchResult w2(
      FileSystemCatalog catalog, String mode, Compactor compactor, Scale scale) throws Exception {
    Workload.W2Model model =
        new Workload.W2Model(scale.w2Commits(), scale.w2RowsPerCommit(), scale.w2KeySpace());
    long buffer = w2WriteBuffer(scale);
    Table table = Workload.generateW2(catalog, model, buffer + " b");
    List<DataFileMeta> inputs = liveFiles(table);
    long inputBytes = inputs.stream().mapToLong(DataFileMeta::fileSize).sum();
    long rowsRead = inputs.stream().mapToLong(DataFileMeta::rowCount).sum();
    long level0 = inputs.stream().filter(f -> f.level() == 0).count();
    Snapshot before = table.latestSnapshot().orElseThrow();

    Timed timed = timeCompaction(table, compactor);

    StringBuilder problems = new StringBuilder();
    Snapshot latest = checkOneCompactSnapshot(table, before.id() + 1, problems);
    List<DataSplit> splits = table.newReadBuilder().newScan().plan().splits();
    List<DataFileMeta> after = new ArrayList<>();
    int maxLevel = table.options().numLevels() - 1;
    for (DataSplit s : splits) {
      after.addAll(s.files());
    }
    checkInputsGone(inputs, after, problems);
    for (DataSplit s : splits) {
      for (DataFileMeta f : s.files()) {
        if (f.level() != maxLevel) {
          problems.append(f.fileName()).append(" at level ").append(f.level()).append("; ");
        }
      }
    }
    long[] check = verifyW2(table, splits, model, problems);
    long distinct = model.distinctIds();
    if (check[0] != distinct) {
      problems
          .append("row count ")
          .append(check[0])
          .append(", distinct ids written ")
          .append(distinct)
          .append("; ");
    }
    return timed.report(
        "W2",
        mode,
        rowsRead,
        inputBytes,
        inputs.size(),
        after.size(),
        problems,
        () ->
            String.format(
                Locale.ROOT,
                "%d upserts read, %d rows = distinct ids written, every row's values those of the"
                    + " last commit writing its id; %d level-0 runs before (write buffer %d MiB);"
                    + " all outputs at level %d; snapshot %d COMPACT, tasks %d, snapshotId %s",
                rowsRead,
                check[0],
                level0,
                buffer >> 20,
                maxLevel,
                latest.id(),
                timed.plan().size(),
                timed.result().snapshotId()));
  }

  /**
   * Streams the table and checks every row against the W2 model: ids unique (a bit set over the key
   * space), values those of the last commit writing the id. Returns {rows, mismatches}.
   */
  private static long[] verifyW2(
      Table table, List<DataSplit> splits, Workload.W2Model model, StringBuilder problems)
      throws IOException {
    BitSet seen = new BitSet(model.keySpace);
    GenericRowData expected = new GenericRowData(6);
    byte[] note = new byte[32];
    TableRead read = table.newReadBuilder().newRead();
    long rows = 0;
    long mismatches = 0;
    for (DataSplit split : splits) {
      try (TableRead.RecordReader r = read.createReader(split)) {
        RowData row;
        while ((row = r.next()) != null) {
          rows++;
          long id = row.getLong(0);
          if (id < 0 || id >= model.keySpace || seen.get((int) id)) {
            if (mismatches++ < 3) {
              problems.append("duplicate or unknown id ").append(id).append("; ");
            }
            continue;
          }
          seen.set((int) id);
          long i = model.lastWrite(id);
          if (i < 0) {
            if (mismatches++ < 3) {
              problems.append("id ").append(id).append(" never written; ");
            }
            continue;
          }
          Workload.fill(expected, id, i, note);
          if (row.getLong(1) != expected.getLong(1)
              || !row.getString(2).equals(expected.getString(2))
              || row.getDouble(3) != expected.getDouble(3)
              || !row.getString(4).equals(expected.getString(4))
              || !row.getTimestamp(5, 3).equals(expected.getTimestamp(5, 3))) {
            if (mismatches++ < 3) {
              problems.append("id ").append(id).append(" has values of another commit; ");
            }
          }
        }
      }
    }
    if (mismatches > 3) {
      problems.append(mismatches).append(" mismatching rows in all; ");
    }
    return new long[] {rows, mismatches};
  }

  /** The timed part of a run: an untimed plan for the report, then the compaction itself. */
  private record Timed(
      List<CompactTask> plan,
      double planSeconds,
      CompactResult result,
      double wallSeconds,
      double cpuSeconds,
      long peakHeap) {

    /** The report of a verified run ({@code problems} empty) or of a failed verification. */
    BenchResult report(
        String workload,
        String mode,
        long rows,
        long inputBytes,
        long filesIn,
        long filesOut,
        CharSequence problems,
        Supplier<String> verification) {
      boolean ok = problems.length() == 0;
      return new BenchResult(
          workload,
          mode,
          wallSeconds,
          planSeconds,
          cpuSeconds,
          rows,
          rows / wallSeconds,
          inputBytes,
          inputBytes / wallSeconds,
          filesIn,
          filesOut,
          peakHeap,
          "zstd level 1",
          ok,
          ok ? verification.get() : problems.toString());
    }
  }

  private static Timed timeCompaction(Table table, Compactor compactor) throws Exception {
    syncTable(table);
    long planStart = System.nanoTime();
    List<CompactTask> plan = table.newCompactBuilder().withOptions(OPTIONS).plan();
    double planSeconds = (System.nanoTime() - planStart) / 1e9;
    resetPeakHeap();
    long cpuStart = processCpuNanos();
    long start = System.nanoTime();
    CompactResult result = compactor.compact(table, OPTIONS, null);
    double wall = (System.nanoTime() - start) / 1e9;
    double cpu = (processCpuNanos() - cpuStart) / 1e9;
    return new Timed(plan, planSeconds, result, wall, cpu, peakHeap());
  }

  /**
   * Flushes the generated table to disk before the timed section (like the peers' harness runs
   * {@code sync}), so the write-back of the fresh input does not overlap the compaction. The files
   * stay in the page cache.
   */
  private static void syncTable(Table table) throws IOException {
    Path root;
    try {
      root = Paths.get(table.store().paths().root().toUri());
    } catch (RuntimeException notLocal) {
      return; // not a local file system: nothing to flush from here
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(f)) {
          try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ)) {
            c.force(true);
          }
        }
      }
    }
  }

  /** Notes a problem unless the latest snapshot is the one expected COMPACT snapshot. */
  private static Snapshot checkOneCompactSnapshot(
      Table table, long expectedId, StringBuilder problems) {
    Snapshot latest = table.latestSnapshot().orElseThrow();
    if (latest.commitKind() != CommitKind.COMPACT || latest.id() != expectedId) {
      problems
          .append("latest snapshot is ")
          .append(latest.id())
          .append(' ')
          .append(latest.commitKind())
          .append("; ");
    }
    return latest;
  }

  /** Notes a problem for every input file still live after the compaction. */
  private static void checkInputsGone(
      List<DataFileMeta> inputs, List<DataFileMeta> after, StringBuilder problems) {
    Set<String> inputNames = new HashSet<>();
    inputs.forEach(f -> inputNames.add(f.fileName()));
    for (DataFileMeta f : after) {
      if (inputNames.contains(f.fileName())) {
        problems.append("input ").append(f.fileName()).append(" still live; ");
      }
    }
  }

  static List<DataFileMeta> liveFiles(Table table) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  static long[] countAndSumIds(Table table) throws IOException {
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

  /**
   * Collects the garbage of the generation, so that the peak heap reported counts what the timed
   * section holds, without giving the heap back: a full collection otherwise shrinks a default heap
   * to about its live data (160 MB after W2's generation), and the timed compaction then regrows it
   * through young collections and first-touch page faults (about a second of W2's 4 s here) that
   * neither the peers' harness (a fixed 8 GiB heap, no collection before its timed section) nor a
   * Flink TaskManager (a fixed heap) pays. MaxHeapFreeRatio is a manageable flag; this process only
   * benchmarks, so it stays at 100.
   */
  static void resetPeakHeap() {
    try {
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .setVMOption("MaxHeapFreeRatio", "100");
    } catch (RuntimeException e) {
      System.err.println("bench: the heap may shrink at the collection before timing: " + e);
    }
    System.gc();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** CPU time of this process so far (all threads), or 0 where the JVM cannot tell. */
  static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return Math.max(0, os.getProcessCpuTime());
    }
    return 0;
  }

  /** Sum of the heap pools' peak usage since the last reset (an upper bound of the peak). */
  static long peakHeap() {
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
