package io.sediment.format;

import java.util.Arrays;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.parquet.column.ColumnWriter;

/**
 * Writes one non-null field of a row into its Parquet column and tracks the column's statistics;
 * the range writers below keep min/max for the value kinds the concrete writers ({@link
 * FieldWriters}) share.
 */
abstract class FieldWriter {
  final String name;
  final int pos;
  final boolean nullable;
  // definition level of a present value: 1 in an OPTIONAL column, 0 in a REQUIRED one
  final int defined;
  ColumnWriter column;
  long nullCount;

  FieldWriter(String name, int pos, boolean nullable) {
    this.name = name;
    this.pos = pos;
    this.nullable = nullable;
    this.defined = nullable ? 1 : 0;
  }

  /** Writes the value at {@link #pos}, which is not null. */
  abstract void write(ColumnWriter cw, RowData row);

  /**
   * Writes values {@code [from, to)} of a vector of this column, nulls included, in one typed loop;
   * false (nothing written) when this writer has no such loop for the vector.
   */
  boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
    return false;
  }

  /** Min over non-null values in internal format, or null if none. */
  abstract Object min();

  abstract Object max();

  /** Min/max over values held as longs (integers, compact decimals, timestamps). */
  abstract static class LongRangeWriter extends FieldWriter {
    private boolean seen;
    private long min;
    private long max;

    LongRangeWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    final void update(long v) {
      if (!seen) {
        seen = true;
        min = v;
        max = v;
      } else if (v < min) {
        min = v;
      } else if (v > max) {
        max = v;
      }
    }

    /** The column's value of {@code v}, in internal format. */
    abstract Object box(long v);

    @Override
    final Object min() {
      return seen ? box(min) : null;
    }

    @Override
    final Object max() {
      return seen ? box(max) : null;
    }
  }

  /**
   * Min/max in {@link Double#compare} order over values held as doubles (a float widens exactly and
   * keeps {@link Float#compare}'s order: -0.0 before 0.0, NaN last).
   */
  abstract static class DoubleRangeWriter extends FieldWriter {
    private boolean seen;
    private double min;
    private double max;

    DoubleRangeWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    final void update(double v) {
      if (!seen) {
        seen = true;
        min = v;
        max = v;
      } else if (Double.compare(v, min) < 0) {
        min = v;
      } else if (Double.compare(v, max) > 0) {
        max = v;
      }
    }

    abstract Object box(double v);

    @Override
    final Object min() {
      return seen ? box(min) : null;
    }

    @Override
    final Object max() {
      return seen ? box(max) : null;
    }
  }

  /** Unsigned lexicographic min/max over byte ranges; keeps private copies of the bounds. */
  abstract static class ByteRangeWriter extends FieldWriter {
    private byte[] min;
    private byte[] max;

    ByteRangeWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    final void update(byte[] bytes, int off, int len) {
      if (min == null) {
        min = Arrays.copyOfRange(bytes, off, off + len);
        max = min;
      } else if (len > 0
          && min.length > 0
          && (bytes[off] & 0xFF) > (min[0] & 0xFF)
          && (bytes[off] & 0xFF) < (max[0] & 0xFF)) {
        // the first byte alone puts the value strictly between the bounds (the usual case)
      } else if (Arrays.compareUnsigned(bytes, off, off + len, min, 0, min.length) < 0) {
        min = Arrays.copyOfRange(bytes, off, off + len);
      } else if (Arrays.compareUnsigned(bytes, off, off + len, max, 0, max.length) > 0) {
        max = Arrays.copyOfRange(bytes, off, off + len);
      }
    }

    final byte[] minBytes() {
      return min;
    }

    final byte[] maxBytes() {
      return max;
    }
  }
}
