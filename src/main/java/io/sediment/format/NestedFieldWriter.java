package io.sediment.format;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/**
 * Writes a ROW, ARRAY, MAP or MULTISET column: its values striped into the leaf columns of
 * Parquet's standard nested layout ({@link ParquetSchemas#toParquet}) with repetition and
 * definition levels, as Dremel describes. A value is present at a node when the node's definition
 * level is reached: an absent (null) node writes, to every leaf below it, the level of its parent;
 * an empty list or map writes the list's own level; the elements after the first of a list repeat
 * at the list's repetition level. No statistics: min and max are unknown, the null count is that of
 * the top-level value.
 */
final class NestedFieldWriter extends FieldWriter {

  private final RowData.FieldGetter getter;
  private final LogicalType type;
  private final Node root;
  private final List<Leaf> leaves = new ArrayList<>();
  // whether a value can break a rule Parquet cannot store (a NOT NULL inside, a map key)
  private final boolean checked;

  NestedFieldWriter(String name, int pos, LogicalType type) {
    super(name, pos, type.isNullable());
    this.getter = RowData.createFieldGetter(type, pos);
    this.type = type;
    this.root = node(name, type, 0, 0);
    this.checked = needsCheck(type);
  }

  /**
   * Refuses a value with a null where its type says NOT NULL, or a null map key, naming where:
   * called before anything of the row is written (a half-written record cannot be taken back).
   */
  void checkValue(RowData row) {
    if (checked) {
      Object v = getter.getFieldOrNull(row);
      if (v != null) {
        check(name, type, v);
      }
    }
  }

  private static boolean needsCheck(LogicalType type) {
    for (LogicalType child : type.getChildren()) {
      if (!child.isNullable() || needsCheck(child)) {
        return true;
      }
    }
    return type instanceof MapType || type instanceof MultisetType;
  }

  private static void check(String path, LogicalType type, Object value) {
    switch (type.getTypeRoot()) {
      case ROW -> {
        RowType row = (RowType) type;
        for (int i = 0; i < row.getFieldCount(); i++) {
          LogicalType f = row.getTypeAt(i);
          checkChild(
              path + "." + row.getFieldNames().get(i),
              f,
              RowData.createFieldGetter(f, i).getFieldOrNull((RowData) value));
        }
      }
      case ARRAY -> {
        LogicalType e = ((ArrayType) type).getElementType();
        ArrayData a = (ArrayData) value;
        ArrayData.ElementGetter g = ArrayData.createElementGetter(e);
        for (int i = 0; i < a.size(); i++) {
          checkChild(path + "[" + i + "]", e, g.getElementOrNull(a, i));
        }
      }
      case MAP, MULTISET -> {
        LogicalType k =
            type instanceof MapType m ? m.getKeyType() : ((MultisetType) type).getElementType();
        LogicalType v = type instanceof MapType m ? m.getValueType() : new IntType(false);
        MapData map = (MapData) value;
        ArrayData.ElementGetter kg = ArrayData.createElementGetter(k);
        ArrayData.ElementGetter vg = ArrayData.createElementGetter(v);
        for (int i = 0; i < map.size(); i++) {
          Object key = kg.getElementOrNull(map.keyArray(), i);
          if (key == null) {
            throw new NullPointerException(
                "Column '" + path + "' has a null map key: Parquet's maps cannot store one");
          }
          check(path + ".key", k, key);
          checkChild(path + ".value", v, vg.getElementOrNull(map.valueArray(), i));
        }
      }
      default -> {}
    }
  }

  private static void checkChild(String path, LogicalType type, Object value) {
    if (value == null) {
      if (!type.isNullable()) {
        throw new NullPointerException("'" + path + "' is NOT NULL but the value has null");
      }
      return;
    }
    check(path, type, value);
  }

  /** Binds the leaves to the column writers from {@code columns[first]} on; the next index. */
  int bind(ColumnWriteStore store, List<ColumnDescriptor> columns, int first) {
    for (int i = 0; i < leaves.size(); i++) {
      leaves.get(i).column = store.getColumnWriter(columns.get(first + i));
    }
    return first + leaves.size();
  }

  @Override
  void write(ColumnWriter ignored, RowData row) {
    root.write(getter.getFieldOrNull(row), 0);
  }

  /** The column is null in this row. */
  void writeNull() {
    root.writeNull(0, 0);
  }

  @Override
  Object min() {
    return null;
  }

  @Override
  Object max() {
    return null;
  }

  private Node node(String path, LogicalType type, int parentDef, int rep) {
    int def = parentDef + (type.isNullable() ? 1 : 0);
    switch (type.getTypeRoot()) {
      case ROW:
        {
          RowType row = (RowType) type;
          Node[] children = new Node[row.getFieldCount()];
          RowData.FieldGetter[] getters = new RowData.FieldGetter[children.length];
          for (int i = 0; i < children.length; i++) {
            RowType.RowField f = row.getFields().get(i);
            children[i] = node(path + "." + f.getName(), f.getType(), def, rep);
            getters[i] = RowData.createFieldGetter(f.getType(), i);
          }
          return new RowNode(path, def, children, getters);
        }
      case ARRAY:
        {
          LogicalType element = ((ArrayType) type).getElementType();
          // the repeated group "list" adds a definition and a repetition level
          return new ListNode(
              def,
              rep + 1,
              node(path + "[]", element, def + 1, rep + 1),
              ArrayData.createElementGetter(element));
        }
      case MAP:
        {
          MapType map = (MapType) type;
          return mapNode(path, map.getKeyType(), map.getValueType(), def, rep);
        }
      case MULTISET:
        return mapNode(path, ((MultisetType) type).getElementType(), new IntType(false), def, rep);
      default:
        {
          Leaf leaf = new Leaf(path, type, def);
          leaves.add(leaf);
          return leaf;
        }
    }
  }

  private Node mapNode(String path, LogicalType key, LogicalType value, int def, int rep) {
    Node keys = node(path + ".key", key.copy(false), def + 1, rep + 1);
    Node values = node(path + ".value", value, def + 1, rep + 1);
    return new MapNode(
        path,
        def,
        rep + 1,
        keys,
        values,
        ArrayData.createElementGetter(key),
        ArrayData.createElementGetter(value),
        value.isNullable());
  }

  private abstract static class Node {
    /**
     * Writes a present (non-null) value; {@code r}: the repetition level of its first leaf value.
     */
    abstract void write(Object value, int r);

    /**
     * The node is absent: every leaf below gets a null at repetition {@code r}, definition {@code
     * d}.
     */
    abstract void writeNull(int r, int d);
  }

  private static final class RowNode extends Node {
    private final String path;
    private final int def;
    private final Node[] children;
    private final RowData.FieldGetter[] getters;

    RowNode(String path, int def, Node[] children, RowData.FieldGetter[] getters) {
      this.path = path;
      this.def = def;
      this.children = children;
      this.getters = getters;
    }

    @Override
    void write(Object value, int r) {
      RowData row = (RowData) value;
      for (int i = 0; i < children.length; i++) {
        Object v = getters[i].getFieldOrNull(row);
        if (v == null) {
          children[i].writeNull(r, def);
        } else {
          children[i].write(v, r);
        }
      }
    }

    @Override
    void writeNull(int r, int d) {
      for (Node c : children) {
        c.writeNull(r, d);
      }
    }

    @Override
    public String toString() {
      return path;
    }
  }

  private static final class ListNode extends Node {
    private final int def;
    private final int rep;
    private final Node element;
    private final ArrayData.ElementGetter getter;

    ListNode(int def, int rep, Node element, ArrayData.ElementGetter getter) {
      this.def = def;
      this.rep = rep;
      this.element = element;
      this.getter = getter;
    }

    @Override
    void write(Object value, int r) {
      ArrayData array = (ArrayData) value;
      int n = array.size();
      if (n == 0) {
        element.writeNull(r, def); // the list is there, without elements
        return;
      }
      for (int i = 0; i < n; i++) {
        int ri = i == 0 ? r : rep;
        Object e = getter.getElementOrNull(array, i);
        if (e == null) {
          element.writeNull(ri, def + 1); // an element slot, holding null
        } else {
          element.write(e, ri);
        }
      }
    }

    @Override
    void writeNull(int r, int d) {
      element.writeNull(r, d);
    }
  }

  private static final class MapNode extends Node {
    private final String path;
    private final int def;
    private final int rep;
    private final Node keys;
    private final Node values;
    private final ArrayData.ElementGetter keyGetter;
    private final ArrayData.ElementGetter valueGetter;
    private final boolean nullableValues;

    MapNode(
        String path,
        int def,
        int rep,
        Node keys,
        Node values,
        ArrayData.ElementGetter keyGetter,
        ArrayData.ElementGetter valueGetter,
        boolean nullableValues) {
      this.path = path;
      this.def = def;
      this.rep = rep;
      this.keys = keys;
      this.values = values;
      this.keyGetter = keyGetter;
      this.valueGetter = valueGetter;
      this.nullableValues = nullableValues;
    }

    @Override
    void write(Object value, int r) {
      MapData map = (MapData) value;
      int n = map.size();
      if (n == 0) {
        keys.writeNull(r, def);
        values.writeNull(r, def);
        return;
      }
      ArrayData k = map.keyArray();
      ArrayData v = map.valueArray();
      for (int i = 0; i < n; i++) {
        int ri = i == 0 ? r : rep;
        Object key = keyGetter.getElementOrNull(k, i);
        if (key == null) {
          throw new NullPointerException("Map " + path + " has a null key: Parquet maps cannot");
        }
        keys.write(key, ri);
        Object val = valueGetter.getElementOrNull(v, i);
        if (val == null) {
          if (!nullableValues) {
            throw new NullPointerException(
                "Map " + path + " has a null value but its values are NOT NULL");
          }
          values.writeNull(ri, def + 1);
        } else {
          values.write(val, ri);
        }
      }
    }

    @Override
    void writeNull(int r, int d) {
      keys.writeNull(r, d);
      values.writeNull(r, d);
    }
  }

  /** A primitive value inside a nested column. */
  private static final class Leaf extends Node {
    private final String path;
    private final LogicalType type;
    private final int def;
    private final int precision;
    private final int scale;
    private final TimeUnit unit;
    private final byte[] fixed;
    ColumnWriter column;

    Leaf(String path, LogicalType type, int def) {
      this.path = path;
      this.type = type;
      this.def = def;
      switch (type.getTypeRoot()) {
        case DECIMAL -> {
          precision = ((DecimalType) type).getPrecision();
          scale = ((DecimalType) type).getScale();
          unit = null;
        }
        case TIMESTAMP_WITHOUT_TIME_ZONE -> {
          precision = ((TimestampType) type).getPrecision();
          scale = 0;
          unit = ParquetSchemas.timeUnit(precision);
        }
        case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
          precision = ((LocalZonedTimestampType) type).getPrecision();
          scale = 0;
          unit = ParquetSchemas.timeUnit(precision);
        }
        default -> {
          precision = 0;
          scale = 0;
          unit = null;
        }
      }
      this.fixed = precision > 18 ? new byte[ParquetSchemas.decimalFixedLength(precision)] : null;
      ParquetSchemas.toParquet(path, type); // refuses a type data files do not store
    }

    @Override
    void write(Object v, int r) {
      ColumnWriter cw = column;
      switch (type.getTypeRoot()) {
        case BOOLEAN -> cw.write((Boolean) v, r, def);
        case TINYINT -> cw.write((int) (Byte) v, r, def);
        case SMALLINT -> cw.write((int) (Short) v, r, def);
        case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> cw.write((Integer) v, r, def);
        case BIGINT -> cw.write((Long) v, r, def);
        case FLOAT -> cw.write((Float) v, r, def);
        case DOUBLE -> cw.write((Double) v, r, def);
        case CHAR, VARCHAR ->
            cw.write(Binary.fromConstantByteArray(((StringData) v).toBytes()), r, def);
        case BINARY, VARBINARY -> cw.write(Binary.fromConstantByteArray((byte[]) v), r, def);
        case DECIMAL -> writeDecimal(cw, (DecimalData) v, r);
        case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
            cw.write(Timestamps.toLong((TimestampData) v, unit, path), r, def);
        default -> throw ParquetSchemas.unsupported(path, type);
      }
    }

    private void writeDecimal(ColumnWriter cw, DecimalData d, int r) {
      if (precision <= 9) {
        cw.write((int) d.toUnscaledLong(), r, def);
      } else if (precision <= 18) {
        cw.write(d.toUnscaledLong(), r, def);
      } else {
        FieldWriters.fillFixed(d, fixed, precision, scale, path);
        cw.write(Binary.fromConstantByteArray(fixed.clone()), r, def);
      }
    }

    @Override
    void writeNull(int r, int d) {
      if (d >= def && !type.isNullable()) {
        throw new NullPointerException(path + " is NOT NULL but the value has null");
      }
      column.writeNull(r, d);
    }
  }
}
