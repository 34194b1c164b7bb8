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
      converters[i] =
          createConverter(new FieldSink(row, i), fields.get(i).getName(), fields.get(i).getType());
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

  /** Where a converter puts the value it converted: a row's field, an element, a map entry. */
  interface Sink {
    void set(Object value);
  }

  /** Field {@code pos} of {@code row}. */
  private record FieldSink(GenericRowData row, int pos) implements Sink {
    @Override
    public void set(Object value) {
      row.setField(pos, value);
    }
  }

  static Converter createConverter(Sink sink, String name, LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return new PrimitiveConverter() {
          @Override
          public void addBoolean(boolean value) {
            sink.set(value);
          }
        };
      case TINYINT:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            sink.set((byte) value);
          }
        };
      case SMALLINT:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            sink.set((short) value);
          }
        };
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return new PrimitiveConverter() {
          @Override
          public void addInt(int value) {
            sink.set(value);
          }
        };
      case BIGINT:
        return new PrimitiveConverter() {
          @Override
          public void addLong(long value) {
            sink.set(value);
          }
        };
      case FLOAT:
        return new PrimitiveConverter() {
          @Override
          public void addFloat(float value) {
            sink.set(value);
          }
        };
      case DOUBLE:
        return new PrimitiveConverter() {
          @Override
          public void addDouble(double value) {
            sink.set(value);
          }
        };
      case CHAR:
      case VARCHAR:
        return new StringConverter(sink);
      case BINARY:
      case VARBINARY:
        return new PrimitiveConverter() {
          @Override
          public void addBinary(Binary value) {
            sink.set(copyBytes(value));
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
              sink.set(DecimalData.fromUnscaledLong(value, precision, scale));
            }

            @Override
            public void addLong(long value) {
              sink.set(DecimalData.fromUnscaledLong(value, precision, scale));
            }

            @Override
            public void addBinary(Binary value) {
              sink.set(DecimalData.fromUnscaledBytes(value.getBytes(), precision, scale));
            }
          };
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return new TimestampConverter(
            sink, ParquetSchemas.timeUnit(((TimestampType) type).getPrecision()));
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return new TimestampConverter(
            sink, ParquetSchemas.timeUnit(((LocalZonedTimestampType) type).getPrecision()));
      case ROW:
      case ARRAY:
      case MAP:
      case MULTISET:
        return NestedConverters.create(sink, name, type);
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
    private final Sink sink;
    private StringData[] dictionary;

    StringConverter(Sink sink) {
      this.sink = sink;
    }

    @Override
    public void addBinary(Binary value) {
      sink.set(StringData.fromBytes(copyBytes(value)));
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
      sink.set(dictionary[dictionaryId]);
    }
  }

  private static final class TimestampConverter extends PrimitiveConverter {
    private final Sink sink;
    private final TimeUnit unit;

    TimestampConverter(Sink sink, TimeUnit unit) {
      this.sink = sink;
      this.unit = unit;
    }

    @Override
    public void addLong(long value) {
      sink.set(Timestamps.fromLong(value, unit));
    }
  }
}
