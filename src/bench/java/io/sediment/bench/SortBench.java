package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.compact.SortOrder;
import io.sediment.format.DataFileReader;
import io.sediment.format.RowGroupPruning;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * W6 of WORKLOAD.md: W1's 200 files compacted three ways from the same input (the plain full
 * compaction, a sort by {@code user_id}, a z-order of {@code user_id, amount}), each timed as W1,
 * and after each, two filtered scans (Q1 {@code user_id BETWEEN 500000 AND 500999}, Q2 {@code
 * user_id < 10000 AND amount < 10.0}) reporting the files and row groups read after statistics
 * pruning, the rows read and returned, and the scan's wall and CPU seconds (median of three, after
 * one warm-up). Each layout's returned rows must equal the unsorted layout's.
 */
final class SortBench {

  /** A layout: its name and the order of its compaction (null: the plain full compaction). */
  private record Layout(String name, SortOrder order) {}

  private static final List<Layout> LAYOUTS =
      List.of(
          new Layout("unsorted", null),
          new Layout("linear", SortOrder.of("order", "user_id")),
          new Layout("zorder", SortOrder.of("zorder", "user_id,amount")));

  /** The figures of one query on one layout. */
  record Query(
      int filesRead,
      int rowGroupsRead,
      long rowsRead,
      long rowsReturned,
      long checksum,
      double seconds,
      double cpuSeconds) {}

  private SortBench() {}

  static BenchResult run(
      FileSystemCatalog catalog, String mode, BenchRunner.Compactor compactor, Scale scale)
      throws Exception {
    Table table =
        Workload.generateW1(
            catalog, "zstd", 1, scale.w1Commits(), scale.w1RowsPerCommit(), Map.of());
    long totalRows = (long) scale.w1Commits() * scale.w1RowsPerCommit();
    long sumId = totalRows * (totalRows - 1) / 2;
    Path root = Paths.get(table.store().paths().root().toUri());
    Path input = root.resolveSibling(root.getFileName() + "-w6-input");
    copy(root, input);
    List<DataFileMeta> inputs = BenchRunner.liveFiles(table);
    long inputBytes = inputs.stream().mapToLong(DataFileMeta::fileSize).sum();
    int inputFiles = inputs.size();

    Map<String, Object> details = new LinkedHashMap<>();
    StringBuilder problems = new StringBuilder();
    StringBuilder summary = new StringBuilder();
    Map<String, Query> unsorted = new LinkedHashMap<>();
    double linearSeconds = 0;
    double linearCpu = 0;
    try {
      for (Layout layout : LAYOUTS) {
        BenchRunner.deleteRecursively(root);
        copy(input, root);
        table = catalog.getTable(table.fullName());
        long cpuStart = BenchRunner.processCpuNanos();
        long start = System.nanoTime();
        CompactResult r = compactor.compact(table, BenchRunner.OPTIONS, layout.order());
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = (BenchRunner.processCpuNanos() - cpuStart) / 1e9;
        table = catalog.getTable(table.fullName());
        Snapshot latest = table.latestSnapshot().orElseThrow();
        if (latest.commitKind() != CommitKind.COMPACT || r.rowsWritten() != totalRows) {
          problems.append(layout.name()).append(": not one full COMPACT snapshot; ");
        }
        List<DataFileMeta> files = BenchRunner.liveFiles(table);
        String p = layout.name();
        details.put(p + "CompactionSeconds", round(seconds));
        details.put(p + "CompactionCpuSeconds", round(cpu));
        details.put(p + "Files", files.size());
        details.put(p + "RowGroups", rowGroups(table));
        if (layout.order() != null && layout.order().strategy() == SortOrder.Strategy.ORDER) {
          linearSeconds = seconds;
          linearCpu = cpu;
        }
        Query all = query(table, null);
        details.put(p + "FullScanSeconds", round(all.seconds()));
        if (all.rowsReturned() != totalRows || all.checksum() != sumId) {
          problems.append(p).append(": rows or sum(id) differ after compaction; ");
        }
        summary.append(String.format(Locale.ROOT, "%s %.2fs", p, seconds));
        for (Map.Entry<String, Predicate> q : queries(table).entrySet()) {
          Query result = query(table, q.getValue());
          String k = p + q.getKey();
          details.put(k + "FilesRead", result.filesRead());
          details.put(k + "RowGroupsRead", result.rowGroupsRead());
          details.put(k + "RowsRead", result.rowsRead());
          details.put(k + "RowsReturned", result.rowsReturned());
          details.put(k + "ScanSeconds", round(result.seconds()));
          details.put(k + "ScanCpuSeconds", round(result.cpuSeconds()));
          summary.append(
              String.format(
                  Locale.ROOT,
                  "; %s %d files/%d row groups %.3fs",
                  q.getKey(),
                  result.filesRead(),
                  result.rowGroupsRead(),
                  result.seconds()));
          Query base = unsorted.putIfAbsent(q.getKey(), result);
          if (base != null
              && (base.rowsReturned() != result.rowsReturned()
                  || base.checksum() != result.checksum())) {
            problems.append(p).append(' ').append(q.getKey()).append(" returned other rows; ");
          }
        }
        summary.append(" | ");
      }
    } finally {
      BenchRunner.deleteRecursively(input);
    }
    boolean ok = problems.length() == 0;
    return new BenchResult(
        "W6",
        mode,
        linearSeconds,
        0,
        linearCpu,
        totalRows,
        totalRows / Math.max(linearSeconds, 1e-9),
        inputBytes,
        inputBytes / Math.max(linearSeconds, 1e-9),
        inputFiles,
        (Integer) details.get("linearFiles"),
        0,
        "zstd level 1",
        ok,
        ok ? summary.toString() : problems.toString(),
        details);
  }

  private static Map<String, Predicate> queries(Table table) {
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    Map<String, Predicate> q = new LinkedHashMap<>();
    q.put("Q1", pb.between("user_id", 500_000L, 500_999L));
    q.put("Q2", PredicateBuilder.and(pb.lessThan("user_id", 10_000L), pb.lessThan("amount", 10.0)));
    return q;
  }

  /** A filtered scan of every column: one warm-up, then the median of three. */
  static Query query(Table table, Predicate filter) throws IOException {
    List<Query> runs = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      runs.add(scan(table, filter));
    }
    runs.remove(0);
    runs.sort((a, b) -> Double.compare(a.seconds(), b.seconds()));
    return runs.get(1);
  }

  private static Query scan(Table table, Predicate filter) throws IOException {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuStart = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    ReadBuilder rb = table.newReadBuilder();
    if (filter != null) {
      rb.withFilter(filter);
    }
    List<DataSplit> splits = rb.newScan().plan().splits();
    TableRead read = rb.newRead();
    long rows = 0;
    long checksum = 0;
    for (DataSplit split : splits) {
      try (TableRead.RecordReader reader = read.createReader(split)) {
        RowData row;
        while ((row = reader.next()) != null) {
          rows++;
          checksum += row.getLong(0);
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
    int files = 0;
    for (DataSplit s : splits) {
      files += s.files().size();
    }
    long[] groups = keptRowGroups(table, splits, filter);
    return new Query(files, (int) groups[0], groups[1], rows, checksum, seconds, cpu);
  }

  /** Row groups (and their rows) of the planned files that statistics pruning keeps. */
  private static long[] keptRowGroups(Table table, List<DataSplit> splits, Predicate filter)
      throws IOException {
    long groups = 0;
    long rows = 0;
    for (DataSplit s : splits) {
      for (DataFileMeta f : s.files()) {
        ParquetMetadata footer = footer(table, s, f);
        if (filter != null) {
          footer = RowGroupPruning.prune(footer, table.rowType(), filter);
        }
        for (BlockMetaData b : footer.getBlocks()) {
          groups++;
          rows += b.getRowCount();
        }
      }
    }
    return new long[] {groups, rows};
  }

  private static int rowGroups(Table table) throws IOException {
    return (int) keptRowGroups(table, table.newReadBuilder().newScan().plan().splits(), null)[0];
  }

  private static ParquetMetadata footer(Table table, DataSplit s, DataFileMeta f)
      throws IOException {
    try (DataFileReader r =
        DataFileReader.open(
            table.store().dataFilePath(s.partition(), s.bucket(), f.fileName()),
            table.rowType(),
            new int[] {0},
            f.fileSize(),
            f.rowCount())) {
      return r.footer();
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
