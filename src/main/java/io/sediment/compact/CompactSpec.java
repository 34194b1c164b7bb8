package io.sediment.compact;

import io.sediment.commit.CommitUsers;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;

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

  private final String database;
  private final String tablePattern;

  /** On the partition row type; null for all partitions. */
  private final Predicate partitionFilter;

  // The strategy (full or minor) joins here with its own setter; until then it follows the
  // options ('compaction.full') as it always has.

  private final Map<String, String> options;
  private final String commitUser;
  private final Integer parallelism;

  private CompactSpec(Builder b) {
    this.tables = b.table == null ? List.of() : List.of(b.table);
    this.database = b.database;
    this.tablePattern = b.tablePattern;
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
   * regex), looked up anew each time the tables are listed. Options are validated against each
   * table where it is loaded; partition filters are not allowed.
   */
  public static Builder forDatabase(String database, String tablePattern) {
    if (database == null) {
      throw new IllegalArgumentException("Database name must not be null");
    }
    if (tablePattern == null) {
      throw new IllegalArgumentException("Table name pattern must not be null");
    }
    Pattern.compile(tablePattern); // validates
    return new Builder(null, null, database, tablePattern);
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
   * The tasks a compaction of the latest snapshot of {@code store} (a table's own store, options
   * not yet applied) would run; empty when the table has no snapshot. Commits nothing.
   */
  public List<CompactTask> plan(FileStore store, String tableName) {
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isEmpty()) {
      return List.of();
    }
    return new CompactPlanner(applyOptions(store), tableName)
        .plan(latest.get(), partitionFilter, Set.of());
  }

  @Override
  public String toString() {
    return "CompactSpec{"
        + (database == null ? tables : database + "." + tablePattern)
        + (partitionFilter == null ? "" : ", partitions " + partitionFilter)
        + (options.isEmpty() ? "" : ", options " + options)
        + ", commitUser "
        + commitUser
        + (parallelism == null ? "" : ", parallelism " + parallelism)
        + "}";
  }

  /** Collects and validates a {@link CompactSpec}; each setter checks its input when called. */
  public static final class Builder {

    private final String table;
    private final FileStore store;
    private final String database;
    private final String tablePattern;
    private final List<Predicate> partitionFilters = new ArrayList<>();
    private final Map<String, String> options = new LinkedHashMap<>();
    private String commitUser = DEFAULT_COMMIT_USER;
    private Integer parallelism;

    private Builder(String table, FileStore store, String database, String tablePattern) {
      this.table = table;
      this.store = store;
      this.database = database;
      this.tablePattern = tablePattern;
    }

    /**
     * Compacts only partitions matching {@code filter}, a predicate on the table's row type that
     * references partition columns only. Repeated partition filters combine with AND.
     */
    public Builder withPartitionFilter(Predicate filter) {
      if (filter == null) {
        throw new IllegalArgumentException("Partition filter must not be null");
      }
      partitionFilters.add(PartitionFilters.fromRowFilter(schema(), filter));
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
     * values parsed to the column types). Combines with other partition filters with AND.
     */
    public Builder withPartition(Map<String, String> partition) {
      partitionFilters.add(PartitionFilters.ofPartition(table, schema(), partition));
      return this;
    }

    /**
     * Compacts only these partitions: any of them (OR), as one filter that combines with the others
     * with AND.
     */
    public Builder withPartitions(List<Map<String, String>> partitions) {
      partitionFilters.add(PartitionFilters.ofPartitions(table, schema(), partitions));
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

    public CompactSpec build() {
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
