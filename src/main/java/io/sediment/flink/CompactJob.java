package io.sediment.flink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitUsers;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.predicate.PredicateJson;
import io.sediment.schema.TableOptions;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flink compaction jobs: {@code CompactTaskSource -> CompactRewriteOperator x N ->
 * CompactCommitter}. Build with {@link #builder(String, String)} (one table) or {@link
 * #builderForDatabase} (tables of a database matching a regex, dedicated job), then {@link
 * #runBatch} (plan once, compact, commit, end) or {@link #submitStreaming} (keeps compacting).
 * Options, partition filters and commit user rules are those of {@link CompactBuilder}.
 */
public final class CompactJob {

  private static final Logger LOG = LoggerFactory.getLogger(CompactJob.class);

  private final CompactTargets targets;
  private final String name;
  private final String commitUser;
  private final Integer parallelism;
  private final long discoveryIntervalMs;
  private final int maxConsecutiveFailures;
  private final Table singleTable;
  private final CompactListener listener;

  private CompactJob(Builder b, CompactTargets targets, Table singleTable, Configuration opts) {
    this.targets = targets;
    this.name = b.table != null ? b.table : b.database + "." + b.includingTables;
    this.commitUser = CompactBuilder.compactCommitUser(b.commitUser);
    this.singleTable = singleTable;
    this.listener = b.listener;
    Integer p = b.parallelism;
    if (p == null && opts.contains(TableOptions.COMPACTION_PARALLELISM)) {
      p = opts.get(TableOptions.COMPACTION_PARALLELISM);
    }
    this.parallelism = p;
    this.discoveryIntervalMs = opts.get(TableOptions.COMPACTION_DISCOVERY_INTERVAL).toMillis();
    this.maxConsecutiveFailures = opts.get(TableOptions.COMPACTION_MAX_CONSECUTIVE_FAILURES);
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
    List<CompactTask> tasks = new ArrayList<>();
    for (String t : targets.tableNames()) {
      Table table = targets.table(t);
      table
          .latestSnapshot()
          .ifPresent(
              s ->
                  tasks.addAll(
                      new io.sediment.compact.CompactPlanner(table.store(), table.fullName())
                          .plan(s, targets.partitionFilter(), java.util.Set.of())));
    }
    return tasks;
  }

  /** Adds the topology to {@code env}. */
  public void buildTopology(StreamExecutionEnvironment env, boolean bounded) {
    int p = parallelism != null ? parallelism : env.getParallelism();
    CompactTaskSource source =
        new CompactTaskSource(targets, bounded, discoveryIntervalMs, commitUser);
    DataStream<CompactTaskSplit> tasks =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "Compact tasks: " + name)
            .setParallelism(p)
            .uid("sediment-compact-source");
    SingleOutputStreamOperator<CompactMessage> messages =
        tasks
            .transform(
                "Compact rewrite",
                JavaSerialization.typeInfo(CompactMessage.class),
                new CompactRewriteOperator(targets, listener))
            .setParallelism(p)
            .uid("sediment-compact-rewrite");
    messages
        .transform(
            "Compact commit",
            Types.VOID,
            new CompactCommitter(targets, commitUser, bounded, maxConsecutiveFailures, listener))
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
    long start = System.currentTimeMillis();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    buildTopology(env, true);
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
    CompactResult r = merge(results, System.currentTimeMillis() - start);
    LOG.info("Compacted {}: {}", name, r.toJson());
    return r;
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
        CompactMarkers.cleanOrphans(targets.table(t).store(), commitUser);
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
            || t instanceof org.apache.flink.runtime.client.JobExecutionException
            || t instanceof org.apache.flink.runtime.JobException)) {
      t = t.getCause();
    }
    return t instanceof Exception ? (Exception) t : new RuntimeException(t);
  }

  private static CompactResult merge(List<CompactResult> results, long durationMs) {
    if (results == null || results.isEmpty()) {
      return CompactResult.nothing(durationMs);
    }
    int tasks = 0;
    Long snapshot = null;
    long fb = 0, fa = 0, bb = 0, ba = 0, rr = 0, rw = 0;
    for (CompactResult r : results) {
      tasks += r.tasks();
      if (r.snapshotId() != null) {
        snapshot = r.snapshotId();
      }
      fb += r.filesBefore();
      fa += r.filesAfter();
      bb += r.bytesBefore();
      ba += r.bytesAfter();
      rr += r.rowsRead();
      rw += r.rowsWritten();
    }
    return new CompactResult(tasks, snapshot, fb, fa, bb, ba, rr, rw, durationMs);
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
    buildTopology(env, false);
    return env.executeAsync("sediment compact (dedicated) " + name);
  }

  /** Options of a compaction job; validated at {@link #build()} like {@link CompactBuilder}'s. */
  public static final class Builder {
    private final String warehouse;
    private String table;
    private String database;
    private String includingTables;
    private final List<Map<String, String>> partitions = new ArrayList<>();
    private final List<String> wheres = new ArrayList<>();
    private final List<Predicate> filters = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private String commitUser = CompactBuilder.DEFAULT_COMMIT_USER;
    private Integer parallelism;
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

    /** A partition filter in the JSON filter form; combined with AND. */
    public Builder where(String jsonFilter) {
      wheres.add(jsonFilter);
      return this;
    }

    /** A partition filter predicate on the table's row type; combined with AND. */
    public Builder where(Predicate filter) {
      filters.add(filter);
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
      FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
      Configuration opts = Configuration.fromMap(options);
      if (table != null) {
        Table t = catalog.getTable(Identifier.parse(table));
        CompactBuilder cb = t.newCompactBuilder().withOptions(options);
        for (Map<String, String> spec : partitions) {
          cb.withPartitionFilter(partitionPredicate(t, List.of(spec)));
        }
        if (partitions.size() > 1) {
          // withPartitionFilter ANDs; several --partition mean any of them.
          cb = t.newCompactBuilder().withOptions(options);
          cb.withPartitionFilter(partitionPredicate(t, partitions));
        }
        for (String w : wheres) {
          cb.withPartitionFilter(w);
        }
        for (Predicate f : filters) {
          cb.withPartitionFilter(f);
        }
        Table effective = cb.effectiveTable();
        Configuration merged = Configuration.fromMap(effective.options().toMap());
        CompactTargets targets =
            new CompactTargets(
                warehouse, List.of(t.fullName()), null, null, options, cb.partitionFilter());
        return new CompactJob(this, targets, t, merged);
      }
      if (!partitions.isEmpty() || !wheres.isEmpty() || !filters.isEmpty()) {
        throw new IllegalArgumentException(
            "Partition filters need a single table; they cannot be used with --including-tables");
      }
      Pattern.compile(includingTables); // validates
      if (!catalog.databaseExists(database)) {
        throw new IllegalArgumentException("Database '" + database + "' does not exist");
      }
      CompactTargets targets =
          new CompactTargets(warehouse, null, database, includingTables, options, null);
      for (String t : targets.tableNames()) {
        targets.table(t); // validates the options against each table
      }
      return new CompactJob(this, targets, null, opts);
    }

    private static Predicate partitionPredicate(Table t, List<Map<String, String>> specs) {
      ObjectMapper json = new ObjectMapper();
      List<Predicate> ors = new ArrayList<>();
      for (Map<String, String> spec : specs) {
        List<Predicate> ands = new ArrayList<>();
        for (Map.Entry<String, String> e : spec.entrySet()) {
          if (!t.schema().partitionKeys().contains(e.getKey())) {
            throw new IllegalArgumentException(
                "'"
                    + e.getKey()
                    + "' is not a partition column of "
                    + t.fullName()
                    + "; partition columns are "
                    + t.schema().partitionKeys());
          }
          ObjectNode leaf = json.createObjectNode();
          leaf.put("method", "equal");
          leaf.put("field", e.getKey());
          leaf.putArray("literals").add(e.getValue());
          ands.add(PredicateJson.parse(leaf.toString(), t.rowType()));
        }
        ors.add(PredicateBuilder.and(ands));
      }
      return ors.size() == 1 ? ors.get(0) : PredicateBuilder.or(ors);
    }
  }

  Table singleTable() {
    return singleTable;
  }
}
