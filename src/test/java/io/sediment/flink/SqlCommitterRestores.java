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
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;

/** Restores of a SQL write committer's state, shared by the state layout tests. */
final class SqlCommitterRestores {

  private SqlCommitterRestores() {}

  /** The commit messages of one row written (not committed). */
  static List<CommitMessage> written(Table table, RowData row) throws Exception {
    TableWrite write = table.newBatchWriteBuilder().newWrite();
    try {
      write.write(row);
      return new ArrayList<>(write.prepareCommit());
    } finally {
      write.close();
    }
  }

  /** A writer's record of window {@code window}: the messages of row (id, a, x) written. */
  static Tuple2<Long, byte[]> window(Table table, long window, long id) throws Exception {
    return Tuple2.of(window, CommitMessageListCodec.toBytes(written(table, row(id, "a", "x"))));
  }

  /**
   * Restores a new committer from {@code state} twice: each keeps {@code user}, and the state's two
   * windows (4: row (1, a, x), 7: row (2, b, y)) land once each, in order, as {@code user}.
   */
  static void restoreTwiceAndCheckWindows4And7(Table table, OperatorSubtaskState state, String user)
      throws Exception {
    for (int restore = 0; restore < 2; restore++) {
      SedimentCommitOperator committer = new SedimentCommitOperator(table, true, false, null, null);
      try (var harness =
          new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(committer)) {
        harness.initializeState(state);
        harness.open();
        assertThat(committer.commitUser()).isEqualTo(user);
      }
    }
    assertThat(rows(table))
        .containsExactlyInAnyOrderElementsOf(
            TestTables.toStrings(table.rowType(), List.of(row(1L, "a", "x"), row(2L, "b", "y"))));
    List<Snapshot> snapshots = snapshots(table);
    assertThat(snapshots).extracting(Snapshot::commitIdentifier).containsExactly(4L, 7L);
    assertThat(snapshots).extracting(Snapshot::commitUser).containsOnly(user);
  }
}
