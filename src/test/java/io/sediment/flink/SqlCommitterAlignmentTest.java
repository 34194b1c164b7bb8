package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.flink.sql.UnalignedCheckpointsRefused;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The SQL write committer commits a window only whole: a writer's files of a checkpoint the
 * committer has taken already (what an unaligned barrier that overtook them would bring) fail the
 * job instead of being skipped as committed, and a streaming write under unaligned checkpoints is
 * refused when its committer starts, as Paimon's sink refuses it.
 */
class SqlCommitterAlignmentTest {

  @TempDir Path dir;

  private Table table() {
    return TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
  }

  /** The job's configuration as Flink gives it with checkpoints every second, unaligned. */
  private static void unaligned(OneInputStreamOperatorTestHarness<?, ?> harness) {
    var job = harness.getEnvironment().getJobConfiguration();
    job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, java.time.Duration.ofSeconds(1));
    job.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
    assertThat(CheckpointingOptions.isUnalignedCheckpointEnabled(job)).isTrue();
  }

  @Test
  void filesThatComeAfterTheirCheckpointFailTheJobInsteadOfBeingSkipped() throws Exception {
    Table table = table();
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      harness.open();
      harness.processElement(
          SqlCommitterRestores.window(table, 1, 1), 0); // one writer's part of window 1
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1); // window 1 lands with it
      assertThat(snapshots(table)).hasSize(1);
      // another writer's part of window 1 arrives late: committed as window 1, it would be
      // skipped as landed and its rows lost
      Tuple2<Long, byte[]> late = SqlCommitterRestores.window(table, 1, 2);
      assertThatThrownBy(() -> harness.processElement(late, 0))
          .isInstanceOf(UnalignedCheckpointsRefused.class)
          .hasMessageStartingWith(
              "A writer's files of checkpoint 1 reached the committer of db.t after it took"
                  + " checkpoint 1: they were in flight at an unaligned checkpoint");
    }
    assertThat(TestTables.readAll(table)).hasSize(1);
  }

  /**
   * A job restored from an unaligned checkpoint replays the windows that were in flight at it: they
   * fail the job without a restart (a restart would replay them again), saying to restore from a
   * savepoint or an aligned checkpoint.
   */
  @Test
  void aWindowReplayedFromAnUnalignedCheckpointFailsTheJobWithoutARestart() throws Exception {
    Table table = table();
    org.apache.flink.runtime.checkpoint.OperatorSubtaskState state;
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, 3, 1), 0);
      state = harness.snapshot(3, 3);
    }
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, null))) {
      harness.setRestoredCheckpointId(3);
      harness.initializeState(state);
      harness.open(); // the restored window 3 lands
      Tuple2<Long, byte[]> replayed = SqlCommitterRestores.window(table, 3, 2);
      assertThatThrownBy(() -> harness.processElement(replayed, 0))
          .isInstanceOf(UnalignedCheckpointsRefused.class)
          .hasMessageEndingWith(
              "Restore the job from a savepoint, or from a checkpoint taken with aligned"
                  + " checkpoints; nothing of them was committed");
    }
    assertThat(TestTables.readAll(table)).hasSize(1);
    assertThat(
            UnalignedCheckpointsRefused.class
                .getAnnotation(org.apache.flink.runtime.throwable.ThrowableAnnotation.class)
                .value())
        .isEqualTo(org.apache.flink.runtime.throwable.ThrowableType.NonRecoverableError);
  }

  @Test
  void unalignedCheckpointsAreRefusedWhenTheCommitterStarts() throws Exception {
    Table table = table();
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      unaligned(harness);
      assertThatThrownBy(harness::open)
          .isInstanceOf(UnalignedCheckpointsRefused.class)
          .hasMessage(
              "A streaming write into db.t needs aligned checkpoints, as Paimon's sink does: with"
                  + " unaligned ones a window's files may still be on their way to the committer"
                  + " when their checkpoint completes, and would not be committed. Set"
                  + " execution.checkpointing.unaligned.enabled to false; nothing was written");
    }
    // a batch write has no checkpoints to be unaligned
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, false, false, null, null))) {
      unaligned(harness);
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, Long.MAX_VALUE, 1), 0);
      harness.endInput();
    }
    assertThat(TestTables.readAll(table)).hasSize(1);
  }

  /**
   * With at-least-once checkpoints that overlap, a writer can send its files of checkpoint 4 before
   * another writer's barrier of checkpoint 3 reaches the committer. Checkpoint 3's state holds
   * windows up to 3 only: a job restored from it writes window 4's rows again, so committing the
   * restored window 4 too would add them twice (and, on a primary-key table, commit sequence
   * numbers above the restored writers'). Without a restore, window 4 lands with its checkpoint.
   */
  @ParameterizedTest(name = "early window first: {0}, restored from checkpoint 3: {1}")
  @CsvSource({"true,true", "false,true", "true,false", "false,false"})
  void aWindowAheadOfTheCheckpointIsNotInItsState(boolean earlyFirst, boolean restored)
      throws Exception {
    Table table = table();
    Tuple2<Long, byte[]> early = SqlCommitterRestores.window(table, 4, 2);
    Tuple2<Long, byte[]> onTime = SqlCommitterRestores.window(table, 3, 1);
    org.apache.flink.runtime.checkpoint.OperatorSubtaskState state;
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      harness.open();
      harness.processElement(earlyFirst ? early : onTime, 0);
      harness.processElement(earlyFirst ? onTime : early, 0);
      state = harness.snapshot(3, 3);
      if (!restored) {
        harness.notifyOfCompletedCheckpoint(3);
        assertThat(TestTables.readAll(table)).hasSize(1);
        harness.snapshot(4, 4);
        harness.notifyOfCompletedCheckpoint(4);
        assertThat(TestTables.readAll(table)).hasSize(2);
        return;
      }
    }
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, null))) {
      harness.setRestoredCheckpointId(3);
      harness.initializeState(state);
      harness.open(); // the restored windows land
    }
    assertThat(FlinkTestSupport.rows(table)).as("window 3 only").hasSize(1);
    assertThat(snapshots(table)).hasSize(1);
  }
}
