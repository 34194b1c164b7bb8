package io.sediment.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.bench.BenchResult;
import io.sediment.bench.BenchRunner;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.flink.CompactJob;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code sediment} command: {@code compact}, {@code inspect}, {@code demo}, {@code bench}. Jobs
 * run on an embedded Flink (configured by {@code flink-conf/}) or, under {@code flink run}, on the
 * cluster. {@link #run} returns the exit code: 0 success, 2 bad arguments, 1 any other failure
 * (missing table, failed job); errors are one line unless {@code --verbose}.
 */
@Command(
    name = "sediment",
    mixinStandardHelpOptions = true,
    version = "sediment 0.1.0",
    description = "Sediment lake table store: compaction jobs and table inspection.",
    subcommands = {
      SedimentCli.Compact.class,
      SedimentCli.Inspect.class,
      SedimentCli.Demo.class,
      SqlCommand.class,
      SedimentCli.Bench.class
    })
public final class SedimentCli implements Callable<Integer> {

  static final int OK = 0;
  static final int FAILED = 1;
  static final int USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command line; returns the exit code instead of exiting. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    CommandLine cmd = new CommandLine(new SedimentCli());
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setParameterExceptionHandler(
        (ex, a) -> {
          ex.getCommandLine().getErr().println("Error: " + ex.getMessage());
          ex.getCommandLine()
              .getErr()
              .println(
                  "Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
          return USAGE;
        });
    cmd.setExecutionExceptionHandler(
        (ex, c, parseResult) -> {
          boolean verbose =
              parseResult.subcommand() != null
                  && parseResult.subcommand().hasMatchedOption("--verbose");
          return reportError(ex, verbose, c.getErr());
        });
    return cmd.execute(args);
  }

  static int reportError(Throwable ex, boolean verbose, PrintWriter err) {
    if (verbose) {
      ex.printStackTrace(err);
    }
    err.println("Error: " + oneLine(ex));
    err.flush();
    return ex instanceof IllegalArgumentException ? USAGE : FAILED;
  }

  private static String oneLine(Throwable ex) {
    Throwable t = ex;
    String msg = t.getMessage();
    while ((msg == null || msg.isBlank()) && t.getCause() != null) {
      t = t.getCause();
      msg = t.getMessage();
    }
    if (msg == null) {
      msg = t.getClass().getSimpleName();
    }
    int nl = msg.indexOf('\n');
    return nl < 0 ? msg : msg.substring(0, nl);
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return USAGE;
  }

  /** Options shared by the commands that take a table. */
  static class TableOptionsMixin {
    @Option(names = "--warehouse", required = true, description = "Warehouse URI or local path.")
    String warehouse;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;
  }

  @Command(
      name = "compact",
      mixinStandardHelpOptions = true,
      description =
          "Compact a table with the Flink compaction topology (batch or dedicated streaming job).")
  static final class Compact implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--warehouse", required = true, description = "Warehouse URI or local path.")
    String warehouse;

    @Option(names = "--table", description = "Table as DB.TABLE.")
    String table;

    @Option(names = "--database", description = "Database of --including-tables (streaming).")
    String database;

    @Option(
        names = "--including-tables",
        description = "Regex of table names of --database to follow (dedicated streaming job).")
    String includingTables;

    @Option(
        names = "--partition",
        description = "Partition to compact, k=v[,k=v]; repeatable (OR).")
    List<String> partitions = new ArrayList<>();

    @Option(names = "--where", description = "Partition filter in the JSON filter form.")
    String where;

    @Option(names = "--mode", defaultValue = "batch", description = "batch or streaming.")
    String mode;

    @Option(names = "--parallelism", description = "Rewrite parallelism.")
    Integer parallelism;

    @Option(
        names = "--commit-user",
        description = "Commit user; snapshots record <user>-compact-<suffix>.")
    String commitUser;

    @Option(
        names = "--option",
        description = "Dynamic table option k=v, e.g. target-file-size=128mb.")
    Map<String, String> options = new LinkedHashMap<>();

    @Option(
        names = "--detached",
        description =
            "Streaming mode: print the job id and return once the job is submitted (needs a"
                + " Flink cluster, e.g. flink run; not the embedded Flink).")
    boolean detached;

    @Option(names = "--dry-run", description = "Print the plan; commit nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      boolean streaming;
      switch (mode) {
        case "batch" -> streaming = false;
        case "streaming" -> streaming = true;
        default ->
            throw new IllegalArgumentException(
                "--mode must be 'batch' or 'streaming', got '" + mode + "'");
      }
      CompactJob.Builder b;
      if (table != null) {
        if (includingTables != null || database != null) {
          throw new IllegalArgumentException(
              "Give either --table or --database/--including-tables");
        }
        b = CompactJob.builder(warehouse, table);
      } else if (includingTables != null && database != null) {
        if (!streaming && !dryRun) {
          throw new IllegalArgumentException("--including-tables needs --mode streaming");
        }
        b = CompactJob.builderForDatabase(warehouse, database, includingTables);
      } else {
        throw new IllegalArgumentException(
            "Missing --table DB.TABLE (or --database with --including-tables)");
      }
      for (String p : partitions) {
        b.partition(parsePartition(p));
      }
      if (where != null) {
        b.where(where);
      }
      if (commitUser != null) {
        b.commitUser(commitUser);
      }
      b.options(options);
      if (parallelism != null) {
        b.parallelism(parallelism);
      }
      CompactJob job = b.build();
      if (dryRun) {
        List<CompactTask> tasks = job.plan();
        if (json) {
          List<Object> ts = new ArrayList<>();
          for (CompactTask t : tasks) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("table", t.table());
            m.put("partition", t.partitionPath());
            m.put("bucket", t.bucket());
            m.put("kind", t.kind().name());
            m.put("files", t.inputs().size());
            m.put("bytes", t.inputBytes());
            m.put("rows", t.inputRows());
            m.put("outputLevel", t.outputLevel());
            ts.add(m);
          }
          Map<String, Object> plan = new LinkedHashMap<>();
          plan.put("dryRun", true);
          plan.put("tasks", ts);
          out.println(new ObjectMapper().writeValueAsString(plan));
        } else {
          out.println("Plan: " + tasks.size() + " task(s); nothing committed (dry run)");
          for (CompactTask t : tasks) {
            out.println("  " + t);
          }
        }
        return OK;
      }
      if (detached && !streaming) {
        throw new IllegalArgumentException("--detached needs --mode streaming");
      }
      if (streaming) {
        StreamExecutionEnvironment env = FlinkEnvironments.create();
        if (detached && FlinkEnvironments.isEmbedded(env)) {
          // The embedded Flink lives in this JVM: returning would end the job with the CLI.
          throw new IllegalArgumentException(
              "--detached needs a Flink cluster (flink run ...); the embedded Flink runs only"
                  + " while the CLI runs");
        }
        JobClient client = job.submitStreaming(env);
        out.println(
            "Started dedicated compaction job "
                + client.getJobID()
                + " (commit user "
                + job.commitUser()
                + ")");
        out.flush();
        if (!detached) {
          client.getJobExecutionResult().get();
        }
        return OK;
      }
      ProgressBar bar =
          (!json && System.console() != null) ? new ProgressBar(job.plan().size()) : null;
      CompactResult r = job.runBatch(FlinkEnvironments.create(), bar == null ? null : bar::update);
      if (bar != null) {
        bar.finish();
      }
      if (json) {
        out.println(r.toJson());
      } else {
        out.println(
            r.snapshotId() == null
                ? "Nothing to compact"
                : String.format(
                    "Compacted %d task(s): %d -> %d files, %d -> %d bytes, %d rows; snapshot %d (%d ms)",
                    r.tasks(),
                    r.filesBefore(),
                    r.filesAfter(),
                    r.bytesBefore(),
                    r.bytesAfter(),
                    r.rowsWritten(),
                    r.snapshotId(),
                    r.durationMs()));
      }
      return OK;
    }
  }

  static Map<String, String> parsePartition(String spec) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String kv : spec.split(",")) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--partition must be k=v[,k=v], got '" + spec + "'");
      }
      m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1));
    }
    return m;
  }

  /** A one-line progress bar on the terminal (stderr). */
  static final class ProgressBar {
    private final int total;

    ProgressBar(int total) {
      this.total = total;
    }

    void update(int done) {
      int width = 30;
      int filled = total == 0 ? width : Math.min(width, done * width / total);
      System.err.print(
          "\r["
              + "#".repeat(filled)
              + " ".repeat(width - filled)
              + "] "
              + done
              + "/"
              + total
              + " tasks");
      System.err.flush();
    }

    void finish() {
      update(total);
      System.err.println();
    }
  }

  @Command(
      name = "inspect",
      mixinStandardHelpOptions = true,
      description = "Show a table's latest snapshot and its files per partition.")
  static final class Inspect implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin TableOptionsMixin target;

    @Option(names = "--json", description = "Print one JSON object.")
    boolean json;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      Table table =
          new FileSystemCatalog(target.warehouse).getTable(Identifier.parse(target.table));
      Map<String, Object> info = TableInspector.inspect(table);
      PrintWriter out = spec.commandLine().getOut();
      out.print(
          json ? new ObjectMapper().writeValueAsString(info) + "\n" : TableInspector.render(info));
      out.flush();
      return OK;
    }
  }

  @Command(
      name = "bench",
      mixinStandardHelpOptions = true,
      description =
          "Run a canonical compaction workload (shared/bench/WORKLOAD.md): generate it (not"
              + " timed), compact it with the batch topology on the embedded Flink (or in-process),"
              + " verify, print the figures. Exit 0 when verified.")
  static final class Bench implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @CommandLine.Parameters(index = "0", paramLabel = "W1|W2|W3", description = "Workload.")
    String workload;

    @Option(
        names = "--dir",
        description = "Scratch warehouse (default: a new temporary directory).")
    java.nio.file.Path dir;

    @Option(names = "--keep", description = "Keep the warehouse afterwards.")
    boolean keep;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Option(
        names = "--in-process",
        description = "Compact with CompactBuilder.execute(), not Flink.")
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
        names = "--scale",
        hidden = true,
        defaultValue = "1",
        description = "Divide the workload sizes (tests).")
    int scale;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      String w = workload.toUpperCase(java.util.Locale.ROOT);
      if (!w.matches("W[123]")) {
        throw new IllegalArgumentException(
            "Unknown workload '" + workload + "'; workloads are W1, W2 and W3");
      }
      if (parallelism < 1) {
        throw new IllegalArgumentException("--parallelism must be at least 1");
      }
      java.nio.file.Path wh = dir;
      if (wh == null) {
        wh = Files.createTempDirectory("sediment-bench-" + w.toLowerCase(java.util.Locale.ROOT));
      } else if (Files.exists(wh)) {
        try (java.util.stream.Stream<java.nio.file.Path> entries = Files.list(wh)) {
          if (entries.findAny().isPresent()) {
            throw new IllegalArgumentException("--dir " + wh + " is not empty");
          }
        }
      }
      Map<String, Object> extra = new LinkedHashMap<>();
      FlinkEnvironments.Embedded flink = null;
      try {
        BenchRunner.Compactor compactor;
        String mode;
        Map<String, String> parallel =
            Map.of("compaction.parallelism", Integer.toString(parallelism));
        if (inProcess || w.equals("W3")) {
          mode = "in-process";
          compactor =
              (table, options) -> {
                Map<String, String> o = new LinkedHashMap<>(options);
                o.putAll(parallel);
                return table.newCompactBuilder().withOptions(o).execute();
              };
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
              (table, options) ->
                  CompactJob.builder(warehouse, table.fullName())
                      .options(options)
                      .options(parallel)
                      .parallelism(parallelism)
                      .build()
                      .runBatch(cluster.newEnv());
        }
        extra.put("parallelism", parallelism);
        extra.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        BenchResult r = BenchRunner.run(w, wh, mode, compactor, BenchRunner.Scale.divided(scale));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          out.println(r.toJson(extra));
        } else {
          out.println(
              String.format(
                  java.util.Locale.ROOT,
                  "%s %s: %.3f s (plan %.3f s), %d rows, %.0f rows/s, %d -> %d files, %.1f MiB/s,"
                      + " peak heap %d MiB; %s: %s",
                  r.workload(),
                  r.mode(),
                  r.wallSeconds(),
                  r.planSeconds(),
                  r.rows(),
                  r.rowsPerSecond(),
                  r.filesIn(),
                  r.filesOut(),
                  r.inputBytesPerSecond() / (1 << 20),
                  r.peakHeapBytes() >> 20,
                  r.verified() ? "verified" : "NOT VERIFIED",
                  r.verification()));
        }
        out.flush();
        if (!r.verified()) {
          spec.commandLine().getErr().println("Error: verification failed: " + r.verification());
          spec.commandLine().getErr().flush();
          return FAILED;
        }
        return OK;
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
  }

  @Command(
      name = "demo",
      mixinStandardHelpOptions = true,
      description =
          "Create a table of many small files in a local warehouse, compact it with the batch"
              + " topology on the embedded Flink, and inspect it before and after.")
  static final class Demo implements Callable<Integer> {

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--warehouse",
        description = "Warehouse path (default: a new temporary directory).")
    String warehouse;

    @Option(
        names = "--commits",
        defaultValue = "20",
        description = "Small commits to write (default 20).")
    int commits;

    @Option(names = "--verbose", description = "Print stack traces of errors.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
      if (commits < 2) {
        throw new IllegalArgumentException("--commits must be at least 2");
      }
      PrintWriter out = spec.commandLine().getOut();
      String wh =
          warehouse != null ? warehouse : Files.createTempDirectory("sediment-demo").toString();
      FileSystemCatalog catalog = new FileSystemCatalog(wh);
      catalog.createDatabase("demo", true);
      Identifier id = new Identifier("demo", "events");
      if (catalog.tableExists(id)) {
        throw new IllegalArgumentException("Table demo.events already exists in " + wh);
      }
      catalog.createTable(
          id,
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("day", DataTypes.STRING())
              .column("payload", DataTypes.STRING())
              .partitionKeys("day")
              .build(),
          false);
      Table table = catalog.getTable(id);
      long next = 0;
      for (int c = 0; c < commits; c++) {
        WriteBuilder wb = table.newBatchWriteBuilder();
        try (TableWrite write = wb.newWrite()) {
          for (String day : new String[] {"2026-01-01", "2026-01-02"}) {
            for (int i = 0; i < 50; i++, next++) {
              write.write(row(next, day, "event-" + next));
            }
          }
          TableCommit commit = wb.newCommit();
          commit.commit(write.prepareCommit());
        }
      }
      out.println("Warehouse: " + wh);
      out.println("Before compaction:");
      out.print(TableInspector.render(TableInspector.inspect(catalog.getTable(id))));
      CompactResult r =
          CompactJob.builder(wh, id.fullName())
              .commitUser("demo")
              .option("compaction.min.file-num", "2")
              .build()
              .runBatch(FlinkEnvironments.create());
      out.println("Compaction: " + r.toJson());
      out.println("After compaction:");
      out.print(TableInspector.render(TableInspector.inspect(catalog.getTable(id))));
      out.flush();
      return OK;
    }

    private static RowData row(long id, String day, String payload) {
      return GenericRowData.of(id, StringData.fromString(day), StringData.fromString(payload));
    }
  }
}
