package io.sediment.schema;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Table options of reads: where a scan starts, how often a streaming read looks for snapshots, and
 * consumers. Each option is declared with the rule its values keep; {@link TableOptions} validates
 * and reads them. docs/configuration.md is the user-facing copy; keep them in step.
 */
public final class ScanOptions {

  static final OptionSet OPTIONS = new OptionSet();

  public static final List<String> SCAN_MODES =
      List.of(
          "default",
          "latest-full",
          "latest",
          "from-snapshot",
          "from-snapshot-full",
          "from-timestamp");

  public static final ConfigOption<String> SCAN_MODE =
      OPTIONS.add(
          ConfigOptions.key("scan.mode")
              .stringType()
              .defaultValue("default")
              .withDescription(
                  "Which snapshot a read starts from: default (from-snapshot when scan.snapshot-id,"
                      + " scan.tag-name or scan.watermark is set, from-timestamp when"
                      + " scan.timestamp-millis is, else latest-full),"
                      + " latest-full, latest, from-snapshot, from-snapshot-full, from-timestamp."),
          OptionRule.oneOf(SCAN_MODES));

  public static final ConfigOption<Long> SCAN_SNAPSHOT_ID =
      OPTIONS.add(
          ConfigOptions.key("scan.snapshot-id")
              .longType()
              .noDefaultValue()
              .withDescription("The snapshot a read starts from (time travel): its id."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Long> SCAN_TIMESTAMP_MILLIS =
      OPTIONS.add(
          ConfigOptions.key("scan.timestamp-millis")
              .longType()
              .noDefaultValue()
              .withDescription(
                  "The snapshot a read starts from (time travel): the newest committed at or before"
                      + " this time, in milliseconds since the epoch."),
          OptionRule.atLeast(0));

  public static final ConfigOption<Long> SCAN_WATERMARK =
      OPTIONS.add(
          ConfigOptions.key("scan.watermark")
              .longType()
              .noDefaultValue()
              .withDescription(
                  "The snapshot a read starts from (time travel by event time): the oldest still"
                      + " there whose watermark is at or after this one, in milliseconds since the"
                      + " epoch (a batch read reads it; a streaming read reads it in full, then the"
                      + " changes after it)."),
          OptionRule.any());

  /**
   * What a tag name may be (it names a file): letters, digits, '_', '.', '-', and single spaces
   * between them, as in Paimon's hourly automatic tags ({@code 2024-06-15 10}).
   */
  public static final String TAG_NAME = "[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*";

  public static final ConfigOption<String> SCAN_TAG_NAME =
      OPTIONS.add(
          ConfigOptions.key("scan.tag-name")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "The tag a read starts at: the snapshot it keeps, also after snapshot expiry"
                      + " retired that snapshot (a batch read reads it; a streaming read reads it"
                      + " in full, then the changes after it)."),
          OptionRule.matching(
              TAG_NAME,
              "letters, digits, `_`, `.`, `-`, single spaces between them",
              "use letters, digits, '_', '.', '-' and single spaces between them only"));

  public static final ConfigOption<Duration> CONTINUOUS_DISCOVERY_INTERVAL =
      OPTIONS.add(
          ConfigOptions.key("continuous.discovery-interval")
              .durationType()
              .defaultValue(Duration.ofSeconds(10))
              .withDescription("How often a streaming read looks for new snapshots."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<String> CONSUMER_ID =
      OPTIONS.add(
          ConfigOptions.key("consumer-id")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "A streaming read records the next snapshot it needs under this id at every"
                      + " completed checkpoint; expiry keeps that snapshot and later ones, and a read"
                      + " started without state resumes from it."),
          OptionRule.matching(
              "[A-Za-z0-9_.-]+",
              "letters, digits, `_`, `.`, `-`",
              "use letters, digits, '_', '.' and '-' only"));

  public static final ConfigOption<Duration> CONSUMER_EXPIRATION_TIME =
      OPTIONS.add(
          ConfigOptions.key("consumer.expiration-time")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "A consumer not updated for this long no longer holds back expiry, and expiry"
                      + " deletes it. Not set: consumers never expire."),
          OptionRule.positiveDuration("1 d"));

  private ScanOptions() {}
}
