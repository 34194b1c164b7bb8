package io.sediment.bench;

import io.sediment.cli.ExitCodes;
import io.sediment.cli.ExtraCommand;
import io.sediment.cli.FlinkEnvironments;
import io.sediment.cli.VerboseOption;
import io.sediment.compact.CompactBuilder;
import io.sediment.flink.CompactJob;
import io.sediment.fs.FileIO;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sediment bench}: runs a canonical workload through {@link BenchRunner} in a scratch
 * warehouse, compacting on an embedded Flink cluster started once (or in-process), and prints the
 * figures. Exit code 1 when the result is not verified.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Run a canonical compaction workload (docs/performance.md, \"The workloads\"): generate it (not"
            + " timed), compact it with the batch topology on the embedded Flink (or in-process),"
            + " verify, print the figures. W4 compacts W1 and then times full and one-column"
            + " scans of the output with Sediment's and parquet-mr's readers; W4 --scan-dir scans"
            + " given directories of Parquet files instead (any writer's). Exit 0 when verified.")
public final class BenchCommand implements ExtraCommand {

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "W1|W2|W3|W4|W5|W5-PK|W5-PK-DV|W6|W1x10|W2x4|W3x50",
      description =
          "Workload; W1x10, W2x4 and W3x50 are the scale runs (W1, W2, W3 larger; run them"
              + " with SEDIMENT_JAVA_OPTS=-Xmx1g, their heap by definition).")
  String workload;

  @Option(
      names = "--dir",
      description =
          "Scratch warehouse (default: a new temporary directory). An object store URI"
              + " (s3://bucket/path, through Flink's S3 plugin and configuration) runs W1 or W3"
              + " there with the commit lock and reports the requests sent.")
  String dir;

  @Option(names = "--keep", description = "Keep the warehouse afterwards.")
  boolean keep;

  @Option(names = "--json", description = "Print the result as one JSON object.")
  boolean json;

  @Option(names = "--in-process", description = "Compact with CompactBuilder.execute(), not Flink.")
  boolean inProcess;

  @Option(
      names = "--no-warm-up",
      description =
          "Time the compaction as the cluster's first job: skip the two no-op jobs that"
              + " otherwise warm the embedded Flink before timing (as the peers' harness does).")
  boolean noWarmUp;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      description = "Rewrite parallelism (default 2).")
  int parallelism;

  @Option(
      names = "--option",
      paramLabel = "KEY=VALUE",
      description =
          "A dynamic table option for the compaction (repeatable), e.g."
              + " compaction.copy.min-row-group-size=1b to copy every row group.")
  Map<String, String> dynamicOptions = new LinkedHashMap<>();

  @Option(
      names = "--table-option",
      paramLabel = "KEY=VALUE",
      description =
          "W5 only: an option of the table the writer creates (repeatable), e.g."
              + " write-only.stop-trigger-wait=10s for a writer that waits for the compaction job.")
  Map<String, String> tableOptions = new LinkedHashMap<>();

  @Option(
      names = "--scan-dir",
      paramLabel = "DIR",
      description =
          "W4 only (repeatable): scan the *.parquet files under DIR (any writer's) instead of"
              + " generating and compacting W1; several directories take turns, round by round.")
  List<Path> scanDirs = new ArrayList<>();

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "With --scan-dir: measured rounds after one warm-up round (default 5).")
  int rounds;

  @Option(
      names = "--scan-column",
      defaultValue = "id",
      description = "With --scan-dir: the column of the one-column scans (default id).")
  String scanColumn;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description =
          "W5 only: seconds the writer writes (20,000 rows a second; default 300, i.e."
              + " WORKLOAD.md's 6,000,000 rows). Shorter runs are for trying things; the"
              + " reported figures come from the full one.")
  Integer duration;

  @Option(
      names = "--tail",
      paramLabel = "SECONDS",
      description = "W5 only: seconds the compaction job runs after the writer's end (default 60).")
  Integer tail;

  @Option(
      names = "--scale",
      hidden = true,
      defaultValue = "1",
      description = "Divide the workload sizes (tests).")
  int scale;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    String named = workload.toUpperCase(Locale.ROOT);
    if (!named.matches("W[12346]|W5|W5-PK|W5-PK-DV|W1X10|W2X4|W3X50")) {
      throw new IllegalArgumentException(
          "Unknown workload '"
              + workload
              + "'; workloads are W1, W2, W3, W4, W5, W5-PK, W5-PK-DV and W6, and the scale runs"
              + " W1x10, W2x4 and W3x50");
    }
    // a scale run is its base workload, larger
    String w = named.replaceFirst("X\\d+$", "");
    Scale sizes = Scale.of(named).dividedBy(scale);
    if (parallelism < 1) {
      throw new IllegalArgumentException("--parallelism must be at least 1");
    }
    if (w.startsWith("W5")) {
      return streaming(w);
    }
    if (duration != null || tail != null || !tableOptions.isEmpty()) {
      throw new IllegalArgumentException(
          "--duration, --tail and --table-option are options of W5 only");
    }
    if (!scanDirs.isEmpty()) {
      if (!w.equals("W4")) {
        throw new IllegalArgumentException("--scan-dir is an option of W4 only");
      }
      return scanDirectories();
    }
    if (dir != null && FileIO.isObjectStore(dir)) {
      return objectStore(w, sizes);
    }
    Path wh = scratchWarehouse(w);
    Map<String, Object> extra = new LinkedHashMap<>();
    FlinkEnvironments.Embedded flink = null;
    try {
      BenchRunner.Compactor compactor;
      String mode;
      if (inProcess || w.equals("W3")) {
        mode = "in-process";
        compactor = inProcessCompactor();
      } else {
        flink = FlinkEnvironments.Embedded.start(parallelism);
        extra.put("clusterStartSeconds", flink.startSeconds());
        if (!noWarmUp) {
          extra.put("noopJobSeconds", flink.runNoopJob());
          extra.put("noopJob2Seconds", flink.runNoopJob());
        }
        FlinkEnvironments.Embedded cluster = flink;
        String warehouse = wh.toString();
        mode = "flink-topology";
        compactor =
            (table, options, order) -> {
              CompactJob.Builder job =
                  CompactJob.builder(warehouse, table.fullName())
                      .options(options)
                      .options(parallelOptions())
                      .parallelism(parallelism);
              if (order != null) {
                job.sortOrder(order.strategy().value(), String.join(",", order.columns()));
              }
              return job.build().runBatch(cluster.newEnv());
            };
      }
      extra.put("parallelism", parallelism);
      if (!dynamicOptions.isEmpty()) {
        extra.put("options", dynamicOptions.toString());
      }
      extra.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
      BenchResult r = BenchRunner.run(w, wh, mode, compactor, sizes);
      if (!named.equals(w)) {
        r = r.asScaleRun(named.replace('X', 'x'));
      }
      print(r, extra);
      return verified(r) ? ExitCodes.OK : ExitCodes.FAILED;
    } finally {
      if (flink != null) {
        flink.close();
      }
      if (!keep) {
        BenchRunner.deleteRecursively(wh);
      } else {
        spec.commandLine().getErr().println("Kept warehouse " + wh);
      }
    }
  }

  /**
   * W1 or W3 in an object store warehouse, compacting in-process, the tables created with the
   * commit lock ({@code lock.enabled}, the default lock database): the result reports the requests
   * sent ({@code generationRequests*}, {@code compactionRequests*}, {@code planRequests*}).
   */
  private int objectStore(String w, Scale sizes) throws Exception {
    if (!w.equals("W1") && !w.equals("W3")) {
      throw new IllegalArgumentException(
          "An object store warehouse (--dir " + dir + ") runs W1 or W3, not " + w);
    }
    FlinkEnvironments.initializeFileSystems();
    ObjectStoreWarehouse.requireEmpty(dir);
    BenchRunner.Compactor compactor = inProcessCompactor();
    try {
      BenchResult r =
          BenchRunner.run(w, dir, "in-process", compactor, sizes, Map.of("lock.enabled", "true"));
      print(r, Map.of("parallelism", parallelism, "warehouse", dir));
      return verified(r) ? ExitCodes.OK : ExitCodes.FAILED;
    } finally {
      if (!keep) {
        ObjectStoreWarehouse.delete(dir);
      } else {
        spec.commandLine().getErr().println("Kept warehouse " + dir);
      }
    }
  }

  /**
   * W5: a streaming writer and the dedicated compaction job side by side on the embedded Flink (2
   * slots, one per job); {@code --option}s go to the compaction job.
   */
  private int streaming(String w) throws Exception {
    var parsed = spec.commandLine().getParseResult();
    for (String option :
        List.of(
            "--in-process",
            "--scan-dir",
            "--parallelism",
            "--no-warm-up",
            "--scale",
            "--rounds",
            "--scan-column")) {
      if (parsed.hasMatchedOption(option)) {
        throw new IllegalArgumentException(
            option
                + " is not an option of "
                + w
                + ": it runs a writer and the dedicated compaction job, each of parallelism 1,"
                + " on the embedded Flink; its options are --duration, --tail, --option,"
                + " --table-option, --dir, --keep and --json");
      }
    }
    if (dir != null && FileIO.isObjectStore(dir)) {
      throw new IllegalArgumentException(
          w + " runs in a local warehouse, not in an object store (--dir " + dir + ")");
    }
    int seconds = duration == null ? 300 : duration;
    int tailSeconds = tail == null ? 60 : tail;
    if (seconds < 1 || tailSeconds < 0) {
      throw new IllegalArgumentException(
          "--duration must be at least 1 second and --tail at least 0, got "
              + seconds
              + " and "
              + tailSeconds);
    }
    StreamingBench.Variant variant =
        switch (w) {
          case "W5" -> StreamingBench.Variant.APPEND;
          case "W5-PK" -> StreamingBench.Variant.PK;
          default -> StreamingBench.Variant.PK_DV;
        };
    Path wh = scratchWarehouse(w);
    Configuration flinkConf = new Configuration();
    GaugeTotals.addTo(flinkConf, StreamingBench.WRITER_GAUGES);
    try (FlinkEnvironments.Embedded flink = FlinkEnvironments.Embedded.start(2, flinkConf)) {
      StreamingBench.Cluster cluster =
          new StreamingBench.Cluster() {
            @Override
            public StreamExecutionEnvironment newEnv() {
              return flink.newEnv();
            }

            @Override
            public double checkpointP99Seconds(JobID job) throws Exception {
              return flink.checkpointP99Seconds(job);
            }

            @Override
            public long gaugeTotal(JobID job, String gauge) {
              return GaugeTotals.total(job, gauge);
            }
          };
      BenchResult r =
          StreamingBench.run(
              variant,
              wh,
              cluster,
              (long) seconds * StreamingBench.ROWS_PER_SECOND,
              Duration.ofSeconds(tailSeconds),
              dynamicOptions,
              tableOptions);
      print(r, Map.of("maxHeapBytes", Runtime.getRuntime().maxMemory()));
      return verified(r) ? ExitCodes.OK : ExitCodes.FAILED;
    } finally {
      if (!keep) {
        BenchRunner.deleteRecursively(wh);
      } else {
        spec.commandLine().getErr().println("Kept warehouse " + wh);
      }
    }
  }

  /** The dynamic options and {@code --parallelism} as {@code compaction.parallelism}. */
  private Map<String, String> parallelOptions() {
    Map<String, String> parallel = new LinkedHashMap<>(dynamicOptions);
    parallel.put("compaction.parallelism", Integer.toString(parallelism));
    return parallel;
  }

  /** {@code CompactBuilder.execute()} with {@link #parallelOptions()}. */
  private BenchRunner.Compactor inProcessCompactor() {
    Map<String, String> parallel = parallelOptions();
    return (table, options, order) -> {
      Map<String, String> o = new LinkedHashMap<>(options);
      o.putAll(parallel);
      CompactBuilder b = table.newCompactBuilder().withOptions(o);
      if (order != null) {
        b.withSortOrder(order);
      }
      return b.execute();
    };
  }

  /** Whether the result was verified; says on standard error when not. */
  private boolean verified(BenchResult r) {
    if (!r.verified()) {
      spec.commandLine().getErr().println("Error: verification failed: " + r.verification());
      spec.commandLine().getErr().flush();
    }
    return r.verified();
  }

  /** W4 on the given directories: one result per directory, exit 0 when all are verified. */
  private int scanDirectories() throws IOException {
    boolean verified = true;
    for (BenchResult r : DirectoryScanBench.run(scanDirs, scanColumn, rounds)) {
      print(r, Map.of("maxHeapBytes", Runtime.getRuntime().maxMemory()));
      verified &= verified(r);
    }
    return verified ? ExitCodes.OK : ExitCodes.FAILED;
  }

  /** {@code --dir} when it is empty or missing, else a new temporary directory. */
  private Path scratchWarehouse(String w) throws IOException {
    if (dir == null) {
      return Files.createTempDirectory("sediment-bench-" + w.toLowerCase(Locale.ROOT));
    }
    Path local = Paths.get(dir);
    if (Files.exists(local)) {
      try (Stream<Path> entries = Files.list(local)) {
        if (entries.findAny().isPresent()) {
          throw new IllegalArgumentException("--dir " + dir + " is not empty");
        }
      }
    }
    return local;
  }

  private void print(BenchResult r, Map<String, Object> extra) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(r.toJson(extra));
    } else {
      out.println(
          String.format(
              Locale.ROOT,
              "%s %s: %.3f s (plan %.3f s), %d rows, %.0f rows/s, %d -> %d files, %.1f MiB/s,"
                  + " %s; %s: %s",
              r.workload(),
              r.mode(),
              r.wallSeconds(),
              r.planSeconds(),
              r.rows(),
              r.rowsPerSecond(),
              r.filesIn(),
              r.filesOut(),
              r.inputBytesPerSecond() / (1 << 20),
              // the streaming run (W5) does not measure it
              r.peakHeapBytes() > 0
                  ? "peak heap " + (r.peakHeapBytes() >> 20) + " MiB"
                  : "peak heap not measured",
              r.verified() ? "verified" : "NOT VERIFIED",
              r.verification()));
      if (r.workload().startsWith("W5")) {
        StringBuilder figures = new StringBuilder("  ");
        r.details()
            .forEach(
                (k, v) ->
                    figures
                        .append(k)
                        .append('=')
                        .append(v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v)
                        .append(' '));
        out.println(figures.toString().stripTrailing());
      }
    }
    out.flush();
  }
}
