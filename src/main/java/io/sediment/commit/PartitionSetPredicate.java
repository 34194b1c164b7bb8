package io.sediment.commit;

import io.sediment.predicate.Predicate;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/** Accepts partition rows in a fixed set; statistics pruning is not attempted (always true). */
public final class PartitionSetPredicate implements Predicate {

  private static final long serialVersionUID = 1L;

  private final transient Set<BinaryRowData> partitions;

  private PartitionSetPredicate(Set<BinaryRowData> partitions) {
    this.partitions = partitions;
  }

  /** A predicate on partition rows that accepts exactly {@code partitions}. */
  public static Predicate of(Set<BinaryRowData> partitions) {
    return new PartitionSetPredicate(partitions);
  }

  @Override
  public boolean test(RowData row) {
    return partitions.contains(row);
  }

  @Override
  public boolean test(long rowCount, RowData min, RowData max, long[] nullCounts) {
    return true;
  }

  @Override
  public Set<String> fieldNames() {
    return Set.of();
  }
}
