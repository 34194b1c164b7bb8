package io.sediment.retention;

import io.sediment.schema.TableOptions;
import io.sediment.schema.TagOptions;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.ResolverStyle;
import java.time.format.SignStyle;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * The periods of automatic tags and their names (Paimon's): a period starts at a multiple of its
 * length in local time (days at midnight, two hours at even hours), and its tag is named by its
 * start: {@code 2024-06-15} (daily), {@code 2024-06-15 10} (hourly, two-hours), or without dashes
 * ({@code 20240615}, {@code 20240615 10}) or spaces ({@code 2024061510}) as {@code
 * tag.period-formatter} says. A tag whose name parses so is an automatic tag.
 */
final class TagPeriod {

  private final Duration length;
  private final boolean daily;
  private final DateTimeFormatter names;

  private TagPeriod(Duration length, boolean daily, DateTimeFormatter names) {
    this.length = length;
    this.daily = daily;
    this.names = names;
  }

  /** The period the table's options describe. */
  static TagPeriod of(TableOptions options) {
    String period = options.get(TagOptions.TAG_CREATION_PERIOD).toLowerCase(Locale.ROOT);
    String format = options.get(TagOptions.TAG_PERIOD_FORMATTER).toLowerCase(Locale.ROOT);
    boolean dashes = format.equals("with_dashes") || period.equals("two-hours");
    boolean space = !format.equals("without_dashes_and_spaces") || period.equals("two-hours");
    boolean daily = period.equals("daily");
    DateTimeFormatterBuilder b =
        new DateTimeFormatterBuilder().appendValue(ChronoField.YEAR, 1, 10, SignStyle.NORMAL);
    if (dashes) {
      b.appendLiteral('-');
    }
    b.appendValue(ChronoField.MONTH_OF_YEAR, 2);
    if (dashes) {
      b.appendLiteral('-');
    }
    b.appendValue(ChronoField.DAY_OF_MONTH, 2);
    if (!daily) {
      if (space) {
        b.appendLiteral(' ');
      }
      b.appendValue(ChronoField.HOUR_OF_DAY, 2).parseDefaulting(ChronoField.MINUTE_OF_HOUR, 0);
    }
    return new TagPeriod(
        TagOptions.periodLength(period),
        daily,
        b.toFormatter(Locale.ROOT).withResolverStyle(ResolverStyle.STRICT));
  }

  Duration length() {
    return length;
  }

  /** The start of the period before the one holding {@code time}: the tag a snapshot then gets. */
  LocalDateTime previousPeriodStart(LocalDateTime time) {
    long millis = time.toInstant(ZoneOffset.UTC).toEpochMilli(); // local time as it reads
    long period = length.toMillis();
    long start = Math.floorDiv(millis, period) * period;
    return LocalDateTime.ofEpochSecond(Math.floorDiv(start, 1000), 0, ZoneOffset.UTC).minus(length);
  }

  /** The tag name of the period starting at {@code start}. */
  String name(LocalDateTime start) {
    return start.format(names);
  }

  /** The start of the period an automatic tag names, or null when {@code name} is none. */
  LocalDateTime start(String name) {
    try {
      return daily ? LocalDate.parse(name, names).atStartOfDay() : LocalDateTime.parse(name, names);
    } catch (DateTimeException e) {
      return null;
    }
  }
}
