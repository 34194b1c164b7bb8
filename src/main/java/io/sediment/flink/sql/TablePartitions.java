package io.sediment.flink.sql;

import io.sediment.compact.PartitionFilters;
import io.sediment.data.PartitionComputer;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.TablePaths;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.catalog.exceptions.CatalogException;

/** The partitions of a table as Flink's catalog API sees them: listed, matched and dropped. */
final class TablePartitions {

  private TablePartitions() {}

  /**
   * The partitions holding live files in the latest snapshot, as {@code key -> value} specs; a null
   * value is {@value TablePaths#DEFAULT_PARTITION}.
   */
  static List<CatalogPartitionSpec> of(Table table) {
    return of(table, null);
  }

  /**
   * The partitions {@code spec} matches (a spec may name fewer keys), its values read as {@code
   * DROP PARTITION} reads them: typed ({@code hh='03'} is {@code hh=3}), {@value
   * TablePaths#DEFAULT_PARTITION} the null value.
   */
  static List<CatalogPartitionSpec> matching(Table table, CatalogPartitionSpec spec) {
    return of(
        table,
        PartitionFilters.ofPartition(table.fullName(), table.schema(), spec.getPartitionSpec()));
  }

  private static List<CatalogPartitionSpec> of(Table table, Predicate filter) {
    List<String> keys = table.schema().partitionKeys();
    Set<Map<String, String>> seen = new LinkedHashSet<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                if (filter != null && !filter.test(e.partition())) {
                  continue;
                }
                List<String> values =
                    PartitionComputer.toStrings(table.schema().partitionType(), e.partition());
                Map<String, String> spec = new LinkedHashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                  // a null value as its directory name, the name DROP PARTITION takes (Paimon's)
                  String v = values.get(i);
                  spec.put(keys.get(i), v == null ? TablePaths.DEFAULT_PARTITION : v);
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

  /**
   * {@code ALTER TABLE t DROP [IF EXISTS] PARTITION (k = v, ...)}, as in Paimon: one OVERWRITE
   * snapshot that removes every live file of the partitions {@code spec} matches. Flink calls the
   * catalog once per {@code PARTITION (...)} of the statement. A column that is not a partition
   * column, a value that is not one of its column's type, and a spec no partition matches (unless
   * {@code ifExists}) are refused with nothing committed.
   */
  static void drop(Table table, CatalogPartitionSpec spec, boolean ifExists) {
    // the partition's name form: __DEFAULT_PARTITION__ is null (Flink's parser takes no NULL)
    Predicate filter =
        PartitionFilters.ofPartition(table.fullName(), table.schema(), spec.getPartitionSpec());
    // the typed filter decides both whether the partition is there and what is dropped: '03' of
    // an INT column is 3, a timestamp may be written with a space or a 'T'
    boolean there =
        table
            .latestSnapshot()
            .map(
                s ->
                    table.store().newScan().plan(s).stream()
                        .anyMatch(e -> filter.test(e.partition())))
            .orElse(false);
    if (!there) {
      if (ifExists) {
        return;
      }
      List<String> keys = table.schema().partitionKeys();
      List<String> names = new ArrayList<>();
      for (CatalogPartitionSpec p : of(table)) { // only for the error
        List<String> values = new ArrayList<>();
        for (String k : keys) {
          values.add(p.getPartitionSpec().get(k));
        }
        names.add(TablePaths.partitionPath(keys, values));
      }
      Collections.sort(names);
      throw new CatalogException(
          "Partition "
              + spec.getPartitionSpec().entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining("/"))
              + " of "
              + table.fullName()
              + " does not exist; "
              + (names.isEmpty()
                  ? "the table has no partition"
                  : "its partitions are "
                      + names.subList(0, Math.min(10, names.size()))
                      + (names.size() > 10 ? " and " + (names.size() - 10) + " more" : ""))
              + " (DROP IF EXISTS PARTITION ignores a partition that is not there)");
    }
    table.newBatchWriteBuilder().newCommit().overwrite(List.of(), filter);
  }
}
