package io.sediment.table;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A sequence number per partition and bucket, raised to the largest given: a restored writer's
 * floors (the next sequence numbers its earlier attempt reached), and a writer's own state.
 */
final class BucketSequences {

  private final Map<BinaryRowData, Map<Integer, Long>> byPartition = new LinkedHashMap<>();

  void raise(BinaryRowData partition, int bucket, long next) {
    byPartition.computeIfAbsent(partition, k -> new HashMap<>()).merge(bucket, next, Math::max);
  }

  void raiseAll(Map<BinaryRowData, Map<Integer, Long>> all) {
    all.forEach((p, byBucket) -> byBucket.forEach((b, next) -> raise(p, b, next)));
  }

  /** The bucket's number, or 0 when it has none. */
  long get(BinaryRowData partition, int bucket) {
    return byPartition.getOrDefault(partition, Map.of()).getOrDefault(bucket, 0L);
  }

  /** A copy that raising does not share. */
  BucketSequences copy() {
    BucketSequences out = new BucketSequences();
    out.raiseAll(byPartition);
    return out;
  }

  /** A copy, as the writer's state. */
  Map<BinaryRowData, Map<Integer, Long>> toMap() {
    Map<BinaryRowData, Map<Integer, Long>> out = new LinkedHashMap<>();
    byPartition.forEach((p, byBucket) -> out.put(p, new HashMap<>(byBucket)));
    return out;
  }
}
