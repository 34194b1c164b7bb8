package io.sediment.predicate;

import io.sediment.data.InternalComparators;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * A predicate on one field: {@code function(field, literals...)}.
 *
 * <p>Literals are held in Flink's internal format (StringData, Long, DecimalData, TimestampData,
 * Integer days/millis for DATE/TIME, byte[], ...). The constructor also accepts Java external
 * values and converts them by the field type. Instances are immutable; Java serialization writes
 * the literals in their external (serializable) form and converts back on read.
 */
public final class LeafPredicate implements Predicate {

  private static final long serialVersionUID = 1L;

  private final LeafFunction function;
  private final LogicalType type;
  private final int fieldIndex;
  private final String fieldName;
  private final transient List<Object> literals;

  // Derived state for evaluation, rebuilt on deserialization through the serial proxy.
  private final transient Literals.FieldComparator fieldComparator;
  private final transient Object literal0;
  private final transient Object literal1;
  private final transient Object[] sortedLiterals; // IN/NOT_IN: distinct, non-null, sorted
  private final transient boolean hasNullLiteral;
  private final transient BinaryStringData prefix;

  /**
   * @param function the function
   * @param type the field's type
   * @param fieldIndex the field's position in the row type the predicate is evaluated on
   * @param fieldName the field's name
   * @param literals literals in internal (or external) format; nulls only for IN/NOT_IN
   * @throws IllegalArgumentException when the literals do not suit the function or type
   */
  public LeafPredicate(
      LeafFunction function, LogicalType type, int fieldIndex, String fieldName, List<?> literals) {
    this.function = Objects.requireNonNull(function, "function");
    this.type = Objects.requireNonNull(type, "type");
    this.fieldName = Objects.requireNonNull(fieldName, "fieldName");
    Objects.requireNonNull(literals, "literals");
    if (fieldIndex < 0) {
      throw new IllegalArgumentException("Field index must be >= 0, got " + fieldIndex);
    }
    this.fieldIndex = fieldIndex;
    function.checkLiteralCount(literals.size(), fieldName);
    if (function.comparesValues() && !Literals.isComparable(type)) {
      throw new IllegalArgumentException(
          "Method '"
              + function.jsonName()
              + "' is not supported on field '"
              + fieldName
              + "' of type "
              + Literals.typeName(type)
              + "; only isNull/isNotNull are");
    }
    if (function == LeafFunction.STARTS_WITH && !Literals.isString(type)) {
      throw new IllegalArgumentException(
          "Method 'startsWith' needs a string (CHAR/VARCHAR) field, but field '"
              + fieldName
              + "' has type "
              + Literals.typeName(type));
    }
    List<Object> converted = new ArrayList<>(literals.size());
    boolean anyNull = false;
    for (Object lit : literals) {
      if (lit == null) {
        if (!function.allowsNullLiterals()) {
          throw new IllegalArgumentException(
              "Method '"
                  + function.jsonName()
                  + "' on field '"
                  + fieldName
                  + "' does not take a null literal; use isNull/isNotNull to test for null");
        }
        anyNull = true;
        converted.add(null);
      } else {
        converted.add(Literals.toInternal(lit, type, fieldName));
      }
    }
    this.literals = Collections.unmodifiableList(converted);
    this.hasNullLiteral = anyNull;
    this.fieldComparator = function.comparesValues() ? Literals.fieldComparator(type) : null;
    this.literal0 = converted.isEmpty() ? null : converted.get(0);
    this.literal1 = converted.size() > 1 ? converted.get(1) : null;
    if (function == LeafFunction.IN || function == LeafFunction.NOT_IN) {
      Comparator<Object> cmp = Literals.comparator(type);
      List<Object> sorted = new ArrayList<>();
      for (Object lit : converted) {
        if (lit != null) {
          sorted.add(lit);
        }
      }
      sorted.sort(cmp);
      List<Object> distinct = new ArrayList<>();
      for (Object lit : sorted) {
        if (distinct.isEmpty() || cmp.compare(distinct.get(distinct.size() - 1), lit) != 0) {
          distinct.add(lit);
        }
      }
      this.sortedLiterals = distinct.toArray();
    } else {
      this.sortedLiterals = null;
    }
    this.prefix = function == LeafFunction.STARTS_WITH ? (BinaryStringData) converted.get(0) : null;
  }

  public LeafFunction function() {
    return function;
  }

  public LogicalType type() {
    return type;
  }

  public int fieldIndex() {
    return fieldIndex;
  }

  public String fieldName() {
    return fieldName;
  }

  /** The literals in internal format (unmodifiable; may contain null for IN/NOT_IN). */
  public List<Object> literals() {
    return literals;
  }

  @Override
  public Set<String> fieldNames() {
    return Set.of(fieldName);
  }

  // ---------------------------------------------------------------- rows

  @Override
  public boolean test(RowData row) {
    final int pos = fieldIndex;
    if (row.isNullAt(pos)) {
      return function == LeafFunction.IS_NULL;
    }
    switch (function) {
      case IS_NULL:
        return false;
      case IS_NOT_NULL:
        return true;
      case EQUAL:
        return fieldComparator.compare(row, pos, literal0) == 0;
      case NOT_EQUAL:
        return fieldComparator.compare(row, pos, literal0) != 0;
      case LESS_THAN:
        return fieldComparator.compare(row, pos, literal0) < 0;
      case LESS_OR_EQUAL:
        return fieldComparator.compare(row, pos, literal0) <= 0;
      case GREATER_THAN:
        return fieldComparator.compare(row, pos, literal0) > 0;
      case GREATER_OR_EQUAL:
        return fieldComparator.compare(row, pos, literal0) >= 0;
      case IN:
        return contains(row, pos);
      case NOT_IN:
        return !hasNullLiteral && !contains(row, pos);
      case STARTS_WITH:
        return asBinary(row.getString(pos)).startsWith(prefix);
      case BETWEEN:
        return fieldComparator.compare(row, pos, literal0) >= 0
            && fieldComparator.compare(row, pos, literal1) <= 0;
      default:
        throw new IllegalStateException("Unhandled function " + function);
    }
  }

  private boolean contains(RowData row, int pos) {
    int lo = 0;
    int hi = sortedLiterals.length - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = fieldComparator.compare(row, pos, sortedLiterals[mid]);
      if (c == 0) {
        return true;
      }
      if (c < 0) {
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return false;
  }

  private static BinaryStringData asBinary(StringData s) {
    return s instanceof BinaryStringData
        ? (BinaryStringData) s
        : BinaryStringData.fromString(s.toString());
  }

  // ---------------------------------------------------------------- stats

  @Override
  public boolean test(long rowCount, RowData min, RowData max, long[] nullCounts) {
    if (rowCount == 0) {
      return false;
    }
    final int pos = fieldIndex;
    long nullCount =
        nullCounts == null || pos >= nullCounts.length || nullCounts[pos] < 0
            ? -1
            : nullCounts[pos];
    if (function == LeafFunction.IS_NULL) {
      return nullCount != 0;
    }
    boolean allNull = nullCount >= 0 && rowCount > 0 && nullCount >= rowCount;
    if (function == LeafFunction.IS_NOT_NULL) {
      return !allNull;
    }
    if (allNull) {
      return false;
    }
    if (function == LeafFunction.NOT_IN && hasNullLiteral) {
      return false;
    }
    boolean hasMin = min != null && pos < min.getArity() && !min.isNullAt(pos);
    boolean hasMax = max != null && pos < max.getArity() && !max.isNullAt(pos);
    final Literals.FieldComparator cmp = fieldComparator;
    switch (function) {
      case EQUAL:
        return mayContain(min, max, hasMin, hasMax, literal0);
      case NOT_EQUAL:
        return !(hasMin
            && hasMax
            && cmp.compare(min, pos, literal0) == 0
            && cmp.compare(max, pos, literal0) == 0);
      case LESS_THAN:
        return !hasMin || cmp.compare(min, pos, literal0) < 0;
      case LESS_OR_EQUAL:
        return !hasMin || cmp.compare(min, pos, literal0) <= 0;
      case GREATER_THAN:
        return !hasMax || cmp.compare(max, pos, literal0) > 0;
      case GREATER_OR_EQUAL:
        return !hasMax || cmp.compare(max, pos, literal0) >= 0;
      case IN:
        for (Object lit : sortedLiterals) {
          if (mayContain(min, max, hasMin, hasMax, lit)) {
            return true;
          }
        }
        return false;
      case NOT_IN:
        if (!hasMin || !hasMax) {
          return true;
        }
        for (Object lit : sortedLiterals) {
          if (cmp.compare(min, pos, lit) == 0 && cmp.compare(max, pos, lit) == 0) {
            return false;
          }
        }
        return true;
      case STARTS_WITH:
        {
          // Strings with the prefix lie in [prefix, first string after all prefix-extensions).
          if (hasMax && InternalComparators.compareStrings(max.getString(pos), prefix) < 0) {
            return false;
          }
          if (hasMin) {
            BinaryStringData lo = asBinary(min.getString(pos));
            return InternalComparators.compareStrings(lo, prefix) <= 0 || lo.startsWith(prefix);
          }
          return true;
        }
      case BETWEEN:
        return (!hasMin || cmp.compare(min, pos, literal1) <= 0)
            && (!hasMax || cmp.compare(max, pos, literal0) >= 0);
      default:
        throw new IllegalStateException("Unhandled function " + function);
    }
  }

  private boolean mayContain(RowData min, RowData max, boolean hasMin, boolean hasMax, Object lit) {
    return (!hasMin || fieldComparator.compare(min, fieldIndex, lit) <= 0)
        && (!hasMax || fieldComparator.compare(max, fieldIndex, lit) >= 0);
  }

  // ---------------------------------------------------------------- object methods

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof LeafPredicate)) {
      return false;
    }
    LeafPredicate that = (LeafPredicate) o;
    if (function != that.function
        || fieldIndex != that.fieldIndex
        || !fieldName.equals(that.fieldName)
        || !type.equals(that.type)
        || literals.size() != that.literals.size()) {
      return false;
    }
    for (int i = 0; i < literals.size(); i++) {
      if (!Objects.deepEquals(literals.get(i), that.literals.get(i))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        function, fieldIndex, fieldName, type, Arrays.deepHashCode(literals.toArray()));
  }

  @Override
  public String toString() {
    switch (function) {
      case IS_NULL:
      case IS_NOT_NULL:
        return fieldName + " " + function.symbol();
      case IN:
      case NOT_IN:
        {
          StringJoiner j = new StringJoiner(", ", fieldName + " " + function.symbol() + " (", ")");
          for (Object lit : literals) {
            j.add(Literals.format(lit, type));
          }
          return j.toString();
        }
      case STARTS_WITH:
        return "STARTS_WITH(" + fieldName + ", " + Literals.format(literal0, type) + ")";
      case BETWEEN:
        return fieldName
            + " BETWEEN "
            + Literals.format(literal0, type)
            + " AND "
            + Literals.format(literal1, type);
      default:
        return fieldName + " " + function.symbol() + " " + Literals.format(literal0, type);
    }
  }

  // ---------------------------------------------------------------- serialization

  private Object writeReplace() {
    List<Object> external = new ArrayList<>(literals.size());
    for (Object lit : literals) {
      external.add(Literals.toExternal(lit, type));
    }
    return new SerialForm(function, type, fieldIndex, fieldName, external);
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("LeafPredicate is serialized through its serial form");
  }

  /** Serial proxy: literals in their external Java form (String, BigDecimal, LocalDate, ...). */
  private static final class SerialForm implements Serializable {
    private static final long serialVersionUID = 1L;
    private final LeafFunction function;
    private final LogicalType type;
    private final int fieldIndex;
    private final String fieldName;
    private final ArrayList<Object> literals;

    SerialForm(
        LeafFunction function,
        LogicalType type,
        int fieldIndex,
        String fieldName,
        List<Object> literals) {
      this.function = function;
      this.type = type;
      this.fieldIndex = fieldIndex;
      this.fieldName = fieldName;
      this.literals = new ArrayList<>(literals);
    }

    private Object readResolve() throws ObjectStreamException {
      try {
        return new LeafPredicate(function, type, fieldIndex, fieldName, literals);
      } catch (RuntimeException e) {
        InvalidObjectException ex =
            new InvalidObjectException("Invalid LeafPredicate: " + e.getMessage());
        ex.initCause(e);
        throw ex;
      }
    }
  }
}
