package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.flink.serde.WindowWatermarksCodec;
import io.sediment.predicate.Predicate;
import io.sediment.retention.AfterCommitMaintenance;
import io.sediment.schema.CommitOptions;
import io.sediment.table.Table;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Runs the {@link SinkCommitter} of a write job in Flink (parallelism 1): the writers' windows and
 * the commit user in operator state ({@link CommitWindows}), commits at checkpoint completion
 * (streaming) or at end of input (batch). See {@link SinkCommitter} for what a commit, a restore
 * and the clean-up of dead writers do.
 *
 * <p>State: list states {@code commit-user} and {@code windows} ({@link CommitWindows}), and list
 * state {@code marker-user}: the directory of the writers' markers, the commit user the sink was
 * planned with (the writers keep it too), which a switch of commit user after a restore from an
 * older checkpoint does not change. List state {@code window-watermarks}: the watermark each
 * uncommitted window's checkpoint saw ({@link WindowWatermarksCodec}); the watermark received since
 * is not kept (as in Paimon's committer).
 */
public final class SedimentCommitOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<Tuple2<Long, byte[]>, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  static final String WINDOW_WATERMARKS_STATE = "window-watermarks";

  private final Table table;
  private final boolean streaming;
  private final boolean overwrite;
  private final Predicate overwriteFilter;
  private final String initialCommitUser;

  private transient CommitWindows<CommitMessage> windows;
  private transient SinkCommitter committer;
  private transient Counter expiryFailures;
  private transient Counter partitionExpiryFailures;
  private transient Counter automaticTagFailures;
  private transient AfterCommitMaintenance.Failures failuresSeen;
  private transient ListState<String> markerUserState;
  private transient ListState<byte[]> watermarkState;

  /** The last watermark received, but the end of input's (null: none yet). */
  private transient Long watermark;

  /**
   * @param overwriteFilter partitions to overwrite besides those written (on the partition row
   *     type), or null
   * @param commitUser the commit user, or null for a random one (kept in state when streaming); the
   *     writers' ({@link SedimentWriteOperator}) markers are under its directory
   */
  public SedimentCommitOperator(
      Table table,
      boolean streaming,
      boolean overwrite,
      Predicate overwriteFilter,
      String commitUser) {
    this.table = table;
    this.streaming = streaming;
    this.overwrite = overwrite;
    this.overwriteFilter = overwriteFilter;
    this.initialCommitUser = commitUser == null ? null : CommitUsers.validate(commitUser);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    if (streaming
        && CheckpointingOptions.isUnalignedCheckpointEnabled(
            getContainingTask().getEnvironment().getJobConfiguration())) {
      throw new UnalignedCheckpointsRefused(table.fullName());
    }
    // Registered here, not in open(): restored windows are committed before open().
    expiryFailures = getMetricGroup().counter("snapshotExpiryFailures");
    partitionExpiryFailures = getMetricGroup().counter("partitionExpiryFailures");
    automaticTagFailures = getMetricGroup().counter("automaticTagFailures");
    failuresSeen = AfterCommitMaintenance.Failures.NONE;
    windows = new CommitWindows<>(CommitMessageCodec.INSTANCE);
    windows.initializeState(
        context.getOperatorStateStore(),
        context.isRestored(),
        () -> initialCommitUser != null ? initialCommitUser : CommitUsers.random(),
        getUserCodeClassloader());
    markerUserState =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    SedimentWriteOperator.MARKER_USER_STATE, StringSerializer.INSTANCE));
    // State written before the writers had markers has none: they then take the planned one.
    String markerUser = initialCommitUser != null ? initialCommitUser : windows.commitUser();
    if (context.isRestored()) {
      for (String u : markerUserState.get()) {
        markerUser = u;
      }
    }
    watermarkState =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    WINDOW_WATERMARKS_STATE, BytePrimitiveArraySerializer.INSTANCE));
    committer = new SinkCommitter(table, streaming, overwrite, overwriteFilter, windows);
    if (context.isRestored()) {
      Map<Long, Long> restored = new TreeMap<>();
      for (byte[] b : watermarkState.get()) {
        restored.putAll(
            VersionedBytes.read(
                b, WindowWatermarksCodec.INSTANCE, getUserCodeClassloader(), "committer state"));
      }
      committer.restoreWatermarks(restored);
    }
    committer.retriedAttempt(getRuntimeContext().getTaskInfo().getAttemptNumber() > 0);
    committer.start(context.getRestoredCheckpointId().orElse(0L), markerUser);
    countExpiryFailures();
  }

  @Override
  public void processElement(StreamRecord<Tuple2<Long, byte[]>> element) throws Exception {
    List<CommitMessage> messages =
        CommitMessageListCodec.fromBytes(element.getValue().f1, getUserCodeClassloader());
    committer.add(element.getValue().f0, messages);
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    super.processWatermark(mark);
    // The end of input's watermark says the input ended, not how far event time got; the
    // smallest long says nothing yet.
    if (mark.getTimestamp() != Long.MAX_VALUE && mark.getTimestamp() != Long.MIN_VALUE) {
      watermark = mark.getTimestamp();
    }
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    committer.checkpointTaken(context.getCheckpointId(), watermark);
    windows.snapshotState(context.getCheckpointId());
    markerUserState.update(List.of(committer.markerUser()));
    watermarkState.update(
        List.of(VersionedBytes.write(committer.watermarks(), WindowWatermarksCodec.INSTANCE)));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    committer.checkpointComplete(checkpointId);
    countExpiryFailures();
  }

  @Override
  public void endInput() throws Exception {
    try {
      Long endInput = table.store().options().get(CommitOptions.END_INPUT_WATERMARK);
      committer.endInput(endInput != null ? endInput : watermark, finalCheckpointComes());
    } finally {
      countExpiryFailures();
    }
  }

  /**
   * Whether Flink takes a checkpoint after the end of input and waits for its completion before the
   * task finishes: checkpoints on and checkpoints after tasks finished (its default), as {@code
   * StreamTask} decides.
   */
  private boolean finalCheckpointComes() {
    return CheckpointingOptions.isCheckpointingEnabled(
            getContainingTask().getEnvironment().getJobConfiguration())
        && getContainingTask()
            .getConfiguration()
            .getConfiguration()
            .get(CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH);
  }

  private void countExpiryFailures() {
    AfterCommitMaintenance.Failures now = committer.failures();
    AfterCommitMaintenance.Failures added = now.minus(failuresSeen);
    expiryFailures.inc(added.snapshots());
    partitionExpiryFailures.inc(added.partitions());
    automaticTagFailures.inc(added.tags());
    failuresSeen = now;
  }

  public String commitUser() {
    return windows.commitUser();
  }
}
