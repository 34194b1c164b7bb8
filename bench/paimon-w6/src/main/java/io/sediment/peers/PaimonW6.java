package io.sediment.peers;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.flink.action.CompactAction;
import org.apache.paimon.flink.action.SortCompactAction;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataTypes;

/**
 * W6 of WORKLOAD.md for Apache Paimon 1.2: W1's 200 files written with Paimon's Java API, then
 * compacted three ways from the same input (Paimon's {@code CompactAction}; {@code
 * SortCompactAction} ordered by {@code user_id}; z-order of {@code user_id, amount}), each on a
 * MiniCluster started before anything is timed (batch, parallelism 2), and after each, the two
 * filtered scans (Q1, Q2) with Paimon's reader: files planned after statistics pruning, rows
 * returned (checked equal across layouts), wall and CPU seconds (median of three after a warm-up).
 * Prints one JSON line. The W1 values follow WORKLOAD.md's rules, written out here.
 */
public final class PaimonW6 {

  private static final String DB = "bench";
  private static final int COMMITS = Integer.getInteger("w6.commits", 200);
  private static final int ROWS_PER_COMMIT = Integer.getInteger("w6.rows", 50_000);
  private static final byte[] ALPHABET =
      "abcdefghijklmnopqrstuvwxyz0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final long TS_BASE = 1767225600000L; // 2026-01-01T00:00:00Z

  public static void main(String[] args) throws Exception {
    Path scratch = Files.createTempDirectory("paimon-w6-");
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("program", "paimon-w6");
    out.put("system", "paimon");
    out.put("system_version", "1.2.0");
    boolean ok = false;
    MiniCluster cluster = null;
    try {
      Map<String, String> catalogConf = new HashMap<>();
      catalogConf.put("warehouse", scratch.resolve("warehouse").toString());
      catalogConf.put("cache-enabled", "false");
      Catalog catalog =
          CatalogFactory.createCatalog(CatalogContext.create(Options.fromMap(catalogConf)));
      catalog.createDatabase(DB, true);
      Identifier id = Identifier.create(DB, "w1");
      catalog.createTable(
          id,
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("user_id", DataTypes.BIGINT())
              .column("category", DataTypes.STRING())
              .column("amount", DataTypes.DOUBLE())
              .column("note", DataTypes.STRING())
              .column("ts", DataTypes.TIMESTAMP(3))
              .option("bucket", "-1")
              .option("file.format", "parquet")
              .option("file.compression", "zstd")
              .option("target-file-size", "128mb")
              .option("write-only", "true")
              .build(),
          false);
      generate((FileStoreTable) catalog.getTable(id));
      long rows = (long) COMMITS * ROWS_PER_COMMIT;
      long sumId = rows * (rows - 1) / 2;
      Path tableDir = scratch.resolve("warehouse").resolve(DB + ".db").resolve("w1");
      Path input = scratch.resolve("input");
      copy(tableDir, input);

      cluster = startCluster();
      int port = cluster.getRestAddress().get().getPort();
      Map<String, Object> firstResults = new HashMap<>();
      StringBuilder problems = new StringBuilder();
      for (String layout : List.of("unsorted", "linear", "zorder")) {
        deleteRecursively(tableDir);
        copy(input, tableDir);
        StreamExecutionEnvironment env =
            StreamExecutionEnvironment.createRemoteEnvironment("127.0.0.1", port);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(2);
        Map<String, String> tableConf = new HashMap<>();
        long cpuStart = processCpu();
        long start = System.nanoTime();
        switch (layout) {
          case "unsorted" ->
              new CompactAction(DB, "w1", catalogConf, tableConf)
                  .withStreamExecutionEnvironment(env)
                  .run();
          case "linear" -> {
            SortCompactAction a = new SortCompactAction(DB, "w1", catalogConf, tableConf);
            a.withOrderStrategy("order").withOrderColumns("user_id");
            a.withStreamExecutionEnvironment(env);
            a.run();
          }
          default -> {
            SortCompactAction a = new SortCompactAction(DB, "w1", catalogConf, tableConf);
            a.withOrderStrategy("zorder").withOrderColumns("user_id", "amount");
            a.withStreamExecutionEnvironment(env);
            a.run();
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpu = (processCpu() - cpuStart) / 1e9;
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        out.put(layout + "_compaction_s", round(seconds));
        out.put(layout + "_compaction_cpu_s", round(cpu));
        out.put(layout + "_files", countFiles(table, null));
        long[] all = scan(table, null);
        if (all[0] != rows || all[1] != sumId) {
          problems.append(layout).append(": rows or sum(id) differ; ");
        }
        PredicateBuilder pb = new PredicateBuilder(table.rowType());
        Map<String, Predicate> queries = new LinkedHashMap<>();
        queries.put("q1", pb.between(1, 500_000L, 500_999L));
        queries.put("q2", PredicateBuilder.and(pb.lessThan(1, 10_000L), pb.lessThan(3, 10.0)));
        for (Map.Entry<String, Predicate> q : queries.entrySet()) {
          List<double[]> runs = new ArrayList<>();
          long[] result = null;
          for (int i = 0; i < 4; i++) {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            result = scan(table, q.getValue());
            runs.add(
                new double[] {
                  (System.nanoTime() - t0) / 1e9, (threads.getCurrentThreadCpuTime() - c0) / 1e9
                });
          }
          runs.remove(0);
          runs.sort(Comparator.comparingDouble(r -> r[0]));
          String k = layout + "_" + q.getKey();
          out.put(k + "_files_read", countFiles(table, q.getValue()));
          out.put(k + "_rows_returned", result[0]);
          out.put(k + "_scan_s", round(runs.get(1)[0]));
          out.put(k + "_scan_cpu_s", round(runs.get(1)[1]));
          Object first = firstResults.putIfAbsent(q.getKey(), result[0] + "/" + result[1]);
          if (first != null && !first.equals(result[0] + "/" + result[1])) {
            problems.append(layout).append(' ').append(q.getKey()).append(" returned other rows; ");
          }
        }
      }
      ok = problems.length() == 0;
      if (!ok) {
        out.put("problems", problems.toString());
      }
    } catch (Throwable t) {
      t.printStackTrace();
      out.put("error", String.valueOf(t));
    } finally {
      out.put("ok", ok);
      System.out.println(json(out));
      if (cluster != null) {
        cluster.close();
      }
      deleteRecursively(scratch);
    }
    System.exit(ok ? 0 : 1);
  }

  private static MiniCluster startCluster() throws Exception {
    Configuration conf = new Configuration();
    conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
    conf.set(RestOptions.BIND_PORT, "0");
    conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
    conf.set(RestOptions.ADDRESS, "127.0.0.1");
    MiniCluster mc =
        new MiniCluster(
            new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(2)
                .build());
    mc.start();
    return mc;
  }

  private static void generate(FileStoreTable table) throws Exception {
    byte[] note = new byte[32];
    for (int c = 0; c < COMMITS; c++) {
      BatchWriteBuilder wb = table.newBatchWriteBuilder();
      try (BatchTableWrite w = wb.newWrite()) {
        for (long i = (long) c * ROWS_PER_COMMIT; i < (long) (c + 1) * ROWS_PER_COMMIT; i++) {
          SplittableRandom r = new SplittableRandom(i);
          for (int k = 0; k < note.length; k++) {
            note[k] = ALPHABET[r.nextInt(36)];
          }
          w.write(
              GenericRow.of(
                  i,
                  (i * 2654435761L) % 1000003L,
                  BinaryString.fromString("c" + (i % 97)),
                  (i % 100000) / 100.0,
                  BinaryString.fromBytes(note.clone()),
                  Timestamp.fromEpochMillis(TS_BASE + i)));
        }
        wb.newCommit().commit(w.prepareCommit());
      }
    }
  }

  /** Rows matching {@code filter} (all when null) and the sum of their ids. */
  private static long[] scan(FileStoreTable table, Predicate filter) throws IOException {
    ReadBuilder rb = table.newReadBuilder();
    if (filter != null) {
      rb.withFilter(filter);
    }
    List<Split> splits = rb.newScan().plan().splits();
    long[] out = new long[2];
    try (RecordReader<InternalRow> reader = rb.newRead().createReader(splits)) {
      reader.forEachRemaining(
          row -> {
            if (filter == null || filter.test(row)) {
              out[0]++;
              out[1] += row.getLong(0);
            }
          });
    }
    return out;
  }

  private static int countFiles(FileStoreTable table, Predicate filter) {
    ReadBuilder rb = table.newReadBuilder();
    if (filter != null) {
      rb.withFilter(filter);
    }
    int n = 0;
    for (Split s : rb.newScan().plan().splits()) {
      n += ((DataSplit) s).dataFiles().size();
    }
    return n;
  }

  private static long processCpu() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }

  private static String json(Map<String, Object> m) {
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      if (v instanceof Number || v instanceof Boolean) {
        sb.append(String.format(Locale.ROOT, "%s", v));
      } else {
        sb.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      }
    }
    return sb.append('}').toString();
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

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
