package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactTask;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * State, splits and records written by the version-1 layout (fixtures under {@code
 * serialization/v1}, written by Sediment before tasks and messages carried a base snapshot id: a
 * deletion-vector table partitioned by {@code p}, a minor compaction of partition {@code a}) still
 * read, with the base snapshot unknown; the current layout keeps the base.
 */
class SerializationCompatibilityTest {

  private static byte[] fixture(String name) throws IOException {
    try (InputStream in =
        SerializationCompatibilityTest.class.getResourceAsStream("/serialization/v1/" + name)) {
      assertThat(in).as("fixture %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static void assertVersion1Task(CompactTask task) {
    assertThat(task.kind()).isEqualTo(CompactTask.Kind.MERGE_TREE);
    assertThat(task.partitionPath()).isEqualTo("p=a");
    assertThat(task.partition().getString(0).toString()).isEqualTo("a");
    assertThat(task.inputs()).isNotEmpty();
    assertThat(task.baseSnapshotId()).isEmpty();
  }

  @Test
  void version1EnumeratorStateAndSplitsRestoreWithTheBaseUnknown() throws Exception {
    SimpleVersionedSerializer<CompactEnumeratorState> states = JavaSerialization.versioned();
    CompactEnumeratorState state = states.deserialize(1, fixture("enumerator-state.bin"));
    assertThat(state.commitUser()).isEqualTo("job-user");
    assertThat(state.nextId()).isEqualTo(8);
    assertThat(state.pending()).hasSize(1);
    assertThat(state.held()).hasSize(1);
    assertVersion1Task(state.pending().get(0).task());

    SimpleVersionedSerializer<CompactTaskSplit> splits = JavaSerialization.versioned();
    CompactTaskSplit split = splits.deserialize(1, fixture("split.bin"));
    assertThat(split.splitId()).isEqualTo("7");
    assertVersion1Task(split.task());
  }

  @Test
  void version1CompactMessagesRestoreWithTheBaseUnknown() throws Exception {
    CompactMessage record =
        (CompactMessage)
            JavaSerialization.ObjectSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(fixture("compact-message-record.bin")));
    assertThat(record.markers()).containsExactly("marker-1");
    CommitMessage message = record.result().message();
    assertThat(message.compactBefore()).isNotEmpty();
    assertThat(message.deletionFiles()).isNotEmpty();
    assertThat(message.partition().getString(0).toString()).isEqualTo("a");
    assertThat(message.baseSnapshotId()).isEmpty();
    assertVersion1Task(record.result().task());

    TreeMap<Long, List<CompactMessage>> windows =
        JavaSerialization.fromBytes(fixture("committer-windows.bin"));
    assertThat(windows).containsOnlyKeys(3L);
    assertThat(windows.get(3L).get(0).result().message().baseSnapshotId()).isEmpty();
  }

  @Test
  void currentLayoutKeepsTheBaseSnapshot() throws Exception {
    SimpleVersionedSerializer<CompactTaskSplit> splits = JavaSerialization.versioned();
    CompactTaskSplit old = splits.deserialize(1, fixture("split.bin"));
    CompactTaskSplit split =
        new CompactTaskSplit("8", old.task().withBaseSnapshotId(42), old.commitUser());
    assertThat(splits.getVersion()).isEqualTo(2);
    CompactTaskSplit back = splits.deserialize(2, splits.serialize(split));
    assertThat(back.task().baseSnapshotId()).hasValue(42);
    assertThat(back.task().inputs()).isEqualTo(old.task().inputs());

    CompactMessage record =
        (CompactMessage)
            JavaSerialization.ObjectSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(fixture("compact-message-record.bin")));
    CommitMessage withBase = record.result().message().withBaseSnapshotId(OptionalLong.of(42));
    DataOutputSerializer out = new DataOutputSerializer(4096);
    JavaSerialization.ObjectSerializer.INSTANCE.serialize(withBase, out);
    CommitMessage read =
        (CommitMessage)
            JavaSerialization.ObjectSerializer.INSTANCE.deserialize(
                new DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(read.baseSnapshotId()).hasValue(42);
    assertThat(read.deletionFiles()).isEqualTo(withBase.deletionFiles());
  }

  @Test
  void stateOfANewerVersionIsRefusedWithAClearError() {
    SimpleVersionedSerializer<CompactTaskSplit> splits = JavaSerialization.versioned();
    assertThatThrownBy(() -> splits.deserialize(3, fixture("split.bin")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 3")
        .hasMessageContaining("reads versions 1 to 2");
  }
}
