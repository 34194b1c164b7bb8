package io.sediment.compact;

import io.sediment.commit.CommitUsers;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One compaction request, whoever runs it ({@link CompactBuilder}, the Flink batch and dedicated
 * jobs, {@code CALL sys.compact}): which tables, which partitions, dynamic options, commit user and
 * parallelism. Immutable and serializable; built with {@link #forTable} or {@link #forDatabase},
 * whose setters validate their input when called.
 */
public final class CompactSpec implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Commit user of compactions that were given none. */
  public static final String DEFAULT_COMMIT_USER = "sediment";

  /** Full names of the tables compacted; empty when a database is followed. */
  private final List<String> tables;

  /** A regex of database names, matched whole (a plain name matches itself). */
  private final String database;

  private final String tablePattern;

  /** Regex of tables of the followed databases left out; null for none. */
  private final String excludingTables;

  /** On the partition row type; null for all partitions. */
  private final Predicate partitionFilter;

  /** Full or minor; null for the default of the execution (see {@link #strategy}). */
  private final CompactStrategy strategy;

  /** Only partitions not written for this long are compacted; null for all. */
  private final Duration partitionIdleTime;

  private final Map<String, String> options;
  private final String commitUser;
  private final Integer parallelism;

  /** Sort compaction's order; null for a compaction that keeps the rows' order. */
  private final SortOrder sortOrder;

  private CompactSpec(Builder b) {
    this.sortOrder = b.sortOrder;
    this.tables = b.table == null ? List.of() : List.of(b.table);
    this.database = b.database;
    this.tablePattern = b.tablePattern;
    this.excludingTables = b.excludingTables;
    this.strategy = b.strategy;
    this.partitionIdleTime = b.partitionIdleTime;
    this.partitionFilter = b.partitionFilters.isEmpty() ? null : Predicates.and(b.partitionFilters);
    this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
    this.commitUser = b.commitUser;
    this.parallelism = b.parallelism;
  }

  /** A compaction of one table ({@code db.table}), validated against its schema and options. */
  public static Builder forTable(String tableName, FileStore store) {
    if (tableName == null || tableName.isBlank()) {
      throw new IllegalArgumentException("Table name must not be empty");
    }
    if (store == null) {
      throw new IllegalArgumentException("File store of table " + tableName + " must not be null");
    }
    return new Builder(tableName, store, null, null);
  }

  /**
   * A compaction of every table of {@code database} whose name matches {@code tablePattern} (a Java
   * regex), looked up anew each time the tables are listed. {@code database} is itself a regex of
   * database names (Paimon's {@code including_databases}; a plain name matches itself), and a table
   * matches a pattern when either its name or its full name {@code db.table} does. Options are
   * validated against each table where it is loaded; partition filters are not allowed.
   */
  public static Builder forDatabase(String database, String tablePattern) {
    if (database == null) {
      throw new IllegalArgumentException("Database name must not be null");
    }
    if (tablePattern == null) {
      throw new IllegalArgumentException("Table name pattern must not be null");
    }
    compileRegex("including_databases", database);
    compileRegex("including_tables", tablePattern);
    return new Builder(null, null, database, tablePattern);
  }

  private static Pattern compileRegex(String what, String regex) {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(
          "Bad regex for " + what + " '" + regex + "': " + e.getDescription(), e);
    }
  }

  /** The tables compacted, by full name; empty when the spec follows a database. */
  public List<String> tables() {
    return tables;
  }

  /** The database followed, if the tables are selected by {@link #tablePattern()}. */
  public Optional<String> database() {
    return Optional.ofNullable(database);
  }

  /** The regex selecting the tables of {@link #database()}. */
  public Optional<String> tablePattern() {
    return Optional.ofNullable(tablePattern);
  }

  /** The regex of tables of {@link #database()} left out, if any. */
  public Optional<String> excludingTables() {
    return Optional.ofNullable(excludingTables);
  }

  /** Whether a database of that name is followed (its name matches {@link #database()}). */
  public boolean followsDatabase(String databaseName) {
    return database != null && Pattern.compile(database).matcher(databaseName).matches();
  }

  /**
   * Whether table {@code table} of database {@code databaseName} is followed: its name or its full
   * name matches {@link #tablePattern()} and neither matches {@link #excludingTables()}.
   */
  public boolean followsTable(String databaseName, String table) {
    if (!followsDatabase(databaseName)) {
      return false;
    }
    String fullName = databaseName + "." + table;
    Pattern including = Pattern.compile(tablePattern);
    if (!including.matcher(table).matches() && !including.matcher(fullName).matches()) {
      return false;
    }
    if (excludingTables == null) {
      return true;
    }
    Pattern excluding = Pattern.compile(excludingTables);
    return !excluding.matcher(table).matches() && !excluding.matcher(fullName).matches();
  }

  /** The strategy given explicitly; empty for the default of the execution. */
  public Optional<CompactStrategy> givenStrategy() {
    return Optional.ofNullable(strategy);
  }

  /**
   * The strategy a compaction of a table with {@code options} (this spec's applied) runs: the one
   * given, else {@link CompactStrategy#defaultFor} ({@code full} in batch, {@code minor} in the
   * streaming job).
   */
  public CompactStrategy strategy(TableOptions options, ExecutionMode mode) {
    return strategy != null ? strategy : CompactStrategy.defaultFor(options, mode);
  }

  /** The order of a sort compaction; empty when rows keep their order. */
  public Optional<SortOrder> sortOrder() {
    return Optional.ofNullable(sortOrder);
  }

  /** Only partitions not written for this long are compacted; empty for all partitions. */
  public Optional<Duration> partitionIdleTime() {
    return Optional.ofNullable(partitionIdleTime);
  }

  /**
   * The planner of a compaction of {@code store} (this spec's options already applied), in a batch
   * run or in the streaming job.
   */
  public CompactPlanner planner(FileStore effectiveStore, String tableName, ExecutionMode mode) {
    checkMode(mode);
    return planner(effectiveStore, tableName, strategy(effectiveStore.options(), mode));
  }

  /** The error of partitions and a where given together. */
  public static final String PARTITIONS_OR_WHERE =
      "partitions and where cannot be used together (as in Paimon): select the partitions with"
          + " one of them (for example, partitions p=a and p=b are the where \"p = 'a' OR p = 'b'\")";

  /** The error of a sort compaction asked of the streaming (dedicated) job. */
  public static final String SORT_IS_BATCH_ONLY =
      "Sort compaction (order_strategy, order_by) runs in batch mode only, as in Paimon: it"
          + " rewrites whole partitions once; the streaming job compacts by the table's rules";

  /**
   * Refuses, before the job starts, what the streaming job would not do: a sort compaction, and
   * partial progress asked of this compaction (a table's own option is for its batch runs; the
   * dedicated job commits at every checkpoint anyway).
   */
  public void checkMode(ExecutionMode mode) {
    boolean streaming = mode == ExecutionMode.STREAMING;
    if (streaming && sortOrder != null) {
      throw new CompactArgumentException("mode", SORT_IS_BATCH_ONLY);
    }
    if (streaming && "true".equalsIgnoreCase(options.get("partial-progress.enabled"))) {
      throw new CompactArgumentException(
          "mode",
          "partial-progress.enabled applies to batch compactions (several commits of one run);"
              + " the streaming job commits at every checkpoint and caps each round with"
              + " compaction.max-rewrite-bytes");
    }
  }

  /** The planner of a compaction of {@code store} with {@code strategy} for this round. */
  public CompactPlanner planner(
      FileStore effectiveStore, String tableName, CompactStrategy strategy) {
    if (sortOrder != null) {
      // ranges: as many as rewrites run at once
      int ranges =
          parallelism != null
              ? parallelism
              : effectiveStore.options().get(CompactionOptions.COMPACTION_PARALLELISM);
      return new CompactPlanner(effectiveStore, tableName, sortOrder, ranges, partitionIdleTime);
    }
    return new CompactPlanner(effectiveStore, tableName, strategy, partitionIdleTime);
  }

  /** The partition filter on the partition row type (AND of all given), or null for all. */
  public Predicate partitionFilter() {
    return partitionFilter;
  }

  /** Dynamic options laid over each table's own for this compaction. */
  public Map<String, String> options() {
    return options;
  }

  /** The commit user, before {@code -compact-<suffix>} is appended per run. */
  public String commitUser() {
    return commitUser;
  }

  /** Parallelism given explicitly; otherwise {@code compaction.parallelism} decides. */
  public OptionalInt parallelism() {
    return parallelism == null ? OptionalInt.empty() : OptionalInt.of(parallelism);
  }

  /** {@code store} with this spec's options laid over its own (validated like table options). */
  public FileStore applyOptions(FileStore store) {
    return options.isEmpty() ? store : store.withOptions(store.options().with(options));
  }

  /**
   * The tasks a batch compaction of the latest snapshot of {@code store} (a table's own store,
   * options not yet applied) would run; empty when the table has no snapshot. Commits nothing.
   */
  public List<CompactTask> plan(FileStore store, String tableName) {
    return plan(store, tableName, ExecutionMode.BATCH);
  }

  /** {@link #plan(FileStore, String)} of a batch run or of the streaming job's first round. */
  public List<CompactTask> plan(FileStore store, String tableName, ExecutionMode mode) {
    return plan(store, tableName, mode, Set.of());
  }

  /**
   * The same, leaving alone the buckets holding a file of {@code excluded} (a later round of a run
   * with partial progress leaves the buckets its sort compaction already sorted).
   */
  public List<CompactTask> plan(
      FileStore store, String tableName, ExecutionMode mode, Set<String> excluded) {
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isEmpty()) {
      return List.of();
    }
    return planner(applyOptions(store), tableName, mode)
        .plan(latest.get(), partitionFilter, excluded);
  }

  /**
   * Files a later round of a run that started with {@code filesAtStart} live leaves alone: for a
   * sort compaction, the files live now that were not then (the rounds' sorted outputs, and files
   * written meanwhile, which the next run sorts); nothing otherwise.
   */
  public Set<String> laterRoundExclusions(FileStore store, Set<String> filesAtStart) {
    if (sortOrder == null) {
      return Set.of();
    }
    Set<String> now = liveFileNames(store);
    now.removeAll(filesAtStart);
    return now;
  }

  /** Names of the live files of the latest snapshot of {@code store} (empty without one). */
  public static Set<String> liveFileNames(FileStore store) {
    Set<String> names = new HashSet<>();
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isPresent()) {
      for (ManifestEntry e : store.newScan().plan(latest.get())) {
        names.add(e.file().fileName());
      }
    }
    return names;
  }

  @Override
  public String toString() {
    return "CompactSpec{"
        + (database == null ? tables : database + "." + tablePattern)
        + (excludingTables == null ? "" : ", excluding " + excludingTables)
        + (strategy == null ? "" : ", strategy " + strategy.value())
        + (partitionIdleTime == null ? "" : ", partition idle time " + partitionIdleTime)
        + (partitionFilter == null ? "" : ", partitions " + partitionFilter)
        + (options.isEmpty() ? "" : ", options " + options)
        + ", commitUser "
        + commitUser
        + (parallelism == null ? "" : ", parallelism " + parallelism)
        + (sortOrder == null ? "" : ", sort " + sortOrder)
        + "}";
  }

  /** Collects and validates a {@link CompactSpec}; each setter checks its input when called. */
  public static final class Builder {

    private final String table;
    private final FileStore store;
    private final String database;
    private final String tablePattern;
    private String excludingTables;
    private CompactStrategy strategy;
    private Duration partitionIdleTime;
    private final List<Predicate> partitionFilters = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private String commitUser = DEFAULT_COMMIT_USER;
    private Integer parallelism;
    private SortOrder sortOrder;
    private boolean partitionsGiven;
    private boolean whereGiven;

    private Builder(String table, FileStore store, String database, String tablePattern) {
      this.table = table;
      this.store = store;
      this.database = database;
      this.tablePattern = tablePattern;
    }

    /**
     * Compacts only partitions matching {@code filter}, a predicate on the table's row type that
     * references partition columns only (a where). Repeated ones combine with AND; not with {@link
     * #withPartitions} ({@link #PARTITIONS_OR_WHERE}).
     */
    public Builder withPartitionFilter(Predicate filter) {
      if (filter == null) {
        throw new IllegalArgumentException("Partition filter must not be null");
      }
      partitionFilters.add(PartitionFilters.fromRowFilter(schema(), filter));
      whereGiven = true;
      return this;
    }

    /**
     * The same, from the JSON filter form, e.g. {@code
     * {"method":"equal","field":"p","literals":["a"]}}.
     */
    public Builder withPartitionFilter(String jsonFilter) {
      if (jsonFilter == null || jsonFilter.isBlank()) {
        throw new IllegalArgumentException("Partition filter JSON must not be empty");
      }
      return withPartitionFilter(PredicateJson.parse(jsonFilter, singleStore().rowType()));
    }

    /**
     * Compacts only this partition, e.g. {@code {dt=2024-01-01, hh=3}} (partition columns only;
     * values parsed to the column types). Not with a where ({@link #PARTITIONS_OR_WHERE}).
     */
    public Builder withPartition(Map<String, String> partition) {
      partitionFilters.add(PartitionFilters.ofPartition(table, schema(), partition));
      partitionsGiven = true;
      return this;
    }

    /**
     * Compacts only these partitions: any of them (OR), ANDed with other lists given. Not with a
     * where ({@link #PARTITIONS_OR_WHERE}).
     */
    public Builder withPartitions(List<Map<String, String>> partitions) {
      partitionFilters.add(PartitionFilters.ofPartitions(table, schema(), partitions));
      partitionsGiven = true;
      return this;
    }

    /**
     * Dynamic options for this compaction only, e.g. {@code target-file-size}, {@code
     * compaction.min.file-num}, {@code compaction.full}, {@code compaction.parallelism}; merged
     * with those given before. For one table they are validated now like table options.
     */
    public Builder withOptions(Map<String, String> dynamicOptions) {
      if (dynamicOptions == null) {
        throw new IllegalArgumentException("Options must not be null");
      }
      Map<String, String> merged = new LinkedHashMap<>(options);
      merged.putAll(dynamicOptions);
      if (store != null) {
        store.options().with(merged); // validates
      }
      options.clear();
      options.putAll(merged);
      return this;
    }

    /**
     * {@code full} or {@code minor} (Paimon's {@code compact_strategy}); without it a batch run is
     * full and the streaming job minor.
     */
    public Builder withStrategy(CompactStrategy strategy) {
      if (strategy == null) {
        throw new IllegalArgumentException(
            "Compact strategy must not be null: allowed are 'full', 'minor'");
      }
      this.strategy = strategy;
      return this;
    }

    /** The same by name; an unknown name fails naming it and the allowed ones. */
    public Builder withStrategy(String strategy) {
      return withStrategy(CompactStrategy.parse(strategy));
    }

    /**
     * Compacts only partitions whose newest file is older than {@code idleTime} (Paimon's {@code
     * partition_idle_time}): the nightly full compaction of partitions no longer written.
     */
    public Builder withPartitionIdleTime(Duration idleTime) {
      if (idleTime == null || idleTime.isNegative() || idleTime.isZero()) {
        throw new IllegalArgumentException(
            "Partition idle time must be a positive duration, got " + idleTime);
      }
      this.partitionIdleTime = idleTime;
      return this;
    }

    /**
     * Leaves out the tables of the followed databases matching {@code regex} (by name or {@code
     * db.table}); only for a database compaction.
     */
    public Builder withExcludingTables(String regex) {
      if (database == null) {
        throw new IllegalArgumentException(
            "Excluding tables needs a database compaction, but this one compacts " + table);
      }
      if (regex == null) {
        throw new IllegalArgumentException("Excluding tables regex must not be null");
      }
      compileRegex("excluding_tables", regex);
      this.excludingTables = regex;
      return this;
    }

    /** Names the compaction in snapshots as {@code <user>-compact-<suffix>}; validated now. */
    public Builder withCommitUser(String user) {
      this.commitUser = CommitUsers.validate(user);
      return this;
    }

    /** Number of parallel rewrites; beats the {@code compaction.parallelism} option. */
    public Builder withParallelism(int parallelism) {
      if (parallelism < 1) {
        throw new IllegalArgumentException("Parallelism must be at least 1, got " + parallelism);
      }
      this.parallelism = parallelism;
      return this;
    }

    /**
     * A sort compaction (Paimon's {@code order_strategy} and {@code order_by}): every file of the
     * selected partitions is rewritten with its rows in {@code order}, the rows split by key range
     * over the parallel rewrites. Append tables without fixed buckets only; batch only; checked
     * against the table now.
     */
    public Builder withSortOrder(SortOrder order) {
      if (order == null) {
        throw new IllegalArgumentException("Sort order must not be null");
      }
      if (store == null) {
        throw new IllegalArgumentException(
            "Sort compaction (order_strategy, order_by) compacts one table, but this compaction"
                + " follows the tables of database '"
                + database
                + "' matching '"
                + tablePattern
                + "'");
      }
      order.validate(table, store.schema());
      this.sortOrder = order;
      return this;
    }

    /** The same from Paimon's arguments: {@code order_strategy} and {@code order_by}. */
    public Builder withSortOrder(String orderStrategy, String orderBy) {
      return withSortOrder(SortOrder.of(orderStrategy, orderBy));
    }

    /**
     * Checks the rules between arguments (partitions or a where, not both; no minor strategy with a
     * sort) and builds the spec; a broken rule is a {@link CompactArgumentException}.
     */
    public CompactSpec build() {
      if (partitionsGiven && whereGiven) {
        throw new CompactArgumentException("where", PARTITIONS_OR_WHERE);
      }
      if (sortOrder != null && strategy == CompactStrategy.MINOR) {
        throw new CompactArgumentException(
            "compact_strategy",
            "A sort compaction (order_strategy '"
                + sortOrder.strategy().value()
                + "') rewrites every file of the selected partitions: compact_strategy 'minor'"
                + " does not go with it (leave it out, or give 'full')");
      }
      return new CompactSpec(this);
    }

    private TableSchema schema() {
      return singleStore().schema();
    }

    private FileStore singleStore() {
      if (store == null) {
        throw new IllegalArgumentException(
            "Partition filters need a single table, but this compaction follows the tables of"
                + " database '"
                + database
                + "' matching '"
                + tablePattern
                + "'");
      }
      return store;
    }
  }
}
