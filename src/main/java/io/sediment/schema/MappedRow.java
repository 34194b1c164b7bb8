package io.sediment.schema;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RawValueData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.variant.Variant;

/**
 * A row of a file of another schema version seen as a row of the reading schema ({@link
 * FieldMapping}): each position reads its source position, null where the file has no such column,
 * widening values of columns whose type was widened. A view: {@link #replace} points it at the next
 * source row without copying.
 */
public final class MappedRow implements RowData {

  private final int[] source;
  private final LogicalType[] convertFrom;
  private RowData row;

  MappedRow(int[] source, LogicalType[] convertFrom) {
    this.source = source;
    this.convertFrom = convertFrom;
  }

  /** Points this view at {@code sourceRow} and returns it. */
  public MappedRow replace(RowData sourceRow) {
    this.row = sourceRow;
    return this;
  }

  @Override
  public int getArity() {
    return source.length;
  }

  @Override
  public RowKind getRowKind() {
    return row.getRowKind();
  }

  @Override
  public void setRowKind(RowKind kind) {
    row.setRowKind(kind);
  }

  @Override
  public boolean isNullAt(int pos) {
    int s = source[pos];
    return s < 0 || row.isNullAt(s);
  }

  @Override
  public boolean getBoolean(int pos) {
    return row.getBoolean(source[pos]);
  }

  @Override
  public byte getByte(int pos) {
    return row.getByte(source[pos]);
  }

  @Override
  public short getShort(int pos) {
    LogicalType from = convertFrom[pos];
    return from == null
        ? row.getShort(source[pos])
        : (short) FieldMapping.integral(row, source[pos], from.getTypeRoot());
  }

  @Override
  public int getInt(int pos) {
    LogicalType from = convertFrom[pos];
    return from == null
        ? row.getInt(source[pos])
        : (int) FieldMapping.integral(row, source[pos], from.getTypeRoot());
  }

  @Override
  public long getLong(int pos) {
    LogicalType from = convertFrom[pos];
    return from == null
        ? row.getLong(source[pos])
        : FieldMapping.integral(row, source[pos], from.getTypeRoot());
  }

  @Override
  public float getFloat(int pos) {
    return row.getFloat(source[pos]);
  }

  @Override
  public double getDouble(int pos) {
    LogicalType from = convertFrom[pos];
    return from != null && from.getTypeRoot() == LogicalTypeRoot.FLOAT
        ? row.getFloat(source[pos])
        : row.getDouble(source[pos]);
  }

  @Override
  public StringData getString(int pos) {
    return row.getString(source[pos]);
  }

  @Override
  public DecimalData getDecimal(int pos, int precision, int scale) {
    LogicalType from = convertFrom[pos];
    if (from instanceof DecimalType d) {
      DecimalData old = row.getDecimal(source[pos], d.getPrecision(), d.getScale());
      return old == null ? null : DecimalData.fromBigDecimal(old.toBigDecimal(), precision, scale);
    }
    return row.getDecimal(source[pos], precision, scale);
  }

  @Override
  public TimestampData getTimestamp(int pos, int precision) {
    return row.getTimestamp(source[pos], precision);
  }

  @Override
  public <T> RawValueData<T> getRawValue(int pos) {
    return row.getRawValue(source[pos]);
  }

  @Override
  public byte[] getBinary(int pos) {
    return row.getBinary(source[pos]);
  }

  @Override
  public ArrayData getArray(int pos) {
    return row.getArray(source[pos]);
  }

  @Override
  public MapData getMap(int pos) {
    return row.getMap(source[pos]);
  }

  @Override
  public RowData getRow(int pos, int numFields) {
    return row.getRow(source[pos], numFields);
  }

  @Override
  public Variant getVariant(int pos) {
    return row.getVariant(source[pos]);
  }
}
