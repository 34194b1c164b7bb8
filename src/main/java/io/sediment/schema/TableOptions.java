package io.sediment.schema;

import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * Every table option Sediment knows, with its default and meaning, and the typed view of one
 * table's options. Unknown keys and values that do not parse or fall outside the allowed range are
 * rejected by {@link #validate(Map)} with a message that names the key and what is allowed.
 *
 * <p>docs/configuration.md is the user-facing copy of this list; keep them in step.
 */
public final class TableOptions implements Serializable {

  private static final long serialVersionUID = 1L;

  // ---- layout -----------------------------------------------------------------------------

  public static final ConfigOption<Integer> BUCKET =
      ConfigOptions.key("bucket")
          .intType()
          .defaultValue(-1)
          .withDescription(
              "Number of buckets per partition. -1: no buckets (append tables only; files are"
                  + " spread freely). N > 0: rows are hashed on the bucket key into N buckets.");

  public static final ConfigOption<String> BUCKET_KEY =
      ConfigOptions.key("bucket-key")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Comma-separated columns hashed to choose a bucket. Default: the primary key minus"
                  + " partition keys for primary-key tables; required for append tables with"
                  + " bucket > 0 unless all non-partition columns should be hashed.");

  // ---- files ------------------------------------------------------------------------------

  public static final ConfigOption<String> FILE_COMPRESSION =
      ConfigOptions.key("file.compression")
          .stringType()
          .defaultValue("zstd")
          .withDescription(
              "Compression of data files: zstd, snappy, gzip, lz4_raw or uncompressed.");

  public static final ConfigOption<Integer> FILE_COMPRESSION_ZSTD_LEVEL =
      ConfigOptions.key("file.compression.zstd-level")
          .intType()
          .defaultValue(1)
          .withDescription("Zstandard level (1-22) when file.compression is zstd.");

  public static final ConfigOption<MemorySize> PARQUET_ROW_GROUP_SIZE =
      ConfigOptions.key("parquet.row-group-size")
          .memoryType()
          .defaultValue(MemorySize.parse("128 mb"))
          .withDescription("Target size of a Parquet row group.");

  public static final ConfigOption<MemorySize> PARQUET_PAGE_SIZE =
      ConfigOptions.key("parquet.page-size")
          .memoryType()
          .defaultValue(MemorySize.parse("1 mb"))
          .withDescription("Target size of a Parquet page.");

  public static final ConfigOption<Boolean> PARQUET_DICTIONARY =
      ConfigOptions.key("parquet.enable-dictionary")
          .booleanType()
          .defaultValue(true)
          .withDescription("Whether Parquet dictionary encoding is used.");

  public static final ConfigOption<MemorySize> TARGET_FILE_SIZE =
      ConfigOptions.key("target-file-size")
          .memoryType()
          .defaultValue(MemorySize.parse("128 mb"))
          .withDescription(
              "Size at which writers and compaction roll to a new data file; compaction packs"
                  + " small files into groups of about this size.");

  // ---- compaction -------------------------------------------------------------------------

  public static final ConfigOption<Double> COMPACTION_SMALL_FILE_RATIO =
      ConfigOptions.key("compaction.small-file-ratio")
          .doubleType()
          .defaultValue(0.75)
          .withDescription(
              "A data file is small, and a candidate for minor compaction, when it is smaller"
                  + " than target-file-size x this ratio (0 < ratio <= 1).");

  public static final ConfigOption<Integer> COMPACTION_MIN_FILE_NUM =
      ConfigOptions.key("compaction.min.file-num")
          .intType()
          .defaultValue(5)
          .withDescription(
              "Minor compaction of an append table rewrites a group only when it holds at least"
                  + " this many files (a full compaction takes any group of two or more).");

  public static final ConfigOption<Boolean> COMPACTION_FULL =
      ConfigOptions.key("compaction.full")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Full compaction: every file below target-file-size is rewritten (append tables),"
                  + " all sorted runs merge into the top level (primary-key tables). Usually given"
                  + " as a dynamic option to one compaction.");

  public static final ConfigOption<MemorySize> COMPACTION_COPY_MIN_ROW_GROUP_SIZE =
      ConfigOptions.key("compaction.copy.min-row-group-size")
          .memoryType()
          .noDefaultValue()
          .withDescription(
              "Compaction of an append table copies an input row group byte for byte only when it"
                  + " holds at least this many (compressed) bytes; smaller row groups are decoded"
                  + " and written again into row groups of parquet.row-group-size. Default: half"
                  + " of parquet.row-group-size.");

  public static final ConfigOption<Integer> COMPACTION_PARALLELISM =
      ConfigOptions.key("compaction.parallelism")
          .intType()
          .defaultValue(Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())))
          .withDescription(
              "Tasks rewritten at once by an in-process compaction (CompactBuilder), and the"
                  + " default rewrite parallelism of the Flink compaction jobs. Default: the"
                  + " number of cores, at most 4.");

  public static final ConfigOption<Duration> COMPACTION_DISCOVERY_INTERVAL =
      ConfigOptions.key("compaction.discovery-interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription(
              "How often the dedicated streaming compaction job looks for new snapshots.");

  public static final ConfigOption<Integer> COMPACTION_MAX_CONSECUTIVE_FAILURES =
      ConfigOptions.key("compaction.max-consecutive-failures")
          .intType()
          .defaultValue(3)
          .withDescription(
              "The dedicated streaming compaction job fails after this many commit windows in a"
                  + " row had a failed task.");

  public static final ConfigOption<Boolean> WRITE_ONLY =
      ConfigOptions.key("write-only")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Writers never compact and never expire snapshots; only a compaction job, the"
                  + " sys.compact procedure or CompactBuilder does.");

  // ---- primary-key tables -----------------------------------------------------------------

  public static final ConfigOption<String> MERGE_ENGINE =
      ConfigOptions.key("merge-engine")
          .stringType()
          .defaultValue("deduplicate")
          .withDescription(
              "How rows with the same primary key merge: deduplicate, partial-update,"
                  + " aggregation or first-row.");

  public static final ConfigOption<String> CHANGELOG_PRODUCER =
      ConfigOptions.key("changelog-producer")
          .stringType()
          .defaultValue("none")
          .withDescription(
              "What a streaming read of a primary-key table reads as its changes: none (each"
                  + " snapshot's new rows as upserts; deduplicate tables only), input (the"
                  + " writer stores the rows it received as changelog files beside the data) or"
                  + " lookup (the compaction that moves level-0 rows up computes the exact"
                  + " changelog against the rows' previous values; writers then compact level 0"
                  + " at every commit).");

  public static final ConfigOption<String> SEQUENCE_FIELD =
      ConfigOptions.key("sequence.field")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Column whose value orders versions of a key (instead of arrival order).");

  public static final ConfigOption<Boolean> IGNORE_DELETE =
      ConfigOptions.key("ignore-delete")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Writers of a primary-key table drop DELETE and UPDATE_BEFORE rows (any merge"
                  + " engine).");

  public static final ConfigOption<Boolean> PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE =
      ConfigOptions.key("partial-update.remove-record-on-delete")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "partial-update: a DELETE row removes the whole row. Without it (and without"
                  + " ignore-delete) a DELETE is refused.");

  public static final ConfigOption<Boolean> AGGREGATION_REMOVE_RECORD_ON_DELETE =
      ConfigOptions.key("aggregation.remove-record-on-delete")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "aggregation: a DELETE row removes the whole row instead of retracting its values"
                  + " from the aggregates. Fixed when the table is created.");

  public static final ConfigOption<MemorySize> WRITE_BUFFER_SIZE =
      ConfigOptions.key("write-buffer-size")
          .memoryType()
          .defaultValue(MemorySize.parse("64 mb"))
          .withDescription(
              "Memory a primary-key writer buffers (sorted) per bucket before it writes a"
                  + " level-0 file.");

  public static final ConfigOption<Integer> NUM_SORTED_RUN_COMPACTION_TRIGGER =
      ConfigOptions.key("num-sorted-run.compaction-trigger")
          .intType()
          .defaultValue(5)
          .withDescription(
              "Minor compaction of a primary-key bucket starts when it has this many sorted runs.");

  public static final ConfigOption<Integer> NUM_SORTED_RUN_STOP_TRIGGER =
      ConfigOptions.key("num-sorted-run.stop-trigger")
          .intType()
          .noDefaultValue()
          .withDescription(
              "Writers stall (compact before writing more) when a bucket has this many sorted"
                  + " runs. Default: compaction-trigger + 3.");

  public static final ConfigOption<Integer> NUM_LEVELS =
      ConfigOptions.key("num-levels")
          .intType()
          .noDefaultValue()
          .withDescription("Levels of the LSM tree of a bucket. Default: compaction-trigger + 1.");

  public static final ConfigOption<Integer> COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT =
      ConfigOptions.key("compaction.max-size-amplification-percent")
          .intType()
          .defaultValue(200)
          .withDescription(
              "Universal compaction: merge all runs when the runs above the oldest are larger"
                  + " than this percentage of the oldest run.");

  public static final ConfigOption<Integer> COMPACTION_SIZE_RATIO =
      ConfigOptions.key("compaction.size-ratio")
          .intType()
          .defaultValue(1)
          .withDescription(
              "Universal compaction: percentage flexibility when comparing the size of a run"
                  + " with the sum of the newer runs picked before it. Append tables without fixed"
                  + " buckets: how much larger than the smaller files of its group together a"
                  + " file in a minor compaction's group may be.");

  public static final ConfigOption<Duration> COMPACTION_OPTIMIZATION_INTERVAL =
      ConfigOptions.key("compaction.optimization-interval")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "A dedicated compaction job plans a full compaction of the table when this long"
                  + " has passed since its last full round (or its start) and commits other than"
                  + " compactions landed meanwhile. Unset: never. Paimon's name.");

  public static final ConfigOption<Integer> FULL_COMPACTION_DELTA_COMMITS =
      ConfigOptions.key("full-compaction.delta-commits")
          .intType()
          .noDefaultValue()
          .withDescription(
              "A dedicated compaction job plans a full compaction of the table once this many"
                  + " APPEND or OVERWRITE commits have landed since its last full round (its minor"
                  + " rounds go on in between). Unset: never. Paimon's name.");

  public static final ConfigOption<MemorySize> COMPACTION_TRIGGER_MIN_BYTES =
      ConfigOptions.key("compaction.trigger.min-bytes")
          .memoryType()
          .noDefaultValue()
          .withDescription(
              "Minor compaction: an append bucket's small files (two or more) are compacted once"
                  + " they add up to this size, even when fewer than compaction.min.file-num; a"
                  + " primary-key bucket's level-0 runs move up once they add up to it, even when"
                  + " fewer than num-sorted-run.compaction-trigger. Unset: only the counts.");

  public static final ConfigOption<Duration> COMPACTION_TRIGGER_MAX_DELAY =
      ConfigOptions.key("compaction.trigger.max-delay")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "Minor compaction: an append bucket's small files (two or more), or a primary-key"
                  + " bucket's level-0 runs, are compacted once the oldest of them was written this"
                  + " long ago, even when the counts have not triggered. Unset: only the counts.");

  public static final ConfigOption<MemorySize> COMPACTION_MAX_REWRITE_BYTES =
      ConfigOptions.key("compaction.max-rewrite-bytes")
          .memoryType()
          .noDefaultValue()
          .withDescription(
              "The most input bytes one compaction commit rewrites: each planning round takes its"
                  + " tasks in plan order up to this size (at least one task; a sort compaction's"
                  + " ranges of a bucket go together), the rest is planned by the next round."
                  + " Unset: no limit.");

  public static final ConfigOption<Boolean> PARTIAL_PROGRESS_ENABLED =
      ConfigOptions.key("partial-progress.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "A batch compaction commits in several COMPACT snapshots, each of at most"
                  + " compaction.max-rewrite-bytes (unset: the plan split evenly over"
                  + " partial-progress.max-commits), so a failure late in a long run keeps the"
                  + " commits made before it. Iceberg's name.");

  public static final ConfigOption<Integer> PARTIAL_PROGRESS_MAX_COMMITS =
      ConfigOptions.key("partial-progress.max-commits")
          .intType()
          .defaultValue(10)
          .withDescription(
              "With partial-progress.enabled: the most commits one batch compaction makes; what"
                  + " is left after them waits for the next run. Iceberg's name and default.");

  public static final ConfigOption<Double> COMPACTION_DELETE_RATIO_THRESHOLD =
      ConfigOptions.key("compaction.delete-ratio-threshold")
          .doubleType()
          .defaultValue(0.2)
          .withDescription(
              "Deletion-vector tables: a data file whose deletion vector marks more than this"
                  + " fraction of its rows deleted is rewritten (alone, into its level) by the next"
                  + " minor compaction that plans nothing else for its bucket. Paimon's name"
                  + " (there for append tables).");

  public static final ConfigOption<Boolean> DELETION_VECTORS_ENABLED =
      ConfigOptions.key("deletion-vectors.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Primary-key tables (deduplicate, first-row): readers skip level 0 and apply"
                  + " deletion vectors instead of merging runs.");

  public static final ConfigOption<Boolean> LOCAL_CACHE_ENABLED =
      ConfigOptions.key("local-cache.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Keep key lookups of higher levels on local disk; required to compact a"
                  + " deletion-vector table (its writers then compact level 0 at every commit, so"
                  + " committed rows are visible at once).");

  public static final ConfigOption<String> LOCAL_CACHE_DIR =
      ConfigOptions.key("local-cache.dir")
          .stringType()
          .noDefaultValue()
          .withDescription("Directory of the local cache. Default: java.io.tmpdir/sediment-cache.");

  public static final ConfigOption<MemorySize> LOCAL_CACHE_MAX_SIZE =
      ConfigOptions.key("local-cache.max-size")
          .memoryType()
          .defaultValue(MemorySize.parse("1 gb"))
          .withDescription("Largest size the local cache may take on disk.");

  // ---- reads ------------------------------------------------------------------------------

  public static final ConfigOption<String> SCAN_MODE =
      ConfigOptions.key("scan.mode")
          .stringType()
          .defaultValue("default")
          .withDescription(
              "Which snapshot a read starts from: default (from-snapshot when scan.snapshot-id is"
                  + " set, from-timestamp when scan.timestamp-millis is, else latest-full),"
                  + " latest-full, latest, from-snapshot, from-snapshot-full, from-timestamp.");

  public static final ConfigOption<Long> SCAN_SNAPSHOT_ID =
      ConfigOptions.key("scan.snapshot-id")
          .longType()
          .noDefaultValue()
          .withDescription("The snapshot a read starts from (time travel): its id.");

  public static final ConfigOption<Long> SCAN_TIMESTAMP_MILLIS =
      ConfigOptions.key("scan.timestamp-millis")
          .longType()
          .noDefaultValue()
          .withDescription(
              "The snapshot a read starts from (time travel): the newest committed at or before"
                  + " this time, in milliseconds since the epoch.");

  public static final ConfigOption<Duration> CONTINUOUS_DISCOVERY_INTERVAL =
      ConfigOptions.key("continuous.discovery-interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription("How often a streaming read looks for new snapshots.");

  public static final ConfigOption<String> CONSUMER_ID =
      ConfigOptions.key("consumer-id")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A streaming read records the next snapshot it needs under this id at every"
                  + " completed checkpoint; expiry keeps that snapshot and later ones, and a read"
                  + " started without state resumes from it.");

  public static final ConfigOption<Duration> CONSUMER_EXPIRATION_TIME =
      ConfigOptions.key("consumer.expiration-time")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "A consumer not updated for this long no longer holds back expiry, and expiry"
                  + " deletes it. Not set: consumers never expire.");

  // ---- metadata ---------------------------------------------------------------------------

  public static final ConfigOption<MemorySize> MANIFEST_TARGET_FILE_SIZE =
      ConfigOptions.key("manifest.target-file-size")
          .memoryType()
          .defaultValue(MemorySize.parse("8 mb"))
          .withDescription("Size at which merged manifests roll to a new file.");

  public static final ConfigOption<Integer> MANIFEST_MERGE_MIN_COUNT =
      ConfigOptions.key("manifest.merge-min-count")
          .intType()
          .defaultValue(30)
          .withDescription(
              "A commit merges manifests when the table has at least this many manifests"
                  + " smaller than manifest.target-file-size.");

  public static final ConfigOption<Integer> COMMIT_MAX_RETRIES =
      ConfigOptions.key("commit.max-retries")
          .intType()
          .defaultValue(100)
          .withDescription(
              "How often a commit retries after another committer took the snapshot id it"
                  + " wanted.");

  // ---- commit lock (Paimon's lock.* lineage; required on object stores) -------------------

  public static final ConfigOption<Boolean> LOCK_ENABLED =
      ConfigOptions.key("lock.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Publish snapshots while holding a commit lock in a database (lock.type). Required"
                  + " for tables on object stores (s3://, gs://, oss://, abfs://...), which have"
                  + " no atomic create-if-absent.");

  public static final ConfigOption<String> LOCK_TYPE =
      ConfigOptions.key("lock.type")
          .stringType()
          .defaultValue("jdbc")
          .withDescription("Where the commit lock is held: jdbc (SQLite or PostgreSQL).");

  public static final ConfigOption<String> LOCK_JDBC_URL =
      ConfigOptions.key("lock.jdbc.url")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "JDBC URL of the lock database: jdbc:sqlite:<file> for committers on one machine,"
                  + " jdbc:postgresql://<host>/<db> for committers on many. Not set: an SQLite"
                  + " file under the user's home directory (.sediment/commit-locks.db).");

  public static final ConfigOption<String> LOCK_JDBC_USER =
      ConfigOptions.key("lock.jdbc.user")
          .stringType()
          .noDefaultValue()
          .withDescription("User of the lock database, if it needs one.");

  public static final ConfigOption<String> LOCK_JDBC_PASSWORD =
      ConfigOptions.key("lock.jdbc.password")
          .stringType()
          .noDefaultValue()
          .withDescription("Password of the lock database user, if it needs one.");

  public static final ConfigOption<Duration> LOCK_EXPIRE_TIME =
      ConfigOptions.key("lock.expire-time")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "Lease of a held lock: renewed by its holder every third of it; a holder that"
                  + " dies loses the lock after this long.");

  public static final ConfigOption<Duration> LOCK_ACQUIRE_TIMEOUT =
      ConfigOptions.key("lock-acquire-timeout")
          .durationType()
          .defaultValue(Duration.ofMinutes(8))
          .withDescription("How long a commit waits for the lock before it fails.");

  public static final ConfigOption<Duration> LOCK_CHECK_MAX_SLEEP =
      ConfigOptions.key("lock-check-max-sleep")
          .durationType()
          .defaultValue(Duration.ofSeconds(8))
          .withDescription("Longest pause between two tries to take a held lock.");

  // ---- snapshot retention (Paimon's names and defaults) ----------------------------------

  public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MIN =
      ConfigOptions.key("snapshot.num-retained.min")
          .intType()
          .defaultValue(10)
          .withDescription(
              "Snapshots always kept however old, the latest included (>= 1, not above"
                  + " snapshot.num-retained.max). Expired automatically after each commit.");

  public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MAX =
      ConfigOptions.key("snapshot.num-retained.max")
          .intType()
          .defaultValue(Integer.MAX_VALUE)
          .withDescription("Snapshots kept at most, however young (>= 1).");

  public static final ConfigOption<Duration> SNAPSHOT_TIME_RETAINED =
      ConfigOptions.key("snapshot.time-retained")
          .durationType()
          .defaultValue(Duration.ofHours(1))
          .withDescription(
              "Snapshots older than this are expired, keeping snapshot.num-retained.min.");

  public static final ConfigOption<Integer> SNAPSHOT_EXPIRE_LIMIT =
      ConfigOptions.key("snapshot.expire.limit")
          .intType()
          .defaultValue(50)
          .withDescription("Snapshots expired at most by the automatic expiry after one commit.");

  public static final ConfigOption<Duration> COMPACTION_REMOVE_ORPHANS_INTERVAL =
      ConfigOptions.key("compaction.remove-orphans.interval")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "How often the dedicated compaction job removes orphan files older than a day"
                  + " (after a commit). Not set: never.");

  /** Per-field options of primary-key tables: {@code fields.<field>.aggregate-function}. */
  public static final Pattern FIELD_AGGREGATE_FUNCTION =
      Pattern.compile("fields\\.([^.]+)\\.aggregate-function");

  /**
   * Per-field option of aggregation tables: {@code fields.<field>.ignore-retract} = true drops
   * retractions for that field instead of refusing them (functions that cannot retract).
   */
  public static final Pattern FIELD_IGNORE_RETRACT =
      Pattern.compile("fields\\.([^.]+)\\.ignore-retract");

  public static final List<String> AGGREGATE_FUNCTIONS =
      List.of("sum", "min", "max", "count", "last_value", "last_non_null_value");

  public static final List<String> MERGE_ENGINES =
      List.of("deduplicate", "partial-update", "aggregation", "first-row");

  public static final List<String> CHANGELOG_PRODUCERS = List.of("none", "input", "lookup");

  public static final List<String> SCAN_MODES =
      List.of(
          "default",
          "latest-full",
          "latest",
          "from-snapshot",
          "from-snapshot-full",
          "from-timestamp");

  public static final List<String> COMPRESSIONS =
      List.of("zstd", "snappy", "gzip", "lz4_raw", "uncompressed");

  private static final Map<String, ConfigOption<?>> ALL = collect();

  private final Map<String, String> raw;
  private transient Configuration conf;

  private TableOptions(Map<String, String> raw) {
    this.raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
  }

  /** Validates and wraps options. */
  public static TableOptions of(Map<String, String> options) {
    validate(options);
    return new TableOptions(options);
  }

  /** Every known option, by key, in declaration order. */
  public static Map<String, ConfigOption<?>> all() {
    return ALL;
  }

  /**
   * Rejects unknown keys and bad values. The message names the key, the value and what is allowed.
   */
  public static void validate(Map<String, String> options) {
    Configuration conf = Configuration.fromMap(options);
    List<String> unknown = new ArrayList<>();
    for (Map.Entry<String, String> e : options.entrySet()) {
      String key = e.getKey();
      Matcher agg = FIELD_AGGREGATE_FUNCTION.matcher(key);
      if (agg.matches()) {
        String fn = e.getValue() == null ? "" : e.getValue().trim().toLowerCase(Locale.ROOT);
        if (!AGGREGATE_FUNCTIONS.contains(fn)) {
          throw new IllegalArgumentException(
              "Invalid value '"
                  + e.getValue()
                  + "' for option '"
                  + key
                  + "'; allowed: "
                  + AGGREGATE_FUNCTIONS);
        }
        continue;
      }
      if (FIELD_IGNORE_RETRACT.matcher(key).matches()) {
        String v = e.getValue() == null ? "" : e.getValue().trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) {
          throw new IllegalArgumentException(
              "Invalid value '"
                  + e.getValue()
                  + "' for option '"
                  + key
                  + "'; allowed: true, false");
        }
        continue;
      }
      ConfigOption<?> option = ALL.get(key);
      if (option == null) {
        unknown.add(key);
        continue;
      }
      Object value;
      try {
        value = conf.get(option);
      } catch (RuntimeException ex) {
        throw new IllegalArgumentException(
            "Invalid value '"
                + e.getValue()
                + "' for option '"
                + key
                + "': "
                + rootMessage(ex)
                + " (expected "
                + typeName(option)
                + ")",
            ex);
      }
      checkRange(key, e.getValue(), value);
    }
    checkRetainedRange(conf, options);
    checkScanStart(conf, options);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "Unknown table option(s) "
              + unknown
              + "; known options are "
              + new TreeSet<>(ALL.keySet())
              + ", fields.<field>.aggregate-function and fields.<field>.ignore-retract");
    }
  }

  /**
   * snapshot.num-retained.min must not exceed snapshot.num-retained.max when both are given; a max
   * given alone below the default min lowers the min with it ({@link #snapshotRetainMin}).
   */
  private static void checkRetainedRange(Configuration conf, Map<String, String> options) {
    if (!options.containsKey(SNAPSHOT_NUM_RETAINED_MIN.key())
        || !options.containsKey(SNAPSHOT_NUM_RETAINED_MAX.key())) {
      return;
    }
    int min = conf.get(SNAPSHOT_NUM_RETAINED_MIN);
    int max = conf.get(SNAPSHOT_NUM_RETAINED_MAX);
    if (min > max) {
      throw new IllegalArgumentException(
          "Option 'snapshot.num-retained.min' ("
              + min
              + ") must not be larger than 'snapshot.num-retained.max' ("
              + max
              + ")");
    }
  }

  /** scan.snapshot-id and scan.timestamp-millis go with the scan.mode that uses them. */
  private static void checkScanStart(Configuration conf, Map<String, String> options) {
    if (!options.containsKey(SCAN_MODE.key())
        && !options.containsKey(SCAN_SNAPSHOT_ID.key())
        && !options.containsKey(SCAN_TIMESTAMP_MILLIS.key())) {
      return;
    }
    String mode = conf.get(SCAN_MODE).toLowerCase(Locale.ROOT);
    boolean id = options.containsKey(SCAN_SNAPSHOT_ID.key());
    boolean ts = options.containsKey(SCAN_TIMESTAMP_MILLIS.key());
    String problem = null;
    if (id && ts) {
      problem = "give 'scan.snapshot-id' or 'scan.timestamp-millis', not both";
    } else if (mode.startsWith("from-snapshot") && !id) {
      problem = "scan.mode '" + mode + "' needs 'scan.snapshot-id'";
    } else if (mode.equals("from-timestamp") && !ts) {
      problem = "scan.mode 'from-timestamp' needs 'scan.timestamp-millis'";
    } else if (id && !mode.equals("default") && !mode.startsWith("from-snapshot")) {
      problem =
          "'scan.snapshot-id' goes with scan.mode 'from-snapshot' (or 'default'), not '"
              + mode
              + "'";
    } else if (ts && !mode.equals("default") && !mode.equals("from-timestamp")) {
      problem =
          "'scan.timestamp-millis' goes with scan.mode 'from-timestamp' (or 'default'), not '"
              + mode
              + "'";
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "Invalid scan options " + scanOptions(options) + ": " + problem);
    }
  }

  private static Map<String, String> scanOptions(Map<String, String> options) {
    Map<String, String> out = new LinkedHashMap<>();
    options.forEach(
        (k, v) -> {
          if (k.startsWith("scan.")) {
            out.put(k, v);
          }
        });
    return out;
  }

  private static void checkRange(String key, String rawValue, Object value) {
    String problem = null;
    switch (key) {
      case "bucket":
        int b = (Integer) value;
        if (b == 0 || b < -1) {
          problem = "must be -1 (no buckets) or a positive number";
        }
        break;
      case "file.compression":
        if (!COMPRESSIONS.contains(((String) value).toLowerCase(Locale.ROOT))) {
          problem = "allowed: " + COMPRESSIONS;
        }
        break;
      case "file.compression.zstd-level":
        int level = (Integer) value;
        if (level < 1 || level > 22) {
          problem = "must be between 1 and 22";
        }
        break;
      case "lock.type":
        if (!"jdbc".equals(((String) value).toLowerCase(Locale.ROOT))) {
          problem = "allowed: [jdbc]";
        }
        break;
      case "merge-engine":
        if (!MERGE_ENGINES.contains(((String) value).toLowerCase(Locale.ROOT))) {
          problem = "allowed: " + MERGE_ENGINES;
        }
        break;
      case "changelog-producer":
        if (!CHANGELOG_PRODUCERS.contains(((String) value).toLowerCase(Locale.ROOT))) {
          problem =
              "allowed: "
                  + CHANGELOG_PRODUCERS
                  + " (Paimon's full-compaction producer is not supported: lookup gives the"
                  + " same changelog sooner)";
        }
        break;
      case "scan.mode":
        if (!SCAN_MODES.contains(((String) value).toLowerCase(Locale.ROOT))) {
          problem = "allowed: " + SCAN_MODES;
        }
        break;
      case "consumer-id":
        if (!((String) value).matches("[A-Za-z0-9_.-]+")) {
          problem = "use letters, digits, '_', '.' and '-' only";
        }
        break;
      case "consumer.expiration-time":
        if (((Duration) value).isNegative() || ((Duration) value).isZero()) {
          problem = "must be a positive duration such as '1 d'";
        }
        break;
      case "scan.snapshot-id":
        if ((Long) value < 1) {
          problem = "must be at least 1";
        }
        break;
      case "scan.timestamp-millis":
        if ((Long) value < 0) {
          problem = "must not be negative";
        }
        break;
      case "compaction.small-file-ratio":
      case "compaction.delete-ratio-threshold":
        double ratio = (Double) value;
        if (!(ratio > 0 && ratio <= 1)) {
          problem = "must be > 0 and <= 1";
        }
        break;
      case "full-compaction.delta-commits":
      case "partial-progress.max-commits":
      case "compaction.min.file-num":
      case "compaction.parallelism":
      case "manifest.merge-min-count":
      case "num-sorted-run.compaction-trigger":
      case "compaction.max-consecutive-failures":
      case "snapshot.num-retained.min":
      case "snapshot.num-retained.max":
      case "snapshot.expire.limit":
        if ((Integer) value < 1) {
          problem = "must be at least 1";
        }
        break;
      case "num-sorted-run.stop-trigger":
      case "num-levels":
        if ((Integer) value < 2) {
          problem = "must be at least 2";
        }
        break;
      case "commit.max-retries":
      case "compaction.max-size-amplification-percent":
      case "compaction.size-ratio":
        if ((Integer) value < 0) {
          problem = "must not be negative";
        }
        break;
      case "parquet.page-size":
        // Parquet page sizes are ints: 2 GiB or more would wrap around when the writer is built.
        long page = ((MemorySize) value).getBytes();
        if (page <= 0 || page >= Integer.MAX_VALUE) {
          problem = "must be > 0 and < 2 GiB, such as '1 mb'";
        }
        break;
      case "target-file-size":
      case "compaction.copy.min-row-group-size":
      case "manifest.target-file-size":
      case "parquet.row-group-size":
      case "write-buffer-size":
      case "compaction.max-rewrite-bytes":
      case "compaction.trigger.min-bytes":
      case "local-cache.max-size":
        if (((MemorySize) value).getBytes() <= 0) {
          problem = "must be a positive size such as '128 mb'";
        }
        break;
      case "compaction.discovery-interval":
      case "compaction.trigger.max-delay":
      case "compaction.optimization-interval":
      case "continuous.discovery-interval":
      case "compaction.remove-orphans.interval":
      case "lock.expire-time":
      case "lock-acquire-timeout":
      case "lock-check-max-sleep":
        if (((Duration) value).isNegative() || ((Duration) value).isZero()) {
          problem = "must be a positive duration such as '10 s'";
        }
        break;
      case "snapshot.time-retained":
        if (((Duration) value).isNegative()) {
          problem = "must not be negative, such as '1 h'";
        }
        break;
      default:
        break;
    }
    if (problem != null) {
      throw new IllegalArgumentException(
          "Invalid value '" + rawValue + "' for option '" + key + "': " + problem);
    }
  }

  private static String typeName(ConfigOption<?> option) {
    Object def = option.hasDefaultValue() ? option.defaultValue() : null;
    if (def instanceof MemorySize || option == COMPACTION_COPY_MIN_ROW_GROUP_SIZE) {
      return "a memory size such as '128 mb'";
    } else if (def instanceof Duration) {
      return "a duration such as '10 s'";
    } else if (def instanceof Boolean) {
      return "true or false";
    } else if (def instanceof Integer) {
      return "an integer";
    } else if (def instanceof Double) {
      return "a number";
    }
    return "a string";
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? t.toString() : c.getMessage();
  }

  private static Map<String, ConfigOption<?>> collect() {
    Map<String, ConfigOption<?>> all = new LinkedHashMap<>();
    for (Field f : TableOptions.class.getDeclaredFields()) {
      if (f.getType() == ConfigOption.class && Modifier.isStatic(f.getModifiers())) {
        try {
          ConfigOption<?> o = (ConfigOption<?>) f.get(null);
          all.put(o.key(), o);
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return Collections.unmodifiableMap(all);
  }

  // ---- typed access -----------------------------------------------------------------------

  /** The raw key/value map as given (no defaults). */
  public Map<String, String> toMap() {
    return raw;
  }

  /** Options fixed when a table is created: they decide where rows live and how they merge. */
  public static final Set<String> IMMUTABLE =
      Set.of(
          "bucket",
          "bucket-key",
          "merge-engine",
          "sequence.field",
          "deletion-vectors.enabled",
          "aggregation.remove-record-on-delete",
          // a job with another producer would move level-0 rows up without their changelog
          "changelog-producer");

  /**
   * These options with {@code dynamic} laid over them, validated. Options in {@link #IMMUTABLE} and
   * per-field options cannot be changed this way.
   */
  public TableOptions with(Map<String, String> dynamic) {
    for (String key : dynamic.keySet()) {
      if (IMMUTABLE.contains(key) || FIELD_AGGREGATE_FUNCTION.matcher(key).matches()) {
        throw new IllegalArgumentException(
            "Option '"
                + key
                + "' is fixed when the table is created and cannot be given as a dynamic option");
      }
    }
    Map<String, String> merged = new LinkedHashMap<>(raw);
    merged.putAll(dynamic);
    return of(merged);
  }

  public <T> T get(ConfigOption<T> option) {
    return conf().get(option);
  }

  private Configuration conf() {
    if (conf == null) {
      conf = Configuration.fromMap(raw);
    }
    return conf;
  }

  public int bucket() {
    return get(BUCKET);
  }

  public long targetFileSize() {
    return get(TARGET_FILE_SIZE).getBytes();
  }

  /**
   * Size from which compaction copies an input row group instead of merging it into a new one:
   * {@link #COMPACTION_COPY_MIN_ROW_GROUP_SIZE}, by default half of the row-group size.
   */
  public long copyMinRowGroupSize() {
    MemorySize size = conf().get(COMPACTION_COPY_MIN_ROW_GROUP_SIZE);
    return size != null ? size.getBytes() : get(PARQUET_ROW_GROUP_SIZE).getBytes() / 2;
  }

  public String compression() {
    return get(FILE_COMPRESSION).toLowerCase(Locale.ROOT);
  }

  public boolean writeOnly() {
    return get(WRITE_ONLY);
  }

  /** {@code changelog-producer}, lower case: none, input or lookup. */
  public String changelogProducer() {
    return get(CHANGELOG_PRODUCER).toLowerCase(Locale.ROOT);
  }

  /** Whether compactions moving level-0 rows up compute the changelog ({@code lookup}). */
  public boolean lookupChangelog() {
    return changelogProducer().equals("lookup");
  }

  public String mergeEngine() {
    return get(MERGE_ENGINE).toLowerCase(Locale.ROOT);
  }

  public int numSortedRunCompactionTrigger() {
    return get(NUM_SORTED_RUN_COMPACTION_TRIGGER);
  }

  public int numSortedRunStopTrigger() {
    Integer v = conf().get(NUM_SORTED_RUN_STOP_TRIGGER);
    return v == null
        ? numSortedRunCompactionTrigger() + 3
        : Math.max(v, numSortedRunCompactionTrigger());
  }

  public int numLevels() {
    Integer v = conf().get(NUM_LEVELS);
    return v == null ? numSortedRunCompactionTrigger() + 1 : v;
  }

  /**
   * Snapshots always kept: snapshot.num-retained.min, but not above snapshot.num-retained.max (a
   * max given alone below the default min).
   */
  public int snapshotRetainMin() {
    return Math.min(get(SNAPSHOT_NUM_RETAINED_MIN), get(SNAPSHOT_NUM_RETAINED_MAX));
  }

  /** Aggregate function of each field that has one, by field name. */
  public Map<String, String> aggregateFunctions() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      Matcher m = FIELD_AGGREGATE_FUNCTION.matcher(e.getKey());
      if (m.matches()) {
        out.put(m.group(1), e.getValue().trim().toLowerCase(Locale.ROOT));
      }
    }
    return out;
  }

  /** Fields whose retractions are dropped ({@code fields.<f>.ignore-retract} = true). */
  public Set<String> ignoreRetractFields() {
    Set<String> out = new TreeSet<>();
    for (Map.Entry<String, String> e : raw.entrySet()) {
      Matcher m = FIELD_IGNORE_RETRACT.matcher(e.getKey());
      if (m.matches() && e.getValue().trim().equalsIgnoreCase("true")) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Field names named in per-field options, to check that they exist. */
  public Set<String> referencedFields() {
    Set<String> out = new TreeSet<>(aggregateFunctions().keySet());
    for (String key : raw.keySet()) {
      Matcher m = FIELD_IGNORE_RETRACT.matcher(key);
      if (m.matches()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableOptions && ((TableOptions) o).raw.equals(raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return raw.toString();
  }
}
