package io.sediment.flink;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which tables a compaction job follows and how it sees them: a warehouse, either fixed table names
 * or a database with a table-name regex (re-listed at each discovery, so new tables are picked up),
 * dynamic options laid over each table's own, and an optional partition filter (single-table jobs).
 * Serializable; tables are loaded where they are used.
 */
public final class CompactTargets implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String warehouse;
  private final List<String> tables;
  private final String database;
  private final String includingTables;
  private final Map<String, String> dynamicOptions;
  private final Predicate partitionFilter;

  private transient FileSystemCatalog catalog;

  CompactTargets(
      String warehouse,
      List<String> tables,
      String database,
      String includingTables,
      Map<String, String> dynamicOptions,
      Predicate partitionFilter) {
    this.warehouse = warehouse;
    this.tables = tables == null ? null : List.copyOf(tables);
    this.database = database;
    this.includingTables = includingTables;
    this.dynamicOptions = Map.copyOf(dynamicOptions);
    this.partitionFilter = partitionFilter;
  }

  public String warehouse() {
    return warehouse;
  }

  /** Partition filter on the partition row type, or null (all partitions). */
  public Predicate partitionFilter() {
    return partitionFilter;
  }

  public Map<String, String> dynamicOptions() {
    return dynamicOptions;
  }

  FileSystemCatalog catalog() {
    if (catalog == null) {
      catalog = new FileSystemCatalog(warehouse);
    }
    return catalog;
  }

  /** Full names of the tables followed now. */
  public List<String> tableNames() {
    if (tables != null) {
      return tables;
    }
    Pattern p = Pattern.compile(includingTables);
    List<String> out = new ArrayList<>();
    for (String t : catalog().listTables(database)) {
      if (p.matcher(t).matches()) {
        out.add(new Identifier(database, t).fullName());
      }
    }
    return out;
  }

  /** The table with the dynamic options applied. */
  public Table table(String fullName) {
    Table t = catalog().getTable(fullName);
    return dynamicOptions.isEmpty() ? t : t.copy(dynamicOptions);
  }

  @Override
  public String toString() {
    return warehouse + " " + (tables != null ? tables : database + "." + includingTables);
  }
}
