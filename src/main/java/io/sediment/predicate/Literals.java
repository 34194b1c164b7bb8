package io.sediment.predicate;

import io.sediment.data.InternalComparators;
import java.io.Serializable;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

/**
 * Conversion, comparison and formatting of literal values per column type (package-private). Text
 * is parsed to these values by {@link LiteralParser}.
 */
final class Literals {

  private Literals() {}

  /** Compares a field of a row (known non-null) with a non-null internal literal. */
  interface FieldComparator extends Serializable {
    /** Sign of {@code row[pos] - literal}. */
    int compare(RowData row, int pos, Object literal);
  }

  // ---------------------------------------------------------------- types

  /** Whether values of the type can be compared (and so used by value-comparing functions). */
  static boolean isComparable(LogicalType type) {
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
      case BOOLEAN:
      case BINARY:
      case VARBINARY:
      case DECIMAL:
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
      case FLOAT:
      case DOUBLE:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return true;
      default:
        return false;
    }
  }

  static boolean isString(LogicalType type) {
    LogicalTypeRoot root = type.getTypeRoot();
    return root == LogicalTypeRoot.CHAR || root == LogicalTypeRoot.VARCHAR;
  }

  /** The type as users write it, without NOT NULL. */
  static String typeName(LogicalType type) {
    return type.copy(true).asSummaryString();
  }

  private static String expected(LogicalType type) {
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        return "expected a String";
      case BOOLEAN:
        return "expected a Boolean (JSON true/false or \"true\"/\"false\")";
      case BINARY:
      case VARBINARY:
        return "expected a byte[] (in JSON a base64 string)";
      case DECIMAL:
        DecimalType d = (DecimalType) type;
        return "expected a BigDecimal or integer number with at most "
            + (d.getPrecision() - d.getScale())
            + " integer digits and "
            + d.getScale()
            + " fraction digits";
      case TINYINT:
        return "expected an integer number in [" + Byte.MIN_VALUE + ", " + Byte.MAX_VALUE + "]";
      case SMALLINT:
        return "expected an integer number in [" + Short.MIN_VALUE + ", " + Short.MAX_VALUE + "]";
      case INTEGER:
        return "expected an integer number in ["
            + Integer.MIN_VALUE
            + ", "
            + Integer.MAX_VALUE
            + "]";
      case BIGINT:
        return "expected an integer number in [" + Long.MIN_VALUE + ", " + Long.MAX_VALUE + "]";
      case FLOAT:
        return "expected a Float (or a number exactly representable as FLOAT)";
      case DOUBLE:
        return "expected a Double or Float (or a number exactly representable as DOUBLE)";
      case DATE:
        return "expected a LocalDate or an ISO date like 2024-01-01";
      case TIME_WITHOUT_TIME_ZONE:
        return "expected a LocalTime or an ISO time like 10:15:30";
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return "expected a LocalDateTime or a timestamp like 2024-01-01T10:00:00 or 2024-01-01 10:00:00";
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return "expected an Instant or a timestamp with offset like 2024-01-01T10:00:00Z";
      default:
        return "filters on type " + typeName(type) + " support only isNull/isNotNull";
    }
  }

  /**
   * A TIME literal as the milliseconds of day a TIME column holds; refused with a fraction below a
   * millisecond, which a comparison would otherwise cut off (10:00:00.0005 &gt; 10:00:00.000 would
   * not hold).
   */
  static int timeMillis(
      LocalTime time, Object literal, String kind, String field, LogicalType type) {
    long nanos = time.toNanoOfDay();
    if (nanos % 1_000_000L != 0) {
      throw mismatch(literal, kind, field, type, "TIME columns hold milliseconds");
    }
    return (int) (nanos / 1_000_000L);
  }

  static IllegalArgumentException mismatch(
      Object literal, String kind, String field, LogicalType type, String reason) {
    return new IllegalArgumentException(
        "Literal '"
            + display(literal)
            + "' ("
            + kind
            + ") for field '"
            + field
            + "' does not match its type "
            + typeName(type)
            + ": "
            + (reason == null ? expected(type) : reason + "; " + expected(type)));
  }

  private static IllegalArgumentException mismatch(
      Object literal, String field, LogicalType type, String reason) {
    return mismatch(literal, literal.getClass().getSimpleName(), field, type, reason);
  }

  private static String display(Object literal) {
    if (literal instanceof byte[]) {
      return "0x" + HexFormat.of().formatHex((byte[]) literal);
    }
    return String.valueOf(literal);
  }

  // ---------------------------------------------------------------- conversion to internal

  /**
   * Converts a Java external value (or an already internal value) to Flink's internal format for
   * the type; throws IllegalArgumentException naming the field, literal and type when it does not
   * fit. The result never shares mutable state with the input.
   */
  static Object toInternal(Object lit, LogicalType type, String field) {
    if (lit == null) {
      return null;
    }
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        if (lit instanceof String) {
          return BinaryStringData.fromString((String) lit);
        }
        if (lit instanceof StringData) {
          return BinaryStringData.fromBytes(((StringData) lit).toBytes());
        }
        throw mismatch(lit, field, type, null);
      case BOOLEAN:
        if (lit instanceof Boolean) {
          return lit;
        }
        throw mismatch(lit, field, type, null);
      case BINARY:
      case VARBINARY:
        if (lit instanceof byte[]) {
          return ((byte[]) lit).clone();
        }
        throw mismatch(lit, field, type, null);
      case TINYINT:
        return (byte) integral(lit, field, type, Byte.MIN_VALUE, Byte.MAX_VALUE);
      case SMALLINT:
        return (short) integral(lit, field, type, Short.MIN_VALUE, Short.MAX_VALUE);
      case INTEGER:
        return (int) integral(lit, field, type, Integer.MIN_VALUE, Integer.MAX_VALUE);
      case BIGINT:
        return integral(lit, field, type, Long.MIN_VALUE, Long.MAX_VALUE);
      case DECIMAL:
        {
          BigDecimal bd;
          if (lit instanceof BigDecimal) {
            bd = (BigDecimal) lit;
          } else if (lit instanceof DecimalData) {
            bd = ((DecimalData) lit).toBigDecimal();
          } else {
            BigInteger bi = exactInteger(lit);
            if (bi == null) {
              throw mismatch(lit, field, type, null);
            }
            bd = new BigDecimal(bi);
          }
          return decimal(bd, lit, lit.getClass().getSimpleName(), field, (DecimalType) type);
        }
      case FLOAT:
        {
          if (lit instanceof Float) {
            return lit;
          }
          if (lit instanceof Double) {
            double d = (Double) lit;
            if (Double.isNaN(d) || (double) (float) d == d) {
              return (float) d;
            }
            throw mismatch(lit, field, type, "not exactly representable as FLOAT");
          }
          BigDecimal bd = exactDecimal(lit);
          if (bd == null) {
            throw mismatch(lit, field, type, null);
          }
          float f = bd.floatValue();
          if (Float.isFinite(f) && new BigDecimal(f).compareTo(bd) == 0) {
            return f;
          }
          throw mismatch(lit, field, type, "not exactly representable as FLOAT");
        }
      case DOUBLE:
        {
          if (lit instanceof Double) {
            return lit;
          }
          if (lit instanceof Float) {
            return (double) (Float) lit;
          }
          BigDecimal bd = exactDecimal(lit);
          if (bd == null) {
            throw mismatch(lit, field, type, null);
          }
          double d = bd.doubleValue();
          if (Double.isFinite(d) && new BigDecimal(d).compareTo(bd) == 0) {
            return d;
          }
          throw mismatch(lit, field, type, "not exactly representable as DOUBLE");
        }
      case DATE:
        if (lit instanceof LocalDate) {
          return Math.toIntExact(((LocalDate) lit).toEpochDay());
        }
        if (lit instanceof Integer) {
          return lit;
        }
        throw mismatch(lit, field, type, null);
      case TIME_WITHOUT_TIME_ZONE:
        if (lit instanceof LocalTime) {
          return timeMillis((LocalTime) lit, lit, lit.getClass().getSimpleName(), field, type);
        }
        if (lit instanceof Integer) {
          int ms = (Integer) lit;
          if (ms < 0 || ms >= 86_400_000) {
            throw mismatch(lit, field, type, "milliseconds of day out of range [0, 86399999]");
          }
          return lit;
        }
        throw mismatch(lit, field, type, null);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        if (lit instanceof LocalDateTime) {
          return TimestampData.fromLocalDateTime((LocalDateTime) lit);
        }
        if (lit instanceof TimestampData) {
          return lit;
        }
        throw mismatch(lit, field, type, null);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        if (lit instanceof Instant) {
          return TimestampData.fromInstant((Instant) lit);
        }
        if (lit instanceof TimestampData) {
          return lit;
        }
        throw mismatch(lit, field, type, null);
      default:
        throw new IllegalArgumentException(
            "Field '"
                + field
                + "' has type "
                + typeName(type)
                + ", which filters support only with isNull/isNotNull");
    }
  }

  /** Byte/Short/Integer/Long/BigInteger, or a BigDecimal with an integral value; else null. */
  private static BigInteger exactInteger(Object lit) {
    if (lit instanceof Byte
        || lit instanceof Short
        || lit instanceof Integer
        || lit instanceof Long) {
      return BigInteger.valueOf(((Number) lit).longValue());
    }
    if (lit instanceof BigInteger) {
      return (BigInteger) lit;
    }
    if (lit instanceof BigDecimal) {
      try {
        return ((BigDecimal) lit).toBigIntegerExact();
      } catch (ArithmeticException e) {
        return null;
      }
    }
    return null;
  }

  /** Exact decimal value of an integer number or BigDecimal/DecimalData; else null. */
  private static BigDecimal exactDecimal(Object lit) {
    if (lit instanceof BigDecimal) {
      return (BigDecimal) lit;
    }
    if (lit instanceof DecimalData) {
      return ((DecimalData) lit).toBigDecimal();
    }
    BigInteger bi = exactInteger(lit);
    return bi == null ? null : new BigDecimal(bi);
  }

  private static long integral(Object lit, String field, LogicalType type, long min, long max) {
    BigInteger bi = exactInteger(lit);
    if (bi == null) {
      throw mismatch(lit, field, type, lit instanceof BigDecimal ? "not an integer" : null);
    }
    if (bi.compareTo(BigInteger.valueOf(min)) < 0 || bi.compareTo(BigInteger.valueOf(max)) > 0) {
      throw mismatch(lit, field, type, "out of range");
    }
    return bi.longValue();
  }

  static DecimalData decimal(
      BigDecimal bd, Object lit, String kind, String field, DecimalType type) {
    BigDecimal scaled;
    try {
      scaled = bd.setScale(type.getScale(), RoundingMode.UNNECESSARY);
    } catch (ArithmeticException e) {
      throw mismatch(lit, kind, field, type, "more than " + type.getScale() + " fraction digits");
    }
    DecimalData out =
        scaled.precision() > type.getPrecision()
            ? null
            : DecimalData.fromBigDecimal(scaled, type.getPrecision(), type.getScale());
    if (out == null) {
      throw mismatch(lit, kind, field, type, "out of range");
    }
    return out;
  }

  // ---------------------------------------------------------------- back to external / text

  /** The Java external (serializable) form of an internal literal. */
  static Object toExternal(Object internal, LogicalType type) {
    if (internal == null) {
      return null;
    }
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        return internal.toString();
      case DECIMAL:
        return ((DecimalData) internal).toBigDecimal();
      case DATE:
        return LocalDate.ofEpochDay((Integer) internal);
      case TIME_WITHOUT_TIME_ZONE:
        return LocalTime.ofNanoOfDay((Integer) internal * 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((TimestampData) internal).toLocalDateTime();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ((TimestampData) internal).toInstant();
      case BINARY:
      case VARBINARY:
        return ((byte[]) internal).clone();
      default:
        return internal;
    }
  }

  /** Canonical text of a literal whose JSON form is a string (dates, times, timestamps, binary). */
  static String toText(Object internal, LogicalType type) {
    switch (type.getTypeRoot()) {
      case BINARY:
      case VARBINARY:
        return Base64.getEncoder().encodeToString((byte[]) internal);
      case DECIMAL:
        return ((DecimalData) internal).toBigDecimal().toPlainString();
      default:
        return String.valueOf(toExternal(internal, type));
    }
  }

  /** A readable SQL-like rendering for toString. */
  static String format(Object internal, LogicalType type) {
    if (internal == null) {
      return "NULL";
    }
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return "'" + toText(internal, type).replace("'", "''") + "'";
      case BINARY:
      case VARBINARY:
        return "X'" + HexFormat.of().formatHex((byte[]) internal) + "'";
      default:
        return toText(internal, type);
    }
  }

  // ---------------------------------------------------------------- comparison

  static int compareFloat(float a, float b) {
    return a == b ? 0 : Float.compare(a, b);
  }

  static int compareDouble(double a, double b) {
    return a == b ? 0 : Double.compare(a, b);
  }

  /** Comparator over internal values of the type (non-null). */
  static Comparator<Object> comparator(LogicalType type) {
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        return (a, b) -> InternalComparators.compareStrings((StringData) a, (StringData) b);
      case BOOLEAN:
        return (a, b) -> Boolean.compare((Boolean) a, (Boolean) b);
      case BINARY:
      case VARBINARY:
        return (a, b) -> Arrays.compareUnsigned((byte[]) a, (byte[]) b);
      case DECIMAL:
        return (a, b) -> ((DecimalData) a).compareTo((DecimalData) b);
      case TINYINT:
        return (a, b) -> Byte.compare((Byte) a, (Byte) b);
      case SMALLINT:
        return (a, b) -> Short.compare((Short) a, (Short) b);
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return (a, b) -> Integer.compare((Integer) a, (Integer) b);
      case BIGINT:
        return (a, b) -> Long.compare((Long) a, (Long) b);
      case FLOAT:
        return (a, b) -> compareFloat((Float) a, (Float) b);
      case DOUBLE:
        return (a, b) -> compareDouble((Double) a, (Double) b);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return (a, b) -> ((TimestampData) a).compareTo((TimestampData) b);
      default:
        throw new IllegalArgumentException("Type " + typeName(type) + " is not comparable");
    }
  }

  /** Reads the field in its primitive form and compares it with a literal, without boxing. */
  static FieldComparator fieldComparator(LogicalType type) {
    switch (type.getTypeRoot()) {
      case CHAR:
      case VARCHAR:
        return (row, pos, lit) ->
            InternalComparators.compareStrings(row.getString(pos), (StringData) lit);
      case BOOLEAN:
        return (row, pos, lit) -> Boolean.compare(row.getBoolean(pos), (Boolean) lit);
      case BINARY:
      case VARBINARY:
        return (row, pos, lit) -> Arrays.compareUnsigned(row.getBinary(pos), (byte[]) lit);
      case DECIMAL:
        {
          int p = ((DecimalType) type).getPrecision();
          int s = ((DecimalType) type).getScale();
          return (row, pos, lit) -> row.getDecimal(pos, p, s).compareTo((DecimalData) lit);
        }
      case TINYINT:
        return (row, pos, lit) -> Byte.compare(row.getByte(pos), (Byte) lit);
      case SMALLINT:
        return (row, pos, lit) -> Short.compare(row.getShort(pos), (Short) lit);
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return (row, pos, lit) -> Integer.compare(row.getInt(pos), (Integer) lit);
      case BIGINT:
        return (row, pos, lit) -> Long.compare(row.getLong(pos), (Long) lit);
      case FLOAT:
        return (row, pos, lit) -> compareFloat(row.getFloat(pos), (Float) lit);
      case DOUBLE:
        return (row, pos, lit) -> compareDouble(row.getDouble(pos), (Double) lit);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        {
          int precision = LogicalTypeChecks.getPrecision(type);
          return (row, pos, lit) -> row.getTimestamp(pos, precision).compareTo((TimestampData) lit);
        }
      default:
        throw new IllegalArgumentException("Type " + typeName(type) + " is not comparable");
    }
  }
}
