package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedBytes;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The checked-in fixtures of layout 3 ({@code serialization/v3}, written by {@link
 * StateFixtures#main}) read back as the values they were written from, and the serializers still
 * write exactly those bytes: a layout change that forgets to bump {@link StateLayout#CURRENT} fails
 * here.
 */
class StateLayoutFixtureTest {

  private static final int V3 = 3;

  private final CompactTaskSource source = new CompactTaskSource(null, true, 0, "job-user");

  static byte[] fixture(int version, String name) throws IOException {
    try (InputStream in =
        StateLayoutFixtureTest.class.getResourceAsStream(
            "/serialization/v" + version + "/" + name)) {
      assertThat(in).as("fixture v%s/%s", version, name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void sourceSplitsAndEnumeratorStateOfLayout3Restore() throws Exception {
    SimpleVersionedSerializer<CompactTaskSplit> splits = source.getSplitSerializer();
    StateValues.assertSameSplit(
        splits.deserialize(V3, fixture(V3, "split.bin")), StateFixtures.split());

    CompactEnumeratorState state =
        source
            .getEnumeratorCheckpointSerializer()
            .deserialize(V3, fixture(V3, "enumerator-state.bin"));
    StateValues.assertSameState(state, StateFixtures.enumeratorState());
  }

  @Test
  void compactMessagesAndCommitterWindowsOfLayout3Restore() throws Exception {
    CompactMessage record =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(V3, "compact-message-record.bin")));
    StateValues.assertSameMessage(record, StateFixtures.success());

    TreeMap<Long, List<CompactMessage>> windows =
        VersionedBytes.read(
            fixture(V3, "committer-windows.bin"),
            CommitWindows.stateCodec(CompactMessageCodec.INSTANCE),
            null,
            "committer windows");
    assertThat(windows).containsOnlyKeys(3L, 4L);
    assertThat(windows.get(4L)).hasSize(2);
    StateValues.assertSameMessage(windows.get(3L).get(0), StateFixtures.success());
  }

  @Test
  void aFailedTaskOfLayout3RestoresItsError() throws Exception {
    CompactMessage failed =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(V3, "compact-message-failed-record.bin")));
    assertThat(failed.failed()).isTrue();
    assertThat(failed.result()).isNull();
    assertThat(failed.markers()).containsExactly("marker-1");
    assertThat(failed.failureCause())
        .isInstanceOf(IOException.class)
        .hasMessage("disk full while writing data-3.parquet");
  }

  @Test
  void sqlWriterMessagesOfLayout3Restore() throws Exception {
    List<CommitMessage> messages =
        CommitMessageListCodec.fromBytes(fixture(V3, "sql-commit-messages.bin"), null);
    assertThat(messages).hasSize(2);
    StateValues.assertSameCommitMessage(messages.get(0), StateFixtures.appendMessage());
    StateValues.assertSameCommitMessage(messages.get(1), StateFixtures.compactMessage());

    TreeMap<Long, List<CommitMessage>> windows =
        VersionedBytes.read(
            fixture(V3, "sql-committer-windows.bin"),
            CommitWindows.stateCodec(CommitMessageCodec.INSTANCE),
            null,
            "committer windows");
    assertThat(windows).containsOnlyKeys(5L);
    StateValues.assertSameCommitMessage(windows.get(5L).get(0), StateFixtures.appendMessage());
  }

  @Test
  void theCurrentSerializersStillWriteTheLayout3BytesUnlessTheVersionWasBumped() throws Exception {
    if (StateLayout.CURRENT != V3) {
      return; // a newer layout has its own fixtures; these must only still read (tests above)
    }
    for (Map.Entry<String, byte[]> f : StateFixtures.deterministicFixtures().entrySet()) {
      assertThat(f.getValue())
          .as(
              "bytes of %s: the layout changed without a version bump (bump StateLayout.CURRENT,"
                  + " keep reading version 3, add fixtures of the new version with"
                  + " StateFixtures.main)",
              f.getKey())
          .isEqualTo(fixture(V3, f.getKey()));
    }
  }

  @Test
  void stateOfANewerLayoutIsRefusedWithAClearError() {
    assertThatThrownBy(() -> source.getSplitSerializer().deserialize(9, fixture(V3, "split.bin")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("compaction source split of layout version 9")
        .hasMessageContaining("reads versions 1 to 3")
        .hasMessageContaining("newer Sediment");
  }
}
