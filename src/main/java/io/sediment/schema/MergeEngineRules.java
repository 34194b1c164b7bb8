package io.sediment.schema;

import io.sediment.data.InternalComparators;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The rules a primary-key table's merge options keep, checked when the table is created or altered
 * so that no write or read fails on them later: aggregate functions belong to the aggregation
 * engine, never to a primary-key column (the writer would overwrite the key with its {@code
 * count}), none that could change the {@code sequence.field} (a merged row keeps its largest
 * value), and take the types they can compute on; the {@code sequence.field} is an ordered column.
 */
final class MergeEngineRules {

  private MergeEngineRules() {}

  /**
   * @throws IllegalArgumentException naming the option, the column and what is allowed
   */
  static void check(Schema schema, TableOptions opts, List<String> names) {
    String engine = opts.mergeEngine();
    Map<String, String> functions = opts.aggregateFunctions();
    String seq = opts.get(PrimaryKeyOptions.SEQUENCE_FIELD);
    if (!functions.isEmpty() && !engine.equals("aggregation")) {
      throw new IllegalArgumentException(
          "Option 'fields."
              + functions.keySet().iterator().next()
              + ".aggregate-function' applies to merge-engine aggregation only; this table's"
              + " merge-engine is "
              + engine
              + " (Paimon's partial-update needs sequence groups for it, which this version does"
              + " not have)");
    }
    if (seq != null && names.contains(seq)) {
      LogicalType t = type(schema, names, seq);
      if (!ordered(t)) {
        throw new IllegalArgumentException(
            "Option 'sequence.field' names '"
                + seq
                + "' of type "
                + t.asSummaryString()
                + ", which has no order; use a column of a numeric, string, date or time type");
      }
    }
    for (Map.Entry<String, String> e : functions.entrySet()) {
      String f = e.getKey();
      String fn = e.getValue();
      if (!names.contains(f)) {
        continue; // refused as an unknown column by the caller
      }
      String option = "Option 'fields." + f + ".aggregate-function'";
      if (schema.primaryKeys().contains(f)) {
        throw new IllegalArgumentException(
            option + ": '" + f + "' is a primary-key column, whose value is the key itself");
      }
      if (f.equals(seq) && !List.of("max", "last_value", "last_non_null_value").contains(fn)) {
        throw new IllegalArgumentException(
            option
                + ": '"
                + f
                + "' is the sequence.field, which orders the versions: a merged row keeps its"
                + " largest value, and "
                + fn
                + " would change it. Leave the option unset (max, last_value and"
                + " last_non_null_value are accepted and mean the same)");
      }
      LogicalType t = type(schema, names, f);
      String needs =
          switch (fn) {
            case "sum" -> numeric(t) ? null : "a numeric type";
            case "count" -> isIntOrBigint(t) ? null : "type INT or BIGINT";
            case "min", "max" -> ordered(t) ? null : "an ordered type";
            default -> null; // last_value, last_non_null_value: any type
          };
      if (needs != null) {
        throw new IllegalArgumentException(
            "Aggregate function "
                + fn
                + " of field '"
                + f
                + "' needs "
                + needs
                + ", got "
                + t.asSummaryString());
      }
    }
  }

  private static LogicalType type(Schema schema, List<String> names, String column) {
    return schema.columns().get(names.indexOf(column)).type();
  }

  private static boolean ordered(LogicalType t) {
    return !SupportedTypes.isNested(t) && InternalComparators.forType(t) != null;
  }

  private static boolean numeric(LogicalType t) {
    return switch (t.getTypeRoot()) {
      case TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL -> true;
      default -> false;
    };
  }

  private static boolean isIntOrBigint(LogicalType t) {
    return switch (t.getTypeRoot()) {
      case INTEGER, BIGINT -> true;
      default -> false;
    };
  }
}
