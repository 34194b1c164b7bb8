package io.sediment.schema;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Table options of compaction: what is small, when a group is rewritten, triggers and budgets, and
 * the dedicated job's discovery, failure and orphan-removal settings. Each option is declared with
 * the rule its values keep; {@link TableOptions} validates and reads them. docs/configuration.md is
 * the user-facing copy; keep them in step.
 */
public final class CompactionOptions {

  static final OptionSet OPTIONS = new OptionSet();

  public static final ConfigOption<Double> COMPACTION_SMALL_FILE_RATIO =
      OPTIONS.add(
          ConfigOptions.key("compaction.small-file-ratio")
              .doubleType()
              .defaultValue(0.75)
              .withDescription(
                  "A data file is small, and a candidate for minor compaction, when it is smaller"
                      + " than target-file-size x this ratio (0 < ratio <= 1)."),
          OptionRule.fraction());

  public static final ConfigOption<Integer> COMPACTION_MIN_FILE_NUM =
      OPTIONS.add(
          ConfigOptions.key("compaction.min.file-num")
              .intType()
              .defaultValue(5)
              .withDescription(
                  "Minor compaction of an append table rewrites a group only when it holds at least"
                      + " this many files (a full compaction takes any group of two or more)."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Boolean> COMPACTION_FULL =
      OPTIONS.add(
          ConfigOptions.key("compaction.full")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Full compaction: every file below target-file-size is rewritten (append tables),"
                      + " all sorted runs merge into the top level (primary-key tables). Usually given"
                      + " as a dynamic option to one compaction."));

  public static final ConfigOption<MemorySize> COMPACTION_COPY_MIN_ROW_GROUP_SIZE =
      OPTIONS.add(
          ConfigOptions.key("compaction.copy.min-row-group-size")
              .memoryType()
              .noDefaultValue()
              .withDescription(
                  "Compaction of an append table copies an input row group byte for byte only when it"
                      + " holds at least this many (compressed) bytes; smaller row groups are decoded"
                      + " and written again into row groups of parquet.row-group-size. Default: half"
                      + " of parquet.row-group-size."),
          OptionRule.positiveSize());

  public static final ConfigOption<Integer> COMPACTION_PARALLELISM =
      OPTIONS.add(
          ConfigOptions.key("compaction.parallelism")
              .intType()
              .defaultValue(Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())))
              .withDescription(
                  "Tasks rewritten at once by an in-process compaction (CompactBuilder), and the"
                      + " default rewrite parallelism of the Flink compaction jobs. Default: the"
                      + " number of cores, at most 4."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Duration> COMPACTION_DISCOVERY_INTERVAL =
      OPTIONS.add(
          ConfigOptions.key("compaction.discovery-interval")
              .durationType()
              .defaultValue(Duration.ofSeconds(10))
              .withDescription(
                  "How often the dedicated streaming compaction job looks for new snapshots."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<Duration> COMPACTION_CHECKPOINT_WAIT =
      OPTIONS.add(
          ConfigOptions.key("compaction.checkpoint-wait")
              .durationType()
              .defaultValue(Duration.ofSeconds(2))
              .withDescription(
                  "How long a checkpoint of the dedicated streaming compaction job waits for a"
                      + " rewrite still running at its barrier, so that the rewrite's output is"
                      + " committed at this checkpoint instead of the next; each rewrite is waited"
                      + " for once at most. 0: a checkpoint never waits."),
          OptionRule.nonNegativeDuration("2 s"));

  public static final ConfigOption<Integer> COMPACTION_MAX_CONSECUTIVE_FAILURES =
      OPTIONS.add(
          ConfigOptions.key("compaction.max-consecutive-failures")
              .intType()
              .defaultValue(3)
              .withDescription(
                  "The dedicated streaming compaction job fails after this many commit windows in a"
                      + " row had a failed task."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Boolean> WRITE_ONLY =
      OPTIONS.add(
          ConfigOptions.key("write-only")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "Writers never compact and never expire snapshots; only a compaction job, the"
                      + " sys.compact procedure or CompactBuilder does."));

  public static final ConfigOption<Integer> COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT =
      OPTIONS.add(
          ConfigOptions.key("compaction.max-size-amplification-percent")
              .intType()
              .defaultValue(200)
              .withDescription(
                  "Universal compaction: merge all runs when the runs above the oldest are larger"
                      + " than this percentage of the oldest run."),
          OptionRule.atLeast(0));

  public static final ConfigOption<Integer> COMPACTION_SIZE_RATIO =
      OPTIONS.add(
          ConfigOptions.key("compaction.size-ratio")
              .intType()
              .defaultValue(1)
              .withDescription(
                  "Universal compaction: percentage flexibility when comparing the size of a run"
                      + " with the sum of the newer runs picked before it. Append tables without fixed"
                      + " buckets: how much larger than the smaller files of its group together a"
                      + " file in a minor compaction's group may be."),
          OptionRule.atLeast(0));

  public static final ConfigOption<Duration> COMPACTION_OPTIMIZATION_INTERVAL =
      OPTIONS.add(
          ConfigOptions.key("compaction.optimization-interval")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "A dedicated compaction job plans a full compaction of the table when this long"
                      + " has passed since its last full round (or its start) and commits other than"
                      + " compactions landed meanwhile. Unset: never. Paimon's name."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<Integer> FULL_COMPACTION_DELTA_COMMITS =
      OPTIONS.add(
          ConfigOptions.key("full-compaction.delta-commits")
              .intType()
              .noDefaultValue()
              .withDescription(
                  "A dedicated compaction job plans a full compaction of the table once this many"
                      + " APPEND or OVERWRITE commits have landed since its last full round (its minor"
                      + " rounds go on in between). Unset: never. Paimon's name."),
          OptionRule.atLeast(1));

  public static final ConfigOption<MemorySize> COMPACTION_TRIGGER_MIN_BYTES =
      OPTIONS.add(
          ConfigOptions.key("compaction.trigger.min-bytes")
              .memoryType()
              .noDefaultValue()
              .withDescription(
                  "Minor compaction: an append bucket's small files (two or more) are compacted once"
                      + " they add up to this size, even when fewer than compaction.min.file-num; a"
                      + " primary-key bucket's level-0 runs move up once they add up to it, even when"
                      + " fewer than num-sorted-run.compaction-trigger. Unset: only the counts."),
          OptionRule.positiveSize());

  public static final ConfigOption<Duration> COMPACTION_TRIGGER_MAX_DELAY =
      OPTIONS.add(
          ConfigOptions.key("compaction.trigger.max-delay")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "Minor compaction: an append bucket's small files (two or more), or a primary-key"
                      + " bucket's level-0 runs, are compacted once the oldest of them was written this"
                      + " long ago, even when the counts have not triggered. Unset: only the counts."),
          OptionRule.positiveDuration("10 s"));

  public static final ConfigOption<MemorySize> COMPACTION_MAX_REWRITE_BYTES =
      OPTIONS.add(
          ConfigOptions.key("compaction.max-rewrite-bytes")
              .memoryType()
              .noDefaultValue()
              .withDescription(
                  "The most input bytes one compaction commit rewrites: each planning round takes its"
                      + " tasks in plan order up to this size (at least one task; a sort compaction's"
                      + " ranges of a bucket go together), the rest is planned by the next round."
                      + " Unset: no limit."),
          OptionRule.positiveSize());

  public static final ConfigOption<Boolean> PARTIAL_PROGRESS_ENABLED =
      OPTIONS.add(
          ConfigOptions.key("partial-progress.enabled")
              .booleanType()
              .defaultValue(false)
              .withDescription(
                  "A batch compaction commits in several COMPACT snapshots, each of at most"
                      + " compaction.max-rewrite-bytes (unset: the plan split evenly over"
                      + " partial-progress.max-commits), so a failure late in a long run keeps the"
                      + " commits made before it. Iceberg's name."));

  public static final ConfigOption<Integer> PARTIAL_PROGRESS_MAX_COMMITS =
      OPTIONS.add(
          ConfigOptions.key("partial-progress.max-commits")
              .intType()
              .defaultValue(10)
              .withDescription(
                  "With partial-progress.enabled: the most commits one batch compaction makes; what"
                      + " is left after them waits for the next run. Iceberg's name and default."),
          OptionRule.atLeast(1));

  public static final ConfigOption<Double> COMPACTION_DELETE_RATIO_THRESHOLD =
      OPTIONS.add(
          ConfigOptions.key("compaction.delete-ratio-threshold")
              .doubleType()
              .defaultValue(0.2)
              .withDescription(
                  "Deletion-vector tables: a data file whose deletion vector marks more than this"
                      + " fraction of its rows deleted is rewritten (alone, into its level) by the next"
                      + " minor compaction that plans nothing else for its bucket. Paimon's name"
                      + " (there for append tables)."),
          OptionRule.fraction());

  public static final ConfigOption<Duration> COMPACTION_REMOVE_ORPHANS_INTERVAL =
      OPTIONS.add(
          ConfigOptions.key("compaction.remove-orphans.interval")
              .durationType()
              .noDefaultValue()
              .withDescription(
                  "How often the dedicated compaction job removes orphan files older than a day"
                      + " (after a commit). Not set: never."),
          OptionRule.positiveDuration("10 s"));

  private CompactionOptions() {}
}
