package io.sediment.schema;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Table options of primary-key tables: merge engines and their per-field options, the changelog
 * producer, the write buffer, sorted runs and levels, deletion vectors and the lookup cache. Each
 * option is declared with the rule its values keep; {@link TableOptions} validates and reads them.
 * docs/configuration.md is the user-facing copy; keep them in step.
 */
public final class PrimaryKeyOptions {

  static final OptionSet OPTIONS = new OptionSet();

  public static final List<String> MERGE_ENGINES =
      List.of("deduplicate", "partial-update", "aggregation", "first-row");

  public static final List<String> CHANGELOG_PRODUCERS = List.of("none", "input", "lookup");

  public static final List<String> AGGREGATE_FUNCTIONS =
      List.of("sum", "min", "max", "count", "last_value", "last_non_null_value");

  /** Per-field options of primary-key tables: {@code fields.<field>.aggregate-function}. */
  public static final Pattern FIELD_AGGREGATE_FUNCTION =
      Pattern.compile("fields\\.([^.]+)\\.aggregate-function");

  /**
   * Per-field option of aggregation tables: {@code fields.<field>.ignore-retract} = true drops
   * retractions for that field instead of refusing them (functions that cannot retract).
   */
  public static final Pattern FIELD_IGNORE_RETRACT =
      Pattern.compile("fields\\.([^.]+)\\.ignore-retract");

  public static final ConfigOption<String> MERGE_ENGINE =
      OPTIONS.add(
          ConfigOptions.key("merge-engine")
              .stringType()
              .defaultValue("deduplicate")
              .withDescription(
                  "How rows with the same primary key merge: deduplicate, partial-update,"
                      + " aggregation or first-row."),
          OptionRule.oneOf(MERGE_ENGINES));

  public static final ConfigOption<String> CHANGELOG_PRODUCER =
      OPTIONS.add(
          ConfigOptions.key("changelog-producer")
              .stringType()
              .defaultValue("none")
              .withDescription(
                  "What a streaming read of a primary-key table reads as its changes: none (each"
                      + " snapshot's new rows as upserts; deduplicate tables only), input (the"
                      + " writer stores the rows it received as changelog files beside the data) or"
                      + " lookup (the compaction that moves level-0 rows up computes the exact"
                      + " changelog against the rows' previous values; writers then compact level 0"
                      + " at every commit)."),
          OptionRule.oneOf(
              CHANGELOG_PRODUCERS,
              " (Paimon's full-compaction producer is not supported: lookup gives the same"
                  + " changelog sooner)"));

  public static final ConfigOption<String> SEQUENCE_FIELD =
      OPTIONS.add(
          ConfigOptions.key("sequence.field")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "Column whose value orders versions of a key (instead of arrival order)."));

  public static final ConfigOption<Boolean> IGNORE_DELETE =
      OPTIONS.add(
          ConfigOptions.key("ignore-delete")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Writers of a primary-key table drop DELETE and UPDATE_BEFORE rows (any merge"
                      + " engine)."));

  public static final ConfigOption<Boolean> PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE =
      OPTIONS.add(
          ConfigOptions.key("partial-update.remove-record-on-delete")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "partial-update: a DELETE row removes the whole row. Without it (and without"
                      + " ignore-delete) a DELETE is refused."));

  public static final ConfigOption<Boolean> AGGREGATION_REMOVE_RECORD_ON_DELETE =
      OPTIONS.add(
          ConfigOptions.key("aggregation.remove-record-on-delete")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "aggregation: a DELETE row removes the whole row instead of retracting its values"
                      + " from the aggregates. Fixed when the table is created."));

  public static final ConfigOption<MemorySize> WRITE_BUFFER_SIZE =
      OPTIONS.add(
          ConfigOptions.key("write-buffer-size")
              .memoryType()
              .defaultValue(MemorySize.parse("64 mb"))
              .withDescription(
                  "Memory a primary-key writer buffers (sorted) over all its buckets; when"
                      + " full, the largest bucket's buffer is written as a level-0 file."),
          OptionRule.positiveSize());

  public static final ConfigOption<Integer> NUM_SORTED_RUN_COMPACTION_TRIGGER =
      OPTIONS.add(
          ConfigOptions.key("num-sorted-run.compaction-trigger")
              .intType()
              .defaultValue(5)
              .withDescription(
                  "Minor compaction of a primary-key bucket starts when it has this many sorted runs."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Integer> NUM_SORTED_RUN_STOP_TRIGGER =
      OPTIONS.add(
          ConfigOptions.key("num-sorted-run.stop-trigger")
              .intType()
              .noDefaultValue()
              .withDescription(
                  "Writers stall (compact before writing more) when a bucket has this many sorted"
                      + " runs. Default: compaction-trigger + 3."),
          OptionRule.atLeast(2));

  public static final ConfigOption<Duration> WRITE_ONLY_STOP_TRIGGER_WAIT =
      OPTIONS.add(
          ConfigOptions.key("write-only.stop-trigger-wait")
              .durationType()
              .defaultValue(Duration.ZERO)
              .withDescription(
                  "How long a write-only writer waits, at a checkpoint, for a compaction job to take"
                      + " a bucket back under num-sorted-run.stop-trigger before it commits more runs"
                      + " to it. 0: never waits (as Paimon's write-only writers)."),
          OptionRule.nonNegativeDuration("10 s"));

  public static final ConfigOption<Integer> NUM_LEVELS =
      OPTIONS.add(
          ConfigOptions.key("num-levels")
              .intType()
              .noDefaultValue()
              .withDescription(
                  "Levels of the LSM tree of a bucket. Default: compaction-trigger + 1."),
          OptionRule.atLeast(2));

  public static final ConfigOption<Boolean> DELETION_VECTORS_ENABLED =
      OPTIONS.add(
          ConfigOptions.key("deletion-vectors.enabled")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Primary-key tables (deduplicate, first-row): readers skip level 0 and apply"
                      + " deletion vectors instead of merging runs."));

  public static final ConfigOption<Boolean> LOCAL_CACHE_ENABLED =
      OPTIONS.add(
          ConfigOptions.key("local-cache.enabled")
              .booleanType()
              .defaultValue(true)
              .withDescription(
                  "Keep key lookups of higher levels on local disk; required to compact a"
                      + " deletion-vector table (its writers then compact level 0 at every commit, so"
                      + " committed rows are visible at once)."));

  public static final ConfigOption<String> LOCAL_CACHE_DIR =
      OPTIONS.add(
          ConfigOptions.key("local-cache.dir")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "Directory of the local cache. Default: java.io.tmpdir/sediment-cache."));

  public static final ConfigOption<MemorySize> LOCAL_CACHE_MAX_SIZE =
      OPTIONS.add(
          ConfigOptions.key("local-cache.max-size")
              .memoryType()
              .defaultValue(MemorySize.parse("1 gb"))
              .withDescription("Largest size the local cache may take on disk."),
          OptionRule.positiveSize());

  private PrimaryKeyOptions() {}
}
