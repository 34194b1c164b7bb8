package io.sediment.flink.sql;

import io.sediment.table.RowBuckets;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.table.data.RowData;

/**
 * Keys a row of a primary-key table by its partition and bucket ({@link RowBuckets#routingKey}), so
 * that the sink sends every row of a bucket to the one writer subtask that owns the bucket.
 */
final class BucketRoutingKey implements KeySelector<RowData, Long> {

  private static final long serialVersionUID = 1L;

  private final RowBuckets buckets;

  BucketRoutingKey(RowBuckets buckets) {
    this.buckets = buckets;
  }

  @Override
  public Long getKey(RowData row) {
    return buckets.routingKey(row);
  }
}
