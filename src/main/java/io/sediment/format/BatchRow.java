package io.sediment.format;

import java.util.Arrays;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.columnar.vector.BytesColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapByteVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

/**
 * A row of a {@link VectorizedColumnBatch}, like Flink's {@code ColumnarRowData}, but open to this
 * package: {@link RowFieldWriters} writes a string or byte array straight from the batch's buffer
 * ({@link #bytesVector}) instead of wrapping it in a {@code StringData} first.
 */
final class BatchRow implements RowData {

  private VectorizedColumnBatch batch;
  // the batch's vectors typed as heap vectors: isNullAt and the primitive getters below are then
  // direct calls on known classes instead of interface calls on nine different vector types
  private AbstractHeapVector[] vectors;
  private int rowId;
  private RowKind kind = RowKind.INSERT;

  void set(VectorizedColumnBatch batch, AbstractHeapVector[] vectors, int rowId) {
    this.batch = batch;
    this.vectors = vectors;
    this.rowId = rowId;
  }

  int rowId() {
    return rowId;
  }

  /** The plain (non-dictionary) heap vector of a string/bytes column, or null. */
  HeapBytesVector bytesVector(int pos) {
    return vectors[pos] instanceof HeapBytesVector v && !v.hasDictionary() ? v : null;
  }

  /** The timestamp vector of a timestamp column decoded by this package, or null. */
  EpochTimestampVector timestampVector(int pos) {
    return vectors[pos] instanceof EpochTimestampVector v ? v : null;
  }

  @Override
  public int getArity() {
    return batch.getArity();
  }

  @Override
  public RowKind getRowKind() {
    return kind;
  }

  @Override
  public void setRowKind(RowKind kind) {
    this.kind = kind;
  }

  @Override
  public boolean isNullAt(int pos) {
    return vectors[pos].isNullAt(rowId);
  }

  @Override
  public boolean getBoolean(int pos) {
    return batch.getBoolean(rowId, pos);
  }

  @Override
  public byte getByte(int pos) {
    return vectors[pos] instanceof HeapByteVector v ? v.vector[rowId] : batch.getByte(rowId, pos);
  }

  @Override
  public short getShort(int pos) {
    return batch.getShort(rowId, pos);
  }

  @Override
  public int getInt(int pos) {
    return vectors[pos] instanceof HeapIntVector v ? v.vector[rowId] : batch.getInt(rowId, pos);
  }

  @Override
  public long getLong(int pos) {
    return vectors[pos] instanceof HeapLongVector v ? v.vector[rowId] : batch.getLong(rowId, pos);
  }

  @Override
  public float getFloat(int pos) {
    return batch.getFloat(rowId, pos);
  }

  @Override
  public double getDouble(int pos) {
    return vectors[pos] instanceof HeapDoubleVector v
        ? v.vector[rowId]
        : batch.getDouble(rowId, pos);
  }

  @Override
  public StringData getString(int pos) {
    BytesColumnVector.Bytes bytes = batch.getByteArray(rowId, pos);
    return StringData.fromBytes(bytes.data, bytes.offset, bytes.len);
  }

  @Override
  public byte[] getBinary(int pos) {
    BytesColumnVector.Bytes bytes = batch.getByteArray(rowId, pos);
    return Arrays.copyOfRange(bytes.data, bytes.offset, bytes.offset + bytes.len);
  }

  @Override
  public DecimalData getDecimal(int pos, int precision, int scale) {
    return batch.getDecimal(rowId, pos, precision, scale);
  }

  @Override
  public TimestampData getTimestamp(int pos, int precision) {
    return batch.getTimestamp(rowId, pos, precision);
  }

  @Override
  public <T> RawValueData<T> getRawValue(int pos) {
    throw new UnsupportedOperationException("RAW values are not stored in data files");
  }

  @Override
  public ArrayData getArray(int pos) {
    return batch.getArray(rowId, pos);
  }

  @Override
  public MapData getMap(int pos) {
    return batch.getMap(rowId, pos);
  }

  @Override
  public RowData getRow(int pos, int numFields) {
    return batch.getRow(rowId, pos);
  }

  @Override
  public Variant getVariant(int pos) {
    return batch.getVariant(rowId, pos);
  }

  @Override
  public boolean equals(Object o) {
    throw new UnsupportedOperationException("A batch row is a view; copy it to compare");
  }

  @Override
  public int hashCode() {
    throw new UnsupportedOperationException("A batch row is a view; copy it to hash");
  }
}
