package io.sediment.table;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.ToLongFunction;
import org.apache.flink.table.data.binary.BinaryRowData;

/** One value per partition and bucket (a writer's buckets), partitions in first-seen order. */
final class BucketMap<W> {

  private final Map<BinaryRowData, Map<Integer, W>> byPartition = new LinkedHashMap<>();
  private int size;

  /** The bucket's value, made by {@code create} when it has none. */
  W get(BinaryRowData partition, int bucket, BiFunction<BinaryRowData, Integer, W> create) {
    Map<Integer, W> byBucket = byPartition.computeIfAbsent(partition, p -> new HashMap<>());
    W w = byBucket.get(bucket);
    if (w == null) {
      w = create.apply(partition, bucket);
      byBucket.put(bucket, w);
      size++;
    }
    return w;
  }

  void remove(BinaryRowData partition, int bucket) {
    Map<Integer, W> byBucket = byPartition.get(partition);
    if (byBucket != null && byBucket.remove(bucket) != null) {
      size--;
      if (byBucket.isEmpty()) {
        byPartition.remove(partition);
      }
    }
  }

  /** A snapshot of the values: the map may change while it is walked. */
  List<W> values() {
    List<W> out = new ArrayList<>(size);
    byPartition.values().forEach(byBucket -> out.addAll(byBucket.values()));
    return out;
  }

  /** The value with the largest {@code measure}, or null when empty; walks without copying. */
  W largest(ToLongFunction<W> measure) {
    W largest = null;
    long max = Long.MIN_VALUE;
    for (Map<Integer, W> byBucket : byPartition.values()) {
      for (W w : byBucket.values()) {
        long m = measure.applyAsLong(w);
        if (largest == null || m > max) {
          largest = w;
          max = m;
        }
      }
    }
    return largest;
  }

  int size() {
    return size;
  }

  void clear() {
    byPartition.clear();
    size = 0;
  }
}
