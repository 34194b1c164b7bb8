package io.sediment.flink.sql;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sediment.compact.CompactBuilder;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Partition specs as SQL users write them: {@code p=a,q=1} for one partition, {@code p=a;p=b} for
 * several. Values are converted to the column types by the JSON filter parser ({@link
 * PredicateJson}), so they follow the same literal rules as the {@code where} filters.
 */
public final class PartitionSpecs {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private PartitionSpecs() {}

  /** Parses {@code k=v,k2=v2;k=v3} into one map per partition. */
  public static List<Map<String, String>> parse(String specs) {
    if (specs == null || specs.isBlank()) {
      throw new IllegalArgumentException("Partition spec must not be empty");
    }
    List<Map<String, String>> out = new ArrayList<>();
    for (String one : specs.split(";")) {
      if (one.isBlank()) {
        continue;
      }
      Map<String, String> spec = new LinkedHashMap<>();
      for (String kv : one.split(",")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "Partition spec '"
                  + one.strip()
                  + "' is not 'column=value[,column=value...]' (at '"
                  + kv.strip()
                  + "')");
        }
        String key = kv.substring(0, eq).strip();
        if (spec.put(key, kv.substring(eq + 1).strip()) != null) {
          throw new IllegalArgumentException(
              "Partition spec '" + one.strip() + "' names column '" + key + "' twice");
        }
      }
      out.add(spec);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("Partition spec '" + specs + "' names no partition");
    }
    return out;
  }

  /** OR over the specs of an AND of equalities, on the table's row type; partition columns only. */
  public static Predicate toPredicate(Table table, String specs) {
    List<Predicate> ors = new ArrayList<>();
    for (Map<String, String> spec : parse(specs)) {
      ors.add(toRowPredicate(table, spec));
    }
    return Predicates.or(ors);
  }

  /** One spec as a predicate on the table's row type; checks that only partition columns appear. */
  public static Predicate toRowPredicate(Table table, Map<String, String> spec) {
    List<String> keys = table.schema().partitionKeys();
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("Table " + table.fullName() + " is not partitioned");
    }
    ArrayNode children = MAPPER.createArrayNode();
    for (Map.Entry<String, String> e : spec.entrySet()) {
      if (!keys.contains(e.getKey())) {
        throw new IllegalArgumentException(
            "'"
                + e.getKey()
                + "' is not a partition column of "
                + table.fullName()
                + "; partition columns are "
                + keys);
      }
      ObjectNode leaf = children.addObject();
      leaf.put("method", "equal");
      leaf.put("field", e.getKey());
      leaf.putArray("literals").add(e.getValue());
    }
    ObjectNode and = MAPPER.createObjectNode();
    and.put("method", "and");
    and.set("children", children);
    return PredicateJson.parse(and.toString(), table.rowType());
  }

  /**
   * A static partition of {@code INSERT OVERWRITE ... PARTITION (...)} on the partition row type.
   */
  public static Predicate toPartitionPredicate(Table table, Map<String, String> spec) {
    return CompactBuilder.toPartitionPredicate(table, toRowPredicate(table, spec));
  }
}
