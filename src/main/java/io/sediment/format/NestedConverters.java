package io.sediment.format;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;

/**
 * Record-assembly converters of nested columns in Parquet's standard layout ({@link
 * ParquetSchemas#toParquet}): a ROW becomes a {@link GenericRowData}, an ARRAY a {@link
 * GenericArrayData}, a MAP or MULTISET a {@link GenericMapData}. Each value is a new object, owned
 * by the row it is set in (the reader reuses its top-level rows, never nested values).
 */
final class NestedConverters {

  private NestedConverters() {}

  static GroupConverter create(RowDataMaterializer.Sink sink, String name, LogicalType type) {
    switch (type.getTypeRoot()) {
      case ROW:
        return new RowConverter(sink, name, (RowType) type);
      case ARRAY:
        return new ListConverter(sink, name, ((ArrayType) type).getElementType());
      case MAP:
        {
          MapType map = (MapType) type;
          return new MapConverter(sink, name, map.getKeyType(), map.getValueType());
        }
      case MULTISET:
        return new MapConverter(
            sink, name, ((MultisetType) type).getElementType(), new IntType(false));
      default:
        throw ParquetSchemas.unsupported(name, type);
    }
  }

  private static final class RowConverter extends GroupConverter {
    private final RowDataMaterializer.Sink sink;
    private final Converter[] fields;
    private GenericRowData current;

    RowConverter(RowDataMaterializer.Sink sink, String name, RowType type) {
      this.sink = sink;
      this.fields = new Converter[type.getFieldCount()];
      for (int i = 0; i < fields.length; i++) {
        int pos = i;
        RowType.RowField f = type.getFields().get(i);
        fields[i] =
            RowDataMaterializer.createConverter(
                v -> current.setField(pos, v), name + "." + f.getName(), f.getType());
      }
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return fields[fieldIndex];
    }

    @Override
    public void start() {
      current = new GenericRowData(fields.length); // absent fields stay null
    }

    @Override
    public void end() {
      sink.set(current);
    }
  }

  /** {@code <name> (LIST) { repeated group list { element } }}. */
  private static final class ListConverter extends GroupConverter {
    private final RowDataMaterializer.Sink sink;
    private final GroupConverter repeated;
    private final List<Object> elements = new ArrayList<>();
    private Object element;

    ListConverter(RowDataMaterializer.Sink sink, String name, LogicalType elementType) {
      this.sink = sink;
      Converter elementConverter =
          RowDataMaterializer.createConverter(v -> element = v, name + "[]", elementType);
      this.repeated =
          new GroupConverter() {
            @Override
            public Converter getConverter(int fieldIndex) {
              return elementConverter;
            }

            @Override
            public void start() {
              element = null;
            }

            @Override
            public void end() {
              elements.add(element);
            }
          };
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return repeated;
    }

    @Override
    public void start() {
      elements.clear();
    }

    @Override
    public void end() {
      sink.set(new GenericArrayData(elements.toArray()));
    }
  }

  /** {@code <name> (MAP) { repeated group key_value { key; value } }}. */
  private static final class MapConverter extends GroupConverter {
    private final RowDataMaterializer.Sink sink;
    private final GroupConverter repeated;
    private final Map<Object, Object> entries = new LinkedHashMap<>();
    private Object key;
    private Object value;

    MapConverter(
        RowDataMaterializer.Sink sink, String name, LogicalType keyType, LogicalType valueType) {
      this.sink = sink;
      Converter keys = RowDataMaterializer.createConverter(v -> key = v, name + ".key", keyType);
      Converter values =
          RowDataMaterializer.createConverter(v -> value = v, name + ".value", valueType);
      this.repeated =
          new GroupConverter() {
            @Override
            public Converter getConverter(int fieldIndex) {
              return fieldIndex == 0 ? keys : values;
            }

            @Override
            public void start() {
              key = null;
              value = null;
            }

            @Override
            public void end() {
              entries.put(key, value);
            }
          };
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      return repeated;
    }

    @Override
    public void start() {
      entries.clear();
    }

    @Override
    public void end() {
      sink.set(new GenericMapData(new LinkedHashMap<>(entries)));
    }
  }
}
