package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.markerFiles;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.SequencesCodec;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.flink.sql.SedimentWriteOperator;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.RoundRobinOperatorStateRepartitioner;
import org.apache.flink.runtime.checkpoint.StateObjectCollection;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a SQL writer keeps in Flink's state, and how it is restored: by the rules Flink applies to
 * operators whose subtasks end apart (checkpoints after tasks finished), by rescaling, and from the
 * state of earlier versions.
 */
class SqlWriterStateTest {

  private static final String USER = "sql-job";
  private static final String REPLANNED = "sql-job-replanned";
  private static final int MAX_PARALLELISM = 128;

  @TempDir Path dir;

  /**
   * Flink declines every checkpoint while only some subtasks of an operator with union list state
   * have finished (FLIP-147). An append table's writers are chained to their source, whose subtasks
   * may end apart: they keep none, so checkpoints go on. A primary-key table's writers read through
   * the bucket shuffle and end together: their sequences stay union list state.
   */
  @Test
  void appendWritersKeepNoUnionListState() throws Exception {
    Table append =
        TestTables.create(TestTables.catalog(dir), "a", TestTables.idValueSchema().build());
    Table keyed =
        TestTables.create(TestTables.catalog(dir), "k", FlinkTestSupport.oneKeyBucket().build());

    assertThat(distribution(firstCheckpoint(append, 0, 1)))
        .containsExactly(entry("writer-commit-user", OperatorStateHandle.Mode.BROADCAST));
    assertThat(distribution(firstCheckpoint(keyed, 0, 1)))
        .containsOnly(
            entry("writer-commit-user", OperatorStateHandle.Mode.BROADCAST),
            entry("sequences", OperatorStateHandle.Mode.UNION));
  }

  /**
   * A job of writers at parallelism 2 whose second writer had ended (its state is gone, as Flink
   * drops a finished subtask's), restored by a newly planned job (another commit user) at
   * parallelism 1 to 4: every restored writer marks its files under the commit user the first
   * writer kept, where the restored committer cleans.
   */
  @Test
  void everyRestoredWriterKeepsTheCommitUserWhenSomeHadEnded() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    Path tableDir = dir.resolve("db.db/t");
    OperatorSubtaskState kept = firstCheckpoint(table, 0, 2);
    Random random = new Random(7);
    for (int parallelism = 1; parallelism <= 4; parallelism++) {
      for (int subtask = 0; subtask < parallelism; subtask++) {
        OperatorSubtaskState state = restored(kept, parallelism, subtask);
        clearMarkers(tableDir);
        try (var writer = writer(table, REPLANNED, subtask, parallelism)) {
          writer.initializeState(state);
          writer.open();
          writer.processElement(row(random.nextLong(), "restored"), 0);
          assertThat(markerFiles(tableDir))
              .as("subtask %s of %s", subtask, parallelism)
              .isNotEmpty()
              .allSatisfy(m -> assertThat(tableDir.relativize(m).getName(1)).hasToString(USER));
        }
      }
    }
  }

  /**
   * A checkpoint of an earlier version, whose writers kept their commit user and a primary-key
   * table's sequences as union list state: the restored writer marks under that user and writes
   * above those sequences; what it keeps of the old commit-user state from then on is empty.
   */
  @Test
  void aCheckpointOfAnEarlierVersionRestoresItsCommitUserAndSequences() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "k", FlinkTestSupport.oneKeyBucket().build());
    Path tableDir = dir.resolve("db.db/k");
    // The bucket's partition as the writer keys it: from a first writer's message.
    CommitMessage first;
    try (var writer = writer(table, USER, 0, 1)) {
      writer.open();
      writer.processElement(row(1L, "a"), 0);
      writer.prepareSnapshotPreBarrier(1);
      first = messages(writer).get(0);
    }
    Map<org.apache.flink.table.data.binary.BinaryRowData, Map<Integer, Long>> sequences =
        new HashMap<>();
    sequences.put(first.partition(), Map.of(first.bucket(), 1000L));
    OperatorSubtaskState earlier;
    try (var old =
        new OneInputStreamOperatorTestHarness<RowData, Void>(
            new EarlierWriterState(
                USER, VersionedBytes.write(sequences, SequencesCodec.INSTANCE)))) {
      old.open();
      earlier = old.snapshot(5, 5);
    }

    clearMarkers(tableDir);
    try (var writer = writer(table, REPLANNED, 0, 1)) {
      writer.initializeState(earlier);
      writer.open();
      writer.processElement(row(2L, "b"), 0);
      writer.prepareSnapshotPreBarrier(6);
      assertThat(messages(writer).get(0).newFiles().get(0).minSequenceNumber())
          .as("the restored bucket's rows come after the earlier attempt's")
          .isGreaterThanOrEqualTo(1000L);
      assertThat(markerFiles(tableDir))
          .isNotEmpty()
          .allSatisfy(m -> assertThat(tableDir.relativize(m).getName(1)).hasToString(USER));
      OperatorSubtaskState next = writer.snapshot(6, 6);
      // Flink keeps a restored state's name: the old union state stays, empty.
      assertThat(offsets(next, "marker-user")).isEmpty();
      assertThat(distribution(next))
          .contains(entry("writer-commit-user", OperatorStateHandle.Mode.BROADCAST));
    }
  }

  /**
   * An append table's writer restored from an earlier version's state: it marks under the restored
   * user, and what it keeps of the earlier union states (whose names Flink keeps) is empty.
   */
  @Test
  void anAppendWriterRestoredFromAnEarlierVersionKeepsItsUserAndEmptiesTheUnionStates()
      throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "a", TestTables.idValueSchema().build());
    Path tableDir = dir.resolve("db.db/a");
    OperatorSubtaskState earlier;
    try (var old =
        new OneInputStreamOperatorTestHarness<RowData, Void>(
            new EarlierWriterState(
                USER, VersionedBytes.write(Map.of(), SequencesCodec.INSTANCE)))) {
      old.open();
      earlier = old.snapshot(5, 5);
    }
    try (var writer = writer(table, REPLANNED, 0, 1)) {
      writer.initializeState(earlier);
      writer.open();
      writer.processElement(row(2L, "b"), 0);
      assertThat(markerFiles(tableDir))
          .isNotEmpty()
          .allSatisfy(m -> assertThat(tableDir.relativize(m).getName(1)).hasToString(USER));
      OperatorSubtaskState next = writer.snapshot(6, 6);
      assertThat(offsets(next, "marker-user")).isEmpty();
      assertThat(offsets(next, "sequences")).isEmpty();
    }
  }

  /** Subtask {@code subtask} of {@code parallelism} writes a row and takes checkpoint 1. */
  private static OperatorSubtaskState firstCheckpoint(Table table, int subtask, int parallelism)
      throws Exception {
    try (var writer = writer(table, USER, subtask, parallelism)) {
      writer.open();
      writer.processElement(row(1L, "a"), 0);
      writer.prepareSnapshotPreBarrier(1);
      return writer.snapshot(1, 1);
    }
  }

  /**
   * Subtask {@code subtask} of {@code parallelism}'s state restored from a checkpoint of two
   * writers, the first of which kept {@code first}, the second had ended (no state).
   */
  private static OperatorSubtaskState restored(
      OperatorSubtaskState first, int parallelism, int subtask) {
    List<List<OperatorStateHandle>> old =
        List.of(new ArrayList<>(first.getManagedOperatorState()), List.of());
    List<OperatorStateHandle> mine =
        RoundRobinOperatorStateRepartitioner.INSTANCE
            .repartitionState(old, 2, parallelism)
            .get(subtask);
    return OperatorSubtaskState.builder()
        .setManagedOperatorState(new StateObjectCollection<>(mine))
        .build();
  }

  private static void clearMarkers(Path tableDir) throws IOException {
    Path markers = tableDir.resolve(".markers");
    if (Files.exists(markers)) {
      try (Stream<Path> all = Files.walk(markers)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>> writer(
      Table table, String plannedUser, int subtask, int parallelism) throws Exception {
    return new OneInputStreamOperatorTestHarness<>(
        new SedimentWriteOperator(table, plannedUser), MAX_PARALLELISM, parallelism, subtask);
  }

  private static List<CommitMessage> messages(
      OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>> writer) throws Exception {
    List<CommitMessage> out = new ArrayList<>();
    for (Tuple2<Long, byte[]> record : writer.extractOutputValues()) {
      out.addAll(
          CommitMessageListCodec.fromBytes(record.f1, SqlWriterStateTest.class.getClassLoader()));
    }
    writer.getOutput().clear();
    return out;
  }

  /** The distribution mode of each operator state in {@code state}, as Flink's checks read it. */
  private static Map<String, OperatorStateHandle.Mode> distribution(OperatorSubtaskState state) {
    Map<String, OperatorStateHandle.Mode> out = new HashMap<>();
    for (OperatorStateHandle handle : state.getManagedOperatorState()) {
      handle
          .getStateNameToPartitionOffsets()
          .forEach((name, info) -> out.put(name, info.getDistributionMode()));
    }
    return out;
  }

  private static List<Long> offsets(OperatorSubtaskState state, String name) {
    List<Long> out = new ArrayList<>();
    for (OperatorStateHandle handle : state.getManagedOperatorState()) {
      var info = handle.getStateNameToPartitionOffsets().get(name);
      if (info != null) {
        for (long offset : info.getOffsets()) {
          out.add(offset);
        }
      }
    }
    return out;
  }

  /** The state a writer of an earlier version kept: union list states of its user and sequences. */
  private static final class EarlierWriterState extends AbstractStreamOperator<Void>
      implements OneInputStreamOperator<RowData, Void> {

    private static final long serialVersionUID = 1L;
    private final String user;
    private final byte[] sequences;

    EarlierWriterState(String user, byte[] sequences) {
      this.user = user;
      this.sequences = sequences;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      var store = context.getOperatorStateStore();
      store
          .getUnionListState(new ListStateDescriptor<>("marker-user", StringSerializer.INSTANCE))
          .update(List.of(user));
      store
          .getUnionListState(
              new ListStateDescriptor<>("sequences", BytePrimitiveArraySerializer.INSTANCE))
          .update(List.of(sequences));
    }

    @Override
    public void processElement(StreamRecord<RowData> element) {}
  }
}
