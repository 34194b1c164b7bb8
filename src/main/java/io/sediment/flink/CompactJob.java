package io.sediment.flink;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitUsers;
import io.sediment.commit.SnapshotCommits;
import io.sediment.compact.CompactBudget;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactTask;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.TableKind;
import io.sediment.flink.serde.LayoutTypeInfo;
import io.sediment.flink.sql.filter.PartitionWhere;
import io.sediment.marker.OutputMarkers;
import io.sediment.predicate.Predicate;
import io.sediment.schema.CompactionOptions;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.JobException;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flink compaction jobs: {@code CompactTaskSource -> CompactRewriteOperator x N ->
 * CompactCommitter}, running one {@link CompactSpec}. Build with {@link #builder(String, String)}
 * (one table) or {@link #builderForDatabase} (tables of a database matching a regex, dedicated
 * job), or from a spec with {@link #of}; then {@link #runBatch} (plan once, compact, commit, end)
 * or {@link #submitStreaming} (keeps compacting). Options, partition filters and commit user rules
 * are those of {@link CompactSpec}.
 */
public final class CompactJob {

  private static final Logger LOG = LoggerFactory.getLogger(CompactJob.class);

  private final CompactTargets targets;
  private final String name;
  private final String commitUser;
  private final Integer parallelism;
  private final long discoveryIntervalMs;
  private final int maxConsecutiveFailures;
  private final Duration checkpointWait;
  private final CompactListener listener;

  private CompactJob(CompactTargets targets, Configuration opts, CompactListener listener) {
    CompactSpec spec = targets.spec();
    this.targets = targets;
    this.name =
        spec.database().isPresent()
            ? spec.database().get() + "." + spec.tablePattern().orElseThrow()
            : String.join(",", spec.tables());
    this.commitUser = CompactBuilder.compactCommitUser(spec.commitUser());
    this.listener = listener;
    Integer p = spec.parallelism().isPresent() ? spec.parallelism().getAsInt() : null;
    if (p == null && opts.contains(CompactionOptions.COMPACTION_PARALLELISM)) {
      p = opts.get(CompactionOptions.COMPACTION_PARALLELISM);
    }
    this.parallelism = p;
    this.discoveryIntervalMs = opts.get(CompactionOptions.COMPACTION_DISCOVERY_INTERVAL).toMillis();
    this.maxConsecutiveFailures = opts.get(CompactionOptions.COMPACTION_MAX_CONSECUTIVE_FAILURES);
    this.checkpointWait = opts.get(CompactionOptions.COMPACTION_CHECKPOINT_WAIT);
  }

  /** The same job on {@code targets}, under a commit user of its own (a round of a batch run). */
  private CompactJob(CompactJob job, CompactTargets targets) {
    this.targets = targets;
    this.name = job.name;
    this.commitUser = CompactBuilder.compactCommitUser(targets.spec().commitUser());
    this.listener = job.listener;
    this.parallelism = job.parallelism;
    this.discoveryIntervalMs = job.discoveryIntervalMs;
    this.maxConsecutiveFailures = job.maxConsecutiveFailures;
    this.checkpointWait = job.checkpointWait;
  }

  /**
   * The job running {@code spec} on the tables of {@code warehouse}. Loads every table the spec
   * names (or its database lists now) and checks the spec's options against each.
   */
  public static CompactJob of(String warehouse, CompactSpec spec) {
    return of(warehouse, spec, CompactListener.NONE);
  }

  private static CompactJob of(String warehouse, CompactSpec spec, CompactListener listener) {
    CompactTargets targets = new CompactTargets(warehouse, spec);
    List<Table> tables = new ArrayList<>();
    for (String t : targets.tableNames()) {
      Table table = targets.table(t); // validates the options against each table
      SnapshotCommits.checkCommitSafe(table.store()); // an object store needs a commit lock
      // Refused here, before a job starts, rather than by its planning after restarts.
      try {
        TableKind.checkCompactable(table.store());
      } catch (IllegalStateException e) {
        throw new IllegalStateException("Table " + t + ": " + e.getMessage(), e);
      }
      tables.add(table);
    }
    // A single table's own options configure the job too; a database's tables share the spec's.
    Map<String, String> jobOptions =
        spec.database().isEmpty() ? tables.get(0).options().toMap() : spec.options();
    return new CompactJob(targets, Configuration.fromMap(jobOptions), listener);
  }

  /** A job compacting one table ({@code db.table}). */
  public static Builder builder(String warehouse, String table) {
    Builder b = new Builder(warehouse);
    b.table = table;
    return b;
  }

  /** A job following every table of {@code database} whose name matches {@code regex}. */
  public static Builder builderForDatabase(String warehouse, String database, String regex) {
    Builder b = new Builder(warehouse);
    b.database = database;
    b.includingTables = regex;
    return b;
  }

  /** The commit user of this job's snapshots: {@code <user>-compact-<suffix>}. */
  public String commitUser() {
    return commitUser;
  }

  public CompactTargets targets() {
    return targets;
  }

  /** The tasks a batch run would execute now (for {@code --dry-run}); commits nothing. */
  public List<CompactTask> plan() {
    return plan(ExecutionMode.BATCH);
  }

  /** The tasks a batch run, or the streaming job's first round, would execute now. */
  public List<CompactTask> plan(ExecutionMode mode) {
    List<CompactTask> tasks = new ArrayList<>();
    for (String t : targets.tableNames()) {
      tasks.addAll(targets.spec().plan(targets.catalog().getTable(t).store(), t, mode));
    }
    return tasks;
  }

  /** Adds the topology to {@code env}. */
  public void buildTopology(StreamExecutionEnvironment env, ExecutionMode mode) {
    targets.spec().checkMode(mode);
    int p = parallelism != null ? parallelism : env.getParallelism();
    JobCheckpoints checkpoints =
        mode.isBounded()
            ? JobCheckpoints.UNKNOWN
            : JobCheckpoints.of(env.getConfiguration(), checkpointWait);
    CompactTaskSource source =
        new CompactTaskSource(targets, mode, discoveryIntervalMs, checkpoints, commitUser);
    DataStream<CompactTaskSplit> tasks =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "Compact tasks: " + name)
            .setParallelism(p)
            .uid("sediment-compact-source");
    SingleOutputStreamOperator<CompactMessage> messages =
        tasks
            .transform(
                "Compact rewrite",
                new LayoutTypeInfo<>(CompactMessage.class, CompactMessageSerializer.INSTANCE),
                new CompactRewriteOperator(targets, listener, mode, checkpointWait))
            .setParallelism(p)
            .uid("sediment-compact-rewrite");
    messages
        .transform(
            "Compact commit",
            Types.VOID,
            new CompactCommitter(targets, commitUser, mode, maxConsecutiveFailures, listener))
        .setParallelism(1)
        .setMaxParallelism(1)
        .uid("sediment-compact-commit");
  }

  /** {@link #runBatch(StreamExecutionEnvironment, IntConsumer)} without progress reports. */
  public CompactResult runBatch(StreamExecutionEnvironment env) throws Exception {
    return runBatch(env, null);
  }

  /**
   * Runs the batch job: plans once, compacts, makes one COMPACT commit, ends. Blocks until the job
   * ends. {@code progress} (may be null) is called now and then with the number of tasks rewritten
   * so far. When the job fails, every output it wrote is deleted and the task's error is thrown.
   * After a failure Flink recovered from (with a restart strategy), the committer deletes the
   * outputs of the lost attempts once its input ended.
   */
  public CompactResult runBatch(StreamExecutionEnvironment env, IntConsumer progress)
      throws Exception {
    List<CompactResult> perTable = new ArrayList<>(runBatchPerTable(env, progress).values());
    // no table matched (an empty database, an --including-tables that matches none): nothing
    return CompactResult.sum(perTable, perTable.isEmpty() ? 0 : perTable.get(0).durationMs());
  }

  /**
   * {@link #runBatch(StreamExecutionEnvironment, IntConsumer)}, with what it did per table, in the
   * order of {@link CompactTargets#tableNames()} ({@link CompactResult#nothing} for a table that
   * needed nothing).
   */
  public Map<String, CompactResult> runBatchPerTable(
      StreamExecutionEnvironment env, IntConsumer progress) throws Exception {
    // partial progress: several rounds, one bounded job and COMPACT commit each, each capped at
    // the per-commit budget and planned from the snapshot the round before made
    Map<String, Integer> commits = new LinkedHashMap<>();
    Map<String, Long> budgets = new LinkedHashMap<>();
    Map<String, Long> planned = new LinkedHashMap<>();
    Map<String, Set<String>> filesAtStart = new LinkedHashMap<>();
    int rounds = 1;
    List<String> tables = targets.tableNames();
    for (String t : tables) {
      Table table = targets.table(t);
      int c = CompactBudget.commits(table.options());
      commits.put(t, c);
      if (c > 1) {
        List<CompactTask> plan = targets.spec().plan(table.store(), t, ExecutionMode.BATCH);
        budgets.put(t, CompactBudget.perCommit(table.options(), plan));
        planned.put(t, CompactBudget.replacedBytes(plan));
        if (targets.spec().sortOrder().isPresent()) {
          filesAtStart.put(t, CompactSpec.liveFileNames(table.store()));
        }
        rounds = Math.max(rounds, c);
      }
    }
    if (rounds == 1) {
      return runOnce(env, progress);
    }
    long start = System.currentTimeMillis();
    Map<String, List<CompactResult>> all = new LinkedHashMap<>();
    Map<String, Long> rewritten = new LinkedHashMap<>();
    List<String> active = new ArrayList<>(tables);
    for (int round = 0; round < rounds && !active.isEmpty(); round++) {
      Map<String, Long> roundBudgets = new LinkedHashMap<>();
      Set<String> excluded = new HashSet<>();
      for (String t : active) {
        // the last round of a table takes what is left (compaction.max-rewrite-bytes, when set,
        // still caps it: the targets fall back to the option)
        if (budgets.containsKey(t) && round < commits.get(t) - 1) {
          roundBudgets.put(t, budgets.get(t));
        }
        if (round > 0 && filesAtStart.containsKey(t)) {
          excluded.addAll(
              targets.spec().laterRoundExclusions(targets.table(t).store(), filesAtStart.get(t)));
        }
      }
      CompactTargets roundTargets = targets.forRound(active, roundBudgets, excluded);
      Map<String, CompactResult> r = new CompactJob(this, roundTargets).runOnce(env, progress);
      List<String> next = new ArrayList<>();
      for (Map.Entry<String, CompactResult> e : r.entrySet()) {
        String t = e.getKey();
        all.computeIfAbsent(t, k -> new ArrayList<>()).add(e.getValue());
        long done = rewritten.merge(t, e.getValue().bytesBefore(), Long::sum);
        // a table goes on while it committed, has rounds and planned bytes left
        if (e.getValue().snapshotId() != null
            && round + 1 < commits.get(t)
            && done < planned.getOrDefault(t, 0L)) {
          next.add(t);
        }
      }
      active = next;
    }
    long durationMs = System.currentTimeMillis() - start;
    Map<String, CompactResult> out = new LinkedHashMap<>();
    for (String t : tables) {
      out.put(t, CompactResult.sum(all.getOrDefault(t, List.of()), durationMs));
    }
    return out;
  }

  /** One bounded job: plans once, rewrites, makes one COMPACT commit per table, ends. */
  private Map<String, CompactResult> runOnce(StreamExecutionEnvironment env, IntConsumer progress)
      throws Exception {
    long start = System.currentTimeMillis();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    buildTopology(env, ExecutionMode.BATCH);
    JobClient client = env.executeAsync("sediment compact " + name);
    CompletableFuture<JobExecutionResult> done = client.getJobExecutionResult();
    JobExecutionResult result;
    try {
      while (true) {
        try {
          result = done.get(200, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          if (progress != null) {
            reportProgress(client, progress);
          }
        }
      }
    } catch (ExecutionException e) {
      cleanupAfterFailure();
      throw taskError(e);
    }
    List<CompactResult> results = result.getAccumulatorResult(CompactCommitter.RESULTS_ACCUMULATOR);
    List<String> tables = result.getAccumulatorResult(CompactCommitter.RESULT_TABLES_ACCUMULATOR);
    long durationMs = System.currentTimeMillis() - start;
    Map<String, List<CompactResult>> byTable = new LinkedHashMap<>();
    for (String t : targets.tableNames()) {
      byTable.put(t, new ArrayList<>());
    }
    for (int i = 0; results != null && i < results.size(); i++) {
      byTable.computeIfAbsent(tables.get(i), k -> new ArrayList<>()).add(results.get(i));
    }
    Map<String, CompactResult> out = new LinkedHashMap<>();
    byTable.forEach((t, rs) -> out.put(t, CompactResult.sum(rs, durationMs)));
    LOG.info(
        "Compacted {}: {}",
        name,
        CompactResult.sum(new ArrayList<>(out.values()), durationMs).toJson());
    return out;
  }

  private static void reportProgress(JobClient client, IntConsumer progress) {
    try {
      Object v =
          client
              .getAccumulators()
              .get(1, TimeUnit.SECONDS)
              .get(CompactRewriteOperator.TASKS_DONE_ACCUMULATOR);
      if (v instanceof Integer) {
        progress.accept((Integer) v);
      }
    } catch (Exception ignored) {
      // progress is best effort
    }
  }

  private void cleanupAfterFailure() {
    for (String t : targets.tableNames()) {
      try {
        OutputMarkers.cleanOrphans(targets.table(t).store(), commitUser);
      } catch (RuntimeException e) {
        LOG.warn("Could not delete outputs of the failed compaction of {}: {}", t, e.toString());
      }
    }
  }

  /** The task's own error from a failed job's exception chain. */
  static Exception taskError(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null
        && (t instanceof ExecutionException
            || t instanceof CompletionException
            || t instanceof JobExecutionException
            || t instanceof JobException
            || t instanceof UnrecoverableCompactionError)) {
      t = t.getCause();
    }
    return t instanceof Exception ? (Exception) t : new RuntimeException(t);
  }

  /**
   * Starts the dedicated streaming job and returns at once. Checkpointing is enabled (every 10 s)
   * when {@code env} has none: commits happen when checkpoints complete.
   */
  public JobClient submitStreaming(StreamExecutionEnvironment env) throws Exception {
    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    if (!env.getCheckpointConfig().isCheckpointingEnabled()) {
      env.enableCheckpointing(Duration.ofSeconds(10).toMillis());
    }
    buildTopology(env, ExecutionMode.STREAMING);
    return env.executeAsync("sediment compact (dedicated) " + name);
  }

  /**
   * Options of a compaction job, the CLI's and tests' way to a {@link CompactSpec}: the table is
   * loaded and the filters and options are validated at {@link #build()}; commit user and
   * parallelism when set.
   */
  public static final class Builder {
    private final String warehouse;
    private String table;
    private String database;
    private String includingTables;
    private String excludingTables;
    private String strategy;
    private Duration partitionIdleTime;
    private final List<Map<String, String>> partitions = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private final List<Predicate> filters = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private String commitUser = CompactSpec.DEFAULT_COMMIT_USER;
    private Integer parallelism;
    private String orderStrategy;
    private String orderBy;
    private CompactListener listener = CompactListener.NONE;

    private Builder(String warehouse) {
      this.warehouse = warehouse;
    }

    /** Compacts this partition (k=v of partition columns); repeated calls add partitions (OR). */
    public Builder partition(Map<String, String> spec) {
      if (spec == null || spec.isEmpty()) {
        throw new IllegalArgumentException("Partition spec must not be empty");
      }
      partitions.add(new LinkedHashMap<>(spec));
      return this;
    }

    /**
     * A partition filter, combined with AND: a SQL boolean expression over partition columns, as in
     * Paimon's and Iceberg's {@code where} ({@code "dt > '2024-01-01' AND hh < 20"}), or the JSON
     * filter form. Parsed against the table at {@link #build()}.
     */
    public Builder where(String filter) {
      wheres.add(filter);
      return this;
    }

    /** A partition filter predicate on the table's row type; combined with AND. */
    public Builder where(Predicate filter) {
      filters.add(filter);
      return this;
    }

    /** Leaves out tables of the database matching {@code regex} (name or {@code db.table}). */
    public Builder excludingTables(String regex) {
      this.excludingTables = regex;
      return this;
    }

    /** {@code full} or {@code minor}; default full in batch, minor in the streaming job. */
    public Builder strategy(String strategy) {
      this.strategy = strategy;
      return this;
    }

    /**
     * A sort compaction (batch only): {@code strategy} is {@code order}, {@code zorder} or {@code
     * hilbert}, {@code orderBy} the columns, comma-separated. Checked at {@link #build()}.
     */
    public Builder sortOrder(String strategy, String orderBy) {
      this.orderStrategy = strategy;
      this.orderBy = orderBy;
      return this;
    }

    /** Compacts only partitions whose newest file is older than {@code idleTime}. */
    public Builder partitionIdleTime(Duration idleTime) {
      this.partitionIdleTime = idleTime;
      return this;
    }

    public Builder commitUser(String user) {
      this.commitUser = CommitUsers.validate(user);
      return this;
    }

    public Builder option(String key, String value) {
      options.put(key, value);
      return this;
    }

    public Builder options(Map<String, String> opts) {
      options.putAll(opts);
      return this;
    }

    public Builder parallelism(int p) {
      if (p < 1) {
        throw new IllegalArgumentException("Parallelism must be at least 1, got " + p);
      }
      this.parallelism = p;
      return this;
    }

    /** Told about rewrites and commits as the job runs (default: {@link CompactListener#NONE}). */
    public Builder listener(CompactListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("Compaction listener must not be null");
      }
      this.listener = listener;
      return this;
    }

    /** Validates everything (the table exists, filters, options) and builds the job. */
    public CompactJob build() {
      return of(warehouse, spec(), listener);
    }

    private CompactSpec spec() {
      FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
      CompactSpec.Builder spec;
      if (table != null) {
        Table t = catalog.getTable(Identifier.parse(table));
        spec = CompactSpec.forTable(t.fullName(), t.store()).withOptions(options);
        if (!partitions.isEmpty()) {
          spec.withPartitions(partitions);
        }
        for (String w : wheres) {
          if (PartitionWhere.isJson(w)) {
            spec.withPartitionFilter(w);
          } else {
            spec.withPartitionFilter(PartitionWhere.parse(t.fullName(), t.schema(), w));
          }
        }
        for (Predicate f : filters) {
          spec.withPartitionFilter(f);
        }
      } else {
        if (!partitions.isEmpty() || !wheres.isEmpty() || !filters.isEmpty()) {
          throw new IllegalArgumentException(
              "Partition filters need a single table (--table), not the tables of database '"
                  + database
                  + "'");
        }
        spec = CompactSpec.forDatabase(database, includingTables).withOptions(options);
        if (excludingTables != null) {
          spec.withExcludingTables(excludingTables);
        }
        CompactSpec followed = spec.build();
        if (catalog.listDatabases().stream().noneMatch(followed::followsDatabase)) {
          throw new IllegalArgumentException(catalog.missingDatabase(database));
        }
      }
      if (excludingTables != null && table != null) {
        throw new IllegalArgumentException("--excluding-tables needs --database, not --table");
      }
      if (strategy != null) {
        spec.withStrategy(strategy);
      }
      if (partitionIdleTime != null) {
        spec.withPartitionIdleTime(partitionIdleTime);
      }
      spec.withCommitUser(commitUser);
      if (parallelism != null) {
        spec.withParallelism(parallelism);
      }
      if (orderStrategy != null || orderBy != null) {
        spec.withSortOrder(orderStrategy, orderBy);
      }
      return spec.build();
    }
  }
}
