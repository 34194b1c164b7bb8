package io.sediment.format;

import org.apache.flink.table.data.TimestampData;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/** Conversions between {@link TimestampData} and Parquet INT64 timestamps. */
final class Timestamps {

  private Timestamps() {}

  /** Epoch value in {@code unit}; sub-unit digits are truncated (floor). */
  static long toLong(TimestampData ts, TimeUnit unit) {
    return toLong(ts.getMillisecond(), ts.getNanoOfMillisecond(), unit);
  }

  /** Like {@link #toLong(TimestampData, TimeUnit)}, from the two parts of a timestamp. */
  static long toLong(long millis, int nanoOfMilli, TimeUnit unit) {
    switch (unit) {
      case MILLIS:
        return millis;
      case MICROS:
        return scale(millis, 1_000L, nanoOfMilli / 1_000);
      case NANOS:
        return scale(millis, 1_000_000L, nanoOfMilli);
      default:
        throw new IllegalStateException(String.valueOf(unit));
    }
  }

  /**
   * {@code millis * factor + fraction} (0 &lt;= fraction &lt; factor) without intermediate overflow
   * near Long.MIN_VALUE; throws ArithmeticException if the result does not fit.
   */
  private static long scale(long millis, long factor, long fraction) {
    if (millis >= 0) {
      return Math.addExact(Math.multiplyExact(millis, factor), fraction);
    }
    return Math.addExact(Math.multiplyExact(millis + 1, factor), fraction - factor);
  }

  /**
   * {@link #toLong(TimestampData, TimeUnit)} of column {@code column}, naming it when out of range.
   */
  static long toLong(TimestampData ts, TimeUnit unit, String column) {
    try {
      return toLong(ts, unit);
    } catch (ArithmeticException e) {
      throw outOfRange(column, unit);
    }
  }

  /**
   * The error for a value {@code toLong} cannot hold (an ArithmeticException): only precisions 7 to
   * 9, stored as INT64 nanoseconds, have a narrower range than Flink's years 0000-9999.
   */
  static IllegalArgumentException outOfRange(String column, TimeUnit unit) {
    return new IllegalArgumentException(
        "Column '"
            + column
            + "': a timestamp outside 1677-09-21 00:12:43.145224192 to 2262-04-11"
            + " 23:47:16.854775807 cannot be stored with precision "
            + (unit == TimeUnit.NANOS ? "7 to 9" : "above 3")
            + " (INT64 "
            + unit.name().toLowerCase(java.util.Locale.ROOT)
            + " since the epoch; Paimon writes INT96 there); use TIMESTAMP(6) for dates such as"
            + " 9999-12-31");
  }

  static TimestampData fromLong(long value, TimeUnit unit) {
    return TimestampData.fromEpochMillis(millisOf(value, unit), nanoOfMillisOf(value, unit));
  }

  /** The epoch milliseconds of an epoch value in {@code unit} (rounded down). */
  static long millisOf(long value, TimeUnit unit) {
    switch (unit) {
      case MILLIS:
        return value;
      case MICROS:
        return Math.floorDiv(value, 1_000L);
      case NANOS:
        return Math.floorDiv(value, 1_000_000L);
      default:
        throw new IllegalStateException(String.valueOf(unit));
    }
  }

  /** The nanoseconds within the millisecond of an epoch value in {@code unit}. */
  static int nanoOfMillisOf(long value, TimeUnit unit) {
    switch (unit) {
      case MILLIS:
        return 0;
      case MICROS:
        return (int) Math.floorMod(value, 1_000L) * 1_000;
      case NANOS:
        return (int) Math.floorMod(value, 1_000_000L);
      default:
        throw new IllegalStateException(String.valueOf(unit));
    }
  }
}
