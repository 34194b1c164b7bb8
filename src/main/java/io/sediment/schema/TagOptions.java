package io.sediment.schema;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Table options of automatic tags (Paimon's names and defaults): after their commits, the table's
 * committers tag the first snapshot of each period once the period has ended. Each option is
 * declared with the rule its values keep; {@link TableOptions} validates and reads them, and checks
 * that the delay is shorter than the period. docs/configuration.md is the user-facing copy.
 */
public final class TagOptions {

  static final OptionSet OPTIONS = new OptionSet();

  /** The periods, by Paimon's names. */
  public static final List<String> PERIODS = List.of("daily", "hourly", "two-hours");

  public static final ConfigOption<String> TAG_AUTOMATIC_CREATION =
      OPTIONS.add(
          ConfigOptions.key("tag.automatic-creation")
              .stringType()
              .defaultValue("none")
              .withDescription(
                  "Whether the table's committers tag snapshots on their own: none,"
                      + " process-time (a period's tag is made by the first commit after the"
                      + " period ended, plus tag.creation-delay, on the commit's clock),"
                      + " watermark (the same on the snapshots' watermarks, read in"
                      + " sink.watermark-time-zone), or batch (a batch SQL write tags the latest"
                      + " snapshot batch-write-<day> when it has committed)."),
          OptionRule.oneOf(List.of("none", "process-time", "watermark", "batch")));

  public static final ConfigOption<String> TAG_BATCH_CUSTOMIZED_NAME =
      OPTIONS.add(
          ConfigOptions.key("tag.batch.customized-name")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "The name of the tag a batch SQL write makes with tag.automatic-creation ="
                      + " batch, instead of batch-write-<day>; each such write replaces it."),
          OptionRule.matching(
              "(?=.*[^0-9])" + ScanOptions.TAG_NAME,
              "letters, digits, `_`, `.`, `-`, single spaces between them",
              "use letters, digits, '_', '.', '-' and single spaces between them only, and not"
                  + " digits only"));

  public static final ConfigOption<String> SINK_WATERMARK_TIME_ZONE =
      OPTIONS.add(
          ConfigOptions.key("sink.watermark-time-zone")
              .stringType()
              .defaultValue("UTC")
              .withDescription(
                  "The time zone in which tag.automatic-creation = watermark reads the snapshots'"
                      + " watermarks (epoch milliseconds) as local times: UTC for watermarks on"
                      + " TIMESTAMP columns or none, the session's time zone for TIMESTAMP_LTZ."),
          OptionRule.timeZone());

  public static final ConfigOption<Duration> SNAPSHOT_WATERMARK_IDLE_TIMEOUT =
      OPTIONS.add(
          ConfigOptions.key("snapshot.watermark-idle-timeout")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "With tag.automatic-creation = watermark: when a streaming write's checkpoint"
                      + " wrote nothing, the table had no commit for this long and the watermark"
                      + " went past the latest snapshot's, the committer commits an empty snapshot"
                      + " with it, so that the idle input's tags are made."),
          OptionRule.positiveDuration("10 min"));

  public static final ConfigOption<String> TAG_CREATION_PERIOD =
      OPTIONS.add(
          ConfigOptions.key("tag.creation-period")
              .stringType()
              .defaultValue("daily")
              .withDescription("How long a period of automatic tags is: daily, hourly, two-hours."),
          OptionRule.oneOf(PERIODS));

  public static final ConfigOption<Duration> TAG_CREATION_DELAY =
      OPTIONS.add(
          ConfigOptions.key("tag.creation-delay")
              .durationType()
              .defaultValue(Duration.ZERO)
              .withDescription(
                  "How long after a period ends its tag is made, for late data (shorter than the"
                      + " period)."),
          OptionRule.nonNegativeDuration("10 min"));

  public static final ConfigOption<String> TAG_PERIOD_FORMATTER =
      OPTIONS.add(
          ConfigOptions.key("tag.period-formatter")
              .stringType()
              .defaultValue("with_dashes")
              .withDescription(
                  "How automatic tags are named: with_dashes (2024-06-15, 2024-06-15 10),"
                      + " without_dashes (20240615, 20240615 10), without_dashes_and_spaces"
                      + " (20240615, 2024061510). Two-hour tags are always named with_dashes."),
          OptionRule.oneOf(List.of("with_dashes", "without_dashes", "without_dashes_and_spaces")));

  public static final ConfigOption<Integer> TAG_NUM_RETAINED_MAX =
      OPTIONS.add(
          ConfigOptions.key("tag.num-retained-max")
              .intType()
              .noDefaultValue()
              .withDescription(
                  "Automatic tags kept at most; the oldest go (with the files only they kept)."
                      + " A tag is automatic when its name parses as a period. Not set: all are"
                      + " kept."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Duration> TAG_DEFAULT_TIME_RETAINED =
      OPTIONS.add(
          ConfigOptions.key("tag.default-time-retained")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "How long a new tag is kept after it is made, when it is made without"
                      + " time_retained (by sys.create_tag, or automatically); then the table's"
                      + " committers delete it with the files only it kept. Not set: kept until"
                      + " deleted."),
          OptionRule.positiveDuration("7 d"));

  /** One period of {@code period} (a value of {@link #TAG_CREATION_PERIOD}). */
  public static Duration periodLength(String period) {
    return switch (period.toLowerCase(java.util.Locale.ROOT)) {
      case "hourly" -> Duration.ofHours(1);
      case "two-hours" -> Duration.ofHours(2);
      default -> Duration.ofDays(1);
    };
  }

  private TagOptions() {}
}
