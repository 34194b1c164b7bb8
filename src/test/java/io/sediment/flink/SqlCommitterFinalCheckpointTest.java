package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming SQL write with checkpoints commits what is left at the end of its input when Flink's
 * final checkpoint completes, as Flink's own committer and Paimon's do, so that it only ever
 * commits what a completed checkpoint holds: a failover between the end of input and that
 * checkpoint restores an older one and replays the input, and the rows land once. (Committed at the
 * end of input, the replayed rows landed a second time, under the new commit user of a restore from
 * an older checkpoint.)
 */
class SqlCommitterFinalCheckpointTest {

  private static final long END_OF_INPUT = Long.MAX_VALUE;

  @TempDir Path dir;

  private Table table() {
    return TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
  }

  /** A harness of a streaming committer whose job checkpoints every second. */
  private static OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void> checkpointing(
      SedimentCommitOperator committer) throws Exception {
    var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(committer);
    harness
        .getEnvironment()
        .getJobConfiguration()
        .set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
    return harness;
  }

  @Test
  void whatIsLeftAtTheEndOfInputLandsWithTheFinalCheckpoint() throws Exception {
    Table table = table();
    SedimentCommitOperator committer = new SedimentCommitOperator(table, true, false, null, "u-1");
    try (var harness = checkpointing(committer)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, 1, 1), 0);
      harness.snapshot(1, 1);
      harness.processElement(SqlCommitterRestores.window(table, 2, 2), 0);
      harness.snapshot(2, 2); // never completes: window 2 waits
      harness.notifyOfCompletedCheckpoint(1);
      harness.processWatermark(new Watermark(3_000));
      harness.processWatermark(new Watermark(Long.MAX_VALUE)); // the input ended
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 3), 0);
      committer.endInput();
      assertThat(snapshots(table))
          .as("nothing is committed at the end of input")
          .extracting(Snapshot::commitIdentifier)
          .containsExactly(1L);
      harness.notifyOfCompletedCheckpoint(2); // a late notice of a checkpoint before the end
      assertThat(snapshots(table)).extracting(Snapshot::commitIdentifier).containsExactly(1L, 2L);
      harness.snapshot(3, 3); // the final checkpoint
      harness.notifyOfCompletedCheckpoint(3);
    }
    assertThat(snapshots(table))
        .extracting(Snapshot::commitIdentifier, Snapshot::commitUser, Snapshot::watermark)
        .containsExactly(tuple(1L, "u-1", null), tuple(2L, "u-1", null), tuple(3L, "u-1", 3_000L));
    assertThat(rows(table)).hasSize(3);
  }

  @Test
  void aFailoverBeforeTheFinalCheckpointCompletesCommitsTheReplayedRowsOnce() throws Exception {
    Table table = table();
    OperatorSubtaskState atCheckpoint1;
    SedimentCommitOperator first = new SedimentCommitOperator(table, true, false, null, "u-1");
    try (var harness = checkpointing(first)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, 1, 1), 0);
      atCheckpoint1 = harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 2), 0);
      first.endInput();
      harness.snapshot(2, 2); // the final checkpoint, which fails before it completes
    }
    // Flink restores checkpoint 1; the input after it is replayed and ends again
    SedimentCommitOperator restored = new SedimentCommitOperator(table, true, false, null, null);
    try (var harness = checkpointing(restored)) {
      harness.initializeState(atCheckpoint1);
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 2), 0);
      restored.endInput();
      harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2);
    }
    assertThat(rows(table))
        .containsExactlyInAnyOrderElementsOf(
            TestTables.toStrings(table.rowType(), List.of(row(1L, "a", "x"), row(2L, "a", "x"))));
    assertThat(snapshots(table))
        .extracting(Snapshot::commitIdentifier, Snapshot::commitUser)
        .containsExactly(tuple(1L, "u-1"), tuple(2L, "u-1"));
  }

  /**
   * A final checkpoint that aborts leaves the rest to the next one; a restore from a final
   * checkpoint whose notice was lost commits the rest when the committer starts, once.
   */
  @Test
  void anAbortedFinalCheckpointOrALostNoticeStillCommitsTheRestOnce() throws Exception {
    Table table = table();
    OperatorSubtaskState atFinal;
    SedimentCommitOperator first = new SedimentCommitOperator(table, true, false, null, "u-1");
    try (var harness = checkpointing(first)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 1), 0);
      first.endInput();
      harness.snapshot(1, 1); // aborts: no completion notice
      first.notifyCheckpointAborted(1);
      assertThat(snapshots(table)).isEmpty();
      atFinal = harness.snapshot(2, 2); // completes, but its notice is lost
    }
    for (int restore = 0; restore < 2; restore++) {
      SedimentCommitOperator restored = new SedimentCommitOperator(table, true, false, null, null);
      try (var harness = checkpointing(restored)) {
        harness.initializeState(atFinal);
        harness.open(); // commits the restored rest (the second time: it landed already)
        restored.endInput(); // the restored job's input ends at once, with nothing left
        harness.snapshot(3, 3);
        harness.notifyOfCompletedCheckpoint(3);
      }
    }
    assertThat(snapshots(table))
        .extracting(Snapshot::commitIdentifier, Snapshot::commitUser)
        .containsExactly(tuple(1L, "u-1"));
    assertThat(rows(table)).hasSize(1);
  }

  @Test
  void withoutCheckpointsWhatIsLeftLandsAtTheEndOfInput() throws Exception {
    Table table = table();
    for (Map.Entry<String, Boolean> job :
        Map.of("no checkpoints", false, "no checkpoints after tasks finished", true).entrySet()) {
      SedimentCommitOperator committer = new SedimentCommitOperator(table, true, false, null, null);
      var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(committer);
      if (job.getValue()) {
        harness
            .getEnvironment()
            .getJobConfiguration()
            .set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(1));
        harness
            .getStreamConfig()
            .getConfiguration()
            .set(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH, false);
      }
      try (harness) {
        harness.open();
        harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 1), 0);
        long before = snapshots(table).size();
        committer.endInput();
        assertThat(snapshots(table)).as(job.getKey()).hasSize((int) before + 1);
      }
    }
  }
}
