package io.sediment.format;

import io.sediment.data.BinaryRows;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;

/**
 * Writes the fields of Flink {@link RowData} (internal format) straight into the Parquet column
 * writers of a flat schema (no record assembly: every row is one value or null per column) through
 * a precomputed array of per-field writers, which also track min/max/null count per column.
 */
final class RowFieldWriters {

  private final RowType rowType;
  private final MessageType schema;
  private final FieldWriter[] writers;
  private final int[] notNullPositions;
  private final NestedFieldWriter[] nestedWriters;
  // a row over a batch, for the columns without a typed loop in writeColumns
  private final BatchRow view = new BatchRow();

  RowFieldWriters(RowType rowType) {
    this.rowType = rowType;
    this.schema = ParquetSchemas.toParquet(rowType);
    List<RowType.RowField> fields = rowType.getFields();
    this.writers = new FieldWriter[fields.size()];
    for (int i = 0; i < writers.length; i++) {
      writers[i] = createWriter(fields.get(i).getName(), i, fields.get(i).getType());
    }
    this.notNullPositions =
        IntStream.range(0, writers.length).filter(i -> !writers[i].nullable).toArray();
    List<NestedFieldWriter> nested = new ArrayList<>();
    for (FieldWriter w : writers) {
      if (w instanceof NestedFieldWriter n) {
        nested.add(n);
      }
    }
    this.nestedWriters = nested.toArray(new NestedFieldWriter[0]);
  }

  MessageType schema() {
    return schema;
  }

  /** Directs the writers to the column writers of a new row group's store. */
  void bind(ColumnWriteStore store) {
    List<ColumnDescriptor> columns = schema.getColumns(); // a new list per call
    int c = 0;
    for (FieldWriter w : writers) {
      if (w instanceof NestedFieldWriter nested) {
        c = nested.bind(store, columns, c); // one leaf column per primitive inside it
      } else {
        w.column = store.getColumnWriter(columns.get(c++));
      }
    }
  }

  /**
   * Rejects nulls in NOT NULL columns. Called before handing the row to Parquet, whose writer
   * becomes unusable after an exception in {@link #write}.
   */
  void checkNotNull(RowData row) {
    for (int pos : notNullPositions) {
      if (row instanceof BatchRow b ? b.isNullAt(pos) : row.isNullAt(pos)) {
        throw new NullPointerException(
            "Column '" + writers[pos].name + "' is NOT NULL but the row has null: " + row);
      }
    }
    for (NestedFieldWriter nested : nestedWriters) {
      nested.checkValue(row);
    }
  }

  /** Writes one row (its NOT NULL columns checked by {@link #checkNotNull} before). */
  void write(RowData row) {
    BatchRow batchRow = row instanceof BatchRow b ? b : null;
    for (FieldWriter w : writers) {
      ColumnWriter cw = w.column;
      // BatchRow is final: its calls inline, where a RowData call site that sees several row
      // classes (compaction, writers, manifests) would dispatch through the interface per value
      if (batchRow != null ? batchRow.isNullAt(w.pos) : row.isNullAt(w.pos)) {
        w.nullCount++;
        if (cw != null) {
          cw.writeNull(0, 0);
        } else {
          ((NestedFieldWriter) w).writeNull();
        }
      } else {
        w.write(cw, row);
      }
    }
  }

  /**
   * Writes rows {@code [from, to)} of a batch decoded by this package, column by column: each
   * column's values go to its column writer in one loop over typed vectors (the caller ends the
   * records). NOT NULL columns are checked before anything is written.
   */
  void writeColumns(VectorizedColumnBatch batch, AbstractHeapVector[] vectors, int from, int to) {
    for (int pos : notNullPositions) {
      for (int i = from; i < to; i++) {
        if (vectors[pos].isNullAt(i)) {
          throw new NullPointerException(
              "Column '" + writers[pos].name + "' is NOT NULL but a row has null");
        }
      }
    }
    for (FieldWriter w : writers) {
      AbstractHeapVector v = vectors[w.pos];
      if (!w.writeVector(w.column, v, from, to)) {
        ColumnWriter cw = w.column;
        for (int i = from; i < to; i++) {
          if (v.isNullAt(i)) {
            w.nullCount++;
            cw.writeNull(0, 0);
          } else {
            view.set(batch, vectors, i);
            w.write(cw, view);
          }
        }
      }
    }
  }

  /** Statistics of the rows written so far. */
  ColumnStats stats() {
    int n = writers.length;
    GenericRowData min = new GenericRowData(n);
    GenericRowData max = new GenericRowData(n);
    long[] nullCounts = new long[n];
    for (int i = 0; i < n; i++) {
      FieldWriter w = writers[i];
      min.setField(i, w.min());
      max.setField(i, w.max());
      nullCounts[i] = w.nullCount;
    }
    RowType nullableType = nullable(rowType);
    BinaryRowData minRow = BinaryRows.toBinary(nullableType, min);
    BinaryRowData maxRow = BinaryRows.toBinary(nullableType, max);
    return new ColumnStats(minRow, maxRow, nullCounts);
  }

  /** The row type with every field nullable (stats fields may be null). */
  static RowType nullable(RowType type) {
    LogicalType[] types = new LogicalType[type.getFieldCount()];
    for (int i = 0; i < types.length; i++) {
      types[i] = type.getTypeAt(i).copy(true);
    }
    return RowType.of(true, types, type.getFieldNames().toArray(new String[0]));
  }

  // ------------------------------------------------------------------------------------------

  static FieldWriter createWriter(String name, int pos, LogicalType type) {
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

  /** Writes one non-null field of a row and tracks the column's statistics. */
  abstract static class FieldWriter {
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
     * Writes values {@code [from, to)} of a vector of this column, nulls included, in one typed
     * loop; false (nothing written) when this writer has no such loop for the vector.
     */
    boolean writeVector(ColumnWriter cw, AbstractHeapVector vector, int from, int to) {
      return false;
    }

    /** Min over non-null values in internal format, or null if none. */
    abstract Object min();

    abstract Object max();
  }

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

  static final class IntWriter extends LongRangeWriter {
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

  static final class LongWriter extends LongRangeWriter {

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

  static final class FloatWriter extends DoubleRangeWriter {

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

  static final class DoubleWriter extends DoubleRangeWriter {

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

  static final class StringWriter extends ByteRangeWriter {
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

  static final class BytesWriter extends ByteRangeWriter {
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
  static final class CompactDecimalWriter extends LongRangeWriter {
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

  static final class TimestampWriter extends LongRangeWriter {
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
      if (vector != null) {
        v = vector.epoch(((BatchRow) row).rowId(), unit); // no TimestampData per value
      } else {
        v = Timestamps.toLong(row.getTimestamp(pos, precision), unit);
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
