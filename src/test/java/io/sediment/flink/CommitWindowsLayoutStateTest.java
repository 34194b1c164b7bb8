package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
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
          Tuple2.of(4L, CommitMessageListCodec.toBytes(written(table, row(1L, "a", "x")))), 0);
      harness.processElement(
          Tuple2.of(
              7L,
              InstantiationUtil.serializeObject(
                  new ArrayList<>(written(table, row(2L, "b", "y"))))),
          0);
      // The checkpoint is taken but never completes: both windows stay in the state.
      state = harness.snapshot(7, 7);
    }
    assertThat(snapshots(table)).isEmpty();

    for (int restore = 0; restore < 2; restore++) {
      SedimentCommitOperator committer = new SedimentCommitOperator(table, true, false, null, null);
      try (var harness =
          new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(committer)) {
        harness.initializeState(state);
        harness.open();
        assertThat(committer.commitUser()).isEqualTo("u-1");
      }
    }

    assertThat(rows(table))
        .containsExactlyInAnyOrderElementsOf(
            TestTables.toStrings(table.rowType(), List.of(row(1L, "a", "x"), row(2L, "b", "y"))));
    List<Snapshot> snapshots = snapshots(table);
    assertThat(snapshots).extracting(Snapshot::commitIdentifier).containsExactly(4L, 7L);
    assertThat(snapshots).extracting(Snapshot::commitUser).containsOnly("u-1");
  }

  private static List<CommitMessage> written(Table table, RowData row) throws Exception {
    TableWrite write = table.newBatchWriteBuilder().newWrite();
    try {
      write.write(row);
      return new ArrayList<>(write.prepareCommit());
    } finally {
      write.close();
    }
  }
}
