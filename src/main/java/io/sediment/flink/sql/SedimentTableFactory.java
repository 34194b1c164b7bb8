package io.sediment.flink.sql;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.SnapshotCommits;
import io.sediment.systable.SystemTables;
import io.sediment.table.Table;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Creates the source and sink of a table of a {@link SedimentCatalog}. Options given in the
 * statement (dynamic table options, {@code /*+ OPTIONS(...) *}{@code /}) are laid over the table's
 * own with {@link Table#copy(Map)}, so they are validated the same way.
 */
public final class SedimentTableFactory
    implements DynamicTableSourceFactory, DynamicTableSinkFactory {

  private final FileSystemCatalog catalog;

  public SedimentTableFactory(FileSystemCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public String factoryIdentifier() {
    return "sediment";
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of();
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    ObjectIdentifier oid = context.getObjectIdentifier();
    Optional<SystemTables.SystemTable> system = SedimentCatalog.systemTable(oid.getObjectName());
    if (system.isPresent()) {
      String base = SedimentCatalog.baseTable(oid.getObjectName());
      // Options a statement gives (hints, FOR SYSTEM_TIME AS OF): refused, not ignored.
      Map<String, String> given = context.getCatalogTable().getOptions();
      if (!given.isEmpty()) {
        throw new ValidationException(
            "System table "
                + oid.getObjectName()
                + " takes no table options and no time travel (given "
                + new java.util.TreeMap<>(given).keySet()
                + "): it shows "
                + base
                + "'s metadata as of now");
      }
      return new SystemTableSource(
          catalog.getTable(new Identifier(oid.getDatabaseName(), base)), system.get());
    }
    boolean streaming =
        context.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
            == RuntimeExecutionMode.STREAMING;
    boolean restoring =
        context.getConfiguration().getOptional(StateRecoveryOptions.SAVEPOINT_PATH).isPresent();
    return new SedimentTableSource(load(context), streaming, restoring);
  }

  @Override
  public DynamicTableSink createDynamicTableSink(Context context) {
    String name = context.getObjectIdentifier().getObjectName();
    if (SedimentCatalog.systemTable(name).isPresent()) {
      throw new ValidationException("System table " + name + " is read-only");
    }
    Table table = load(context);
    SnapshotCommits.checkCommitSafe(table.store()); // at planning, not in the running job
    return new SedimentTableSink(table);
  }

  private Table load(Context context) {
    ObjectIdentifier oid = context.getObjectIdentifier();
    Table table = catalog.getTable(new Identifier(oid.getDatabaseName(), oid.getObjectName()));
    checkPlannedColumns(context, table);
    Map<String, String> dynamic = sessionOptions(context.getConfiguration().toMap(), oid);
    Map<String, String> stored = table.schema().options();
    for (Map.Entry<String, String> e : context.getCatalogTable().getOptions().entrySet()) {
      if (!Objects.equals(stored.get(e.getKey()), e.getValue())) {
        dynamic.put(e.getKey(), e.getValue());
      }
    }
    return dynamic.isEmpty() ? table : table.copy(dynamic);
  }

  /**
   * The planner resolved the table's columns when it planned the query, which may be before an
   * {@code ALTER TABLE} (a Table API {@code Table} kept across it, a compiled plan): projections,
   * filters and written rows are by position in those columns, so reading or writing the latest
   * schema by them would give or store other columns' values. Refused instead, naming both.
   */
  private static void checkPlannedColumns(Context context, Table table) {
    LogicalType planned = context.getPhysicalRowDataType().getLogicalType();
    RowType now = table.rowType();
    // Key columns' nullability aside: Flink sees them as NOT NULL whatever the schema stores. Any
    // other column's counts: a plan that took a column for NOT NULL folds its null checks away.
    List<String> keys = table.schema().primaryKeys();
    boolean same =
        planned instanceof RowType p
            && p.getFieldNames().equals(now.getFieldNames())
            && java.util.stream.IntStream.range(0, now.getFieldCount())
                .allMatch(
                    i ->
                        keys.contains(now.getFieldNames().get(i))
                            ? p.getTypeAt(i).copy(true).equals(now.getTypeAt(i).copy(true))
                            : p.getTypeAt(i).equals(now.getTypeAt(i)));
    if (!same) {
      throw new ValidationException(
          "The columns of "
              + table.fullName()
              + " changed since this query was planned: planned with "
              + planned.asSummaryString()
              + ", the table has "
              + now.asSummaryString()
              + " (schema "
              + table.schema().id()
              + "). Plan the query again");
    }
  }

  /**
   * Table options set for a session ({@code SET 'sediment.<catalog>.<database>.<table>.<option>' =
   * 'value'}, {@code *} matching any name; Paimon's {@code paimon.*.*.*.<option>} form) that apply
   * to table {@code oid}. A statement's hint overrides them.
   */
  static Map<String, String> sessionOptions(Map<String, String> config, ObjectIdentifier oid) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : config.entrySet()) {
      if (!e.getKey().startsWith(SESSION_PREFIX)) {
        continue;
      }
      String[] parts = e.getKey().substring(SESSION_PREFIX.length()).split("\\.", 4);
      if (parts.length == 4
          && matches(parts[0], oid.getCatalogName())
          && matches(parts[1], oid.getDatabaseName())
          && matches(parts[2], oid.getObjectName())) {
        out.put(parts[3], e.getValue());
      }
    }
    return out;
  }

  private static boolean matches(String pattern, String name) {
    return pattern.equals("*") || pattern.equals(name);
  }

  /** Prefix of session table options. */
  static final String SESSION_PREFIX = "sediment.";
}
