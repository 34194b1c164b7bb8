package io.sediment.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactArgumentException;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactTask;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.PartitionFilters;
import io.sediment.compact.SortOrder;
import io.sediment.flink.CompactJob;
import io.sediment.flink.sql.filter.PartitionWhere;
import io.sediment.schema.Durations;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment compact}: builds a {@link CompactJob} from the options and runs it as a batch job
 * (with a progress bar on a terminal), submits it as the dedicated streaming job, or prints its
 * plan ({@code --dry-run}).
 */
@Command(
    name = "compact",
    mixinStandardHelpOptions = true,
    description =
        "Compact a table with the Flink compaction topology (batch or dedicated streaming job).")
final class CompactCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", description = "Table as DB.TABLE.")
  String table;

  @Option(
      names = "--database",
      description = "Compact the tables of this database (a regex of database names).")
  String database;

  @Option(
      names = "--including-tables",
      description = "Regex of tables of --database to compact (name or db.table; default all).")
  String includingTables;

  @Option(
      names = "--excluding-tables",
      description = "Regex of tables of --database to leave out (name or db.table).")
  String excludingTables;

  @Option(
      names = "--compact-strategy",
      description = "full or minor (default: full in batch mode, minor in streaming mode).")
  String compactStrategy;

  @Option(
      names = "--partition-idle-time",
      description =
          "Compact only partitions whose newest file is older than this, e.g. 1d, 12h, 30min.")
  String partitionIdleTime;

  @Option(names = "--partition", description = "Partition to compact, k=v[,k=v]; repeatable (OR).")
  List<String> partitions = new ArrayList<>();

  @Option(
      names = "--where",
      description =
          "Partition filter: SQL over partition columns, e.g. \"dt > '2024-01-01' AND hh < 20\","
              + " or the JSON filter form (starts with '{').")
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

  @Option(
      names = "--order-strategy",
      description =
          "Sort compaction (batch, append tables): order, zorder or hilbert; with --order-by.")
  String orderStrategy;

  @Option(
      names = "--order-by",
      description = "Columns a sort compaction orders by, comma-separated, e.g. user_id,amount.")
  String orderBy;

  @Option(names = "--dry-run", description = "Print the plan; commit nothing.")
  boolean dryRun;

  @Option(names = "--json", description = "Print the result as one JSON object.")
  boolean json;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() throws Exception {
    ExecutionMode mode = validateArguments();
    CompactJob job;
    try {
      job = newJob();
      job.targets().spec().checkMode(mode);
    } catch (CompactArgumentException e) {
      // the request's rules are CompactSpec's; here they name the command's options
      throw new IllegalArgumentException(
          "--" + e.argument().replace('_', '-') + ": " + e.getMessage(), e);
    }
    if (dryRun) {
      printPlan(job, mode);
      return ExitCodes.OK;
    }
    if (mode == ExecutionMode.STREAMING) {
      submitStreaming(job);
    } else {
      runBatch(job);
    }
    return ExitCodes.OK;
  }

  /**
   * Checks what the arguments alone can tell, before any table is read: a mistyped option is
   * reported as such even when the warehouse or table is wrong too. Returns the mode. The rules
   * between arguments (partitions or a where, a sort in batch mode only, ...) are the request's
   * ({@link CompactSpec.Builder#build()}, {@link CompactSpec#checkMode}), checked when the job is
   * built, after the table is read.
   */
  private ExecutionMode validateArguments() {
    ExecutionMode mode;
    try {
      mode = ExecutionMode.parse(this.mode);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--mode: " + e.getMessage(), e);
    }
    if (table != null && (includingTables != null || database != null)) {
      throw new IllegalArgumentException("Give either --table or --database/--including-tables");
    }
    if (table == null && database == null) {
      throw new IllegalArgumentException(
          "Missing --table DB.TABLE (or --database, with --including-tables and"
              + " --excluding-tables)");
    }
    if (excludingTables != null && table != null) {
      throw new IllegalArgumentException("--excluding-tables needs --database, not --table");
    }
    if (detached && mode != ExecutionMode.STREAMING) {
      throw new IllegalArgumentException("--detached needs --mode streaming");
    }
    if (json && mode == ExecutionMode.STREAMING && !dryRun) {
      throw new IllegalArgumentException(
          "--json needs --mode batch or --dry-run: a streaming job prints only that it started");
    }
    if ((orderStrategy == null) != (orderBy == null)) {
      throw new IllegalArgumentException(
          "--order-strategy and --order-by go together (a sort compaction), got only "
              + (orderStrategy == null ? "--order-by" : "--order-strategy"));
    }
    if (orderStrategy != null) {
      SortOrder.of(orderStrategy, orderBy); // the names, before any table is read
    }
    if (parallelism != null && parallelism < 1) {
      throw new IllegalArgumentException("--parallelism must be at least 1, got " + parallelism);
    }
    for (String p : partitions) {
      parsePartition(p);
    }
    if (partitionIdleTime != null) {
      parseDuration("--partition-idle-time", partitionIdleTime);
    }
    return mode;
  }

  private CompactJob newJob() {
    String warehouse = warehouseOption.warehouse;
    CompactJob.Builder b =
        table != null
            ? CompactJob.builder(warehouse, table)
            : CompactJob.builderForDatabase(
                warehouse, database, includingTables == null ? ".*" : includingTables);
    if (excludingTables != null) {
      b.excludingTables(excludingTables);
    }
    if (compactStrategy != null) {
      b.strategy(compactStrategy);
    }
    if (partitionIdleTime != null) {
      b.partitionIdleTime(parseDuration("--partition-idle-time", partitionIdleTime));
    }
    for (String p : partitions) {
      b.partition(parsePartition(p));
    }
    if (where != null) {
      if (PartitionWhere.isJson(where) || table == null) {
        b.where(where); // the JSON form; the job builder also rejects a filter of a database
      } else {
        Table t = new FileSystemCatalog(warehouse).getTable(table);
        b.where(PartitionWhere.parse(t.fullName(), t.schema(), where));
      }
    }
    if (commitUser != null) {
      b.commitUser(commitUser);
    }
    b.options(options);
    if (parallelism != null) {
      b.parallelism(parallelism);
    }
    if (orderStrategy != null) {
      b.sortOrder(orderStrategy, orderBy);
    }
    return b.build();
  }

  static Duration parseDuration(String option, String value) {
    try {
      return Durations.withUnit(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }

  /** Parses one {@code --partition} ({@link PartitionFilters#parseSpec}), naming the option. */
  static Map<String, String> parsePartition(String spec) {
    try {
      return PartitionFilters.parseSpec(spec);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--partition " + e.getMessage());
    }
  }

  private void printPlan(CompactJob job, ExecutionMode mode) throws Exception {
    List<CompactTask> tasks = job.plan(mode);
    PrintWriter out = spec.commandLine().getOut();
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
        t.sortRange().ifPresent(r -> m.put("sortRange", (r.index() + 1) + "/" + r.count()));
        ts.add(m);
      }
      Map<String, Object> plan = new LinkedHashMap<>();
      plan.put("dryRun", true);
      plan.put("tasks", ts);
      out.println(new ObjectMapper().writeValueAsString(plan));
    } else {
      out.println(
          tasks.isEmpty()
              ? "Plan: nothing to compact: " + NothingPlanned.why(job, mode) + " (dry run)"
              : "Plan: " + Plurals.of(tasks.size(), "task") + "; nothing committed (dry run)");
      if (!tasks.isEmpty()) {
        printTasks(tasks, out);
      }
    }
  }

  /** The planned tasks as a table: where, what each reads, what it writes. */
  static void printTasks(List<CompactTask> tasks, PrintWriter out) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"table", "partition", "bucket", "files", "bytes", "rows", "output"});
    for (CompactTask t : tasks) {
      rows.add(
          new String[] {
            t.table(),
            t.partitionPath().isEmpty() ? "-" : t.partitionPath(),
            Integer.toString(t.bucket()),
            Integer.toString(t.inputs().size()),
            Long.toString(t.inputBytes()),
            Long.toString(t.inputRows()),
            switch (t.kind()) {
              case MERGE_TREE -> "level " + t.outputLevel();
              case APPEND_REWRITE -> "rewritten";
              case SORT_REWRITE -> "sorted, " + t.sortRange().orElseThrow();
            }
          });
    }
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      List<String> cells = new ArrayList<>();
      for (int i = 0; i < r.length; i++) {
        // numbers right-aligned, text left-aligned
        boolean number = i >= 2 && i <= 5 && r != rows.get(0);
        String pad = " ".repeat(width[i] - r[i].length());
        cells.add(number ? pad + r[i] : r[i] + pad);
      }
      out.println(("  " + String.join("  ", cells)).stripTrailing());
    }
  }

  /** Submits the dedicated streaming job; unless {@code --detached}, waits for it to end. */
  private void submitStreaming(CompactJob job) throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    StreamExecutionEnvironment env = FlinkEnvironments.create();
    if (detached && FlinkEnvironments.isEmbedded(env)) {
      // The embedded Flink lives in this JVM: returning would end the job with the CLI.
      throw new IllegalArgumentException(
          "--detached needs a Flink cluster (flink run ...); the embedded Flink runs only"
              + " while the CLI runs");
    }
    JobClient client = job.submitStreaming(env);
    // A job restored from a savepoint (flink run -s) keeps the commit user in its state.
    String commitUser =
        env.getConfiguration()
            .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
            .map(path -> "commit user of the savepoint " + path)
            .orElse("commit user " + job.commitUser());
    out.println("Started dedicated compaction job " + client.getJobID() + " (" + commitUser + ")");
    out.flush();
    // `flink run -d` submits detached too: waiting there for a job that never ends hung the client.
    if (!detached && !FlinkEnvironments.isDetachedSubmission(env)) {
      client.getJobExecutionResult().get();
    }
  }

  private void runBatch(CompactJob job) throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    ProgressBar bar =
        (!json && System.console() != null)
            ? new ProgressBar(job.plan().size(), spec.commandLine().getErr())
            : null;
    CompactResult r = job.runBatch(FlinkEnvironments.create(), bar == null ? null : bar::update);
    if (bar != null) {
      bar.finish();
    }
    if (json) {
      out.println(r.toJson());
    } else {
      out.println(
          r.snapshotId() == null
              ? "Nothing to compact: " + NothingPlanned.why(job, ExecutionMode.BATCH)
              : summary(r));
    }
  }

  /** One line about a compaction that committed a snapshot. */
  static String summary(CompactResult r) {
    return String.format(
        "Compacted %s: %d -> %s, %d -> %d bytes, %s; snapshot %d (%d ms)",
        Plurals.of(r.tasks(), "task"),
        r.filesBefore(),
        Plurals.of(r.filesAfter(), "file"),
        r.bytesBefore(),
        r.bytesAfter(),
        Plurals.of(r.rowsWritten(), "row"),
        r.snapshotId(),
        r.durationMs());
  }
}
