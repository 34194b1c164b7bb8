package io.sediment.predicate;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Builds predicates over a row type, by field name, converting Java literals to the column type.
 *
 * <p>Literals may be Java external values (String, Byte/Short/Integer/Long/BigInteger, BigDecimal,
 * Float/Double, Boolean, LocalDate, LocalTime, LocalDateTime, Instant for TIMESTAMP_LTZ, byte[]) or
 * already internal (StringData, DecimalData, TimestampData, Integer days/millis for DATE/TIME).
 * Numbers convert only when lossless and in range (an Integer for a BIGINT column, a Long for a
 * DECIMAL or DOUBLE column; a Long that overflows an INT column is rejected). All errors are {@link
 * IllegalArgumentException}s naming the field, the literal and the allowed values.
 */
public final class PredicateBuilder {

  private final RowType rowType;
  private final List<String> fieldNames;

  public PredicateBuilder(RowType rowType) {
    this.rowType = Objects.requireNonNull(rowType, "rowType");
    this.fieldNames = rowType.getFieldNames();
  }

  public RowType rowType() {
    return rowType;
  }

  /** Index of the field, or an IllegalArgumentException listing the fields. */
  public int indexOf(String field) {
    int index = field == null ? -1 : fieldNames.indexOf(field);
    if (index < 0) {
      throw new IllegalArgumentException(
          "Unknown field '" + field + "' in filter; fields are " + fieldNames);
    }
    return index;
  }

  /** Converts one raw literal (not null) to internal format for a column. */
  interface LiteralConverter {
    Object convert(Object raw, LogicalType type, String field);
  }

  /** Generic leaf construction: field by name, literals converted by {@code converter}. */
  LeafPredicate leaf(
      LeafFunction function, String field, List<?> rawLiterals, LiteralConverter converter) {
    int index = indexOf(field);
    LogicalType type = rowType.getTypeAt(index);
    function.checkLiteralCount(rawLiterals.size(), field);
    if (function == LeafFunction.STARTS_WITH && !Literals.isString(type)) {
      throw new IllegalArgumentException(
          "Method 'startsWith' needs a string (CHAR/VARCHAR) field, but field '"
              + field
              + "' has type "
              + Literals.typeName(type));
    }
    if (function.comparesValues() && !Literals.isComparable(type)) {
      throw new IllegalArgumentException(
          "Method '"
              + function.jsonName()
              + "' is not supported on field '"
              + field
              + "' of type "
              + Literals.typeName(type)
              + "; only isNull/isNotNull are");
    }
    Object[] internal = new Object[rawLiterals.size()];
    for (int i = 0; i < internal.length; i++) {
      Object raw = rawLiterals.get(i);
      internal[i] = raw == null ? null : converter.convert(raw, type, field);
    }
    return new LeafPredicate(function, type, index, field, Arrays.asList(internal));
  }

  /** Leaf with Java literals (external or internal); the general form of the methods below. */
  public Predicate leaf(LeafFunction function, String field, List<?> literals) {
    Objects.requireNonNull(literals, "literals");
    return leaf(function, field, literals, Literals::toInternal);
  }

  public Predicate equal(String field, Object literal) {
    return leaf(LeafFunction.EQUAL, field, Arrays.asList(literal));
  }

  /**
   * {@code field = value} with the value written as text and parsed to the column type by the rules
   * of the JSON form's string literals (an ISO date for DATE, {@code 3} for INT, ...): how
   * partition specs like {@code dt=2024-01-01,hh=3} are read.
   */
  public Predicate equalText(String field, String text) {
    return leaf(
        LeafFunction.EQUAL,
        field,
        Arrays.asList(text),
        (raw, type, name) -> LiteralParser.parseText((String) raw, type, name));
  }

  public Predicate notEqual(String field, Object literal) {
    return leaf(LeafFunction.NOT_EQUAL, field, Arrays.asList(literal));
  }

  public Predicate lessThan(String field, Object literal) {
    return leaf(LeafFunction.LESS_THAN, field, Arrays.asList(literal));
  }

  public Predicate lessOrEqual(String field, Object literal) {
    return leaf(LeafFunction.LESS_OR_EQUAL, field, Arrays.asList(literal));
  }

  public Predicate greaterThan(String field, Object literal) {
    return leaf(LeafFunction.GREATER_THAN, field, Arrays.asList(literal));
  }

  public Predicate greaterOrEqual(String field, Object literal) {
    return leaf(LeafFunction.GREATER_OR_EQUAL, field, Arrays.asList(literal));
  }

  public Predicate isNull(String field) {
    return leaf(LeafFunction.IS_NULL, field, List.of());
  }

  public Predicate isNotNull(String field) {
    return leaf(LeafFunction.IS_NOT_NULL, field, List.of());
  }

  /** {@code field IN (literals)}; at least one literal; null literals never match. */
  public Predicate in(String field, List<?> literals) {
    return leaf(LeafFunction.IN, field, Objects.requireNonNull(literals, "literals"));
  }

  /** {@code field NOT IN (literals)}; at least one literal; a null literal makes it never match. */
  public Predicate notIn(String field, List<?> literals) {
    return leaf(LeafFunction.NOT_IN, field, Objects.requireNonNull(literals, "literals"));
  }

  /** String prefix match (byte-wise on UTF-8); only for CHAR/VARCHAR columns. */
  public Predicate startsWith(String field, String prefix) {
    return leaf(LeafFunction.STARTS_WITH, field, Arrays.asList(prefix));
  }

  /** {@code from <= field <= to} (inclusive). */
  public Predicate between(String field, Object from, Object to) {
    return leaf(LeafFunction.BETWEEN, field, Arrays.asList(from, to));
  }

  /** AND of the predicates, flattened; see {@link Predicates#and(List)}. */
  public static Predicate and(Predicate... predicates) {
    return Predicates.and(Arrays.asList(predicates));
  }

  public static Predicate and(List<Predicate> predicates) {
    return Predicates.and(predicates);
  }

  /** OR of the predicates, flattened; see {@link Predicates#or(List)}. */
  public static Predicate or(Predicate... predicates) {
    return Predicates.or(Arrays.asList(predicates));
  }

  public static Predicate or(List<Predicate> predicates) {
    return Predicates.or(predicates);
  }
}
