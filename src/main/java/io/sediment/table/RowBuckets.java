package io.sediment.table;

import io.sediment.data.PartitionComputer;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
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
    return ((long) partition(row).hashCode() << 32) | bucket(row);
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
