package io.sediment.table;

import io.sediment.data.PartitionComputer;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Where a row of a table lives: its partition, and its bucket (the hash of its bucket key modulo
 * {@code bucket}; 0 for tables without buckets). The one definition writers and the SQL sink's
 * routing share, so that the subtask a row is sent to is the one that owns its bucket.
 */
public final class RowBuckets implements Serializable {

  private static final long serialVersionUID = 1L;

  private final int numBuckets;
  private final PartitionComputer partitionComputer;
  private final PartitionComputer bucketKeyComputer;

  public RowBuckets(TableSchema schema) {
    this.numBuckets = schema.tableOptions().bucket();
    this.partitionComputer =
        new PartitionComputer(schema.rowType(), schema.indexes(schema.partitionKeys()));
    this.bucketKeyComputer =
        new PartitionComputer(schema.rowType(), schema.indexes(schema.bucketKeys()));
  }

  public BinaryRowData partition(RowData row) {
    return partitionComputer.project(row);
  }

  public int bucket(RowData row) {
    if (numBuckets <= 0) {
      return 0;
    }
    return Math.abs(bucketKeyComputer.project(row).hashCode() % numBuckets);
  }

  /**
   * The partition's hash and the row's bucket in one number, from which {@link #channel(long, int)}
   * picks the row's writer subtask.
   */
  public long routingKey(RowData row) {
    return routingKey(partition(row), bucket(row));
  }

  /** The routing key of a partition's bucket (see {@link #routingKey(RowData)}). */
  public static long routingKey(BinaryRowData partition, int bucket) {
    return ((long) partition.hashCode() << 32) | bucket;
  }

  /**
   * The entries of {@code perBucket} whose bucket is routed to writer subtask {@code subtask} of
   * {@code channels}: what that subtask keeps of a per-bucket state, so that over all subtasks each
   * bucket is kept once (and a rescaled job, reading the union, still finds every bucket's).
   */
  public static <V> Map<BinaryRowData, Map<Integer, V>> routedTo(
      Map<BinaryRowData, Map<Integer, V>> perBucket, int subtask, int channels) {
    Map<BinaryRowData, Map<Integer, V>> out = new LinkedHashMap<>();
    perBucket.forEach(
        (partition, byBucket) ->
            byBucket.forEach(
                (bucket, v) -> {
                  if (channel(routingKey(partition, bucket), channels) == subtask) {
                    out.computeIfAbsent(partition, p -> new HashMap<>()).put(bucket, v);
                  }
                }));
    return out;
  }

  /**
   * The channel (writer subtask) of a row with routing key {@code key} among {@code channels}: each
   * partition's buckets are dealt out from a channel chosen by the partition, so the buckets of one
   * partition spread over the subtasks and every bucket has exactly one.
   */
  public static int channel(long key, int channels) {
    int partitionHash = (int) (key >> 32);
    int bucket = (int) key;
    int start = Math.abs(partitionHash % channels);
    return (start + bucket) % channels;
  }
}
