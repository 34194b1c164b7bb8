package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.SortedRun;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.data.RowData;

/**
 * Picks the sorted runs of one primary-key bucket to merge, by RocksDB's universal compaction rules
 * (runs ordered newest first):
 *
 * <ol>
 *   <li>size amplification: when the runs newer than the oldest are together larger than {@code
 *       compaction.max-size-amplification-percent} of the oldest, merge all runs;
 *   <li>size ratio: starting at the newest run, keep adding the next older run while it is not
 *       larger than (100 + {@code compaction.size-ratio})% of the runs picked so far; merge the
 *       picked runs if there are at least two;
 *   <li>run count: when there are more than {@code num-sorted-run.compaction-trigger} runs, merge
 *       the newest (runs - trigger + 1) runs (and more by the size ratio).
 * </ol>
 *
 * <p>Room for the writer: where {@code write-only} writers wait at the stop trigger ({@code
 * write-only.stop-trigger-wait} set in the options planned with), rule 3 leaves a bucket room under
 * {@code num-sorted-run.stop-trigger} for as many new runs as it gathered at level 0 since its last
 * merge (about one interval of a compaction job that merges it every interval): its trigger is then
 * {@code min(compaction-trigger, max(2, stop-trigger - level-0 runs))}, also over a smaller pick of
 * rules 1 and 2, and the merge is never smaller than rule 3's without the option. With the defaults
 * and a writer that adds five runs per interval, the merge leaves three runs instead of five, so
 * the five that arrive before the next merge fit under the stop trigger of eight and the writer
 * does not wait.
 *
 * <p>Rules 1 and 2 apply only when the bucket has at least {@code
 * num-sorted-run.compaction-trigger} runs. The output goes one level below the first run not picked
 * (never level 0), or to the top level {@code num-levels - 1} when all runs are picked. A full
 * compaction merges all runs into the top level. Deletes are dropped when the output holds the
 * oldest data of the bucket. Deletion-vector tables and tables with {@code changelog-producer} =
 * lookup always move every level-0 file up; deletion-vector tables also rewrite a file whose
 * deletion vector covers more than {@code compaction.delete-ratio-threshold} of its rows when
 * nothing else is planned for the bucket. A minor compaction that these rules leave idle still
 * moves the level-0 runs up when a trigger fired for them: they add up to {@code
 * compaction.trigger.min-bytes}, or the oldest was written {@code compaction.trigger.max-delay}
 * ago.
 */
public final class UniversalCompaction implements CompactPlanner.BucketStrategy {

  private final int maxLevel;
  private final int trigger;
  private final int stopTrigger;
  // write-only.stop-trigger-wait set: rule 3 leaves room for the writer's next runs
  private final boolean roomForWriter;
  private final int maxSizeAmp;
  private final int sizeRatio;
  private final boolean full;
  private final boolean deletionVectors;
  private final boolean lookupChangelog;
  private final double deleteRatioThreshold;
  private final Comparator<RowData> keyRowComparator;
  private final CompactTrigger level0Trigger;

  /** Full when {@code compaction.full} is set (a writer's own compaction), else minor. */
  public UniversalCompaction(FileStore store) {
    this(store, store.options().get(CompactionOptions.COMPACTION_FULL));
  }

  /** {@code full}: every bucket's runs merge into the top level ({@link CompactStrategy#FULL}). */
  public UniversalCompaction(FileStore store, boolean full) {
    TableOptions o = store.options();
    this.maxLevel = Math.max(1, o.numLevels() - 1);
    this.trigger = o.numSortedRunCompactionTrigger();
    this.stopTrigger = o.numSortedRunStopTrigger();
    this.roomForWriter = !o.get(PrimaryKeyOptions.WRITE_ONLY_STOP_TRIGGER_WAIT).isZero();
    this.maxSizeAmp = o.get(CompactionOptions.COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT);
    this.sizeRatio = o.get(CompactionOptions.COMPACTION_SIZE_RATIO);
    this.full = full;
    this.deletionVectors = o.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    this.lookupChangelog = o.lookupChangelog();
    this.deleteRatioThreshold = o.get(CompactionOptions.COMPACTION_DELETE_RATIO_THRESHOLD);
    this.keyRowComparator = new KeyValueLayout(store.schema()).keyRowComparator();
    this.level0Trigger = CompactTrigger.of(o, store.clock());
  }

  public int maxLevel() {
    return maxLevel;
  }

  @Override
  public List<CompactTask> plan(CompactPlanner.Bucket bucket) {
    List<SortedRun> runs = SortedRun.of(bucket.files(), keyRowComparator);
    Pick pick = pick(runs);
    if (pick == null && full && deletionVectors && hasDeletedRows(bucket)) {
      // One run at the top level whose files have deleted rows (deletes merged into the levels
      // mark them instead of being written): a full compaction rewrites it without them, as
      // Paimon's rewrites the files that have deletion vectors.
      pick = new Pick(runs.size(), maxLevel);
    }
    if (pick == null) {
      return deletionRatioRewrite(bucket);
    }
    List<DataFileMeta> inputs = new ArrayList<>();
    for (int i = 0; i < pick.count; i++) {
      inputs.addAll(runs.get(i).files());
    }
    boolean dropDeletes = pick.count == runs.size() || deletionVectors;
    return List.of(task(bucket, inputs, pick.outputLevel, dropDeletes));
  }

  private static CompactTask task(
      CompactPlanner.Bucket bucket, List<DataFileMeta> inputs, int outputLevel, boolean drop) {
    return new CompactTask(
        bucket.table(),
        bucket.partition(),
        bucket.partitionPath(),
        bucket.bucket(),
        bucket.totalBuckets(),
        inputs,
        outputLevel,
        CompactTask.Kind.MERGE_TREE,
        drop);
  }

  /** Whether a file of the bucket has rows its deletion vector marks deleted. */
  private static boolean hasDeletedRows(CompactPlanner.Bucket bucket) {
    for (DataFileMeta f : bucket.files()) {
      Long deleted = bucket.deletedRows().get(f.fileName());
      if (deleted != null && deleted > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * A deletion-vector bucket with nothing else to do: its level >= 1 file with the largest share of
   * rows its deletion vector marks deleted, above {@code compaction.delete-ratio-threshold},
   * rewritten alone into its own level (its key range stays inside the run it was in, so the level
   * stays a sorted run; the deleted rows are gone and its deletion vector with them).
   */
  private List<CompactTask> deletionRatioRewrite(CompactPlanner.Bucket bucket) {
    if (!deletionVectors || full || bucket.deletedRows().isEmpty()) {
      return List.of();
    }
    DataFileMeta worst = null;
    double worstRatio = deleteRatioThreshold;
    for (DataFileMeta f : bucket.files()) {
      Long deleted = bucket.deletedRows().get(f.fileName());
      if (f.level() == 0 || deleted == null || f.rowCount() == 0) {
        continue;
      }
      double ratio = (double) deleted / f.rowCount();
      if (ratio > worstRatio) {
        worst = f;
        worstRatio = ratio;
      }
    }
    if (worst == null) {
      return List.of();
    }
    return List.of(task(bucket, List.of(worst), worst.level(), true));
  }

  /** How many of the newest runs to merge, and into which level. */
  public record Pick(int count, int outputLevel) {}

  /** The runs to merge (newest first), or null. */
  public Pick pick(List<SortedRun> runs) {
    if (runs.isEmpty()) {
      return null;
    }
    if (full) {
      if (runs.size() == 1) {
        SortedRun only = runs.get(0);
        boolean clean = only.level() == maxLevel;
        for (DataFileMeta f : only.files()) {
          clean &= f.deleteRowCount() == 0;
        }
        if (clean) {
          return null;
        }
      }
      return new Pick(runs.size(), maxLevel);
    }
    Pick p = null;
    if (runs.size() >= trigger) {
      p = pickForSizeAmp(runs);
      if (p == null) {
        p = pickForSizeRatio(runs, 1, false);
      }
    }
    int level0 = level0Runs(runs);
    int countTrigger = runCountTrigger(level0);
    // Rule 3; with room for the writer also when rules 1 and 2 would leave more runs than that,
    // and never fewer runs than rule 3 alone would take (unit() takes in level-0 runs up to the
    // next upper run, so a larger count can end with fewer runs).
    if ((p == null || (roomForWriter && runs.size() - p.count + 1 > countTrigger))
        && runs.size() > countTrigger) {
      p = pickForSizeRatio(runs, runs.size() - countTrigger + 1, true);
      if (countTrigger < trigger && runs.size() > trigger) {
        Pick byTrigger = pickForSizeRatio(runs, runs.size() - trigger + 1, true);
        p = byTrigger.count > p.count ? byTrigger : p;
      }
    }
    if (p == null && level0 > 0) {
      List<DataFileMeta> level0Files = new ArrayList<>();
      for (int i = 0; i < level0; i++) {
        level0Files.addAll(runs.get(i).files());
      }
      if (level0Trigger.fired(level0Files)) {
        p = unit(runs, level0);
      }
    }
    // Deletion vectors (readers skip level 0) and the lookup changelog producer (a level-0 row's
    // change is computed when it moves up, against the levels above) move every level-0 run up
    // whenever any is compacted: a newer level-0 run never leaves before an older one.
    if (deletionVectors || lookupChangelog) {
      if (level0 > 0 && (p == null || p.count < level0)) {
        p = unit(runs, level0);
      }
    }
    return p;
  }

  /**
   * Rule 3's trigger: {@code num-sorted-run.compaction-trigger}, or lower where the writer waits at
   * the stop trigger, so that a merge leaves room under it for as many runs as reached level 0
   * since the bucket's last merge.
   */
  private int runCountTrigger(int level0Runs) {
    return roomForWriter ? Math.min(trigger, Math.max(2, stopTrigger - level0Runs)) : trigger;
  }

  /** The newest runs that are at level 0 (each a file): how many. */
  private static int level0Runs(List<SortedRun> runs) {
    int level0 = 0;
    while (level0 < runs.size() && runs.get(level0).level() == 0) {
      level0++;
    }
    return level0;
  }

  private Pick pickForSizeAmp(List<SortedRun> runs) {
    long candidate = 0;
    for (int i = 0; i < runs.size() - 1; i++) {
      candidate += runs.get(i).totalSize();
    }
    long earliest = runs.get(runs.size() - 1).totalSize();
    if (runs.size() > 1 && candidate * 100 > (long) maxSizeAmp * earliest) {
      return new Pick(runs.size(), maxLevel);
    }
    return null;
  }

  private Pick pickForSizeRatio(List<SortedRun> runs, int count, boolean force) {
    long candidate = 0;
    for (int i = 0; i < count; i++) {
      candidate += runs.get(i).totalSize();
    }
    int i = count;
    for (; i < runs.size(); i++) {
      long next = runs.get(i).totalSize();
      if (candidate * (100.0 + sizeRatio) / 100.0 < next) {
        break;
      }
      candidate += next;
    }
    if (force || i > 1) {
      return unit(runs, i);
    }
    return null;
  }

  /** Merges the newest {@code count} runs; the output level is below the next run, never 0. */
  private Pick unit(List<SortedRun> runs, int count) {
    if (count >= runs.size()) {
      return new Pick(runs.size(), maxLevel);
    }
    int outputLevel = Math.max(0, runs.get(count).level() - 1);
    if (outputLevel == 0) {
      // Level 0 cannot hold a merged run: take in runs until the first level >= 1 one.
      for (int i = count; i < runs.size(); i++) {
        count++;
        if (runs.get(i).level() != 0) {
          outputLevel = runs.get(i).level();
          break;
        }
      }
    }
    if (count >= runs.size()) {
      return new Pick(runs.size(), maxLevel);
    }
    return new Pick(count, outputLevel);
  }
}
