package io.sediment.schema;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.flink.configuration.MemorySize;

/**
 * The values one table option allows, declared with the option itself ({@link OptionSet#add}), so
 * that renaming or adding an option cannot leave its check behind. A rule tests a parsed value,
 * names the problem when it fails, and says in docs/configuration.md's words what it allows ({@link
 * #allowed()}; a test holds the docs to it).
 *
 * @param <T> the option's value type
 */
public final class OptionRule<T> {

  private static final OptionRule<Object> ANY = new OptionRule<>("", v -> true, null, null);

  private final String allowed;
  private final Predicate<? super T> accepts;
  private final String problem;
  private final String expected;

  private OptionRule(
      String allowed, Predicate<? super T> accepts, String problem, String expectedType) {
    this.allowed = allowed;
    this.accepts = accepts;
    this.problem = problem;
    this.expected = expectedType;
  }

  /** Any value of the option's type (booleans, or values checked where they are used). */
  @SuppressWarnings("unchecked")
  public static <T> OptionRule<T> any() {
    return (OptionRule<T>) ANY;
  }

  /** A whole number at least {@code min}. */
  public static OptionRule<Number> atLeast(long min) {
    return new OptionRule<>(
        "≥ " + min,
        n -> n.longValue() >= min,
        min == 0 ? "must not be negative" : "must be at least " + min,
        "an integer");
  }

  /** A whole number from {@code min} to {@code max}. */
  public static OptionRule<Number> between(long min, long max) {
    return new OptionRule<>(
        min + "–" + max,
        n -> n.longValue() >= min && n.longValue() <= max,
        "must be between " + min + " and " + max,
        "an integer");
  }

  /** A number of buckets: -1 for none, or a positive count. */
  public static OptionRule<Number> bucketCount() {
    return new OptionRule<>(
        "`-1`, or ≥ 1",
        n -> n.longValue() == -1 || n.longValue() >= 1,
        "must be -1 (no buckets) or a positive number",
        "an integer");
  }

  /** A fraction: above 0, at most 1. */
  public static OptionRule<Number> fraction() {
    return new OptionRule<>(
        "> 0 and ≤ 1",
        n -> n.doubleValue() > 0 && n.doubleValue() <= 1,
        "must be > 0 and <= 1",
        "a number");
  }

  /** One of {@code values}, in any case. */
  public static OptionRule<String> oneOf(List<String> values) {
    return oneOf(values, "");
  }

  /** One of {@code values}, in any case; {@code why} is added to the problem. */
  public static OptionRule<String> oneOf(List<String> values, String why) {
    return new OptionRule<>(
        values.stream().map(v -> "`" + v + "`").collect(Collectors.joining(", ")) + " (any case)",
        s -> values.contains(s.toLowerCase(Locale.ROOT)),
        "allowed: " + values + why,
        "a string");
  }

  /** A string matching {@code regex}; {@code allowed} and {@code problem} say which in words. */
  public static OptionRule<String> matching(String regex, String allowed, String problem) {
    return new OptionRule<>(allowed, s -> s.matches(regex), problem, "a string");
  }

  /** A time zone id: a region such as {@code Asia/Shanghai}, {@code UTC}, or an offset. */
  public static OptionRule<String> timeZone() {
    return new OptionRule<>(
        "a time zone id (`UTC`, `Asia/Shanghai`, `GMT-08:00`)",
        s -> {
          try {
            java.time.ZoneId.of(s);
            return true;
          } catch (java.time.DateTimeException e) {
            return false;
          }
        },
        "must be a time zone id such as 'UTC', 'Asia/Shanghai' or 'GMT-08:00'",
        "a string");
  }

  /** A memory size above zero. */
  public static OptionRule<MemorySize> positiveSize() {
    return new OptionRule<>(
        "> 0",
        s -> s.getBytes() > 0,
        "must be a positive size such as '128 mb'",
        "a memory size such as '128 mb'");
  }

  /** A memory size above zero and below 2 GiB (Parquet keeps page sizes in an int). */
  public static OptionRule<MemorySize> positiveSizeBelow2GiB() {
    return new OptionRule<>(
        "> 0 and < 2 GiB",
        s -> s.getBytes() > 0 && s.getBytes() < Integer.MAX_VALUE,
        "must be > 0 and < 2 GiB, such as '1 mb'",
        "a memory size such as '128 mb'");
  }

  /** A duration above zero; {@code example} shows one in the problem. */
  public static OptionRule<Duration> positiveDuration(String example) {
    return new OptionRule<>(
        "> 0",
        d -> !d.isNegative() && !d.isZero(),
        "must be a positive duration such as '" + example + "'",
        "a duration such as '10 s'");
  }

  /** A duration of zero or more; {@code example} shows one in the problem. */
  public static OptionRule<Duration> nonNegativeDuration(String example) {
    return new OptionRule<>(
        "≥ 0",
        d -> !d.isNegative(),
        "must not be negative, such as '" + example + "'",
        "a duration such as '10 s'");
  }

  /** What the rule allows, as docs/configuration.md's "allowed" column says it; empty for any. */
  public String allowed() {
    return allowed;
  }

  /** The problem with {@code value}, or null when the rule allows it. */
  public String problem(T value) {
    return accepts.test(value) ? null : problem;
  }

  /** The kind of value the rule is for ("an integer", ...), or null when it does not say. */
  String expectedType() {
    return expected;
  }
}
