package io.sediment.maintenance;

import io.sediment.schema.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;

/**
 * The {@code older_than} of the maintenance procedures and commands: a local timestamp such as
 * {@code 2024-05-01 10:00:00}, or an age such as {@code 1 d} (that long before now, on a given
 * clock).
 */
public final class PointInTime {

  private PointInTime() {}

  /**
   * Epoch milliseconds of {@code text}; an age is counted back from {@code clock}'s now (the front
   * ends pass the system clock: the user's now).
   *
   * @throws IllegalArgumentException saying what the text may be (the caller names the argument)
   */
  public static long parse(String text, Clock clock) {
    String t = text.strip();
    try {
      return LocalDateTime.parse(t.replace(' ', 'T'))
          .atZone(ZoneId.systemDefault())
          .toInstant()
          .toEpochMilli();
    } catch (DateTimeParseException notTimestamp) {
      try {
        Duration age = Durations.withUnit(t);
        return clock.millis() - age.toMillis();
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "'"
                + text
                + "' is neither a timestamp like '2024-05-01 10:00:00' nor an age with its unit"
                + " like '1 d' (a bare number is refused)");
      }
    }
  }
}
