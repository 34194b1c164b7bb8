package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.BarrierHold;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.SequencesCodec;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.table.RowBuckets;
import io.sediment.table.StopTriggerWait;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link SinkWriter} in Flink: before each checkpoint barrier it flushes and sends the
 * window's {@link CommitMessage}s, tagged with the checkpoint id, to the committer; at end of input
 * it sends the rest tagged {@link #END_OF_INPUT}. Files not yet sent when the operator is closed
 * after a failure are deleted by the writer's close.
 *
 * <p>State: the commit user its markers are under (broadcast state {@code writer-commit-user}, the
 * same in every subtask), so a restored writer marks under the directory its restored committer
 * cleans; and, for a primary-key table or fixed buckets, the next sequence number of each bucket
 * written (union list state {@code sequences}, {@link SequencesCodec}), so that a restored writer's
 * rows stay newer than windows of the earlier attempt that the restored committer commits
 * meanwhile.
 *
 * <p>Flink completes no checkpoint while only some subtasks of an operator with union list state
 * have finished. An unbucketed append table's writers are chained to their input, so a bounded
 * source's subtask that ends early ends its writer: they keep no union list state, and checkpoints
 * go on committing the writers still running (broadcast state is copied to every restored subtask
 * from one that has it). The writers of a primary-key table or of fixed buckets read through the
 * bucket shuffle, so each ends only when every input did, and all end together.
 *
 * <p>A {@code write-only} writer that waits for a compaction job ({@code
 * write-only.stop-trigger-wait}) holds its checkpoint barrier meanwhile, so under periodic
 * checkpoints it waits at most half the checkpoint timeout: a longer wait would fail the checkpoint
 * (and, with no tolerable failures, the job) instead of committing late.
 */
public final class SedimentWriteOperator extends AbstractStreamOperator<Tuple2<Long, byte[]>>
    implements OneInputStreamOperator<RowData, Tuple2<Long, byte[]>>, BoundedOneInput {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SedimentWriteOperator.class);

  /** Window id of the messages written after the last checkpoint of a finished input. */
  public static final long END_OF_INPUT = Long.MAX_VALUE;

  /**
   * The committer's list state of the writers' marker user; the writers' union list state of it in
   * earlier versions, read when restored from their checkpoints.
   */
  static final String MARKER_USER_STATE = "marker-user";

  static final String COMMIT_USER_STATE = "writer-commit-user";
  static final String SEQUENCES_STATE = "sequences";

  private static final String COMMIT_USER_KEY = "user";

  private final Table table;
  private final String initialCommitUser;

  private transient SinkWriter writer;
  private transient BroadcastState<String, String> commitUserState;

  /** Null for an unbucketed append table: its files keep no order. */
  private transient ListState<byte[]> sequencesState;

  private final boolean overwrite;

  private transient String commitUser;
  private transient long restoredCheckpoint;
  private transient Map<BinaryRowData, Map<Integer, Long>> restoredSequences;

  /**
   * The input ended and the rest was sent: later barriers (the final checkpoint's) send nothing.
   */
  private transient boolean ended;

  /**
   * @param commitUser the job's commit user, chosen when the sink is planned (the committer's)
   */
  public SedimentWriteOperator(Table table, String commitUser) {
    this(table, commitUser, false);
  }

  /**
   * @param overwrite whether the sink overwrites (INSERT OVERWRITE): the writer ignores the table's
   *     files, which the commit replaces
   */
  public SedimentWriteOperator(Table table, String commitUser, boolean overwrite) {
    this.table = table;
    this.initialCommitUser = commitUser;
    this.overwrite = overwrite;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    var store = context.getOperatorStateStore();
    commitUserState =
        store.getBroadcastState(
            new MapStateDescriptor<>(
                COMMIT_USER_STATE, StringSerializer.INSTANCE, StringSerializer.INSTANCE));
    commitUser = initialCommitUser;
    restoredSequences = new HashMap<>();
    if (context.isRestored()) {
      Set<String> restored = store.getRegisteredStateNames();
      if (restored.contains(MARKER_USER_STATE)) { // a checkpoint of an earlier version
        ListState<String> earlier = store.getUnionListState(listOf(MARKER_USER_STATE));
        earlier.get().forEach(u -> commitUser = u);
        earlier.clear();
      }
      String user = commitUserState.get(COMMIT_USER_KEY);
      if (user != null) {
        commitUser = user;
      }
      if (!keepsSequences() && restored.contains(SEQUENCES_STATE)) {
        store.getUnionListState(bytesListOf(SEQUENCES_STATE)).clear(); // always empty
      }
    }
    if (keepsSequences()) {
      sequencesState = store.getUnionListState(bytesListOf(SEQUENCES_STATE));
      // Every subtask's buckets: a rescaled job may give a bucket to another subtask.
      for (byte[] b : sequencesState.get()) {
        VersionedBytes.read(b, SequencesCodec.INSTANCE, getUserCodeClassloader(), "writer state")
            .forEach(
                (p, byBucket) ->
                    byBucket.forEach(
                        (bucket, next) ->
                            restoredSequences
                                .computeIfAbsent(p, k -> new HashMap<>())
                                .merge(bucket, next, Math::max)));
      }
      // Only the buckets routed here (the rows it writes are): each subtask keeps its own, so the
      // state does not grow with subtasks times buckets, and a rescaled job, reading the union of
      // them, still finds every bucket's number at its new writer.
      var task = getRuntimeContext().getTaskInfo();
      restoredSequences =
          RowBuckets.routedTo(
              restoredSequences, task.getIndexOfThisSubtask(), task.getNumberOfParallelSubtasks());
    }
    restoredCheckpoint = context.getRestoredCheckpointId().orElse(0L);
  }

  /** Whether the writers number each bucket's rows in order and keep the numbers. */
  private boolean keepsSequences() {
    return SedimentTableSink.routesByBucket(table);
  }

  private static ListStateDescriptor<String> listOf(String name) {
    return new ListStateDescriptor<>(name, StringSerializer.INSTANCE);
  }

  private static ListStateDescriptor<byte[]> bytesListOf(String name) {
    return new ListStateDescriptor<>(name, BytePrimitiveArraySerializer.INSTANCE);
  }

  @Override
  public void open() throws Exception {
    super.open();
    writer = new SinkWriter(table, commitUser, restoredCheckpoint, restoredSequences);
    if (overwrite) {
      writer.ignorePreviousFiles();
    }
    Configuration job = getContainingTask().getEnvironment().getJobConfiguration();
    Optional<Duration> limit = BarrierHold.limit(job);
    StopTriggerWait wait = writer.stopTriggerWait();
    long asked = wait.maxWaitMillis();
    if (limit.isPresent() && wait.limitTo(limit.get().toMillis())) {
      LOG.warn(
          "{}: write-only.stop-trigger-wait ({} ms) is more than half the checkpoint timeout ({}"
              + " ms): the writer waits at most {} ms, so that a checkpoint it holds completes",
          table.fullName(),
          asked,
          job.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT).toMillis(),
          wait.maxWaitMillis());
    }
    getMetricGroup().gauge("stopTriggerWaitMillis", wait::waitedMillis);
    getMetricGroup().gauge("stopTriggerPassed", wait::passed);
    getMetricGroup().gauge("openBuckets", writer::openBuckets);
  }

  /** The longest this writer waits at one barrier for a compaction job; 0 when it never waits. */
  public long stopTriggerMaxWaitMillis() {
    return writer.stopTriggerWait().maxWaitMillis();
  }

  @Override
  public void processElement(StreamRecord<RowData> element) throws Exception {
    writer.write(element.getValue());
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    if (!ended) { // no record after the end of input (a flush could still compact)
      flush(checkpointId);
    }
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    commitUserState.put(COMMIT_USER_KEY, commitUser);
    if (sequencesState != null) {
      sequencesState.update(
          List.of(VersionedBytes.write(writer.sequences(), SequencesCodec.INSTANCE)));
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    writer.checkpointComplete(checkpointId);
  }

  @Override
  public void endInput() throws Exception {
    flush(END_OF_INPUT);
    ended = true;
  }

  private void flush(long window) throws Exception {
    List<CommitMessage> messages = writer.flush(window);
    if (!messages.isEmpty()) {
      output.collect(
          new StreamRecord<>(Tuple2.of(window, CommitMessageListCodec.toBytes(messages))));
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (writer != null) {
        writer.close();
      }
    } finally {
      super.close();
    }
  }
}
