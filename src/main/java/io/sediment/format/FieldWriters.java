package io.sediment.format;

import java.util.Arrays;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/**
 * The writers of each field type ({@link #create}): typed loops over Flink's column vectors where
 * the batch path has them, and row-at-a-time writes otherwise.
 */
final class FieldWriters {

  private FieldWriters() {}

  /** The writer of a field of {@code type} at {@code pos}. */
  static FieldWriter create(String name, int pos, LogicalType type) {
    boolean nullable = type.isNullable();
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return new BooleanWriter(name, pos, nullable);
      case TINYINT:
        return new IntWriter(name, pos, nullable, IntKind.BYTE);
      case SMALLINT:
        return new IntWriter(name, pos, nullable, IntKind.SHORT);
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return new IntWriter(name, pos, nullable, IntKind.INT);
      case BIGINT:
        return new LongWriter(name, pos, nullable);
      case FLOAT:
        return new FloatWriter(name, pos, nullable);
      case DOUBLE:
        return new DoubleWriter(name, pos, nullable);
      case CHAR:
      case VARCHAR:
        return new StringWriter(name, pos, nullable);
      case BINARY:
      case VARBINARY:
        return new BytesWriter(name, pos, nullable);
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          if (d.getPrecision() <= 18) {
            return new CompactDecimalWriter(name, pos, nullable, d.getPrecision(), d.getScale());
          }
          return new BigDecimalWriter(name, pos, nullable, d.getPrecision(), d.getScale());
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        {
          int p = ((TimestampType) type).getPrecision();
          return new TimestampWriter(name, pos, nullable, p, ParquetSchemas.timeUnit(p));
        }
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        {
          int p = ((LocalZonedTimestampType) type).getPrecision();
          return new TimestampWriter(name, pos, nullable, p, ParquetSchemas.timeUnit(p));
        }
      case ROW:
      case ARRAY:
      case MAP:
      case MULTISET:
        return new NestedFieldWriter(name, pos, type);
      default:
        throw ParquetSchemas.unsupported(name, type);
    }
  }

  static final class BooleanWriter extends FieldWriter {
    private boolean seenFalse;
    private boolean seenTrue;

    BooleanWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      boolean v = row.getBoolean(pos);
      if (v) {
        seenTrue = true;
      } else {
        seenFalse = true;
      }
      cw.write(v, 0, defined);
    }

    @Override
    Object min() {
      return seenFalse ? Boolean.FALSE : seenTrue ? Boolean.TRUE : null;
    }

    @Override
    Object max() {
      return seenTrue ? Boolean.TRUE : seenFalse ? Boolean.FALSE : null;
    }
  }

  enum IntKind {
    BYTE,
    SHORT,
    INT
  }

  static final class IntWriter extends FieldWriter.LongRangeWriter {
    private final IntKind kind;

    IntWriter(String name, int pos, boolean nullable, IntKind kind) {
      super(name, pos, nullable);
      this.kind = kind;
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      int v;
      switch (kind) {
        case BYTE:
          v = row instanceof BatchRow b ? b.getByte(pos) : row.getByte(pos);
          break;
        case SHORT:
          v = row.getShort(pos);
          break;
        default:
          v = row instanceof BatchRow b ? b.getInt(pos) : row.getInt(pos);
      }
      update(v);
      cw.write(v, 0, defined);
    }

    @Override
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      if (kind != IntKind.INT || !(vector instanceof HeapIntVector v)) {
        return false;
      }
      int[] values = v.vector;
      for (int i = from; i < to; i++) {
        if (v.isNullAt(i)) {
          nullCount++;
          cw.writeNull(0, 0);
        } else {
          update(values[i]);
          cw.write(values[i], 0, defined);
        }
      }
      return true;
    }

    @Override
    Object box(long v) {
      switch (kind) {
        case BYTE:
          return (byte) v;
        case SHORT:
          return (short) v;
        default:
          return (int) v;
      }
    }
  }

  static final class LongWriter extends FieldWriter.LongRangeWriter {

    LongWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      long v = row instanceof BatchRow b ? b.getLong(pos) : row.getLong(pos);
      update(v);
      cw.write(v, 0, defined);
    }

    @Override
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      if (!(vector instanceof HeapLongVector v)) {
        return false;
      }
      long[] values = v.vector;
      for (int i = from; i < to; i++) {
        if (v.isNullAt(i)) {
          nullCount++;
          cw.writeNull(0, 0);
        } else {
          update(values[i]);
          cw.write(values[i], 0, defined);
        }
      }
      return true;
    }

    @Override
    Object box(long v) {
      return v;
    }
  }

  static final class FloatWriter extends FieldWriter.DoubleRangeWriter {

    FloatWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      float v = row.getFloat(pos);
      update(v);
      cw.write(v, 0, defined);
    }

    @Override
    Object box(double v) {
      return (float) v;
    }
  }

  static final class DoubleWriter extends FieldWriter.DoubleRangeWriter {

    DoubleWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      double v = row instanceof BatchRow b ? b.getDouble(pos) : row.getDouble(pos);
      update(v);
      cw.write(v, 0, defined);
    }

    @Override
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      if (!(vector instanceof HeapDoubleVector v)) {
        return false;
      }
      double[] values = v.vector;
      for (int i = from; i < to; i++) {
        if (v.isNullAt(i)) {
          nullCount++;
          cw.writeNull(0, 0);
        } else {
          update(values[i]);
          cw.write(values[i], 0, defined);
        }
      }
      return true;
    }

    @Override
    Object box(double v) {
      return v;
    }
  }

  static final class StringWriter extends FieldWriter.ByteRangeWriter {
    StringWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      if (row instanceof BatchRow batchRow) {
        HeapBytesVector v = batchRow.bytesVector(pos);
        if (v != null) {
          // straight from the batch's buffer: no StringData per value
          int i = batchRow.rowId();
          update(v.buffer, v.start[i], v.length[i]);
          cw.write(Binary.fromReusedByteArray(v.buffer, v.start[i], v.length[i]), 0, defined);
          return;
        }
      }
      StringData s = row.getString(pos);
      if (s instanceof BinaryStringData bs && bs.getBinarySection() != null) {
        MemorySegment[] segments = bs.getSegments();
        if (segments.length == 1 && !segments[0].isOffHeap()) {
          // zero-copy: point Parquet at the row's own bytes (it copies what it retains)
          byte[] heap = segments[0].getArray();
          int off = bs.getOffset();
          int len = bs.getSizeInBytes();
          update(heap, off, len);
          cw.write(Binary.fromReusedByteArray(heap, off, len), 0, defined);
          return;
        }
      }
      byte[] bytes = s.toBytes();
      update(bytes, 0, bytes.length);
      cw.write(Binary.fromReusedByteArray(bytes), 0, defined);
    }

    @Override
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      if (!(vector instanceof HeapBytesVector v) || v.hasDictionary()) {
        return false;
      }
      for (int i = from; i < to; i++) {
        if (v.isNullAt(i)) {
          nullCount++;
          cw.writeNull(0, 0);
        } else {
          // straight from the batch's buffer: Parquet copies what it retains
          update(v.buffer, v.start[i], v.length[i]);
          cw.write(Binary.fromReusedByteArray(v.buffer, v.start[i], v.length[i]), 0, defined);
        }
      }
      return true;
    }

    @Override
    Object min() {
      return minBytes() == null ? null : StringData.fromBytes(minBytes());
    }

    @Override
    Object max() {
      return maxBytes() == null ? null : StringData.fromBytes(maxBytes());
    }
  }

  static final class BytesWriter extends FieldWriter.ByteRangeWriter {
    BytesWriter(String name, int pos, boolean nullable) {
      super(name, pos, nullable);
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      byte[] bytes = row.getBinary(pos);
      update(bytes, 0, bytes.length);
      cw.write(Binary.fromReusedByteArray(bytes), 0, defined);
    }

    @Override
    Object min() {
      return minBytes() == null ? null : minBytes().clone();
    }

    @Override
    Object max() {
      return maxBytes() == null ? null : maxBytes().clone();
    }
  }

  /** DECIMAL with precision up to 18: INT32 (p &lt;= 9) or INT64 unscaled values. */
  static final class CompactDecimalWriter extends FieldWriter.LongRangeWriter {
    private final int precision;
    private final int scale;
    private final boolean int32;

    CompactDecimalWriter(String name, int pos, boolean nullable, int precision, int scale) {
      super(name, pos, nullable);
      this.precision = precision;
      this.scale = scale;
      this.int32 = precision <= 9;
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      long v = row.getDecimal(pos, precision, scale).toUnscaledLong();
      update(v);
      if (int32) {
        cw.write((int) v, 0, defined);
      } else {
        cw.write(v, 0, defined);
      }
    }

    @Override
    Object box(long v) {
      return DecimalData.fromUnscaledLong(v, precision, scale);
    }
  }

  /** DECIMAL with precision above 18: big-endian two's complement FIXED_LEN_BYTE_ARRAY. */
  static final class BigDecimalWriter extends FieldWriter {
    private final int precision;
    private final int scale;
    private final byte[] buffer;
    private DecimalData min;
    private DecimalData max;

    BigDecimalWriter(String name, int pos, boolean nullable, int precision, int scale) {
      super(name, pos, nullable);
      this.precision = precision;
      this.scale = scale;
      this.buffer = new byte[ParquetSchemas.decimalFixedLength(precision)];
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      DecimalData d = row.getDecimal(pos, precision, scale);
      if (min == null) {
        min = d.copy();
        max = min;
      } else if (d.compareTo(min) < 0) {
        min = d.copy();
      } else if (d.compareTo(max) > 0) {
        max = d.copy();
      }
      fillFixed(d, buffer, precision, scale, name);
      cw.write(Binary.fromReusedByteArray(buffer), 0, defined);
    }

    @Override
    Object min() {
      return min;
    }

    @Override
    Object max() {
      return max;
    }
  }

  /**
   * Writes {@code d}'s unscaled value into {@code buffer} (a FIXED_LEN_BYTE_ARRAY decimal of {@code
   * precision}): big-endian two's complement, sign-extended to the buffer's length.
   *
   * @throws IllegalArgumentException naming {@code column} if the value does not fit
   */
  static void fillFixed(DecimalData d, byte[] buffer, int precision, int scale, String column) {
    byte[] unscaled = d.toUnscaledBytes();
    int pad = buffer.length - unscaled.length;
    if (pad < 0) {
      throw new IllegalArgumentException(
          "Decimal value "
              + d
              + " does not fit DECIMAL("
              + precision
              + ", "
              + scale
              + ") of column '"
              + column
              + "'");
    }
    byte fill = unscaled.length > 0 && unscaled[0] < 0 ? (byte) -1 : 0;
    Arrays.fill(buffer, 0, pad, fill);
    System.arraycopy(unscaled, 0, buffer, pad, unscaled.length);
  }

  static final class TimestampWriter extends FieldWriter.LongRangeWriter {
    private final int precision;
    private final TimeUnit unit;

    TimestampWriter(String name, int pos, boolean nullable, int precision, TimeUnit unit) {
      super(name, pos, nullable);
      this.precision = precision;
      this.unit = unit;
    }

    @Override
    void write(ColumnWriter cw, RowData row) {
      long v;
      EpochTimestampVector vector =
          row instanceof BatchRow batchRow ? batchRow.timestampVector(pos) : null;
      if (vector == null) {
        v = Timestamps.toLong(row.getTimestamp(pos, precision), unit, name);
      } else {
        try {
          v = vector.epoch(((BatchRow) row).rowId(), unit); // no TimestampData per value
        } catch (ArithmeticException e) {
          throw Timestamps.outOfRange(name, unit); // a widened column's older value
        }
      }
      update(v);
      cw.write(v, 0, defined);
    }

    @Override
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      if (!(vector instanceof EpochTimestampVector v)) {
        return false;
      }
      for (int i = from; i < to; i++) {
        if (v.isNullAt(i)) {
          nullCount++;
          cw.writeNull(0, 0);
        } else {
          long x = v.epoch(i, unit);
          update(x);
          cw.write(x, 0, defined);
        }
      }
      return true;
    }

    @Override
    Object box(long v) {
      return Timestamps.fromLong(v, unit);
    }
  }
}
