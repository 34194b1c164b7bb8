package io.sediment.schema;

import java.time.Duration;
import org.apache.flink.util.TimeUtils;

/**
 * Durations given as arguments of procedures and commands ({@code older_than}, {@code
 * expiration_time}, {@code partition_idle_time}, {@code time_retained}): Flink's syntax ({@code '1
 * d'}, {@code '12 h'}, {@code '30 min'}), with the unit required. Flink reads a bare number as
 * milliseconds, so {@code older_than => '30'} meant for days would remove the files of running
 * writes, and an expiration time of {@code '7'} would drop every partition.
 */
public final class Durations {

  private Durations() {}

  /** {@code d} in milliseconds, saturated at the range of a long instead of overflowing. */
  public static long saturatedMillis(Duration d) {
    try {
      return d.toMillis();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /**
   * {@code text} as a duration with a unit.
   *
   * @throws IllegalArgumentException saying what is allowed (the caller names the argument)
   */
  public static Duration withUnit(String text) {
    String t = text == null ? "" : text.strip();
    if (t.isEmpty() || t.chars().allMatch(Character::isDigit)) {
      throw new IllegalArgumentException(
          "'"
              + (text == null ? "" : text)
              + "' has no unit: write a duration like '7 d', '12 h' or '30 min'");
    }
    try {
      return TimeUtils.parseDuration(t);
    } catch (RuntimeException e) {
      // Flink's own message adds nothing the user can act on
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration like '7 d', '12 h' or '30 min'");
    }
  }
}
