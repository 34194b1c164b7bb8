package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** When a continuous job's planning rounds run relative to its checkpoints. */
class CheckpointAlignmentTest {

  private static final long POLL = 1_000;

  @Test
  void noRoundWaitsBeforeTwoCheckpointsWereSeen() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    assertThat(a.waits(0)).isFalse();
    a.checkpointTriggered(10_000);
    assertThat(a.waits(10_000)).isFalse();
    a.checkpointTriggered(10_000); // the same instant tells no interval
    assertThat(a.waits(10_000)).isFalse();
  }

  @Test
  void aRoundWaitsUntilTheLeadBeforeTheExpectedCheckpoint() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    assertThat(a.leadMillis()).isEqualTo(POLL);
    assertThat(a.waits(9_999)).as("before the last checkpoint: a clock that went back").isFalse();
    assertThat(a.waits(10_000)).isTrue();
    assertThat(a.waits(18_999)).isTrue();
    assertThat(a.waits(19_000)).isFalse();
    assertThat(a.waits(20_000)).as("overdue").isFalse();
    assertThat(a.waits(25_000)).isFalse();
  }

  @Test
  void withinTheLeadIsFromTheLeadBeforeTheExpectedCheckpointUntilIt() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    assertThat(a.withinLead(0)).as("no checkpoint seen").isFalse();
    a.checkpointTriggered(0);
    assertThat(a.withinLead(9_500)).as("no interval known").isFalse();
    a.checkpointTriggered(10_000);
    assertThat(a.withinLead(18_999)).isFalse();
    assertThat(a.withinLead(19_000)).isTrue();
    assertThat(a.withinLead(19_999)).isTrue();
    assertThat(a.withinLead(20_000)).as("overdue").isFalse();
    a.roundPlanned(0, 20_000);
    a.readersIdle(24_500); // lead 1 s + 9 s: the whole interval, no round waits
    assertThat(a.withinLead(19_500)).isFalse();
  }

  @Test
  void theLeadIsAPollPlusTwiceTheLongestPlanAndRewritesOfTheLastRounds() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.roundPlanned(100, 1_000);
    a.roundPlanned(20, 1_500); // planned while the first period runs: one period
    a.readersIdle(3_000);
    a.readersIdle(9_000); // no period open: nothing changes
    assertThat(a.leadMillis()).isEqualTo(POLL + 2 * (100 + 2_000));
    for (int round = 1; round < CheckpointAlignment.REMEMBERED - 1; round++) {
      a.roundPlanned(40, round * 10_000);
      a.readersIdle(round * 10_000 + 300);
      assertThat(a.leadMillis())
          .as("round %d: the longest of the last rounds counts", round)
          .isEqualTo(POLL + 2 * (100 + 2_000));
    }
    a.roundPlanned(40, 90_000);
    assertThat(a.leadMillis()).as("the long plan forgotten").isEqualTo(POLL + 2 * (40 + 2_000));
    a.readersIdle(90_300); // the fifth period since the long one
    assertThat(a.leadMillis()).isEqualTo(POLL + 2 * (40 + 2_000));
    a.roundPlanned(40, 100_000);
    a.readersIdle(100_300);
    assertThat(a.leadMillis()).as("the long rewrite forgotten").isEqualTo(POLL + 2 * (40 + 300));
  }

  @Test
  void rewritesAsLongAsTheIntervalNeverWait() {
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    a.roundPlanned(0, 0);
    a.readersIdle(4_500); // lead 1 s + 9 s: the whole interval
    a.checkpointTriggered(0);
    a.checkpointTriggered(10_000);
    assertThat(a.waits(10_000)).isFalse();
  }

  /**
   * Generated runs of regular checkpoints (2 to 60 s apart), rounds every poll at a random phase,
   * each planning in up to 200 ms and rewriting for a random time (0.3 to 2 times the last one's,
   * sometimes none): in each interval the first round that plans comes within one poll after the
   * expected checkpoint less the lead (it does not plan earlier than it needs to), and whenever its
   * plan and rewrites take at most twice the last round's, they end before the checkpoint (its
   * output is committed there, as if it had planned right after the previous checkpoint). With the
   * lead as long as the interval, the first round after a checkpoint plans.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  void theFirstRoundThatPlansMakesTheCheckpointAndIsNotEarlierThanItNeedsToBe(long seed) {
    Random random = new Random(seed);
    long interval = 2_000 + random.nextInt(58_001);
    long phase = random.nextInt((int) POLL);
    CheckpointAlignment a = new CheckpointAlignment(POLL);
    long lastWork = 0;
    int made = 0;
    for (int k = 0; k < 40; k++) {
      long checkpoint = k * interval;
      long next = checkpoint + interval;
      a.checkpointTriggered(checkpoint);
      long lead = a.leadMillis();
      long round = checkpoint + Math.floorMod(phase - checkpoint, POLL);
      while (round < next && a.waits(round)) {
        round += POLL;
      }
      assertThat(round)
          .as("seed %d, interval %d: a round plans in every interval", seed, k)
          .isLessThan(next);
      if (k > 0 && lead < interval) {
        assertThat(round)
            .as("seed %d, interval %d: not earlier than the lead (%d ms) before it", seed, k, lead)
            .isGreaterThanOrEqualTo(next - lead)
            .isLessThan(next - lead + POLL);
      } else {
        assertThat(round)
            .as("seed %d, interval %d: no wait", seed, k)
            .isLessThan(checkpoint + POLL);
      }
      long plan = random.nextInt(201);
      long rewrite =
          random.nextInt(5) == 0
              ? 0
              : (long) (Math.max(lastWork, 50) * (0.3 + 1.7 * random.nextDouble()));
      rewrite = Math.min(rewrite, interval);
      if (rewrite > 0) {
        a.roundPlanned(plan, round + plan);
        a.readersIdle(round + plan + rewrite);
      }
      if (k > 0 && lead < interval && plan + rewrite <= lead - POLL) {
        assertThat(round + plan + rewrite)
            .as("seed %d, interval %d: the output makes the checkpoint", seed, k)
            .isLessThanOrEqualTo(next);
        made++;
      }
      lastWork = rewrite > 0 ? plan + rewrite : lastWork;
    }
    assertThat(made).as("seed %d: rounds whose output made the checkpoint", seed).isPositive();
  }
}
