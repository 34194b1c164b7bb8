package io.sediment.mergetree;

import io.sediment.data.InternalComparators;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;

/** The merge engines of primary-key tables. */
public final class MergeFunctions {

  private MergeFunctions() {}

  /**
   * The fields of an aggregation table whose function is {@code count} (a writer stores 1 or 0 for
   * each row, which the function then sums); none for other engines. {@code options}: the table's,
   * with any dynamic ones.
   *
   * @throws IllegalArgumentException when such a field is not INT or BIGINT
   */
  public static int[] countFields(TableSchema schema, TableOptions options) {
    if (!options.mergeEngine().equals("aggregation")) {
      return new int[0];
    }
    List<Integer> counts = new ArrayList<>();
    options
        .aggregateFunctions()
        .forEach(
            (f, fn) -> {
              // a key column's function is refused at CREATE; one of an older table is ignored,
              // as the merge ignores it: the writer must never overwrite the key
              if (fn.equals("count") && !schema.primaryKeys().contains(f)) {
                int i = schema.fieldNames().indexOf(f);
                switch (schema.rowType().getTypeAt(i).getTypeRoot()) {
                  case INTEGER:
                  case BIGINT:
                    counts.add(i);
                    break;
                  default:
                    throw new IllegalArgumentException(
                        "Aggregate function count of field '" + f + "' needs type INT or BIGINT");
                }
              }
            });
    return counts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A new merge function for the table's {@code merge-engine} (and {@code sequence.field}). */
  public static MergeFunction create(TableSchema schema, KeyValueLayout layout) {
    TableOptions options = schema.tableOptions();
    MergeFunction f;
    switch (options.mergeEngine()) {
      case "deduplicate":
        f = new Deduplicate();
        break;
      case "first-row":
        f = new FirstRow(layout);
        break;
      case "partial-update":
        f = new PartialUpdate(layout);
        break;
      case "aggregation":
        f =
            new Aggregation(
                layout,
                schema,
                options.aggregateFunctions(),
                RowKindPolicy.aggregationRemovesRecords(schema));
        break;
      default:
        throw new IllegalArgumentException("Unknown merge-engine " + options.mergeEngine());
    }
    return layout.sequenceFieldIndex() >= 0 ? new SortingMergeFunction(layout, f) : f;
  }

  /** Last version wins; a retraction as last version deletes the key. */
  static final class Deduplicate implements MergeFunction {
    // the row itself, not a copy: it stays valid while the merge reads the next version
    // (RowIterator's contract), and the result is consumed before the merge moves on
    private RowData latest;

    public void reset() {
      latest = null;
    }

    public void add(RowData kv) {
      latest = kv;
    }

    public RowData result() {
      return latest;
    }
  }

  /** The first non-retraction version wins; later versions and retractions are ignored. */
  static final class FirstRow implements MergeFunction {
    private final KeyValueLayout layout;
    private final KeyValueLayout.RowCopier copier;
    private final GenericRowData first;
    private boolean has;

    FirstRow(KeyValueLayout layout) {
      this.layout = layout;
      copier = new KeyValueLayout.RowCopier(layout.fileType());
      first = new GenericRowData(layout.fileType().getFieldCount());
    }

    public void reset() {
      has = false;
    }

    public void add(RowData kv) {
      if (!has && !KeyValueLayout.isRetract(layout.kind(kv))) {
        copier.copy(kv, first);
        has = true;
      }
    }

    public RowData result() {
      return has ? first : null;
    }
  }

  /**
   * Non-null fields of later versions overwrite. Stored kinds: {@code +U} merges onto older
   * versions, {@code -D} removes the key, {@code +I} is a complete row that replaces older versions
   * (what a merge that saw a delete produces).
   */
  static final class PartialUpdate implements MergeFunction {
    private static final int NONE = 0;
    private static final int PARTIAL = 1;
    private static final int COMPLETE = 2;
    private static final int DELETED = 3;
    private final KeyValueLayout layout;
    private final KeyValueLayout.RowCopier copier;
    private final GenericRowData acc;
    private final int arity;
    private int state;
    private long maxSeq;

    PartialUpdate(KeyValueLayout layout) {
      this.layout = layout;
      this.arity = layout.arity();
      copier = new KeyValueLayout.RowCopier(layout.fileType());
      acc = new GenericRowData(layout.fileType().getFieldCount());
    }

    public void reset() {
      state = NONE;
      maxSeq = Long.MIN_VALUE;
    }

    private void clear() {
      for (int i = 0; i < arity; i++) {
        acc.setField(i, null);
      }
    }

    public void add(RowData kv) {
      maxSeq = Math.max(maxSeq, layout.sequence(kv));
      RowKind kind = layout.kind(kv);
      if (kind == RowKind.UPDATE_BEFORE) {
        return;
      }
      if (kind == RowKind.DELETE) {
        clear();
        applyKey(kv);
        state = DELETED;
        return;
      }
      if (kind == RowKind.INSERT) {
        clear();
        state = COMPLETE;
      } else if (state == DELETED) {
        state = COMPLETE;
      } else if (state == NONE) {
        clear();
        state = PARTIAL;
      }
      for (int i = 0; i < arity; i++) {
        Object v = copier.get(kv, i);
        if (v != null) {
          acc.setField(i, v);
        }
      }
    }

    /** The key, and the sequence field: a delete must keep its place in the version order. */
    private void applyKey(RowData kv) {
      for (int k : layout.keyIndexes()) {
        acc.setField(k, copier.get(kv, k));
      }
      if (layout.sequenceFieldIndex() >= 0) {
        acc.setField(layout.sequenceFieldIndex(), copier.get(kv, layout.sequenceFieldIndex()));
      }
    }

    public RowData result() {
      if (state == NONE) {
        return null;
      }
      acc.setField(arity, maxSeq);
      RowKind kind =
          state == DELETED
              ? RowKind.DELETE
              : state == COMPLETE ? RowKind.INSERT : RowKind.UPDATE_AFTER;
      acc.setField(arity + 1, kind.toByteValue());
      return acc;
    }
  }

  /**
   * Per-field aggregates. {@code sum} and {@code count} subtract retractions ({@code -U}, {@code
   * -D}), {@code last_value} becomes null, other functions ignore them (the writer refuses them for
   * {@code min} and {@code max} unless told to ignore them, see {@link RowKindPolicy}). {@code
   * count} fields hold 1/0 per written row (see the writer), so merged counts add up. The result is
   * an insert.
   *
   * <p>With {@code aggregation.remove-record-on-delete} ({@code removesRecords}) the stored kinds
   * are partial-update's (see {@link RowKindPolicy}): {@code +U} is a change aggregated onto older
   * versions, {@code -D} removes the row (older versions no longer count), {@code +I} is a complete
   * row that replaces older versions (what a merge that saw a delete produces); the result is
   * {@code -D}, {@code +I} or {@code +U} accordingly.
   */
  static final class Aggregation implements MergeFunction {
    private static final int NONE = 0;
    private static final int PARTIAL = 1;
    private static final int COMPLETE = 2;
    private static final int DELETED = 3;
    private final KeyValueLayout layout;
    private final KeyValueLayout.RowCopier copier;
    private final GenericRowData acc;
    private final FieldAgg[] aggs;
    private final int arity;
    private final boolean removesRecords;
    private int state;
    private long maxSeq;

    Aggregation(
        KeyValueLayout layout,
        TableSchema schema,
        Map<String, String> functions,
        boolean removesRecords) {
      this.layout = layout;
      this.arity = layout.arity();
      this.removesRecords = removesRecords;
      copier = new KeyValueLayout.RowCopier(layout.fileType());
      acc = new GenericRowData(layout.fileType().getFieldCount());
      aggs = new FieldAgg[arity];
      List<String> names = schema.fieldNames();
      List<String> keys = schema.primaryKeys();
      RowType type = schema.rowType();
      for (int i = 0; i < arity; i++) {
        String fn =
            keys.contains(names.get(i))
                ? "key"
                : functions.getOrDefault(names.get(i), "last_non_null_value");
        aggs[i] = FieldAgg.of(fn, type.getTypeAt(i), names.get(i));
      }
    }

    public void reset() {
      state = NONE;
      maxSeq = Long.MIN_VALUE;
    }

    public void add(RowData kv) {
      maxSeq = Math.max(maxSeq, layout.sequence(kv));
      RowKind kind = layout.kind(kv);
      boolean retract = KeyValueLayout.isRetract(kind);
      boolean first = state == NONE;
      if (removesRecords) {
        if (kind == RowKind.DELETE) {
          for (int i = 0; i < arity; i++) {
            // the key, and the sequence field: the delete keeps its place in the version order
            boolean kept = aggs[i] instanceof KeyAgg || i == layout.sequenceFieldIndex();
            acc.setField(i, kept ? copier.get(kv, i) : null);
          }
          state = DELETED;
          return;
        }
        if (kind == RowKind.INSERT || state == DELETED) {
          first = true; // a complete row, or the first change after a delete: older ones are gone
          state = COMPLETE;
        } else if (state == NONE) {
          state = PARTIAL;
        }
      } else {
        state = COMPLETE;
      }
      int seq = layout.sequenceFieldIndex();
      for (int i = 0; i < arity; i++) {
        Object v = copier.get(kv, i);
        if (i == seq) {
          // The merged row keeps its place in the version order, whatever the change's kind:
          // versions come sorted by the field, so its last non-null value is the largest.
          if (first || v != null) {
            acc.setField(i, v);
          }
          continue;
        }
        acc.setField(
            i, first ? aggs[i].first(v, retract) : aggs[i].agg(acc.getField(i), v, retract));
      }
    }

    public RowData result() {
      if (state == NONE) {
        return null;
      }
      acc.setField(arity, maxSeq);
      RowKind kind =
          !removesRecords || state == COMPLETE
              ? RowKind.INSERT
              : state == DELETED ? RowKind.DELETE : RowKind.UPDATE_AFTER;
      acc.setField(arity + 1, kind.toByteValue());
      return acc;
    }
  }

  /** One field's aggregate function. */
  abstract static class FieldAgg {
    abstract Object agg(Object acc, Object v, boolean retract);

    Object first(Object v, boolean retract) {
      return agg(null, v, retract);
    }

    static FieldAgg of(String fn, LogicalType type, String field) {
      switch (fn) {
        case "key":
          return new KeyAgg();
        case "last_value":
          // A retraction sets the field null (as Paimon): the same whether versions are merged
          // all at once or a retraction is first merged alone by a minor compaction.
          return new FieldAgg() {
            Object agg(Object acc, Object v, boolean retract) {
              return retract ? null : v;
            }
          };
        case "last_non_null_value":
          return new FieldAgg() {
            Object agg(Object acc, Object v, boolean retract) {
              return retract || v == null ? acc : v;
            }
          };
        case "min":
        case "max":
          Comparator<Object> c = InternalComparators.forType(type);
          if (c == null) {
            throw new IllegalArgumentException(
                "Aggregate function "
                    + fn
                    + " of field '"
                    + field
                    + "' needs an ordered type, got "
                    + type);
          }
          boolean min = fn.equals("min");
          return new FieldAgg() {
            Object agg(Object acc, Object v, boolean retract) {
              if (retract || v == null) {
                return acc;
              }
              if (acc == null) {
                return v;
              }
              int r = c.compare(v, acc);
              return (min ? r < 0 : r > 0) ? v : acc;
            }
          };
        case "sum":
        case "count":
          Summer s = Summer.of(type, field, fn);
          return new FieldAgg() {
            Object agg(Object acc, Object v, boolean retract) {
              if (v == null) {
                return acc;
              }
              if (retract) {
                v = s.negate(v);
              }
              return acc == null ? v : s.add(acc, v);
            }
          };
        default:
          throw new IllegalArgumentException("Unknown aggregate function " + fn);
      }
    }
  }

  /** A primary-key field: every version carries the same value. */
  static final class KeyAgg extends FieldAgg {
    Object agg(Object acc, Object v, boolean retract) {
      return v;
    }
  }

  /** Addition on a numeric internal type. */
  interface Summer {
    Object add(Object a, Object b);

    Object negate(Object a);

    static Summer of(LogicalType type, String field, String fn) {
      switch (type.getTypeRoot()) {
        case TINYINT:
          return summer((a, b) -> (byte) ((Byte) a + (Byte) b), a -> (byte) -(Byte) a);
        case SMALLINT:
          return summer((a, b) -> (short) ((Short) a + (Short) b), a -> (short) -(Short) a);
        case INTEGER:
          return summer((a, b) -> (Integer) a + (Integer) b, a -> -(Integer) a);
        case BIGINT:
          return summer((a, b) -> (Long) a + (Long) b, a -> -(Long) a);
        case FLOAT:
          return summer((a, b) -> (Float) a + (Float) b, a -> -(Float) a);
        case DOUBLE:
          return summer((a, b) -> (Double) a + (Double) b, a -> -(Double) a);
        case DECIMAL:
          DecimalType d = (DecimalType) type;
          return summer(
              (a, b) ->
                  dec(((DecimalData) a).toBigDecimal().add(((DecimalData) b).toBigDecimal()), d),
              a -> dec(((DecimalData) a).toBigDecimal().negate(), d));
        default:
          throw new IllegalArgumentException(
              "Aggregate function "
                  + fn
                  + " of field '"
                  + field
                  + "' needs a numeric type, got "
                  + type);
      }
    }

    private static DecimalData dec(BigDecimal v, DecimalType t) {
      return DecimalData.fromBigDecimal(v, t.getPrecision(), t.getScale());
    }

    private static Summer summer(BinaryOperator<Object> add, UnaryOperator<Object> neg) {
      return new Summer() {
        public Object add(Object a, Object b) {
          return add.apply(a, b);
        }

        public Object negate(Object a) {
          return neg.apply(a);
        }
      };
    }
  }

  /**
   * Orders the versions of a key by {@code sequence.field} before handing them to the engine:
   * buffers (shallow copies of) the versions of one key, sorts, feeds.
   */
  static final class SortingMergeFunction implements MergeFunction {
    private final KeyValueLayout.RowCopier copier;
    private final MergeFunction inner;
    private final Comparator<RowData> order;
    private final List<GenericRowData> pool = new ArrayList<>();
    private final List<GenericRowData> versions = new ArrayList<>();
    private final int arity;

    SortingMergeFunction(KeyValueLayout layout, MergeFunction inner) {
      this.copier = new KeyValueLayout.RowCopier(layout.fileType());
      this.inner = inner;
      this.order = layout.versionComparator();
      this.arity = layout.fileType().getFieldCount();
    }

    public void reset() {
      versions.clear();
    }

    public void add(RowData kv) {
      GenericRowData r;
      if (versions.size() < pool.size()) {
        r = pool.get(versions.size());
      } else {
        r = new GenericRowData(arity);
        pool.add(r);
      }
      copier.copy(kv, r);
      versions.add(r);
    }

    public RowData result() {
      if (versions.isEmpty()) {
        return null;
      }
      if (versions.size() > 1) {
        versions.sort(order);
      }
      inner.reset();
      for (GenericRowData v : versions) {
        inner.add(v);
      }
      return inner.result();
    }
  }
}
