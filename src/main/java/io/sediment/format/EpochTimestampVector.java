package io.sediment.format;

import java.util.Arrays;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.writable.WritableTimestampVector;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/**
 * A heap timestamp vector whose millisecond and nano-of-millisecond arrays are written directly
 * from Parquet INT64 epoch values, without a {@link TimestampData} per row.
 */
final class EpochTimestampVector extends AbstractHeapVector implements WritableTimestampVector {

  private static final long serialVersionUID = 1L;

  private final long[] millis;
  private final int[] nanoOfMillis;

  EpochTimestampVector(int size) {
    super(size);
    this.millis = new long[size];
    this.nanoOfMillis = new int[size];
  }

  /** Sets row {@code i} from an epoch value in {@code unit}, as {@link Timestamps#fromLong}. */
  void setEpoch(int i, long value, TimeUnit unit) {
    millis[i] = Timestamps.millisOf(value, unit);
    nanoOfMillis[i] = Timestamps.nanoOfMillisOf(value, unit);
  }

  /** Row {@code i} as an epoch value in {@code unit}, without a {@link TimestampData}. */
  long epoch(int i, TimeUnit unit) {
    return Timestamps.toLong(millis[i], nanoOfMillis[i], unit);
  }

  @Override
  public TimestampData getTimestamp(int i, int precision) {
    return TimestampData.fromEpochMillis(millis[i], nanoOfMillis[i]);
  }

  @Override
  public void setTimestamp(int i, TimestampData timestamp) {
    millis[i] = timestamp.getMillisecond();
    nanoOfMillis[i] = timestamp.getNanoOfMillisecond();
  }

  @Override
  public void fill(TimestampData value) {
    Arrays.fill(millis, value.getMillisecond());
    Arrays.fill(nanoOfMillis, value.getNanoOfMillisecond());
  }
}
