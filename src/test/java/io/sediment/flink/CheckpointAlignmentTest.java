package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** When a continuous job's planning rounds hand their tasks over relative to its checkpoints. */
class CheckpointAlignmentTest {

  private static final long POLL = 1_000;

  @Test
  void noRoundWaitsBeforeTwoCheckpointsWereSeen() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    assertThat(a.waits(0)).isFalse();
    assertThat(a.inWindow(0)).isFalse();
    assertThat(a.handsOver(0, 0, 1_000)).isTrue();
    a.checkpointTriggered(10_000);
    assertThat(a.waits(10_000)).isFalse();
    a.checkpointTriggered(10_000); // the same instant tells no interval
    assertThat(a.waits(10_000)).isFalse();
    assertThat(a.inWindow(19_500)).isFalse();
    assertThat(a.handsOver(19_500, 0, 1_000)).isTrue();
  }

  /**
   * A job's alignment knows its configured interval: rounds wait for the first checkpoint, aim at
   * it plus the interval, and until a period of rewriting was measured estimate the rewrite at a
   * cold JVM's pace; what is measured then replaces both.
   */
  @Test
  void aConfiguredIntervalAimsTheFirstRoundsAndTheyAssumeAColdPace() {
    CheckpointAlignment a = new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 0), 4_000_000);
    assertThat(a.intervalKnown()).isFalse();
    assertThat(a.waits(0)).as("before the first checkpoint").isTrue();
    assertThat(a.waits(50_000)).isTrue();
    a.checkpointTriggered(3_000);
    assertThat(a.intervalKnown()).isTrue();
    assertThat(a.waits(7_999)).isTrue();
    assertThat(a.waits(8_000)).as("the last half of the configured interval").isFalse();
    assertThat(a.leadMillis(100, 4_000_000))
        .as("4,000 bytes per ms")
        .isEqualTo(POLL + 2 * (100 + 1_000));
    assertThat(a.handsOver(8_000, 100, 4_000_000)).as("lead 3.2 s, 5 s left").isFalse();
    assertThat(a.handsOver(9_799, 100, 4_000_000)).isFalse();
    assertThat(a.handsOver(9_800, 100, 4_000_000)).isTrue();
    a.roundPlanned(0, 1_000_000, 9_800, false);
    a.readersIdle(10_800); // measured: 1,000 bytes per ms
    assertThat(a.leadMillis(0, 1_000_000)).isEqualTo(POLL + 2 * 1_000);
    a.checkpointTriggered(16_000); // measured: 13 s
    assertThat(a.waits(22_499)).isTrue();
    assertThat(a.waits(22_500)).isFalse();
  }

  @Test
  void roundsWaitUntilTheLastHalfOfTheIntervalThenHandOverAtTheirLead() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    assertThat(a.waits(9_999)).as("before the last checkpoint: a clock that went back").isFalse();
    assertThat(a.waits(10_000)).isTrue();
    assertThat(a.waits(14_999)).isTrue();
    assertThat(a.inWindow(14_999)).isFalse();
    assertThat(a.waits(15_000)).as("the last half: a round plans").isFalse();
    assertThat(a.inWindow(15_000)).isTrue();

    // no rewrite measured yet: the lead is a poll and twice the plan
    assertThat(a.leadMillis(100, 1_000_000)).isEqualTo(POLL + 200);
    assertThat(a.handsOver(15_100, 100, 1_000_000)).as("5 s left, lead 1.2 s").isFalse();
    assertThat(a.handsOver(18_799, 100, 1_000_000)).isFalse();
    assertThat(a.handsOver(18_800, 100, 1_000_000)).isTrue();
    assertThat(a.inWindow(19_999)).isTrue();

    assertThat(a.waits(20_000)).as("overdue").isFalse();
    assertThat(a.inWindow(20_000)).isFalse();
    assertThat(a.handsOver(20_000, 100, 1_000_000)).isTrue();
    assertThat(a.handsOver(25_000, 100, 1_000_000)).isTrue();
  }

  @Test
  void theLeadIsAPollPlusTwiceThePlanAndTheRewriteOfItsBytesAtTheLastRoundsThroughput() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.roundPlanned(100, 1_000_000, 1_000, false);
    a.roundPlanned(20, 1_000_000, 1_500, false); // planned while the first period runs: one period
    a.readersIdle(3_000); // 2,000,000 bytes in 2 s
    a.readersIdle(9_000); // no period open: nothing changes
    assertThat(a.leadMillis(0, 4_000_000)).isEqualTo(POLL + 2 * (100 + 4_000));
    assertThat(a.leadMillis(300, 500_000))
        .as("its own plan when longer than the last ones'")
        .isEqualTo(POLL + 2 * (300 + 500));
    a.roundPlanned(40, 3_000_000, 10_000, false);
    a.readersIdle(11_000); // 3,000,000 bytes in 1 s: 5,000,000 in 3 s over both periods
    assertThat(a.leadMillis(0, 5_000_000)).isEqualTo(POLL + 2 * (100 + 3_000));
    for (int round = 2; round < CheckpointAlignment.REMEMBERED; round++) {
      a.roundPlanned(40, 1_000, round * 10_000, false);
      a.readersIdle(round * 10_000 + 1);
    }
    assertThat(a.leadMillis(0, 5_003_000))
        .as("five plans since the long one, five periods: 5,003,000 bytes in 3,003 ms")
        .isEqualTo(POLL + 2 * (40 + 3_003));
    a.roundPlanned(40, 1_000, 60_000, false);
    a.readersIdle(60_001); // the first period (2 s) forgotten
    assertThat(a.leadMillis(0, 6_008_000))
        .as("the last five periods: 3,004,000 bytes in 1,004 ms")
        .isEqualTo(POLL + 2 * (40 + 2_008));
  }

  /** Rewriting measured at 1,000 bytes per ms, checkpoints at 0 and 10 s. */
  private static CheckpointAlignment aThousandBytesPerMsCheckpointsEveryTenSeconds() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.roundPlanned(0, 1_000_000, 0, false);
    a.readersIdle(1_000);
    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    return a;
  }

  @Test
  void aRoundOfSeveralTimesTheBytesHandsOverEarlierThanTheRoundsBetween() {
    CheckpointAlignment a = aThousandBytesPerMsCheckpointsEveryTenSeconds();
    assertThat(a.handsOver(15_000, 0, 1_000_000)).as("lead 3 s, 5 s left").isFalse();
    assertThat(a.handsOver(16_999, 0, 1_000_000)).isFalse();
    assertThat(a.handsOver(17_000, 0, 1_000_000)).isTrue();
    a.checkpointTriggered(20_000);
    assertThat(a.waits(24_999)).isTrue();
    assertThat(a.handsOver(25_000, 0, 4_000_000)).as("lead 9 s: at once").isTrue();
  }

  /**
   * What the job's gauges show: the lead of the last round handed over, the throughput, and for the
   * last period of rewriting how long before the first checkpoint after its start it ended
   * (negative: that checkpoint came first, by so much).
   */
  @Test
  void theLastLeadThroughputAndMarginToTheCheckpointAreKept() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    assertThat(a.lastLeadMillis()).isEqualTo(-1);
    assertThat(a.bytesPerSecond()).isZero();
    a.roundPlanned(0, 1_000_000, 0, false);
    a.readersIdle(1_000);
    assertThat(a.lastLeadMillis()).as("no throughput known when it was planned").isEqualTo(POLL);
    assertThat(a.bytesPerSecond()).isEqualTo(1_000_000);
    assertThat(a.lastMarginMillis()).as("no checkpoints known").isNull();

    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    a.roundPlanned(100, 2_000_000, 16_000, false);
    assertThat(a.lastLeadMillis()).isEqualTo(POLL + 2 * (100 + 2_000));
    a.readersIdle(18_500);
    assertThat(a.lastMarginMillis())
        .as("ended 1.5 s before the checkpoint at 20 s")
        .isEqualTo(1_500);

    a.roundPlanned(100, 2_000_000, 19_000, false);
    a.checkpointTriggered(20_300); // a little late
    a.roundPlanned(100, 1_000, 20_400, false); // handed over while the period runs: the same period
    a.checkpointTriggered(30_300);
    a.readersIdle(31_000);
    assertThat(a.lastMarginMillis())
        .as("the checkpoint at 20.3 s came first: its output waited for the next")
        .isEqualTo(-10_700);

    a.roundPlanned(
        0, 1_000, 55_000, false); // the checkpoint expected at 40.3 s overdue: the next one
    a.readersIdle(56_000);
    assertThat(a.lastMarginMillis()).isEqualTo(60_300 - 56_000);
  }

  /**
   * A primary-key bucket is left out of planning until its merge is committed: the window opens at
   * the longest lead of the last rounds that merged buckets (at most a poll after the checkpoint),
   * so a round as large hands over in time; rounds of append files leave it at half the interval.
   */
  @Test
  void theWindowOpensAtTheLongestLeadOfTheLastRoundsThatMergedBuckets() {
    CheckpointAlignment a = aThousandBytesPerMsCheckpointsEveryTenSeconds();
    a.roundPlanned(0, 3_000_000, 16_000, false); // lead 7 s, append files only
    a.readersIdle(19_000);
    a.checkpointTriggered(20_000);
    assertThat(a.windowMillis()).as("append rounds: half the interval").isEqualTo(5_000);
    assertThat(a.waits(24_999)).isTrue();

    a.roundPlanned(0, 3_000_000, 25_000, true); // lead 7 s, merging buckets
    a.readersIdle(28_000);
    a.checkpointTriggered(30_000);
    assertThat(a.windowMillis()).isEqualTo(7_000);
    assertThat(a.waits(32_999)).isTrue();
    assertThat(a.waits(33_000)).isFalse();
    assertThat(a.inWindow(33_000)).isTrue();
    assertThat(a.handsOver(33_000, 0, 3_000_000)).as("as large: at once, 7 s early").isTrue();
    assertThat(a.handsOver(33_000, 0, 500_000)).as("a small one still waits").isFalse();
    assertThat(a.handsOver(38_000, 0, 500_000)).isTrue();

    a.roundPlanned(0, 20_000_000, 38_000, true); // lead 41 s: a poll short of the interval
    a.checkpointTriggered(40_000);
    a.readersIdle(41_000);
    assertThat(a.windowMillis()).isEqualTo(10_000 - POLL);
    assertThat(a.waits(40_999)).isTrue();
    assertThat(a.waits(41_000)).isFalse();
    assertThat(a.inLastStretch(41_000))
        .as("the last stretch, where a round may be the last before the checkpoint, stays")
        .isFalse();
    assertThat(a.inLastStretch(45_000)).isTrue();

    for (int round = 0; round < CheckpointAlignment.REMEMBERED; round++) {
      a.roundPlanned(0, 1_000, 48_000 + round, true);
    }
    assertThat(a.windowMillis())
        .as("the long leads forgotten after %d short ones", CheckpointAlignment.REMEMBERED)
        .isEqualTo(5_000);

    a.roundPlanned(0, 70_000_000, 49_000, true); // a lead of over 9 s: 9 s
    long checkpoint = 50_000;
    for (int k = 0; k < CheckpointAlignment.REMEMBERED; k++, checkpoint += 10_000) {
      a.checkpointTriggered(checkpoint);
      assertThat(a.windowMillis())
          .as("%d intervals without a merge of buckets", k)
          .isEqualTo(9_000);
    }
    a.checkpointTriggered(checkpoint);
    assertThat(a.windowMillis())
        .as("no round merged buckets in the last %d intervals", CheckpointAlignment.REMEMBERED)
        .isEqualTo(5_000);
  }

  /**
   * Generated runs under a streaming writer into primary-key buckets: every round merges buckets,
   * and every few intervals one merges 2 to 4 times the bytes of the rounds between, rewriting for
   * longer than half the interval (size tiers filling up together). Once such a round was seen, the
   * next ones as large make their checkpoint: the window opened at its lead. (With a window of half
   * the interval they hand over at its start and miss the checkpoint.)
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void roundsAsLargeAsARecentOneThatMergedBucketsMakeTheCheckpoint(long seed) {
    GeneratedRun run = GeneratedRun.of(seed, 10_000, 50_000);
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    long bytes = run.bytes();
    // a large round rewrites for 55 to 75% of the interval (+-5%): it fits after two polls
    long largeBytes =
        (long) (run.bytesPerMilli() * run.interval() * (0.55 + 0.2 * run.random().nextDouble()));
    int checked = 0;
    long lastLarge = -100;
    for (int k = 0; k < 40; k++) {
      long checkpoint = k * run.interval();
      long next = checkpoint + run.interval();
      a.checkpointTriggered(checkpoint);
      boolean isLarge = k > 1 && k - lastLarge >= 2 && run.random().nextInt(3) == 0;
      long roundBytes = isLarge ? largeBytes : bytes;
      long plan = run.random().nextInt(101);
      long round = checkpoint + Math.floorMod(run.phase() - checkpoint, POLL);
      long handedOver = -1;
      for (; round < next; round += POLL) {
        if (!a.waits(round) && a.handsOver(round + plan, plan, roundBytes)) {
          handedOver = round + plan;
          break;
        }
      }
      assertThat(handedOver).as("seed %d, interval %d: handed over", seed, k).isPositive();
      long rewrite =
          (long) (roundBytes / run.bytesPerMilli() * (0.95 + 0.1 * run.random().nextDouble()));
      if (isLarge && lastLarge >= 0 && k - lastLarge <= CheckpointAlignment.REMEMBERED) {
        assertThat(handedOver + rewrite)
            .as(
                "seed %d, interval %d: a large round (%d ms of rewriting) makes it",
                seed, k, rewrite)
            .isLessThanOrEqualTo(next);
        checked++;
      }
      a.roundPlanned(plan, roundBytes, handedOver, true);
      a.readersIdle(handedOver + rewrite);
      lastLarge = isLarge ? k : lastLarge;
    }
    assertThat(checked).as("seed %d: large rounds after a recent one", seed).isPositive();
  }

  /**
   * Time 0 is an instant like any other (a test's clock starts there) and every limit is where the
   * rules put it: a window is half-open, a round at the expected checkpoint not yet triggered aims
   * at the next, a period of rewriting started at 0 gathers every round until the readers idle, a
   * last stretch as long as the interval means no window, and a round that merged buckets widens
   * the window for exactly {@value CheckpointAlignment#REMEMBERED} intervals.
   */
  @Test
  void everyLimitIsExactFromTimeZeroOn() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.checkpointTriggered(0);
    a.checkpointTriggered(0);
    assertThat(a.intervalKnown()).as("one instant tells no interval").isFalse();
    a.checkpointTriggered(10_000);
    assertThat(a.intervalKnown()).isTrue();
    assertThat(a.waits(9_999)).as("before the last checkpoint").isFalse();
    assertThat(a.waits(10_000)).isTrue();
    assertThat(a.waits(14_999)).isTrue();
    assertThat(a.waits(15_000)).as("the last half").isFalse();
    assertThat(a.inWindow(14_999)).isFalse();
    assertThat(a.inWindow(15_000)).isTrue();
    assertThat(a.inWindow(19_999)).isTrue();
    assertThat(a.inWindow(20_000)).isFalse();

    CheckpointAlignment b = new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 0), 0);
    b.checkpointTriggered(0);
    assertThat(b.intervalKnown()).as("configured, one checkpoint at 0").isTrue();
    b.roundPlanned(0, 500_000, 0, false);
    b.roundPlanned(0, 500_000, 0, false); // the same period
    b.readersIdle(1_000);
    assertThat(b.bytesPerSecond()).isEqualTo(1_000_000);
    assertThat(b.lastMarginMillis()).as("aimed at 10,000").isEqualTo(9_000);
    b.roundPlanned(0, 1_000, 10_000, false); // the checkpoint of 10,000 is late
    b.readersIdle(10_500);
    assertThat(b.lastMarginMillis()).as("aimed at 20,000").isEqualTo(9_500);

    CheckpointAlignment c = new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 0), 0);
    c.roundPlanned(0, 1_000, 0, false);
    c.checkpointTriggered(0); // in the period that started at 0
    c.readersIdle(500);
    assertThat(c.lastMarginMillis()).as("ended after the checkpoint of its start").isEqualTo(-500);

    CheckpointAlignment d =
        new CheckpointAlignment(10_000, new JobCheckpoints(10_000, 0), 0); // a poll as long as it
    d.checkpointTriggered(0);
    assertThat(d.waits(1)).isFalse();
    assertThat(d.inWindow(5_000)).as("the stretch is the whole interval: no window").isFalse();

    CheckpointAlignment e = new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 0), 1_000_000);
    e.checkpointTriggered(0);
    e.roundPlanned(0, 3_000_000, 0, true); // merged buckets at 0: lead 1 s + 2 * 3 s at 1 MB/s
    for (int k = 1; k <= CheckpointAlignment.REMEMBERED; k++) {
      long last = k * 10_000L;
      e.checkpointTriggered(last);
      assertThat(e.waits(last + 2_999)).as("interval %d", k).isTrue();
      assertThat(e.waits(last + 3_000)).as("interval %d: a window of 7 s", k).isFalse();
    }
    e.checkpointTriggered((CheckpointAlignment.REMEMBERED + 1) * 10_000L);
    long last = (CheckpointAlignment.REMEMBERED + 1) * 10_000L;
    assertThat(e.waits(last + 4_999)).as("no longer recent: the last half").isTrue();
    assertThat(e.waits(last + 5_000)).isFalse();
  }

  /**
   * A barrier that waits for a rewrite about to end ({@code compaction.checkpoint-wait}) takes the
   * place of the lead's margin up to the wait: the lead is a poll plus twice the work (plan and
   * rewrite) less the wait, and never less than a poll plus the work. The wait counts only with
   * checkpoints (an interval), at most half the checkpoint timeout, as the rewrite operator caps
   * it.
   */
  @Test
  void theBarrierWaitTakesThePlaceOfTheLeadsMarginUpToTheWork() {
    CheckpointAlignment a =
        new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 2_000), 1_000_000);
    assertThat(a.leadMillis(100, 1_000_000)).as("work 1.1 s").isEqualTo(POLL + 1_100);
    assertThat(a.leadMillis(100, 1_900_000)).as("work 2 s: the wait").isEqualTo(POLL + 2_000);
    assertThat(a.leadMillis(100, 4_000_000)).as("work 4.1 s").isEqualTo(POLL + 2 * 4_100 - 2_000);
    assertThat(a.leadMillis(0, 0)).isEqualTo(POLL);
    CheckpointAlignment none = new CheckpointAlignment(POLL, new JobCheckpoints(10_000, 0), 0);
    none.roundPlanned(0, 1_000_000, 0, false);
    none.readersIdle(1_000);
    assertThat(none.leadMillis(100, 1_000_000)).as("no wait").isEqualTo(POLL + 2 * 1_100);

    assertThat(new JobCheckpoints(0, 2_000)).isEqualTo(JobCheckpoints.UNKNOWN);
    assertThat(new JobCheckpoints(-1, 2_000)).isEqualTo(JobCheckpoints.UNKNOWN);
    assertThat(new JobCheckpoints(10_000, -1).barrierWaitMillis()).isZero();
    Configuration job = new Configuration();
    job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
    job.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofSeconds(3));
    assertThat(JobCheckpoints.of(job, Duration.ofSeconds(2)))
        .as("half the timeout")
        .isEqualTo(new JobCheckpoints(10_000, 1_500));
    job.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(10));
    assertThat(JobCheckpoints.of(job, Duration.ofSeconds(2)))
        .isEqualTo(new JobCheckpoints(10_000, 2_000));
    assertThat(JobCheckpoints.of(job, Duration.ZERO)).isEqualTo(new JobCheckpoints(10_000, 0));
    assertThat(JobCheckpoints.of(new Configuration(), Duration.ofSeconds(2)))
        .as("no checkpoints")
        .isEqualTo(JobCheckpoints.UNKNOWN);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(7_000);
    assertThat(JobCheckpoints.of(env.getConfiguration(), Duration.ofSeconds(2)))
        .as("what CompactJob reads: an environment's checkpointing")
        .isEqualTo(new JobCheckpoints(7_000, 2_000));
  }

  @Test
  void plansAsLongAsTheIntervalNeverWait() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.roundPlanned(4_500, 0, 0, false); // lead 1 s + 9 s: the whole interval
    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    assertThat(a.waits(10_000)).isFalse();
    assertThat(a.inWindow(15_000)).isFalse();
    assertThat(a.handsOver(15_000, 0, 0)).isTrue();
  }

  /**
   * Generated runs of regular checkpoints (2 to 60 s apart) and rounds every poll at a random
   * phase, the plans of an interval each taking the same time up to 200 ms; a rewrite takes its
   * bytes at a throughput that varies by up to 20% (plus up to 100 ms), and every few rounds one
   * merges 2 to 8 times the bytes of the rounds between (under a streaming writer, size tiers
   * filling up together). In every interval one round hands over: within a poll and a plan after
   * its lead before the checkpoint (not earlier than it needs to), or at the first round of the
   * interval's last half when its lead is longer; and every output whose rewrite fits in half the
   * interval makes the checkpoint, the large rounds' too. In half the runs the job's barriers wait
   * for a rewrite about to end (0.2 to 3 s), so the leads are shorter by up to that: an output then
   * makes the checkpoint when its rewrite ends by the end of the barrier's wait.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  void everyRoundHandsOverAsLateAsItCanAndMakesTheCheckpoint(long seed) {
    GeneratedRun run = GeneratedRun.of(seed, 2_000, 58_000);
    // odd seeds: the job's barriers wait up to 0.2-3 s for a rewrite about to end
    long wait = seed % 2 == 0 ? 0 : 200 + new Random(seed * 31).nextInt(2_801);
    CheckpointAlignment a =
        wait == 0
            ? new CheckpointAlignment(POLL)
            : new CheckpointAlignment(POLL, new JobCheckpoints(run.interval(), wait), 0);
    long bytes = run.bytes();
    int made = 0;
    int large = 0;
    for (int k = 0; k < 40; k++) {
      long checkpoint = k * run.interval();
      long next = checkpoint + run.interval();
      a.checkpointTriggered(checkpoint);
      boolean isLarge = k > 1 && run.random().nextInt(4) == 0;
      long roundBytes = isLarge ? bytes * (2 + run.random().nextInt(7)) : bytes;
      long plan = run.random().nextInt(201); // the plans of one interval take about as long
      long round = checkpoint + Math.floorMod(run.phase() - checkpoint, POLL);
      long handedOver = -1;
      long firstPlan = -1;
      for (; round < next; round += POLL) {
        if (a.waits(round)) {
          continue;
        }
        firstPlan = firstPlan < 0 ? round : firstPlan;
        if (a.handsOver(round + plan, plan, roundBytes)) {
          handedOver = round + plan;
          break;
        }
      }
      assertThat(handedOver)
          .as("seed %d, interval %d: a round hands over in every interval", seed, k)
          .isPositive()
          .isLessThan(next + 200);
      long lead = a.leadMillis(plan, roundBytes);
      if (k > 0 && lead < run.interval() / 2) {
        assertThat(next - handedOver)
            .as("seed %d, interval %d: lead %d ms, not earlier than it", seed, k, lead)
            .isLessThanOrEqualTo(lead)
            .isGreaterThan(lead - POLL);
      } else if (k > 0) {
        assertThat(firstPlan)
            .as("seed %d, interval %d: lead %d ms, the first round of the last half", seed, k, lead)
            .isLessThan(next - run.interval() / 2 + POLL);
        assertThat(handedOver).isEqualTo(firstPlan + plan);
      }
      long rewrite =
          (long) (roundBytes / run.bytesPerMilli() * (0.8 + 0.4 * run.random().nextDouble()))
              + run.random().nextInt(101);
      a.roundPlanned(plan, roundBytes, handedOver, false);
      a.readersIdle(handedOver + rewrite);
      if (k > 0 && rewrite <= run.interval() / 2) {
        assertThat(handedOver + rewrite)
            .as(
                "seed %d, interval %d: the output of %d bytes makes the checkpoint (its barrier"
                    + " waits %d ms)",
                seed, k, roundBytes, wait)
            .isLessThanOrEqualTo(next + wait);
        made++;
        large += isLarge ? 1 : 0;
      }
      bytes = (long) (bytes * (0.9 + 0.2 * run.random().nextDouble()));
    }
    assertThat(made).as("seed %d: rounds whose output made the checkpoint", seed).isPositive();
    assertThat(large).as("seed %d: large rounds among them", seed).isPositive();
  }

  /**
   * What a generated run draws first: an interval of {@code minInterval} plus up to {@code spread}
   * ms, the rounds' phase to the polls, the machine's rewriting throughput, and the bytes of a
   * round between the large ones (a fortieth of what the interval rewrites).
   */
  private record GeneratedRun(
      Random random, long interval, long phase, double bytesPerMilli, long bytes) {
    static GeneratedRun of(long seed, long minInterval, int spread) {
      Random random = new Random(seed);
      long interval = minInterval + random.nextInt(spread + 1);
      long phase = random.nextInt((int) POLL);
      double bytesPerMilli = 1_000 + random.nextInt(100_000);
      return new GeneratedRun(
          random, interval, phase, bytesPerMilli, (long) (bytesPerMilli * interval / 40));
    }
  }
}
