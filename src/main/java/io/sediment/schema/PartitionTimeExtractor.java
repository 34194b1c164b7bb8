package io.sediment.schema;

import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The time a partition's values give (Paimon's {@code partition.timestamp-pattern} and {@code
 * partition.timestamp-formatter}): the pattern with each {@code $column} replaced by that partition
 * column's value (no pattern: the first partition column's value), parsed with the formatter (none:
 * {@code yyyy-MM-dd HH:mm:ss}, then {@code yyyy-MM-dd}). Both are checked when the extractor is
 * made, so a table whose options name a column that is not a partition column, or a formatter that
 * is not a pattern, is refused when it is created or altered.
 */
public final class PartitionTimeExtractor {

  /** A {@code $column} of a timestamp pattern. */
  private static final Pattern COLUMN = Pattern.compile("\\$(\\w+)");

  private static final List<DateTimeFormatter> DEFAULT_FORMATS =
      List.of(
          DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT),
          DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT));

  private final List<String> partitionKeys;
  private final String pattern; // null: the first partition column's value
  private final List<DateTimeFormatter> formats;

  /**
   * @param pattern null for the first partition column's value
   * @param formatter a {@link DateTimeFormatter} pattern; null for the defaults
   * @throws IllegalArgumentException naming what is wrong: a {@code $column} that is not a
   *     partition column, a formatter that is not a pattern, or no partition column at all
   */
  public PartitionTimeExtractor(String pattern, String formatter, List<String> partitionKeys) {
    if (partitionKeys.isEmpty()) {
      throw new IllegalArgumentException("the table is not partitioned");
    }
    checkPattern(pattern, partitionKeys);
    this.formats = formatter == null ? DEFAULT_FORMATS : List.of(checkFormatter(formatter));
    this.partitionKeys = List.copyOf(partitionKeys);
    this.pattern = pattern;
  }

  /**
   * Refuses a pattern naming a {@code $column} that is not one of {@code partitionKeys}; null is
   * fine (the first partition column's value).
   */
  public static void checkPattern(String pattern, List<String> partitionKeys) {
    if (pattern == null) {
      return;
    }
    Matcher m = COLUMN.matcher(pattern);
    while (m.find()) {
      if (!partitionKeys.contains(m.group(1))) {
        throw new IllegalArgumentException(
            "'"
                + pattern
                + "' names $"
                + m.group(1)
                + ", which is not a partition column; partition columns are "
                + partitionKeys);
      }
    }
  }

  /** The formatter {@code formatter} names, or a refusal when it is not a pattern. */
  public static DateTimeFormatter checkFormatter(String formatter) {
    try {
      return DateTimeFormatter.ofPattern(formatter, Locale.ROOT);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "'" + formatter + "' is not a date-time pattern: " + e.getMessage(), e);
    }
  }

  /** The extractor a table's options describe. */
  public static PartitionTimeExtractor of(TableOptions options, List<String> partitionKeys) {
    return new PartitionTimeExtractor(
        options.get(CommitOptions.PARTITION_TIMESTAMP_PATTERN),
        options.get(CommitOptions.PARTITION_TIMESTAMP_FORMATTER),
        partitionKeys);
  }

  /**
   * The local time of a partition, from its values as strings (in partition-key order, null for a
   * null value); null when they do not parse.
   */
  public LocalDateTime extract(List<String> values) {
    String text;
    if (pattern == null) {
      text = values.get(0);
    } else {
      Matcher m = COLUMN.matcher(pattern);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String v = values.get(partitionKeys.indexOf(m.group(1)));
        m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? "" : v));
      }
      m.appendTail(sb);
      text = sb.toString();
    }
    return text == null ? null : parse(text);
  }

  private LocalDateTime parse(String text) {
    for (DateTimeFormatter f : formats) {
      try {
        TemporalAccessor t = f.parse(text);
        return t.isSupported(ChronoField.HOUR_OF_DAY)
            ? LocalDateTime.from(t)
            : LocalDate.from(t).atStartOfDay();
      } catch (DateTimeException ignored) {
        // not this format (or not a date at all: the partition has no time)
      }
    }
    return null;
  }
}
