package io.sediment.mergetree;

import io.sediment.data.InternalComparators;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.types.RowKind;

/**
 * The row layout of primary-key data files: the table's columns, then {@code _SEQUENCE_NUMBER
 * BIGINT NOT NULL} and {@code _ROW_KIND TINYINT NOT NULL}. The key columns are at their table
 * positions. Precomputes the comparators the merge tree needs.
 */
public final class KeyValueLayout implements Serializable {

  private static final long serialVersionUID = 1L;

  public static final String SEQUENCE_NUMBER = "_SEQUENCE_NUMBER";
  public static final String ROW_KIND = "_ROW_KIND";

  private final RowType valueType;
  private final RowType fileType;
  private final RowType keyType;
  private final int[] keyIndexes;
  private final int sequenceFieldIndex;
  // Per-row accessors: RowType.getFieldCount() goes through an unmodifiable list every call.
  private final int arity;

  public KeyValueLayout(TableSchema schema) {
    this.valueType = schema.rowType();
    List<RowType.RowField> fields = new ArrayList<>(valueType.getFields());
    String engine = schema.tableOptions().mergeEngine();
    if (engine.equals("partial-update") || engine.equals("aggregation")) {
      // The rows these merges store in between hold no value in the value columns: a delete that
      // removes the row, a retraction merged alone (a writer's flush between an update's -U and
      // +U). A reader merges them away; what it returns is a complete row.
      List<String> keys = schema.primaryKeys();
      for (int i = 0; i < fields.size(); i++) {
        RowType.RowField f = fields.get(i);
        if (!keys.contains(f.getName()) && !f.getType().isNullable()) {
          fields.set(i, new RowType.RowField(f.getName(), f.getType().copy(true)));
        }
      }
    }
    fields.add(new RowType.RowField(SEQUENCE_NUMBER, new BigIntType(false)));
    fields.add(new RowType.RowField(ROW_KIND, new TinyIntType(false)));
    this.fileType = new RowType(fields);
    this.keyIndexes = schema.indexes(schema.primaryKeys());
    this.keyType = schema.keyType();
    String seqField = schema.tableOptions().get(PrimaryKeyOptions.SEQUENCE_FIELD);
    this.sequenceFieldIndex = seqField == null ? -1 : schema.fieldNames().indexOf(seqField);
    this.arity = valueType.getFieldCount();
  }

  public RowType valueType() {
    return valueType;
  }

  /** The row type of the Parquet files of a primary-key table. */
  public RowType fileType() {
    return fileType;
  }

  public RowType keyType() {
    return keyType;
  }

  public int[] keyIndexes() {
    return keyIndexes;
  }

  public int arity() {
    return arity;
  }

  public int sequenceIndex() {
    return arity;
  }

  public int kindIndex() {
    return arity + 1;
  }

  /** Index of the {@code sequence.field} column, or -1. */
  public int sequenceFieldIndex() {
    return sequenceFieldIndex;
  }

  public long sequence(RowData kv) {
    return kv.getLong(arity);
  }

  public RowKind kind(RowData kv) {
    return RowKind.fromByteValue(kv.getByte(arity + 1));
  }

  /** Whether the file-layout row is a retraction (DELETE or UPDATE_BEFORE), read as its byte. */
  public boolean isRetract(RowData kv) {
    byte kind = kv.getByte(arity + 1);
    return kind == RowKind.DELETE.toByteValue() || kind == RowKind.UPDATE_BEFORE.toByteValue();
  }

  public static boolean isRetract(RowKind kind) {
    return kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE;
  }

  /** Compares file rows (or any rows with the key at the table positions) by key. */
  public Comparator<RowData> keyComparator() {
    return fieldsComparator(valueType, keyIndexes);
  }

  /** Reads a one-column integral key as a long, and boxes such a long back to its field type. */
  public static final class IntegralKey implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int pos;
    private final LogicalTypeRoot root;

    IntegralKey(int pos, LogicalTypeRoot root) {
      this.pos = pos;
      this.root = root;
    }

    public long get(RowData row) {
      switch (root) {
        case TINYINT:
          return row.getByte(pos);
        case SMALLINT:
          return row.getShort(pos);
        case BIGINT:
          return row.getLong(pos);
        default:
          return row.getInt(pos);
      }
    }

    /** The internal (boxed) field value of a key read by {@link #get}. */
    public Object box(long key) {
      switch (root) {
        case TINYINT:
          return (byte) key;
        case SMALLINT:
          return (short) key;
        case BIGINT:
          return key;
        default:
          return (int) key;
      }
    }
  }

  /**
   * The key as a long when it is a single NOT NULL integral column (TINYINT, SMALLINT, INTEGER,
   * BIGINT, DATE, TIME), so merges compare primitives; null for any other key.
   */
  public IntegralKey integralKey() {
    if (keyIndexes.length != 1) {
      return null;
    }
    int pos = keyIndexes[0];
    LogicalType type = valueType.getTypeAt(pos);
    if (type.isNullable()) {
      return null;
    }
    switch (type.getTypeRoot()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
      case BIGINT:
        return new IntegralKey(pos, type.getTypeRoot());
      default:
        return null;
    }
  }

  /** Compares binary key rows (arity = primary-key columns), as stored in file metadata. */
  public Comparator<RowData> keyRowComparator() {
    int[] idx = new int[keyIndexes.length];
    for (int i = 0; i < idx.length; i++) {
      idx[i] = i;
    }
    return fieldsComparator(keyType, idx);
  }

  /** Key, then sequence number. */
  public Comparator<RowData> keyAndSequenceComparator() {
    Comparator<RowData> key = keyComparator();
    int seq = sequenceIndex();
    return (a, b) -> {
      int c = key.compare(a, b);
      return c != 0 ? c : Long.compare(a.getLong(seq), b.getLong(seq));
    };
  }

  /**
   * Version order of one key: by {@code sequence.field} (nulls first) when set, then by sequence
   * number.
   */
  public Comparator<RowData> versionComparator() {
    int seq = sequenceIndex();
    if (sequenceFieldIndex < 0) {
      return (a, b) -> Long.compare(a.getLong(seq), b.getLong(seq));
    }
    Comparator<RowData> field = fieldsComparator(valueType, new int[] {sequenceFieldIndex});
    return (a, b) -> {
      int c = field.compare(a, b);
      return c != 0 ? c : Long.compare(a.getLong(seq), b.getLong(seq));
    };
  }

  /** A comparator over the given fields of rows of {@code type}; nulls first. */
  public static Comparator<RowData> fieldsComparator(RowType type, int[] fields) {
    @SuppressWarnings("unchecked")
    Comparator<RowData>[] cmps = new Comparator[fields.length];
    for (int i = 0; i < fields.length; i++) {
      cmps[i] = fieldComparator(type.getTypeAt(fields[i]), fields[i]);
    }
    if (cmps.length == 1) {
      return cmps[0];
    }
    return (a, b) -> {
      for (Comparator<RowData> c : cmps) {
        int r = c.compare(a, b);
        if (r != 0) {
          return r;
        }
      }
      return 0;
    };
  }

  private static Comparator<RowData> fieldComparator(LogicalType type, int pos) {
    Comparator<RowData> nonNull;
    switch (type.getTypeRoot()) {
      case BIGINT:
        nonNull = (a, b) -> Long.compare(a.getLong(pos), b.getLong(pos));
        break;
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        nonNull = (a, b) -> Integer.compare(a.getInt(pos), b.getInt(pos));
        break;
      case CHAR:
      case VARCHAR:
        nonNull = (a, b) -> InternalComparators.compareStrings(a.getString(pos), b.getString(pos));
        break;
      default:
        RowData.FieldGetter g = RowData.createFieldGetter(type, pos);
        Comparator<Object> c = InternalComparators.forType(type);
        if (c == null) {
          throw new IllegalArgumentException("Type " + type + " cannot be part of a primary key");
        }
        nonNull = (a, b) -> c.compare(g.getFieldOrNull(a), g.getFieldOrNull(b));
    }
    if (!type.isNullable()) {
      return nonNull;
    }
    return (a, b) -> {
      boolean na = a.isNullAt(pos);
      boolean nb = b.isNullAt(pos);
      if (na || nb) {
        return na == nb ? 0 : (na ? -1 : 1);
      }
      return nonNull.compare(a, b);
    };
  }

  /** Copies all fields of {@code from} (a row of {@code type}) into {@code to} by reference. */
  public static final class RowCopier implements Serializable {
    private static final long serialVersionUID = 1L;
    private final RowData.FieldGetter[] getters;

    public RowCopier(RowType type) {
      getters = new RowData.FieldGetter[type.getFieldCount()];
      for (int i = 0; i < getters.length; i++) {
        getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
      }
    }

    /**
     * Shares the field values (immutable in Flink's internal format): {@code to} is valid as long
     * as {@code from}'s values are, which for a compaction's reader is as long as {@code from}
     * itself ({@link RunReader#reuseValueBuffers()}).
     */
    public void copy(RowData from, GenericRowData to) {
      if (from instanceof GenericRowData) {
        GenericRowData g = (GenericRowData) from;
        for (int i = 0; i < getters.length; i++) {
          to.setField(i, g.getField(i));
        }
      } else {
        for (int i = 0; i < getters.length; i++) {
          to.setField(i, getters[i].getFieldOrNull(from));
        }
      }
      to.setRowKind(from.getRowKind());
    }

    public GenericRowData copy(RowData from) {
      GenericRowData to = new GenericRowData(getters.length);
      copy(from, to);
      return to;
    }

    public Object get(RowData from, int i) {
      return getters[i].getFieldOrNull(from);
    }
  }
}
