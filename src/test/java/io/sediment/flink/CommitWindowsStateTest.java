package io.sediment.flink;

import static io.sediment.testutil.TestTables.row;

import io.sediment.commit.CommitMessage;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared committer windows read the operator state the SQL write committer wrote before. */
class CommitWindowsStateTest {

  @TempDir Path dir;

  /**
   * Writes operator state exactly as the SQL write committer did before {@link CommitWindows}:
   * descriptors built from type information, a Java-serialized {@code TreeMap} of windows.
   */
  static final class EarlierSqlCommitterState extends AbstractStreamOperator<Void>
      implements OneInputStreamOperator<Void, Void> {
    private static final long serialVersionUID = 1L;
    private final String commitUser;
    private final TreeMap<Long, List<CommitMessage>> pending;
    private transient ListState<String> userState;
    private transient ListState<byte[]> windowState;

    EarlierSqlCommitterState(String commitUser, TreeMap<Long, List<CommitMessage>> pending) {
      this.commitUser = commitUser;
      this.pending = pending;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      userState =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("commit-user", Types.STRING));
      windowState =
          context
              .getOperatorStateStore()
              .getListState(
                  new ListStateDescriptor<>(
                      "windows", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
      super.snapshotState(context);
      userState.update(List.of(commitUser));
      windowState.update(List.of(InstantiationUtil.serializeObject(pending)));
    }

    @Override
    public void processElement(StreamRecord<Void> element) {}
  }

  @Test
  void aRestoredSqlWriteCommitsItsWindowsOnceAsItsCommitUser() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
    TreeMap<Long, List<CommitMessage>> pending = new TreeMap<>();
    pending.put(4L, SqlCommitterRestores.written(table, row(1L, "a", "x")));
    pending.put(7L, SqlCommitterRestores.written(table, row(2L, "b", "y")));

    OperatorSubtaskState state;
    try (var earlier =
        new OneInputStreamOperatorTestHarness<>(
            new EarlierSqlCommitterState("restored-user", pending))) {
      earlier.open();
      state = earlier.snapshot(9, 9);
    }

    SqlCommitterRestores.restoreTwiceAndCheckWindows4And7(table, state, "restored-user");
  }
}
