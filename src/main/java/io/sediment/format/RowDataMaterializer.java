package io.sediment.format;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/**
 * Materializes Parquet records into one reused {@link GenericRowData} (internal data format) of the
 * produced row type; field i of the produced row is column i of the requested schema.
 */
final class RowDataMaterializer extends RecordMaterializer<RowData> {

  private final GenericRowData row;
  private final RootConverter root;

  RowDataMaterializer(RowType producedType) {
    this.row = new GenericRowData(producedType.getFieldCount());
    List<RowType.RowField> fields = producedType.getFields();
    Converter[] converters = new Converter[fields.size()];
    for (int i = 0; i < converters.length; i++) {
      converters[i] = createConverter(row, i, fields.get(i).getName(), fields.get(i).getType());
    }
    this.root = new RootConverter(row, converters);
  }

  @Override
  public RowData getCurrentRecord() {
    return row;
  }

  @Override
  public GroupConverter getRootConverter() {
    return root;
  }

  private static final class RootConverter extends GroupConverter {
    private final GenericRowData row;
    private final Converter[] converters;

    RootConverter(GenericRowData row, Converter[] converters) {
      this.row = row;
      this.converters = converters;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return converters[fieldIndex];
    }

    @Override
    public void start() {
      // absent (null) columns call no converter: reset every field
      for (int i = 0; i < converters.length; i++) {
        row.setField(i, null);
      }
    }

    @Override
    public void end() {}
  }

  static Converter createConverter(GenericRowData row, int pos, String name, LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return new PrimitiveConverter() {
          @Override
          public void addBoolean(boolean value) {
            row.setField(pos, value);
          }
        };
      case TINYINT:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            row.setField(pos, (byte) value);
          }
        };
      case SMALLINT:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            row.setField(pos, (short) value);
          }
        };
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            row.setField(pos, value);
          }
        };
      case BIGINT:
        return new PrimitiveConverter() {
          @Override
          public void addLong(long value) {
            row.setField(pos, value);
          }
        };
      case FLOAT:
        return new PrimitiveConverter() {
          @Override
          public void addFloat(float value) {
            row.setField(pos, value);
          }
        };
      case DOUBLE:
        return new PrimitiveConverter() {
          @Override
          public void addDouble(double value) {
            row.setField(pos, value);
          }
        };
      case CHAR:
      case VARCHAR:
        return new StringConverter(row, pos);
      case BINARY:
      case VARBINARY:
        return new PrimitiveConverter() {
          @Override
          public void addBinary(Binary value) {
            row.setField(pos, copyBytes(value));
          }
        };
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          int precision = d.getPrecision();
          int scale = d.getScale();
          return new PrimitiveConverter() {
            @Override
            public void addInt(int value) {
              row.setField(pos, DecimalData.fromUnscaledLong(value, precision, scale));
            }

            @Override
            public void addLong(long value) {
              row.setField(pos, DecimalData.fromUnscaledLong(value, precision, scale));
            }

            @Override
            public void addBinary(Binary value) {
              row.setField(pos, DecimalData.fromUnscaledBytes(value.getBytes(), precision, scale));
            }
          };
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return new TimestampConverter(
            row, pos, ParquetSchemas.timeUnit(((TimestampType) type).getPrecision()));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return new TimestampConverter(
            row, pos, ParquetSchemas.timeUnit(((LocalZonedTimestampType) type).getPrecision()));
      default:
        throw ParquetSchemas.unsupported(name, type);
    }
  }

  /** A fresh byte[] the caller owns (Parquet may share or reuse the Binary's backing array). */
  static byte[] copyBytes(Binary value) {
    ByteBuffer buffer = value.toByteBuffer();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  private static final class StringConverter extends PrimitiveConverter {
    private final GenericRowData row;
    private final int pos;
    private StringData[] dictionary;

    StringConverter(GenericRowData row, int pos) {
      this.row = row;
      this.pos = pos;
    }

    @Override
    public void addBinary(Binary value) {
      row.setField(pos, StringData.fromBytes(copyBytes(value)));
    }

    @Override
    public boolean hasDictionarySupport() {
      return true;
    }

    @Override
    public void setDictionary(Dictionary dict) {
      StringData[] values = new StringData[dict.getMaxId() + 1];
      for (int i = 0; i < values.length; i++) {
        values[i] = StringData.fromBytes(copyBytes(dict.decodeToBinary(i)));
      }
      this.dictionary = values;
    }

    @Override
    public void addValueFromDictionary(int dictionaryId) {
      // StringData is immutable: rows of one dictionary share the instance
      row.setField(pos, dictionary[dictionaryId]);
    }
  }

  private static final class TimestampConverter extends PrimitiveConverter {
    private final GenericRowData row;
    private final int pos;
    private final TimeUnit unit;

    TimestampConverter(GenericRowData row, int pos, TimeUnit unit) {
      this.row = row;
      this.pos = pos;
      this.unit = unit;
    }

    @Override
    public void addLong(long value) {
      row.setField(pos, Timestamps.fromLong(value, unit));
    }
  }
}
