package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL write committer records in each window's snapshot the watermark it had received at that
 * window's checkpoint (not the one at the commit), keeps it in state for windows not yet committed,
 * ignores the end of input's watermark, and gives a batch write the last one received or {@code
 * end-input.watermark}.
 */
class SqlCommitterWatermarkTest {

  private static final long END_OF_INPUT = Long.MAX_VALUE;

  @TempDir Path dir;

  private Table table() {
    return TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
  }

  @Test
  void eachWindowRecordsTheWatermarkOfItsCheckpointAcrossARestore() throws Exception {
    Table table = table();
    OperatorSubtaskState state;
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, 1, 1), 0);
      harness.processWatermark(new Watermark(1_000));
      harness.snapshot(1, 1);
      harness.processElement(SqlCommitterRestores.window(table, 2, 2), 0);
      harness.processWatermark(new Watermark(2_000));
      harness.snapshot(2, 2);
      harness.processWatermark(new Watermark(2_500)); // after checkpoint 2: not window 2's
      harness.notifyOfCompletedCheckpoint(2); // windows 1 and 2 together
      harness.snapshot(3, 3); // nothing written: no snapshot, nothing kept
      harness.processElement(SqlCommitterRestores.window(table, 4, 4), 0);
      harness.processWatermark(new Watermark(4_000));
      state = harness.snapshot(4, 4); // never completes: window 4 and its watermark in the state
      harness.processWatermark(new Watermark(5_000));
    }
    assertThat(snapshots(table))
        .extracting(Snapshot::commitIdentifier, Snapshot::watermark)
        .containsExactly(tuple(1L, 1_000L), tuple(2L, 2_000L));

    SedimentCommitOperator restored = new SedimentCommitOperator(table, true, false, null, null);
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(restored)) {
      harness.initializeState(state);
      harness.open(); // the restored window 4 lands with its checkpoint's watermark
      harness.processElement(SqlCommitterRestores.window(table, 5, 5), 0);
      harness.processWatermark(new Watermark(6_000)); // after window 5's rows
      harness.processWatermark(new Watermark(Long.MAX_VALUE)); // the input ended
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 6), 0);
      // window 5's checkpoint was never taken: it records none (6 000 may count rows after it),
      // the end of input's window the last watermark received
      restored.endInput();
    }
    assertThat(snapshots(table))
        .extracting(Snapshot::commitIdentifier, Snapshot::watermark)
        .containsExactly(
            tuple(1L, 1_000L),
            tuple(2L, 2_000L),
            tuple(4L, 4_000L),
            tuple(5L, 4_000L), // the latest snapshot's, carried
            tuple(END_OF_INPUT, 6_000L));
  }

  @Test
  void aBatchWriteRecordsTheLastWatermarkOrEndInputWatermark() throws Exception {
    Table table = table();
    SedimentCommitOperator first = new SedimentCommitOperator(table, false, false, null, null);
    try (var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(first)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 1), 0);
      harness.processWatermark(new Watermark(7_000));
      harness.processWatermark(new Watermark(Long.MAX_VALUE));
      first.endInput();
    }
    Table withOption = table.copy(Map.of("end-input.watermark", "9000"));
    SedimentCommitOperator second =
        new SedimentCommitOperator(withOption, false, false, null, null);
    try (var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(second)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 2), 0);
      harness.processWatermark(new Watermark(8_000));
      second.endInput();
    }
    Table lower = table.copy(Map.of("end-input.watermark", "3000"));
    SedimentCommitOperator third = new SedimentCommitOperator(lower, false, false, null, null);
    try (var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(third)) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, END_OF_INPUT, 3), 0);
      third.endInput();
    }
    assertThat(snapshots(table))
        .extracting(Snapshot::watermark)
        // a lower watermark never takes the table's back
        .containsExactly(7_000L, 9_000L, 9_000L);
  }
}
