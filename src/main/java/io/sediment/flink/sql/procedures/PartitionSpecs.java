package io.sediment.flink.sql.procedures;

import io.sediment.compact.PartitionFilters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Partition specs as SQL users write them: {@code p=a,q=1} for one partition, {@code p=a;p=b} for
 * several. {@code CompactSpec.Builder#withPartitions} turns them into a filter, values read as
 * {@code SHOW PARTITIONS} prints them (see {@code PartitionFilters#ofPartition}).
 */
final class PartitionSpecs {

  private PartitionSpecs() {}

  /** Parses {@code k=v,k2=v2;k=v3} into one map per partition. */
  static List<Map<String, String>> parse(String specs) {
    if (specs == null || specs.isBlank()) {
      throw new IllegalArgumentException("Partition spec must not be empty");
    }
    List<Map<String, String>> out = new ArrayList<>();
    for (String one : specs.split(";")) {
      if (one.isBlank()) {
        continue;
      }
      Map<String, String> spec;
      try {
        spec = PartitionFilters.parseSpec(one);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("Partition spec " + e.getMessage());
      }
      out.add(spec);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("Partition spec '" + specs + "' names no partition");
    }
    return out;
  }
}
