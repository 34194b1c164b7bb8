package io.sediment.schema;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Table options of metadata and commits: manifests, commit retries, the commit lock (Paimon's
 * {@code lock.*} lineage; required on object stores) and snapshot retention (Paimon's names and
 * defaults). Each option is declared with the rule its values keep; {@link TableOptions} validates
 * and reads them. docs/configuration.md is the user-facing copy; keep them in step.
 */
public final class CommitOptions {

  static final OptionSet OPTIONS = new OptionSet();

  public static final ConfigOption<MemorySize> MANIFEST_TARGET_FILE_SIZE =
      OPTIONS.add(
          ConfigOptions.key("manifest.target-file-size")
              .memoryType()
              .defaultValue(MemorySize.parse("8 mb"))
              .withDescription("Size at which merged manifests roll to a new file."),
          OptionRule.positiveSize());

  public static final ConfigOption<Integer> MANIFEST_MERGE_MIN_COUNT =
      OPTIONS.add(
          ConfigOptions.key("manifest.merge-min-count")
              .intType()
              .defaultValue(30)
              .withDescription(
                  "A commit merges manifests when the table has at least this many manifests"
                      + " smaller than manifest.target-file-size."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Integer> COMMIT_MAX_RETRIES =
      OPTIONS.add(
          ConfigOptions.key("commit.max-retries")
              .intType()
              .defaultValue(100)
              .withDescription(
                  "How often a commit retries after another committer took the snapshot id it"
                      + " wanted."),
          OptionRule.atLeast(0));

  public static final ConfigOption<Long> END_INPUT_WATERMARK =
      OPTIONS.add(
          ConfigOptions.key("end-input.watermark")
              .longType()
              .noDefaultValue()
              .withDescription(
                  "The watermark (epoch milliseconds) a SQL write records when its input ends: for"
                      + " batch jobs and bounded streams, which end without one. Not set: the last"
                      + " watermark the job received, if any."));

  public static final ConfigOption<Boolean> DYNAMIC_PARTITION_OVERWRITE =
      OPTIONS.add(
          ConfigOptions.key("dynamic-partition-overwrite")
              .booleanType()
              .defaultValue(true)
              .withDescription(
                  "INSERT OVERWRITE of a partitioned table replaces only the partitions the query"
                      + " writes to, even with a PARTITION clause (Paimon's default); false: the"
                      + " partitions the PARTITION clause names, or the whole table without one,"
                      + " even when the query returns no row."));

  public static final ConfigOption<Boolean> LOCK_ENABLED =
      OPTIONS.add(
          ConfigOptions.key("lock.enabled")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Publish snapshots while holding a commit lock in a database (lock.type). Required"
                      + " for tables on object stores (s3://, gs://, oss://, abfs://...), which have"
                      + " no atomic create-if-absent."));

  public static final ConfigOption<String> LOCK_TYPE =
      OPTIONS.add(
          ConfigOptions.key("lock.type")
              .stringType()
              .defaultValue("jdbc")
              .withDescription("Where the commit lock is held: jdbc (SQLite or PostgreSQL)."),
          OptionRule.oneOf(List.of("jdbc")));

  public static final ConfigOption<String> LOCK_JDBC_URL =
      OPTIONS.add(
          ConfigOptions.key("lock.jdbc.url")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "JDBC URL of the lock database: jdbc:sqlite:<file> for committers on one machine,"
                      + " jdbc:postgresql://<host>/<db> for committers on many. Not set: an SQLite"
                      + " file under the user's home directory (.sediment/commit-locks.db)."));

  public static final ConfigOption<String> LOCK_JDBC_USER =
      OPTIONS.add(
          ConfigOptions.key("lock.jdbc.user")
              .stringType()
              .noDefaultValue()
              .withDescription("User of the lock database, if it needs one."));

  public static final ConfigOption<String> LOCK_JDBC_PASSWORD =
      OPTIONS.add(
          ConfigOptions.key("lock.jdbc.password")
              .stringType()
              .noDefaultValue()
              .withDescription("Password of the lock database user, if it needs one."));

  public static final ConfigOption<Duration> LOCK_EXPIRE_TIME =
      OPTIONS.add(
          ConfigOptions.key("lock.expire-time")
              .durationType()
              .defaultValue(Duration.ofSeconds(60))
              .withDescription(
                  "Lease of a held lock: renewed by its holder every third of it; a holder that"
                      + " dies loses the lock after this long."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<Duration> LOCK_ACQUIRE_TIMEOUT =
      OPTIONS.add(
          ConfigOptions.key("lock-acquire-timeout")
              .durationType()
              .defaultValue(Duration.ofMinutes(8))
              .withDescription("How long a commit waits for the lock before it fails."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<Duration> LOCK_CHECK_MAX_SLEEP =
      OPTIONS.add(
          ConfigOptions.key("lock-check-max-sleep")
              .durationType()
              .defaultValue(Duration.ofSeconds(8))
              .withDescription("Longest pause between two tries to take a held lock."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MIN =
      OPTIONS.add(
          ConfigOptions.key("snapshot.num-retained.min")
              .intType()
              .defaultValue(10)
              .withDescription(
                  "Snapshots always kept however old, the latest included (>= 1, not above"
                      + " snapshot.num-retained.max). Expired automatically after each commit."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MAX =
      OPTIONS.add(
          ConfigOptions.key("snapshot.num-retained.max")
              .intType()
              .defaultValue(Integer.MAX_VALUE)
              .withDescription("Snapshots kept at most, however young (>= 1)."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Duration> SNAPSHOT_TIME_RETAINED =
      OPTIONS.add(
          ConfigOptions.key("snapshot.time-retained")
              .durationType()
              .defaultValue(Duration.ofHours(1))
              .withDescription(
                  "Snapshots older than this are expired, keeping snapshot.num-retained.min."),
          OptionRule.nonNegativeDuration("1 h"));

  public static final ConfigOption<Integer> SNAPSHOT_EXPIRE_LIMIT =
      OPTIONS.add(
          ConfigOptions.key("snapshot.expire.limit")
              .intType()
              .defaultValue(50)
              .withDescription(
                  "Snapshots expired at most by the automatic expiry after one commit."),
          OptionRule.atLeast(1));

  // Partition expiry after commits (Paimon's names and defaults); the time of a partition is read
  // by PartitionTimeExtractor, checked against the partition keys when the schema is made.

  public static final ConfigOption<Duration> PARTITION_EXPIRATION_TIME =
      OPTIONS.add(
          ConfigOptions.key("partition.expiration-time")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "Partitions older than this are dropped by the table's committers (writers"
                      + " unless write-only, and compactions) after their commits, at most once"
                      + " per partition.expiration-check-interval. Partitioned tables only. Not"
                      + " set: partitions never expire on their own."),
          OptionRule.positiveDuration("7 d"));

  public static final ConfigOption<Duration> PARTITION_EXPIRATION_CHECK_INTERVAL =
      OPTIONS.add(
          ConfigOptions.key("partition.expiration-check-interval")
              .durationType()
              .defaultValue(Duration.ofHours(1))
              .withDescription(
                  "How often a committer looks for expired partitions, counted from its start; 0:"
                      + " after every commit."),
          OptionRule.nonNegativeDuration("1 h"));

  public static final ConfigOption<String> PARTITION_EXPIRATION_STRATEGY =
      OPTIONS.add(
          ConfigOptions.key("partition.expiration-strategy")
              .stringType()
              .defaultValue("values-time")
              .withDescription(
                  "What a partition's time is: values-time, read from its values"
                      + " (partition.timestamp-pattern and partition.timestamp-formatter);"
                      + " update-time, the creation time of its newest live file."),
          OptionRule.oneOf(List.of("values-time", "update-time")));

  public static final ConfigOption<Integer> PARTITION_EXPIRATION_MAX_NUM =
      OPTIONS.add(
          ConfigOptions.key("partition.expiration-max-num")
              .intType()
              .defaultValue(100)
              .withDescription("Partitions dropped at most by one check, the oldest first."),
          OptionRule.atLeast(1));

  public static final ConfigOption<String> PARTITION_TIMESTAMP_FORMATTER =
      OPTIONS.add(
          ConfigOptions.key("partition.timestamp-formatter")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "A java.time DateTimeFormatter pattern (yyyyMMdd) that parses a partition's"
                      + " time. Not set: yyyy-MM-dd HH:mm:ss, then yyyy-MM-dd."));

  public static final ConfigOption<String> PARTITION_TIMESTAMP_PATTERN =
      OPTIONS.add(
          ConfigOptions.key("partition.timestamp-pattern")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "How a partition's values make its time, each $column replaced by that"
                      + " partition column's value ('$dt $hh:00:00'). Not set: the first"
                      + " partition column's value."));

  public static final ConfigOption<Boolean> END_INPUT_CHECK_PARTITION_EXPIRE =
      OPTIONS.add(
          ConfigOptions.key("end-input.check-partition-expire")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Whether a batch write (or batch compaction) looks for expired partitions when"
                      + " it commits, however short it ran."));

  private CommitOptions() {}
}
