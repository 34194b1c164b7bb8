package io.sediment.flink.sql.filter;

import static org.apache.flink.table.api.Expressions.callSql;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import io.sediment.schema.TableSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.io.GenericInputFormat;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.InputFormatProvider;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.Factory;

/**
 * The {@code where} of a compaction (CLI {@code --where}, {@code CALL sys.compact(where => ...)}):
 * a SQL boolean expression over partition columns, as Paimon and Iceberg write it ({@code dt >
 * '2024-01-01' AND hh < 20}), or, when it starts with <code>{</code>, the JSON filter form.
 *
 * <p>SQL is parsed, validated and simplified by Flink's planner, never by hand: the expression
 * filters a probe table with the table's columns, whose source accepts filter push-down; the
 * planner hands it the resolved conjuncts ({@code IN} and {@code BETWEEN} expanded, {@code NOT}
 * pushed down), and {@link FilterConverter#convertExact} turns each into a predicate. A part that
 * does not convert exactly (a function, a cast, a column compared with a column) is rejected:
 * compacting a superset of the asked partitions would be wrong.
 */
public final class PartitionWhere {

  private static final String CATALOG = "sediment_where";
  private static final String DATABASE = "db";
  private static final String PROBE = "partitions";
  private static final String OPTIMIZED_PLAN = "== Optimized Execution Plan ==";

  private PartitionWhere() {}

  /** True when {@code where} is in the JSON filter form (starts with <code>{</code>). */
  public static boolean isJson(String where) {
    return where.strip().startsWith("{");
  }

  /**
   * The predicate on the table's row type selected by {@code where} (SQL or JSON); SQL that does
   * not parse, names an unknown or a non-partition column, or cannot be a partition filter is
   * rejected with a message showing the expression and the partition columns.
   */
  public static Predicate parse(String table, TableSchema schema, String where) {
    if (where == null || where.isBlank()) {
      throw new IllegalArgumentException("where must not be empty");
    }
    if (isJson(where)) {
      return PredicateJson.parse(where, schema.rowType());
    }
    List<ResolvedExpression> conjuncts = pushedConjuncts(table, schema, where);
    // Columns first: a non-partition column is the clearer message, whatever surrounds it.
    for (String field : referencedColumns(conjuncts, new LinkedHashSet<>())) {
      if (!schema.partitionKeys().contains(field)) {
        throw rejected(table, schema, where, "'" + field + "' is not a partition column");
      }
    }
    List<Predicate> parts = new ArrayList<>();
    for (ResolvedExpression e : conjuncts) {
      Optional<Predicate> p;
      try {
        p = FilterConverter.convertExact(schema.rowType(), e);
      } catch (IllegalArgumentException literalDoesNotFit) {
        throw rejected(table, schema, where, literalDoesNotFit.getMessage());
      }
      if (p.isEmpty()) {
        throw rejected(
            table,
            schema,
            where,
            "'"
                + e.asSummaryString()
                + "' is not a comparison of a column with a literal (supported: = <> < <= > >="
                + " IN BETWEEN IS [NOT] NULL LIKE 'prefix%' AND OR NOT)");
      }
      parts.add(p.get());
    }
    return Predicates.and(parts);
  }

  private static Set<String> referencedColumns(
      List<? extends ResolvedExpression> expressions, Set<String> into) {
    for (ResolvedExpression e : expressions) {
      if (e instanceof FieldReferenceExpression) {
        into.add(((FieldReferenceExpression) e).getName());
      }
      referencedColumns(e.getResolvedChildren(), into);
    }
    return into;
  }

  /** Lets Flink parse and optimize the filter, and returns the conjuncts it pushes down. */
  private static List<ResolvedExpression> pushedConjuncts(
      String table, TableSchema schema, String where) {
    ProbeSource probe = new ProbeSource();
    TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    ProbeCatalog catalog = new ProbeCatalog(probe);
    tEnv.registerCatalog(CATALOG, catalog);
    String plan;
    try {
      catalog.createTable(new ObjectPath(DATABASE, PROBE), probeTable(schema), false);
      plan =
          tEnv.from("`" + CATALOG + "`.`" + DATABASE + "`.`" + PROBE + "`")
              .filter(callSql(where))
              .explain();
    } catch (Exception e) {
      throw rejected(table, schema, where, rootMessage(e));
    }
    if (probe.pushed == null || probe.pushed.isEmpty()) {
      throw rejected(
          table,
          schema,
          where,
          "it is always true or always false, not a filter on partition columns");
    }
    if (keepsAFilter(plan)) {
      throw rejected(
          table,
          schema,
          where,
          "a part of it is not a comparison of a column with a literal (supported: = <> < <= > >="
              + " IN BETWEEN IS [NOT] NULL LIKE 'prefix%' AND OR NOT)");
    }
    return probe.pushed;
  }

  /** The table's columns as a Flink catalog table, so that any column name resolves. */
  private static CatalogTable probeTable(TableSchema schema) {
    Schema.Builder columns = Schema.newBuilder();
    for (TableSchema.DataField f : schema.fields()) {
      columns.column(f.name(), DataTypes.of(f.logicalType()));
    }
    return CatalogTable.newBuilder()
        .schema(columns.build())
        .partitionKeys(schema.partitionKeys())
        .options(Map.of())
        .build();
  }

  /**
   * Whether the optimized plan still filters rows itself: a part the planner could not hand to the
   * source stays as a Calc or Filter node. Only node names at the start of a plan line count, so a
   * literal that reads like plan text (in the scan's {@code filter=[...]}) does not.
   */
  private static boolean keepsAFilter(String plan) {
    int optimized = plan.indexOf(OPTIMIZED_PLAN);
    if (optimized < 0) {
      throw new IllegalStateException("Flink's plan has no '" + OPTIMIZED_PLAN + "' section");
    }
    for (String line : plan.substring(optimized + OPTIMIZED_PLAN.length()).split("\n")) {
      String node = line.replaceFirst("^[\\s:|+-]*", "");
      if (node.startsWith("Calc(") || node.startsWith("Filter(")) {
        return true;
      }
    }
    return false;
  }

  private static IllegalArgumentException rejected(
      String table, TableSchema schema, String where, String why) {
    List<String> keys = schema.partitionKeys();
    return new IllegalArgumentException(
        "where '"
            + where
            + "' cannot select partitions of "
            + table
            + ": "
            + why
            + (keys.isEmpty()
                ? "; the table is not partitioned"
                : "; partition columns are " + keys));
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.toString() : t.getMessage();
    int newline = m.indexOf('\n');
    return newline < 0 ? m : m.substring(0, newline);
  }

  /** An in-memory catalog whose tables are read by the probe source. */
  private static final class ProbeCatalog extends GenericInMemoryCatalog {
    private final ProbeSource probe;

    ProbeCatalog(ProbeSource probe) {
      super(CATALOG, DATABASE);
      this.probe = probe;
    }

    @Override
    public Optional<Factory> getFactory() {
      return Optional.of(
          new DynamicTableSourceFactory() {
            @Override
            public DynamicTableSource createDynamicTableSource(Context context) {
              return probe;
            }

            @Override
            public String factoryIdentifier() {
              return CATALOG;
            }

            @Override
            public Set<ConfigOption<?>> requiredOptions() {
              return Set.of();
            }

            @Override
            public Set<ConfigOption<?>> optionalOptions() {
              return Set.of();
            }
          });
    }
  }

  /** The probe's (empty) input. */
  private static final class NoRows extends GenericInputFormat<RowData> {
    @Override
    public boolean reachedEnd() {
      return true;
    }

    @Override
    public RowData nextRecord(RowData reuse) {
      return null;
    }
  }

  /** Records the filters the planner pushes; never runs. */
  private static final class ProbeSource implements ScanTableSource, SupportsFilterPushDown {
    private List<ResolvedExpression> pushed;

    @Override
    public Result applyFilters(List<ResolvedExpression> filters) {
      pushed = List.copyOf(filters);
      return Result.of(filters, List.of());
    }

    @Override
    public ChangelogMode getChangelogMode() {
      return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
      // Explaining the plan translates it; the probe is never executed, so it reads nothing.
      return InputFormatProvider.of(new NoRows());
    }

    @Override
    public DynamicTableSource copy() {
      return this;
    }

    @Override
    public String asSummaryString() {
      return "partition filter probe";
    }
  }
}
