package io.sediment.flink;

import static io.sediment.flink.StateLayoutFixtureTest.fixture;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactTask;
import io.sediment.compact.ExecutionMode;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.VersionedBytes;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.junit.jupiter.api.Test;

/**
 * State, splits and records of the Java-serialized layouts still read with the current serializers.
 *
 * <p>Version 1 (fixtures under {@code serialization/v1}, written by Sediment before tasks and
 * messages carried a base snapshot id: a deletion-vector table partitioned by {@code p}, a minor
 * compaction of partition {@code a}) reads with the base snapshot unknown.
 *
 * <p>Version 2 (fixtures under {@code serialization/v2}: {@link StateFixtures}' values written by
 * {@code InstantiationUtil.serializeObject}, byte for byte what the version-2 {@code
 * JavaSerialization} wrote; record files are an {@code int} length, then those bytes) reads with
 * the base snapshot and every field.
 */
class SerializationCompatibilityTest {

  private final CompactTaskSource source =
      new CompactTaskSource(null, ExecutionMode.BATCH, 0, "job-user");

  private static void assertVersion1Task(CompactTask task) {
    assertThat(task.kind()).isEqualTo(CompactTask.Kind.MERGE_TREE);
    assertThat(task.partitionPath()).isEqualTo("p=a");
    assertThat(task.partition().getString(0).toString()).isEqualTo("a");
    assertThat(task.inputs()).isNotEmpty();
    assertThat(task.baseSnapshotId()).isEmpty();
  }

  @Test
  void version1EnumeratorStateAndSplitsRestoreWithTheBaseUnknown() throws Exception {
    SimpleVersionedSerializer<CompactEnumeratorState> states =
        source.getEnumeratorCheckpointSerializer();
    CompactEnumeratorState state = states.deserialize(1, fixture(1, "enumerator-state.bin"));
    assertThat(state.commitUser()).isEqualTo("job-user");
    assertThat(state.nextId()).isEqualTo(8);
    assertThat(state.pending()).hasSize(1);
    assertThat(state.held()).hasSize(1);
    assertVersion1Task(state.pending().get(0).task());

    SimpleVersionedSerializer<CompactTaskSplit> splits = source.getSplitSerializer();
    CompactTaskSplit split = splits.deserialize(1, fixture(1, "split.bin"));
    assertThat(split.splitId()).isEqualTo("7");
    assertVersion1Task(split.task());
  }

  @Test
  void version1CompactMessagesRestoreWithTheBaseUnknown() throws Exception {
    CompactMessage record =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(1, "compact-message-record.bin")));
    assertThat(record.markers()).containsExactly("marker-1");
    CommitMessage message = record.result().message();
    assertThat(message.compactBefore()).isNotEmpty();
    assertThat(message.deletionFiles()).isNotEmpty();
    assertThat(message.partition().getString(0).toString()).isEqualTo("a");
    assertThat(message.baseSnapshotId()).isEmpty();
    assertVersion1Task(record.result().task());

    TreeMap<Long, List<CompactMessage>> windows =
        VersionedBytes.read(
            fixture(1, "committer-windows.bin"),
            CommitWindows.stateCodec(CompactMessageCodec.INSTANCE),
            getClass().getClassLoader(),
            "committer windows");
    assertThat(windows).containsOnlyKeys(3L);
    assertThat(windows.get(3L).get(0).result().message().baseSnapshotId()).isEmpty();
  }

  @Test
  void version2StateAndRecordsRestoreEveryField() throws Exception {
    StateValues.assertSame(
        source.getSplitSerializer().deserialize(2, fixture(2, "split.bin")), StateFixtures.split());
    StateValues.assertSame(
        source
            .getEnumeratorCheckpointSerializer()
            .deserialize(2, fixture(2, "enumerator-state.bin")),
        StateFixtures.enumeratorState());
    StateValues.assertSame(
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(2, "compact-message-record.bin"))),
        StateFixtures.success());
    StateValues.assertSame(
        VersionedBytes.read(
            fixture(2, "committer-windows.bin"),
            CommitWindows.stateCodec(CompactMessageCodec.INSTANCE),
            getClass().getClassLoader(),
            "committer windows"),
        StateFixtures.committerWindows());
    StateValues.assertSame(
        CommitMessageListCodec.fromBytes(
            fixture(2, "sql-commit-messages.bin"), getClass().getClassLoader()),
        List.of(StateFixtures.appendMessage(), StateFixtures.compactMessage()));
  }
}
