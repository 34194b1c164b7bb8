package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.fs.FileIO;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.SortedRun;
import io.sediment.schema.Schema;
import io.sediment.schema.TableSchema;
import io.sediment.testutil.ManualClock;
import java.io.File;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The universal compaction planner of a primary-key bucket: which runs it merges and into which
 * level, by the rules in docs/primary-key-tables.md ("Compaction"). Defaults: trigger 5, 6 levels
 * (top level 5), size amplification 200 %, size ratio 1 %.
 */
class UniversalCompactionTest {

  private static final RowType KEY_TYPE = RowType.of(new BigIntType(false));

  @TempDir File dir;

  private final Map<String, String> options = new HashMap<>();
  // the planner's now for compaction.trigger.max-delay; the generated cases move it
  private final ManualClock clock = new ManualClock(Instant.parse("2024-05-01T10:00:00Z"));
  private long nextSequence;
  private int nextName;

  @BeforeEach
  void reset() {
    options.clear();
    options.put("bucket", "1");
    nextSequence = 0;
    nextName = 0;
  }

  // ---- no runs, one run -----------------------------------------------------------------------

  @Test
  void aBucketWithoutFilesGetsNoTask() {
    assertThat(plan(List.of())).isEmpty();
  }

  @Test
  void oneRunIsNeverMergedWithItself() {
    assertThat(plan(List.of(level0(100)))).isEmpty();
    assertThat(plan(List.of(file(5, 100, 0, 9)))).isEmpty();
    assertThat(plan(List.of(file(3, 100, 0, 9)))).isEmpty();

    options.put("num-sorted-run.compaction-trigger", "1");
    assertThat(plan(List.of(level0(100)))).isEmpty();
  }

  @Test
  void runsAllAtTheTopLevelAreOneRunAndLeftAlone() {
    // Several files at the top level form one sorted run (non-overlapping key ranges).
    assertThat(plan(List.of(file(5, 100, 0, 9), file(5, 100, 10, 19), file(5, 100, 20, 29))))
        .isEmpty();
  }

  // ---- rule 1: size amplification -------------------------------------------------------------

  @Test
  void sizeAmplificationAboveTheLimitMergesAllRunsIntoTheTopLevel() {
    // Newer runs 10 + 20 + 40 + 131 = 201 > 200 % of the oldest (100).
    List<DataFileMeta> files = withSizes(10, 20, 40, 131);
    files.add(file(5, 100, 0, 9));

    CompactTask task = single(plan(files));
    assertThat(task.inputs()).containsExactlyInAnyOrderElementsOf(files);
    assertThat(task.outputLevel()).isEqualTo(5);
    assertThat(task.dropDeletes()).as("the output holds the oldest data").isTrue();
    assertThat(task.kind()).isEqualTo(CompactTask.Kind.MERGE_TREE);
  }

  @Test
  void sizeAmplificationExactlyAtTheLimitDoesNotMerge() {
    // 10 + 20 + 40 + 130 = 200: not larger than 200 % of 100. The size ratio picks nothing (20 >
    // 10 x 1.01) and there are not more runs than the trigger.
    List<DataFileMeta> files = withSizes(10, 20, 40, 130);
    files.add(file(5, 100, 0, 9));
    assertThat(plan(files)).isEmpty();
  }

  @Test
  void sizeAmplificationLimitIsTheOption() {
    List<DataFileMeta> files = withSizes(10, 20, 40, 131);
    files.add(file(5, 100, 0, 9));
    options.put("compaction.max-size-amplification-percent", "300");
    assertThat(plan(files)).isEmpty();

    options.put("compaction.max-size-amplification-percent", "0");
    assertThat(single(plan(files)).inputs()).hasSize(5);
  }

  @Test
  void sizeAmplificationNeedsTriggerManyRuns() {
    // Four runs (trigger 5): newer runs 1 000 x the oldest, still nothing to do.
    List<DataFileMeta> files = withSizes(10, 20, 40);
    files.add(file(5, 1, 0, 9));
    assertThat(plan(files)).isEmpty();

    options.put("num-sorted-run.compaction-trigger", "4");
    options.put("num-levels", "6");
    assertThat(single(plan(files)).outputLevel()).isEqualTo(5);
  }

  // ---- rule 2: size ratio ---------------------------------------------------------------------

  @Test
  void sizeRatioPicksTheNewestRunsOfSimilarSizeAndOutputsBelowTheNextRun() {
    // Newest first: 10, 10, 10 (level 0), 100 (level 3), 100 000 (level 5).
    DataFileMeta oldest = file(5, 100_000, 0, 99);
    DataFileMeta l3 = file(3, 100, 0, 99);
    List<DataFileMeta> level0 = withSizes(10, 10, 10);
    List<DataFileMeta> files = new ArrayList<>(level0);
    files.add(l3);
    files.add(oldest);

    CompactTask task = single(plan(files));
    assertThat(task.inputs()).containsExactlyInAnyOrderElementsOf(level0);
    assertThat(task.outputLevel()).as("one level below the first run not picked").isEqualTo(2);
    assertThat(task.dropDeletes()).as("older runs may still hold the key").isFalse();
  }

  @Test
  void sizeRatioAllowsTheConfiguredPercentageOfFlexibility() {
    // 101 <= 100 x 1.01: picked; 102 is not.
    assertThat(single(plan(ratioRuns(101))).inputs()).hasSize(2);
    assertThat(single(plan(ratioRuns(101))).outputLevel()).isEqualTo(1);
    assertThat(plan(ratioRuns(102))).isEmpty();

    options.put("compaction.size-ratio", "5");
    assertThat(single(plan(ratioRuns(105))).inputs()).hasSize(2);
    assertThat(plan(ratioRuns(106))).isEmpty();
  }

  /** Newest first: level-0 runs of 100 and {@code second}, then levels 2, 4, 5 (five runs). */
  private List<DataFileMeta> ratioRuns(long second) {
    nextSequence = 0;
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 5_000, 0, 9));
    files.add(file(2, 1_000, 0, 9));
    files.add(level0(second));
    files.add(level0(100));
    return files;
  }

  @Test
  void sizeRatioNeedsTriggerManyRuns() {
    // Three equal level-0 runs and a large top run: four runs, below the trigger.
    List<DataFileMeta> files = withSizes(10, 10, 10);
    files.add(file(5, 100_000, 0, 9));
    assertThat(plan(files)).isEmpty();
  }

  // ---- rule 3: run count ----------------------------------------------------------------------

  @Test
  void moreRunsThanTheTriggerMergeTheNewestRunsBeyondIt() {
    // Six runs of fast-growing size: rules 1 and 2 pick nothing; 6 - 5 + 1 = 2 runs are merged.
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.add(file(2, 100, 0, 9));
    List<DataFileMeta> newest = withSizes(1, 10);
    files.addAll(newest);

    CompactTask task = single(plan(files));
    assertThat(task.inputs()).containsExactlyInAnyOrderElementsOf(newest);
    assertThat(task.outputLevel()).isEqualTo(1);
    assertThat(task.dropDeletes()).isFalse();
  }

  @Test
  void exactlyTriggerManyRunsWithoutRatioOrAmplificationDoNotMerge() {
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.add(file(2, 100, 0, 9));
    files.addAll(withSizes(1));
    assertThat(plan(files)).isEmpty();
  }

  @Test
  void runCountTriggerIsTheOption() {
    // Four level-0 runs of fast-growing size over a large top run.
    List<DataFileMeta> files = withSizes(1, 10, 100, 1_000);
    files.add(file(5, 1_000_000, 0, 9));
    assertThat(plan(files)).isEmpty();

    options.put("num-sorted-run.compaction-trigger", "3");
    options.put("num-levels", "6");
    // 5 runs - 3 + 1 = 3 newest runs; the next is level 0, so it is taken in as well, and then
    // all runs are level 0 up to the top run: everything merges into the top level.
    CompactTask task = single(plan(files));
    assertThat(task.inputs()).hasSize(5);
    assertThat(task.outputLevel()).isEqualTo(5);
  }

  @Test
  void runCountPickIsExtendedByTheSizeRatio() {
    // Six runs: the two newest are forced in (6 - 5 + 1), and the next one is within the ratio.
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.add(file(2, 11, 0, 9));
    files.addAll(withSizes(1, 10));
    CompactTask task = single(plan(files));
    assertThat(task.inputs()).hasSize(3);
    assertThat(task.outputLevel()).isEqualTo(2);
  }

  // ---- output level ---------------------------------------------------------------------------

  @Test
  void theOutputIsNeverLevel0() {
    // The runs picked by count are followed by a level-1 run: one below it would be level 0, so
    // the level-1 run is taken in and the output stays at level 1.
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(3, 10_000, 0, 9));
    files.add(file(2, 1_000, 0, 9));
    DataFileMeta l1 = file(1, 100, 0, 9);
    files.add(l1);
    List<DataFileMeta> newest = withSizes(1, 10);
    files.addAll(newest);

    CompactTask task = single(plan(files));
    List<DataFileMeta> expected = new ArrayList<>(newest);
    expected.add(l1);
    assertThat(task.inputs()).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(task.outputLevel()).isEqualTo(1);
  }

  @Test
  void theTopLevelIsNumLevelsMinusOne() {
    options.put("num-levels", "3");
    List<DataFileMeta> files = withSizes(100, 100, 100, 100);
    files.add(file(2, 100, 0, 9));
    assertThat(single(plan(files)).outputLevel()).isEqualTo(2);
    assertThat(strategy().maxLevel()).isEqualTo(2);
  }

  @Test
  void inputsAreTheFilesOfThePickedRunsNewestFirst() {
    // Level-0 files come newest (highest sequence) first whatever order the bucket lists them in;
    // a level's files come in key order.
    DataFileMeta older = level0(10);
    DataFileMeta newer = level0(10);
    DataFileMeta high = file(4, 10, 50, 59);
    DataFileMeta low = file(4, 10, 0, 9);
    List<DataFileMeta> files = new ArrayList<>(List.of(older, high, newer, low));
    files.addAll(0, withSizes(10, 10, 10)); // six runs in all, the newest three these

    options.put("num-sorted-run.compaction-trigger", "6");
    options.put("num-levels", "6");
    List<SortedRun> runs =
        SortedRun.of(files, new KeyValueLayout(store().schema()).keyRowComparator());
    assertThat(runs).extracting(SortedRun::level).containsExactly(0, 0, 0, 0, 0, 4);
    assertThat(runs.get(3).files()).containsExactly(newer);
    assertThat(runs.get(4).files()).containsExactly(older);
    assertThat(runs.get(5).files()).containsExactly(low, high);

    options.put("compaction.full", "true");
    CompactTask task = single(plan(files));
    assertThat(task.inputs().subList(3, 7)).containsExactly(newer, older, low, high);
  }

  // ---- full compaction ------------------------------------------------------------------------

  @Test
  void fullCompactionMergesEveryRunIntoTheTopLevelAndDropsDeletes() {
    options.put("compaction.full", "true");
    List<DataFileMeta> files = withSizes(1, 1_000);
    files.add(file(2, 10, 0, 9));
    files.add(file(5, 1_000_000, 0, 9));

    CompactTask task = single(plan(files));
    assertThat(task.inputs()).containsExactlyInAnyOrderElementsOf(files);
    assertThat(task.outputLevel()).isEqualTo(5);
    assertThat(task.dropDeletes()).isTrue();
  }

  @Test
  void fullCompactionMovesASingleLowerRunToTheTopLevel() {
    options.put("compaction.full", "true");
    DataFileMeta l0 = level0(10);
    assertThat(single(plan(List.of(l0))).outputLevel()).isEqualTo(5);
    DataFileMeta l2 = file(2, 10, 0, 9);
    assertThat(single(plan(List.of(l2))).inputs()).containsExactly(l2);
  }

  @Test
  void fullCompactionLeavesACleanTopRunAloneButRewritesOneWithDeletes() {
    options.put("compaction.full", "true");
    assertThat(plan(List.of(file(5, 10, 0, 9), file(5, 10, 10, 19)))).isEmpty();

    DataFileMeta withDeletes = file(5, 10, 10, 19, 3);
    CompactTask task = single(plan(List.of(file(5, 10, 0, 9), withDeletes)));
    assertThat(task.inputs()).hasSize(2).contains(withDeletes);
    assertThat(task.outputLevel()).isEqualTo(5);
    assertThat(task.dropDeletes()).isTrue();
  }

  // ---- deletion vectors -----------------------------------------------------------------------

  @Test
  void deletionVectorTablesAlwaysMoveEveryLevel0FileUp() {
    options.put("deletion-vectors.enabled", "true");
    options.put("local-cache.enabled", "true");
    // Two runs: far below the trigger, yet the level-0 file must leave level 0 (readers skip it).
    DataFileMeta l0 = level0(10);
    DataFileMeta top = file(5, 1_000_000, 0, 9);
    CompactTask task = single(plan(List.of(l0, top)));
    assertThat(task.inputs()).contains(l0);
    assertThat(task.outputLevel()).isBetween(1, 5);
    assertThat(task.dropDeletes()).isTrue();

    assertThat(plan(List.of(top))).isEmpty();
  }

  // ---- the task ------------------------------------------------------------------------------

  @Test
  void theTaskCarriesTheBucketItWasPlannedFor() {
    options.put("compaction.full", "true");
    DataFileMeta l0 = level0(10);
    BinaryRowData partition = BinaryRows.EMPTY;
    List<CompactTask> tasks =
        strategy().plan(new CompactPlanner.Bucket("db.t", partition, "", 0, 1, List.of(l0)));
    CompactTask task = single(tasks);
    assertThat(task.table()).isEqualTo("db.t");
    assertThat(task.bucket()).isZero();
    assertThat(task.totalBuckets()).isEqualTo(1);
    assertThat(task.partition()).isEqualTo(partition);
  }

  // ---- many rounds -----------------------------------------------------------------------------

  @Test
  void overManyFlushesEveryMergeTakesTheNewestRunsAndKeepsOneRunPerLevel() {
    Random random = new Random(42);
    UniversalCompaction strategy = strategy();
    KeyValueLayout layout = new KeyValueLayout(store().schema());
    List<DataFileMeta> files = new ArrayList<>();
    int merges = 0;
    for (int round = 0; round < 300; round++) {
      files.add(level0(1 + random.nextInt(100))); // a flush
      List<SortedRun> runs = SortedRun.of(files, layout.keyRowComparator());
      List<CompactTask> tasks = plan(files);
      if (tasks.isEmpty()) {
        assertThat(runs.size()).as("round %s", round).isLessThanOrEqualTo(5);
        continue;
      }
      merges++;
      CompactTask task = single(tasks);
      // The inputs are whole runs, the newest ones.
      int picked = 0;
      long size = 0;
      List<DataFileMeta> expected = new ArrayList<>();
      while (expected.size() < task.inputs().size()) {
        expected.addAll(runs.get(picked++).files());
      }
      assertThat(task.inputs()).as("round %s", round).containsExactlyElementsOf(expected);
      assertThat(task.dropDeletes()).isEqualTo(picked == runs.size());
      assertThat(task.outputLevel()).isBetween(1, 5);
      if (picked < runs.size()) {
        assertThat(task.outputLevel())
            .as("round %s: below the first run not picked", round)
            .isLessThan(runs.get(picked).level());
      }
      for (DataFileMeta f : task.inputs()) {
        size += f.fileSize();
      }
      files.removeAll(task.inputs());
      files.add(file(task.outputLevel(), size, 0, 99));
      assertThat(SortedRun.of(files, layout.keyRowComparator()))
          .as("round %s: runs after the merge", round)
          .hasSizeLessThanOrEqualTo(5)
          .allSatisfy(r -> assertThat(r.files()).hasSize(1));
    }
    assertThat(merges).isGreaterThan(50);
  }

  // ---- room for a waiting writer --------------------------------------------------------------

  @Test
  void withTheWriterWaitingAMergeLeavesRoomForTheRunsThatReachedLevel0() {
    // Upper levels 5, 4, 3, 2 of fast-growing sizes and five level-0 runs of one interval.
    List<DataFileMeta> files = new ArrayList<>();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.add(file(2, 100, 0, 9));
    List<DataFileMeta> level0 = withSizes(1, 1, 1, 1, 1);
    files.addAll(level0);

    // Without the wait: the size ratio takes the five level-0 runs, and five runs are left, so
    // the next five fill the bucket past the stop trigger (8).
    CompactTask paimonLike = single(plan(files));
    assertThat(paimonLike.inputs()).containsExactlyInAnyOrderElementsOf(level0);
    assertThat(paimonLike.outputLevel()).isEqualTo(1);

    // With it: 8 - 5 level-0 runs = a trigger of 3, so the merge also takes levels 2 and 3 and
    // leaves three runs (levels 5, 4 and its output at 3).
    options.put("write-only.stop-trigger-wait", "10 s");
    CompactTask roomy = single(plan(files));
    assertThat(roomy.inputs()).hasSize(7).containsAll(level0).doesNotContain(files.get(0));
    assertThat(roomy.inputs()).doesNotContain(files.get(1));
    assertThat(roomy.outputLevel()).isEqualTo(3);
    assertThat(roomy.dropDeletes()).isFalse();

    // The configured trigger still bounds it: never more runs left than the compaction trigger.
    options.put("num-sorted-run.compaction-trigger", "2");
    options.put("num-sorted-run.stop-trigger", "20");
    options.put("num-levels", "6");
    assertThat(single(plan(files)).inputs()).hasSize(8);
  }

  @Test
  void roomForTheWriterLeavesAtLeastTwoRunsAndNothingBelowTheTrigger() {
    options.put("write-only.stop-trigger-wait", "10 s");
    // Seven level-0 runs against a stop trigger of 8: room for seven would leave one run, so the
    // merge leaves two, the oldest run and its own output (without the wait: levels 5, 4 and 3).
    List<DataFileMeta> files = new ArrayList<>();
    DataFileMeta oldest = file(5, 1_000_000, 0, 9);
    files.add(oldest);
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.addAll(withSizes(1, 2, 4, 8, 16, 32, 64));
    CompactTask task = single(plan(files));
    assertThat(task.inputs()).hasSize(9).doesNotContain(oldest);
    assertThat(task.outputLevel()).isEqualTo(4);

    // Two level-0 runs over three upper levels: five runs, no more than the trigger, nothing to
    // merge (room for two is there).
    files.clear();
    files.add(file(5, 1_000_000, 0, 9));
    files.add(file(4, 10_000, 0, 9));
    files.add(file(3, 1_000, 0, 9));
    files.addAll(withSizes(1, 10));
    assertThat(plan(files)).isEmpty();
  }

  /**
   * Generated: room for the writer only ever adds runs to a merge. Over random buckets (level-0
   * runs over some of the upper levels, sizes spread over four orders of magnitude), a bucket
   * merged without the option is merged with it, taking at least the same newest runs.
   */
  @Test
  void roomForTheWriterNeverMergesFewerRunsThanWithoutIt() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(11);
    for (int c = 0; c < 2_000; c++) {
      reset();
      options.put("num-levels", "6");
      List<DataFileMeta> files = new ArrayList<>();
      for (int level = 5; level >= 1; level--) {
        if (r.nextInt(3) != 0) {
          files.add(file(level, (long) Math.pow(10, 1 + r.nextDouble() * 4), 0, 9));
        }
      }
      int level0 = r.nextInt(9);
      for (int i = 0; i < level0; i++) {
        files.add(level0((long) Math.pow(10, r.nextDouble() * 3)));
      }
      List<CompactTask> without = plan(files);
      options.put("write-only.stop-trigger-wait", "10 s");
      List<CompactTask> with = plan(files);
      String label = "case " + c + ": " + files;
      if (without.isEmpty()) {
        continue;
      }
      assertThat(with).as(label).hasSize(1);
      assertThat(with.get(0).inputs())
          .as(label)
          .hasSizeGreaterThanOrEqualTo(without.get(0).inputs().size())
          .containsAll(without.get(0).inputs());
    }
  }

  /**
   * Generated: a write-only writer adds {@code k} runs per interval of the compaction job, which
   * merges once per interval and commits before the writer's next run. With {@code
   * write-only.stop-trigger-wait} set, whatever the triggers, sizes and {@code k <= stop - 2}, the
   * writer never finds its next run past {@code num-sorted-run.stop-trigger}, so it never waits.
   * Without it (the compaction trigger's rule alone) some of the same cases pass the trigger.
   */
  @Test
  void withTheWriterWaitingItsRunsOfOneIntervalAlwaysFitUnderTheStopTrigger() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(7);
    int casesPastTheTriggerWithoutRoom = 0;
    for (int c = 0; c < 200; c++) {
      int trigger = 2 + r.nextInt(5);
      int stop = trigger + 1 + r.nextInt(5);
      int levels = trigger + 1 + r.nextInt(3);
      int perInterval = 1 + r.nextInt(stop - 2);
      long seed = r.nextLong();
      String label =
          "trigger " + trigger + ", stop " + stop + ", levels " + levels + ", runs " + perInterval;
      assertThat(passesOfTheStopTrigger(trigger, stop, levels, perInterval, seed, true))
          .as("with room for the writer: %s", label)
          .isZero();
      if (passesOfTheStopTrigger(trigger, stop, levels, perInterval, seed, false) > 0) {
        casesPastTheTriggerWithoutRoom++;
      }
    }
    assertThat(casesPastTheTriggerWithoutRoom).as("the cases reach the stop trigger").isPositive();
  }

  /** 200 intervals of the loop above: how often the writer's next run passed the stop trigger. */
  private int passesOfTheStopTrigger(
      int trigger, int stop, int levels, int perInterval, long seed, boolean room) {
    reset();
    options.put("num-sorted-run.compaction-trigger", String.valueOf(trigger));
    options.put("num-sorted-run.stop-trigger", String.valueOf(stop));
    options.put("num-levels", String.valueOf(levels));
    if (room) {
      options.put("write-only.stop-trigger-wait", "10 s");
    }
    UniversalCompaction strategy = strategy();
    KeyValueLayout layout = new KeyValueLayout(store().schema());
    Random random = new Random(seed);
    List<DataFileMeta> files = new ArrayList<>();
    int passes = 0;
    for (int interval = 0; interval < 200; interval++) {
      for (int i = 0; i < perInterval; i++) {
        if (SortedRun.of(files, layout.keyRowComparator()).size() + 1 > stop) {
          passes++;
        }
        files.add(level0(1 + random.nextInt(100)));
      }
      List<CompactTask> tasks =
          strategy.plan(new CompactPlanner.Bucket("db.t", BinaryRows.EMPTY, "", 0, 1, files));
      for (CompactTask task : tasks) {
        long size = 0;
        for (DataFileMeta f : task.inputs()) {
          size += f.fileSize();
        }
        files.removeAll(task.inputs());
        files.add(file(task.outputLevel(), size, 0, 99));
      }
    }
    return passes;
  }

  // ---- deletion-ratio rewrites ----------------------------------------------------------------

  @Test
  void aDeletionVectorFileAboveTheDeleteRatioIsRewrittenAloneIntoItsLevel() {
    options.put("deletion-vectors.enabled", "true");
    DataFileMeta a = file(5, 100, 0, 9);
    DataFileMeta b = file(5, 100, 10, 19);
    DataFileMeta c = file(3, 100, 20, 29);
    List<DataFileMeta> files = List.of(c, a, b);
    // 10 rows each: 3, 5 and 1 of them marked deleted
    Map<String, Long> deleted = Map.of(a.fileName(), 3L, b.fileName(), 5L, c.fileName(), 1L);
    CompactTask t = single(plan(files, deleted));
    assertThat(t.inputs()).containsExactly(b);
    assertThat(t.outputLevel()).as("its own level").isEqualTo(5);
    assertThat(t.dropDeletes()).isTrue();

    options.put("compaction.delete-ratio-threshold", "0.5");
    assertThat(plan(files, deleted)).as("0.5 is not above 0.5").isEmpty();
    options.put("compaction.delete-ratio-threshold", "0.25");
    assertThat(single(plan(files, deleted)).inputs()).containsExactly(b);

    // level-0 files move up first; the rewrite waits for a round with nothing else to do
    DataFileMeta l0 = level0(10);
    assertThat(single(plan(List.of(l0, c, a, b), deleted)).inputs()).contains(l0);
    // without deletion vectors there is nothing to rewrite
    options.remove("deletion-vectors.enabled");
    assertThat(plan(files, deleted)).isEmpty();
  }

  @Test
  void theDeleteRatioThresholdIsValidated() {
    options.put("compaction.delete-ratio-threshold", "0");
    assertThatThrownBy(this::store)
        .hasMessageContaining("compaction.delete-ratio-threshold")
        .hasMessageContaining("must be > 0 and <= 1");
  }

  // ---- helpers --------------------------------------------------------------------------------

  private FileStore store() {
    Schema.Builder schema =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("k");
    options.forEach(schema::option);
    TableSchema tableSchema = TableSchema.create(schema.build(), clock.millis());
    Path root = new Path(dir.toURI());
    return new FileStore(FileIO.of(root), root, tableSchema, tableSchema.tableOptions())
        .withClock(clock);
  }

  private UniversalCompaction strategy() {
    return new UniversalCompaction(store());
  }

  private List<CompactTask> plan(List<DataFileMeta> files) {
    return strategy().plan(new CompactPlanner.Bucket("db.t", BinaryRows.EMPTY, "", 0, 1, files));
  }

  private List<CompactTask> plan(List<DataFileMeta> files, Map<String, Long> deletedRows) {
    return strategy()
        .plan(new CompactPlanner.Bucket("db.t", BinaryRows.EMPTY, "", 0, 1, files, deletedRows));
  }

  private static CompactTask single(List<CompactTask> tasks) {
    assertThat(tasks).hasSize(1);
    return tasks.get(0);
  }

  /** Level-0 files with the given sizes, newest first (later ones get lower sequences). */
  private List<DataFileMeta> withSizes(long... sizes) {
    List<DataFileMeta> files = new ArrayList<>();
    for (int i = sizes.length - 1; i >= 0; i--) {
      files.add(0, level0(sizes[i]));
    }
    return files;
  }

  /** A level-0 file newer than every file made before it. */
  private DataFileMeta level0(long size) {
    return file(0, size, 0, 99);
  }

  /**
   * Generated: level-0 runs below the run-count trigger move up exactly when a byte or time trigger
   * fired for them (their bytes, the age of the oldest), all of them together.
   */
  @Test
  void byteAndTimeTriggersMoveTheLevel0RunsUpExactlyWhenTheyFire() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(41);
    for (int i = 0; i < 300; i++) {
      reset();
      clock.advance(Duration.ofSeconds(r.nextInt(100_000)));
      long now = clock.millis();
      options.put("num-sorted-run.compaction-trigger", "10");
      Long minBytes = r.nextBoolean() ? 50L + r.nextInt(400) : null;
      if (minBytes != null) {
        options.put("compaction.trigger.min-bytes", minBytes + " b");
      }
      boolean delay = r.nextBoolean();
      if (delay) {
        options.put("compaction.trigger.max-delay", "1 h");
      }
      List<DataFileMeta> files = new ArrayList<>();
      if (r.nextBoolean()) {
        files.add(file(5, 1000, 0, 99));
      }
      int level0 = 1 + r.nextInt(4);
      long bytes = 0;
      long oldest = Long.MAX_VALUE;
      for (int f = 0; f < level0; f++) {
        long size = 10 + r.nextInt(150);
        long written = ManualClock.writtenAround(now, 3_600_000L, r); // max-delay 1 h
        files.add(file(0, size, 0, 99, 0, written));
        bytes += size;
        oldest = Math.min(oldest, written);
      }
      boolean fires =
          (minBytes != null && bytes >= minBytes) || (delay && oldest <= now - 3_600_000L);
      List<CompactTask> tasks = plan(files);
      assertThat(tasks)
          .as("case %s: %s bytes, options %s", i, bytes, options)
          .hasSize(fires ? 1 : 0);
      if (fires) {
        assertThat(tasks.get(0).inputs().stream().filter(f -> f.level() == 0)).hasSize(level0);
        assertThat(tasks.get(0).outputLevel()).isPositive();
      }
    }
  }

  private DataFileMeta file(int level, long size, long minKey, long maxKey) {
    return file(level, size, minKey, maxKey, 0);
  }

  private DataFileMeta file(int level, long size, long minKey, long maxKey, long deleteRows) {
    return file(level, size, minKey, maxKey, deleteRows, 0);
  }

  /** The same, its creation time {@code writtenMillis}. */
  private DataFileMeta file(
      int level, long size, long minKey, long maxKey, long deleteRows, long writtenMillis) {
    long seq = nextSequence;
    nextSequence += 10;
    return new DataFileMeta(
        "data-" + nextName++ + ".parquet",
        size,
        10,
        key(minKey),
        key(maxKey),
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        new long[0],
        seq,
        seq + 9,
        0,
        level,
        writtenMillis,
        level == 0 ? FileSource.APPEND : FileSource.COMPACT,
        deleteRows);
  }

  private static BinaryRowData key(long k) {
    return BinaryRows.toBinary(KEY_TYPE, GenericRowData.of(k));
  }
}
