package io.sediment.commit;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Predicates on the partition row type that select given partitions exactly, so manifest statistics
 * prune everything else.
 */
public final class PartitionPredicates {

  private PartitionPredicates() {}

  /** Matches exactly {@code partitions}; null (no filter) for an unpartitioned table. */
  public static Predicate in(RowType partitionType, Collection<BinaryRowData> partitions) {
    if (partitionType.getFieldCount() == 0 || partitions.isEmpty()) {
      return null;
    }
    PredicateBuilder builder = new PredicateBuilder(partitionType);
    List<Predicate> each = new ArrayList<>();
    for (BinaryRowData p : partitions) {
      each.add(equalTo(builder, partitionType, p));
    }
    return PredicateBuilder.or(each);
  }

  /** Matches every partition; null (no filter) for an unpartitioned table. */
  public static Predicate every(RowType partitionType) {
    if (partitionType.getFieldCount() == 0) {
      return null;
    }
    PredicateBuilder b = new PredicateBuilder(partitionType);
    String first = partitionType.getFieldNames().get(0);
    return PredicateBuilder.or(b.isNull(first), b.isNotNull(first));
  }

  private static Predicate equalTo(
      PredicateBuilder builder, RowType type, BinaryRowData partition) {
    List<Predicate> fields = new ArrayList<>();
    for (int i = 0; i < type.getFieldCount(); i++) {
      String name = type.getFieldNames().get(i);
      Object value = RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(partition);
      fields.add(value == null ? builder.isNull(name) : builder.equal(name, value));
    }
    return PredicateBuilder.and(fields);
  }
}
