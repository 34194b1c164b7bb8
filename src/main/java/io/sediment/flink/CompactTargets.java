package io.sediment.flink;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactBudget;
import io.sediment.compact.CompactSpec;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import java.io.Serializable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which tables a compaction job follows and how it sees them: a warehouse and the job's {@link
 * CompactSpec}, whose tables are either fixed names or a database with a table-name regex
 * (re-listed at each discovery, so new tables are picked up), with dynamic options laid over each
 * table's own and an optional partition filter (single-table jobs). Serializable; tables are loaded
 * where they are used.
 */
public final class CompactTargets implements Serializable {

  private static final long serialVersionUID = 2L;

  private final String warehouse;
  private final CompactSpec spec;

  /** Per table, the input bytes one commit of this run rewrites at most (partial progress). */
  private final HashMap<String, Long> budgets;

  /** Files whose buckets this round leaves alone (a later round of a sort compaction). */
  private final HashSet<String> excludedFiles;

  /** The tables of this round, or null for all the spec follows. */
  private final ArrayList<String> roundTables;

  /** The clock the tables and the job's schedule decide on time by (Serializable at runtime). */
  private final Clock clock;

  private transient FileSystemCatalog catalog;

  CompactTargets(String warehouse, CompactSpec spec) {
    this(warehouse, spec, Map.of(), Set.of(), null, Clock.systemUTC());
  }

  private CompactTargets(
      String warehouse,
      CompactSpec spec,
      Map<String, Long> budgets,
      Set<String> excludedFiles,
      List<String> roundTables,
      Clock clock) {
    this.warehouse = warehouse;
    this.spec = spec;
    this.budgets = new HashMap<>(budgets);
    this.excludedFiles = new HashSet<>(excludedFiles);
    this.roundTables = roundTables == null ? null : new ArrayList<>(roundTables);
    this.clock = clock;
  }

  /**
   * These targets on another clock (a test's): the tables are loaded on it ({@link
   * FileSystemCatalog#withClock}) and the enumerator's discovery and full-compaction intervals are
   * timed by it. It must be Serializable, and a job gets a copy of it.
   */
  CompactTargets withClock(Clock other) {
    return new CompactTargets(
        warehouse,
        spec,
        budgets,
        excludedFiles,
        roundTables,
        Objects.requireNonNull(other, "clock"));
  }

  /** The clock of {@link #withClock}: the system clock (UTC) unless a test gave another. */
  Clock clock() {
    return clock;
  }

  /**
   * The targets of one round of a batch run with partial progress: only {@code tables}, their plans
   * capped at {@code budgets} bytes per table (tables absent: their own options) and leaving alone
   * the buckets holding {@code excludedFiles}.
   */
  CompactTargets forRound(
      List<String> tables, Map<String, Long> budgets, Set<String> excludedFiles) {
    return new CompactTargets(warehouse, spec, budgets, excludedFiles, tables, clock);
  }

  /** Files whose buckets the planner leaves alone in this round, beside those of running tasks. */
  Set<String> excludedFiles() {
    return excludedFiles;
  }

  /**
   * The input bytes one commit of {@code table} (loaded with the dynamic options) rewrites at most:
   * this run's budget, else {@code compaction.max-rewrite-bytes}, else no limit.
   */
  long budget(String name, Table table) {
    Long b = budgets.get(name);
    if (b != null) {
      return b;
    }
    return CompactBudget.maxRewriteBytes(table.options()).orElse(Long.MAX_VALUE);
  }

  public String warehouse() {
    return warehouse;
  }

  /** The compaction request these targets come from. */
  public CompactSpec spec() {
    return spec;
  }

  /** Partition filter on the partition row type, or null (all partitions). */
  public Predicate partitionFilter() {
    return spec.partitionFilter();
  }

  public Map<String, String> dynamicOptions() {
    return spec.options();
  }

  FileSystemCatalog catalog() {
    if (catalog == null) {
      catalog = new FileSystemCatalog(warehouse).withClock(clock);
    }
    return catalog;
  }

  /** Full names of the tables followed now. */
  public List<String> tableNames() {
    if (roundTables != null) {
      return roundTables;
    }
    if (spec.database().isEmpty()) {
      return spec.tables();
    }
    List<String> out = new ArrayList<>();
    for (String database : catalog().listDatabases()) {
      if (!spec.followsDatabase(database)) {
        continue;
      }
      for (String t : catalog().listTables(database)) {
        if (spec.followsTable(database, t)) {
          out.add(new Identifier(database, t).fullName());
        }
      }
    }
    return out;
  }

  /** The table with the dynamic options applied. */
  public Table table(String fullName) {
    Table t = catalog().getTable(fullName);
    return spec.options().isEmpty() ? t : t.copy(spec.options());
  }

  @Override
  public String toString() {
    return warehouse
        + " "
        + (spec.database().isEmpty()
            ? spec.tables()
            : spec.database().get()
                + "."
                + spec.tablePattern().orElseThrow()
                + spec.excludingTables().map(x -> " excluding " + x).orElse(""));
  }
}
