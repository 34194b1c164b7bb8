package io.sediment.flink.sql;

import io.sediment.compact.PartitionFilters;
import io.sediment.data.PartitionComputer;
import io.sediment.manifest.ManifestEntry;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.exceptions.CatalogException;

/** The partitions of a table as Flink's catalog API sees them: listed, matched and dropped. */
final class TablePartitions {

  private TablePartitions() {}

  /** The partitions holding live files in the latest snapshot, as {@code key -> value} specs. */
  static List<CatalogPartitionSpec> of(Table table) {
    List<String> keys = table.schema().partitionKeys();
    Set<Map<String, String>> seen = new LinkedHashSet<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                List<String> values =
                    PartitionComputer.toStrings(table.schema().partitionType(), e.partition());
                Map<String, String> spec = new LinkedHashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                  spec.put(keys.get(i), values.get(i));
                }
                seen.add(spec);
              }
            });
    List<CatalogPartitionSpec> out = new ArrayList<>();
    for (Map<String, String> spec : seen) {
      out.add(new CatalogPartitionSpec(spec));
    }
    return out;
  }

  /** Whether {@code partition} has every value {@code spec} gives (a spec may name fewer keys). */
  static boolean matches(CatalogPartitionSpec partition, CatalogPartitionSpec spec) {
    return partition.getPartitionSpec().entrySet().containsAll(spec.getPartitionSpec().entrySet());
  }

  /**
   * {@code ALTER TABLE t DROP [IF EXISTS] PARTITION (k = v, ...)}, as in Paimon: one OVERWRITE
   * snapshot that removes every live file of the partitions {@code spec} matches ({@code all} is
   * the table's partitions). Flink calls the catalog once per {@code PARTITION (...)} of the
   * statement. A column that is not a partition column, and a spec no partition matches (unless
   * {@code ifExists}), are refused with nothing committed.
   */
  static void drop(
      Table table, CatalogPartitionSpec spec, List<CatalogPartitionSpec> all, boolean ifExists) {
    // a column that is not a partition column is named before the partitions are looked at
    Predicate filter =
        PartitionFilters.ofPartition(table.fullName(), table.schema(), spec.getPartitionSpec());
    if (all.stream().noneMatch(p -> matches(p, spec))) {
      if (ifExists) {
        return;
      }
      List<String> names = new ArrayList<>();
      for (CatalogPartitionSpec p : all) {
        names.add(name(p));
      }
      Collections.sort(names);
      throw new CatalogException(
          "Partition "
              + name(spec)
              + " of "
              + table.fullName()
              + " does not exist; "
              + (all.isEmpty()
                  ? "the table has no partition"
                  : "its partitions are "
                      + names.subList(0, Math.min(10, names.size()))
                      + (names.size() > 10 ? " and " + (names.size() - 10) + " more" : ""))
              + " (DROP IF EXISTS PARTITION ignores a partition that is not there)");
    }
    table.newBatchWriteBuilder().newCommit().overwrite(List.of(), filter);
  }

  /** {@code k1=v1/k2=v2}, as SHOW PARTITIONS prints it. */
  private static String name(CatalogPartitionSpec spec) {
    StringBuilder sb = new StringBuilder();
    spec.getPartitionSpec()
        .forEach((k, v) -> sb.append(sb.length() == 0 ? "" : "/").append(k).append('=').append(v));
    return sb.toString();
  }
}
