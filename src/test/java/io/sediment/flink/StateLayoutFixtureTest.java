package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.ExecutionMode;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checked-in fixtures of the explicit layouts ({@code serialization/v3}, {@code v4}, written by
 * {@link StateFixtures#main} when each was current) read back as the values they were written from,
 * and the serializers still write exactly the current layout's bytes: a layout change that forgets
 * to bump {@link StateLayout#CURRENT} fails here.
 */
class StateLayoutFixtureTest {

  private static final int V3 = 3;
  private static final int V4 = 4;

  private final CompactTaskSource source =
      new CompactTaskSource(null, ExecutionMode.BATCH, 0, "job-user");

  static byte[] fixture(int version, String name) throws IOException {
    try (InputStream in =
        StateLayoutFixtureTest.class.getResourceAsStream(
            "/serialization/v" + version + "/" + name)) {
      assertThat(in).as("fixture v%s/%s", version, name).isNotNull();
      return in.readAllBytes();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {V3, V4})
  void sourceSplitsAndEnumeratorStateOfEveryExplicitLayoutRestore(int version) throws Exception {
    SimpleVersionedSerializer<CompactTaskSplit> splits = source.getSplitSerializer();
    StateValues.assertSameSplit(
        splits.deserialize(version, fixture(version, "split.bin")), StateFixtures.split());

    CompactEnumeratorState state =
        source
            .getEnumeratorCheckpointSerializer()
            .deserialize(version, fixture(version, "enumerator-state.bin"));
    StateValues.assertSameState(state, StateFixtures.enumeratorState());
  }

  @ParameterizedTest
  @ValueSource(ints = {V3, V4})
  void compactMessagesAndCommitterWindowsOfEveryExplicitLayoutRestore(int version)
      throws Exception {
    CompactMessage record =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(version, "compact-message-record.bin")));
    StateValues.assertSameMessage(record, StateFixtures.success());

    TreeMap<Long, List<CompactMessage>> windows =
        VersionedBytes.read(
            fixture(version, "committer-windows.bin"),
            CommitWindows.stateCodec(CompactMessageCodec.INSTANCE),
            null,
            "committer windows");
    assertThat(windows).containsOnlyKeys(3L, 4L);
    assertThat(windows.get(4L)).hasSize(2);
    StateValues.assertSameMessage(windows.get(3L).get(0), StateFixtures.success());
  }

  @ParameterizedTest
  @ValueSource(ints = {V3, V4})
  void aFailedTaskOfEveryExplicitLayoutRestoresItsError(int version) throws Exception {
    CompactMessage failed =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(fixture(version, "compact-message-failed-record.bin")));
    assertThat(failed.failed()).isTrue();
    assertThat(failed.result()).isNull();
    assertThat(failed.markers()).containsExactly("marker-1");
    assertThat(failed.failureCause())
        .isInstanceOf(IOException.class)
        .hasMessage("disk full while writing data-3.parquet");
  }

  @ParameterizedTest
  @ValueSource(ints = {V3, V4})
  void sqlWriterMessagesOfEveryExplicitLayoutRestore(int version) throws Exception {
    List<CommitMessage> messages =
        CommitMessageListCodec.fromBytes(fixture(version, "sql-commit-messages.bin"), null);
    assertThat(messages).hasSize(version == V3 ? 2 : 3);
    StateValues.assertSameCommitMessage(messages.get(0), StateFixtures.appendMessage());
    StateValues.assertSameCommitMessage(messages.get(1), StateFixtures.compactMessage());
    if (version >= V4) {
      StateValues.assertSameCommitMessage(messages.get(2), StateFixtures.changelogMessage());
      assertThat(messages.get(2).inputChangelog()).hasSize(1);
      assertThat(messages.get(2).compactChangelog()).hasSize(1);
    }

    TreeMap<Long, List<CommitMessage>> windows =
        VersionedBytes.read(
            fixture(version, "sql-committer-windows.bin"),
            CommitWindows.stateCodec(CommitMessageCodec.INSTANCE),
            null,
            "committer windows");
    assertThat(windows).containsOnlyKeys(5L);
    StateValues.assertSameCommitMessage(windows.get(5L).get(0), StateFixtures.appendMessage());
  }

  @Test
  void theCurrentSerializersStillWriteTheLayout4BytesUnlessTheVersionWasBumped() throws Exception {
    if (StateLayout.CURRENT != V4) {
      return; // a newer layout has its own fixtures; these must only still read (tests above)
    }
    for (Map.Entry<String, byte[]> f : StateFixtures.deterministicFixtures().entrySet()) {
      assertThat(f.getValue())
          .as(
              "bytes of %s: the layout changed without a version bump (bump StateLayout.CURRENT,"
                  + " keep reading version 4, add fixtures of the new version with"
                  + " StateFixtures.main)",
              f.getKey())
          .isEqualTo(fixture(V4, f.getKey()));
    }
  }

  @Test
  void stateOfANewerLayoutIsRefusedWithAClearError() {
    assertThatThrownBy(() -> source.getSplitSerializer().deserialize(9, fixture(V3, "split.bin")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("compaction source split of layout version 9")
        .hasMessageContaining("reads versions 1 to 4")
        .hasMessageContaining("newer Sediment");
  }
}
