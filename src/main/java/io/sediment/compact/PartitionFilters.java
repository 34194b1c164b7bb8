package io.sediment.compact;

import io.sediment.manifest.TablePaths;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.predicate.Predicates;
import io.sediment.schema.TableSchema;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;

/**
 * Partition filters as predicates on a table's partition row type, the form the planner prunes
 * manifests with: from a filter on the row type, or straight from partition specs such as {@code
 * dt=2024-01-01,hh=3}. Every error names the table or the column and what is allowed.
 */
public final class PartitionFilters {

  private PartitionFilters() {}

  /**
   * Checks that {@code filter}, a predicate on the table's row type, references only partition
   * columns, and re-binds it to the partition row type.
   */
  public static Predicate fromRowFilter(TableSchema schema, Predicate filter) {
    List<String> partitionKeys = schema.partitionKeys();
    for (String field : filter.fieldNames()) {
      if (!schema.fieldNames().contains(field)) {
        throw new IllegalArgumentException(
            "Partition filter references unknown column '"
                + field
                + "'; partition columns are "
                + partitionKeys);
      }
      if (!partitionKeys.contains(field)) {
        throw new IllegalArgumentException(
            "Partition filter may reference only partition columns "
                + partitionKeys
                + ", but references '"
                + field
                + "'");
      }
    }
    return Predicates.rebind(filter, schema.partitionType());
  }

  /**
   * One partition, e.g. {@code {dt=2024-01-01, hh=3}}: the AND of one equality per column, values
   * as {@code SHOW PARTITIONS} prints them (unescaped): parsed to the column types like the string
   * literals of the JSON filter form, except that {@value TablePaths#DEFAULT_PARTITION} (or a null)
   * is the null value, and a BINARY value is hexadecimal.
   */
  public static Predicate ofPartition(
      String table, TableSchema schema, Map<String, String> partition) {
    if (partition == null || partition.isEmpty()) {
      throw new IllegalArgumentException("Partition spec must not be empty");
    }
    List<String> partitionKeys = schema.partitionKeys();
    PredicateBuilder builder = new PredicateBuilder(schema.partitionType());
    List<Predicate> equalities = new ArrayList<>();
    for (Map.Entry<String, String> e : partition.entrySet()) {
      if (!partitionKeys.contains(e.getKey())) {
        throw new IllegalArgumentException(
            "'"
                + e.getKey()
                + "' is not a partition column of "
                + table
                + (partitionKeys.isEmpty()
                    ? "; the table is not partitioned"
                    : "; partition columns are " + partitionKeys));
      }
      String value = e.getValue();
      LogicalType type = schema.partitionType().getTypeAt(partitionKeys.indexOf(e.getKey()));
      if (value == null || TablePaths.DEFAULT_PARTITION.equals(value)) {
        equalities.add(builder.isNull(e.getKey()));
      } else if (type.is(LogicalTypeFamily.BINARY_STRING)) {
        equalities.add(builder.equal(e.getKey(), hex(table, e.getKey(), value)));
      } else {
        equalities.add(builder.equalText(e.getKey(), value));
      }
    }
    return Predicates.and(equalities);
  }

  private static byte[] hex(String table, String column, String value) {
    try {
      return HexFormat.of().parseHex(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'"
              + value
              + "' is not a value of the BINARY partition column '"
              + column
              + "' of "
              + table
              + ": give it in hexadecimal, as partition names print it (e.g. 0a1b)");
    }
  }

  /** Any of the partitions: the OR of {@link #ofPartition} over them. */
  public static Predicate ofPartitions(
      String table, TableSchema schema, List<Map<String, String>> partitions) {
    if (partitions == null || partitions.isEmpty()) {
      throw new IllegalArgumentException("Partition spec must not be empty");
    }
    List<Predicate> any = new ArrayList<>();
    for (Map<String, String> partition : partitions) {
      any.add(ofPartition(table, schema, partition));
    }
    return Predicates.or(any);
  }

  /**
   * Parses one partition spec {@code k=v[,k=v]}, keys and values stripped of surrounding blanks, as
   * the CLI's {@code --partition} and the procedures' {@code partitions} take it. Refuses what
   * could never select a partition, saying why (the caller names its argument): a part without a
   * key, a value starting with '=' (as in {@code dt==d1}) and a key given twice.
   */
  public static java.util.Map<String, String> parseSpec(String spec) {
    java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
    for (String kv : spec.split(",")) {
      int eq = kv.indexOf('=');
      if (eq <= 0 || kv.substring(0, eq).isBlank()) {
        throw new IllegalArgumentException(
            "'" + spec.strip() + "' is not k=v[,k=v] (at '" + kv.strip() + "')");
      }
      String key = kv.substring(0, eq).strip();
      String value = kv.substring(eq + 1).strip();
      if (value.startsWith("=")) {
        throw new IllegalArgumentException(
            "'"
                + spec.strip()
                + "': the value of "
                + key
                + " starts with '=' (write "
                + key
                + "="
                + value.substring(1)
                + ")");
      }
      if (m.put(key, value) != null) {
        throw new IllegalArgumentException(
            "'" + spec.strip() + "' gives " + key + " twice; a partition has one value per key");
      }
    }
    return m;
  }
}
