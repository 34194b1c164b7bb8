package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.SortOrder;
import io.sediment.compact.SortRange;
import io.sediment.data.BinaryRows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

/**
 * Every type of the topology's state, splits and records reads back equal through its layout, for
 * random values with every optional field absent and present.
 */
class StateLayoutRoundTripTest {

  private static final int CASES = 40;

  private final Random random = new Random(20261130);
  private final CompactTaskSource source = new CompactTaskSource(null, ExecutionMode.BATCH, 0, "u");

  private boolean coin() {
    return random.nextBoolean();
  }

  private String string(boolean nullable) {
    if (nullable && coin()) {
      return null;
    }
    // Non-ASCII and empty strings too.
    return switch (random.nextInt(4)) {
      case 0 -> "";
      case 1 -> "tâble-ß-" + random.nextInt(1000);
      default -> "s" + random.nextLong();
    };
  }

  private BinaryRowData row() {
    return switch (random.nextInt(3)) {
      case 0 -> BinaryRows.EMPTY;
      case 1 -> StateFixtures.partition(string(false));
      default ->
          BinaryRows.toBinary(
              StateFixtures.VALUES,
              GenericRowData.of(
                  coin() ? null : random.nextLong(),
                  coin() ? null : StringData.fromString(string(false)),
                  coin() ? null : random.nextInt()));
    };
  }

  private <T> List<T> list(Supplier<T> element) {
    int n = random.nextInt(4);
    List<T> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(element.get());
    }
    return list;
  }

  private DataFileMeta file() {
    long[] nullCounts = new long[random.nextInt(4)];
    for (int i = 0; i < nullCounts.length; i++) {
      nullCounts[i] = random.nextLong();
    }
    return new DataFileMeta(
        "data-" + random.nextLong() + ".parquet",
        random.nextLong(),
        random.nextLong(),
        row(),
        row(),
        row(),
        row(),
        nullCounts,
        random.nextLong(),
        random.nextLong(),
        random.nextLong(),
        random.nextInt(),
        random.nextLong(),
        coin() ? FileSource.APPEND : FileSource.COMPACT,
        random.nextLong());
  }

  private OptionalLong base() {
    return coin() ? OptionalLong.empty() : OptionalLong.of(random.nextLong());
  }

  private CommitMessage commitMessage() {
    return new CommitMessage(
        coin() ? null : row(),
        random.nextInt(),
        random.nextInt(),
        list(this::file),
        list(this::file),
        list(this::file),
        list(
            () ->
                new DeletionFile(
                    string(false),
                    string(true),
                    random.nextLong(),
                    random.nextInt(),
                    random.nextLong())),
        base());
  }

  private CompactTask task() {
    CompactTask.Kind kind = CompactTask.Kind.values()[random.nextInt(3)];
    return new CompactTask(
        string(true),
        coin() ? null : row(),
        string(false),
        random.nextInt(),
        random.nextInt(),
        list(this::file),
        random.nextInt(),
        kind,
        coin(),
        base(),
        kind == CompactTask.Kind.SORT_REWRITE ? sortRange() : null);
  }

  /** A sort range with either bound absent or present (lower below upper). */
  private SortRange sortRange() {
    SortOrder.Strategy strategy = SortOrder.Strategy.values()[random.nextInt(3)];
    List<String> columns = new ArrayList<>(List.of("c" + random.nextInt(100)));
    if (coin()) {
      columns.add("tâble-ß");
    }
    int count = 1 + random.nextInt(8);
    byte[] lower = coin() ? null : new byte[] {1, (byte) random.nextInt(), 0};
    byte[] upper = coin() ? null : new byte[] {(byte) 0x90, (byte) random.nextInt()};
    return new SortRange(
        new SortOrder(strategy, columns),
        random.nextLong(),
        random.nextInt(count),
        count,
        lower,
        upper);
  }

  private CompactTaskSplit split() {
    return new CompactTaskSplit(string(false), task(), string(true));
  }

  private CompactMessage message() {
    CompactTaskSplit split = split();
    List<String> markers = list(() -> string(false));
    if (coin()) {
      return CompactMessage.failure(
          split, new IllegalStateException(string(true), new IOException("cause")), markers);
    }
    CompactTaskResult result =
        new CompactTaskResult(
            task(),
            commitMessage(),
            random.nextLong(),
            random.nextLong(),
            random.nextLong(),
            random.nextLong(),
            random.nextLong());
    return CompactMessage.success(split, result, markers);
  }

  @Test
  void splitsAndEnumeratorStates() throws Exception {
    SimpleVersionedSerializer<CompactTaskSplit> splits = source.getSplitSerializer();
    SimpleVersionedSerializer<CompactEnumeratorState> states =
        source.getEnumeratorCheckpointSerializer();
    assertThat(splits.getVersion()).isEqualTo(StateLayout.CURRENT);
    assertThat(states.getVersion()).isEqualTo(StateLayout.CURRENT);
    for (int i = 0; i < CASES; i++) {
      CompactTaskSplit split = split();
      CompactTaskSplit read = splits.deserialize(splits.getVersion(), splits.serialize(split));
      StateValues.assertSame(read, split);
      assertThat(read.task().sortRange()).isEqualTo(split.task().sortRange());

      CompactEnumeratorState state =
          new CompactEnumeratorState(
              list(this::split), list(this::split), random.nextLong(), string(true));
      StateValues.assertSame(
          states.deserialize(states.getVersion(), states.serialize(state)), state);
    }
  }

  @Test
  void compactMessagesAsRecordsAndCopies() throws Exception {
    for (int i = 0; i < CASES; i++) {
      CompactMessage message = message();
      DataOutputSerializer out = new DataOutputSerializer(256);
      CompactMessageSerializer.INSTANCE.serialize(message, out);
      DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
      StateValues.assertSame(CompactMessageSerializer.INSTANCE.deserialize(in), message);
      assertThat(in.available()).isZero();

      CompactMessage copy = CompactMessageSerializer.INSTANCE.copy(message);
      assertThat(copy).isNotSameAs(message);
      StateValues.assertSame(copy, message);
      if (message.failed()) {
        assertThat(copy.failureCause())
            .isInstanceOf(IllegalStateException.class)
            .hasCauseInstanceOf(IOException.class);
      }

      CompactTaskSplit split = split();
      StateValues.assertSame(CompactTaskSplitSerializer.INSTANCE.copy(split), split);
    }
  }

  @Test
  void committerWindowsAndSqlWriterMessages() throws Exception {
    for (int i = 0; i < CASES / 4; i++) {
      TreeMap<Long, List<CompactMessage>> windows = new TreeMap<>();
      TreeMap<Long, List<CommitMessage>> sqlWindows = new TreeMap<>();
      for (int w = random.nextInt(3); w > 0; w--) {
        windows.put(random.nextLong(), list(this::message));
        sqlWindows.put(random.nextLong(), list(this::commitMessage));
      }
      StateValues.assertSame(
          VersionedBytes.read(
              VersionedBytes.write(windows, CommitWindows.stateCodec(CompactMessageCodec.INSTANCE)),
              CommitWindows.stateCodec(CompactMessageCodec.INSTANCE),
              null,
              "windows"),
          windows);
      StateValues.assertSame(
          VersionedBytes.read(
              VersionedBytes.write(
                  sqlWindows, CommitWindows.stateCodec(CommitMessageCodec.INSTANCE)),
              CommitWindows.stateCodec(CommitMessageCodec.INSTANCE),
              null,
              "windows"),
          sqlWindows);

      List<CommitMessage> messages = list(this::commitMessage);
      StateValues.assertSame(
          CommitMessageListCodec.fromBytes(CommitMessageListCodec.toBytes(messages), null),
          messages);
    }
  }

  @Test
  void recordSerializersTravelInTheJobAndTheirSnapshotsRestoreThem() throws Exception {
    for (TypeSerializer<?> serializer :
        List.of(CompactMessageSerializer.INSTANCE, CompactTaskSplitSerializer.INSTANCE)) {
      assertThat(InstantiationUtil.clone(serializer)).isEqualTo(serializer);

      DataOutputSerializer out = new DataOutputSerializer(64);
      TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
      TypeSerializerSnapshot<?> restored =
          TypeSerializerSnapshot.readVersionedSnapshot(
              new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());
      assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    }
  }

  @Test
  void aTaskErrorWhoseClassIsGoneReadsBackAsText() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeInt(StateLayout.CURRENT);
    StateLayout.writeString("9", out);
    StateLayout.writeString("db.t", out);
    StateLayout.writeString("CompactTask{db.t}", out);
    out.writeBoolean(false); // no result
    out.writeBoolean(true); // a failure
    StateLayout.writeString("com.example.GoneError", out);
    StateLayout.writeString("disk on fire", out);
    StateLayout.writeString("com.example.GoneError: disk on fire\n\tat com.example.X.y", out);
    // A Java stream naming a class that does not exist.
    StateLayout.writeBytes(
        renamedClass(InstantiationUtil.serializeObject(new IOException("x"))), out);
    StateLayout.writeStrings(List.of("marker-9"), out);

    CompactMessage read =
        CompactMessageSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(out.getCopyOfBuffer()));
    assertThat(read.failed()).isTrue();
    assertThat(read.markers()).containsExactly("marker-9");
    assertThat(read.failureCause())
        .isInstanceOfSatisfying(
            RestoredTaskError.class,
            e -> assertThat(e.originalClassName()).isEqualTo("com.example.GoneError"))
        .hasMessageContaining("com.example.GoneError: disk on fire")
        .hasMessageContaining("at com.example.X.y");
  }

  /** The Java stream of an {@code IOException}, its class renamed to one that does not exist. */
  private static byte[] renamedClass(byte[] stream) {
    byte[] from = "java.io.IOException".getBytes(StandardCharsets.UTF_8);
    byte[] to = "java.io.IOExceptioX".getBytes(StandardCharsets.UTF_8);
    byte[] copy = stream.clone();
    for (int i = 0; i + from.length <= copy.length; i++) {
      if (Arrays.equals(copy, i, i + from.length, from, 0, from.length)) {
        System.arraycopy(to, 0, copy, i, to.length);
      }
    }
    return copy;
  }
}
