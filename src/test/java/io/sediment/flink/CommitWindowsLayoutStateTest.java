package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.snapshots;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SQL write committer takes writer records of the explicit layout and of the Java-serialized
 * one (records of an older writer in flight across an upgrade), keeps them in its windows state in
 * the explicit layout, and a committer restored from that state commits every window once.
 */
class CommitWindowsLayoutStateTest {

  @TempDir Path dir;

  @Test
  void windowsOfBothRecordLayoutsSurviveARestoreAndCommitOnce() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());

    OperatorSubtaskState state;
    SedimentCommitOperator first = new SedimentCommitOperator(table, true, false, null, "u-1");
    try (var harness = new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(first)) {
      harness.open();
      harness.processElement(
          Tuple2.of(
              4L,
              CommitMessageListCodec.toBytes(
                  SqlCommitterRestores.written(table, row(1L, "a", "x")))),
          0);
      harness.processElement(
          Tuple2.of(
              7L,
              InstantiationUtil.serializeObject(
                  new ArrayList<>(SqlCommitterRestores.written(table, row(2L, "b", "y"))))),
          0);
      // The checkpoint is taken but never completes: both windows stay in the state.
      state = harness.snapshot(7, 7);
    }
    assertThat(snapshots(table)).isEmpty();

    SqlCommitterRestores.restoreTwiceAndCheckWindows4And7(table, state, "u-1");
  }
}
