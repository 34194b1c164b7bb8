package io.sediment.flink.sql;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.CompactMarkers;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single committer of a write job (parallelism 1).
 *
 * <p>Streaming: keeps the writers' messages per checkpoint window in operator state together with
 * its commit user ({@link CommitWindows}, shared with the compaction committer), and commits every
 * window up to a checkpoint when that checkpoint completes, as one APPEND snapshot with identifier
 * = checkpoint id. On restore it commits the restored windows; windows that already landed are
 * skipped by the stream commit's (commit user, identifier) check, so each lands exactly once.
 *
 * <p>Batch: commits everything once at end of input (APPEND, or OVERWRITE for {@code INSERT
 * OVERWRITE}).
 *
 * <p>Files of writers that died (a lost TaskManager: no close() ran) are deleted through the
 * writers' markers ({@link SedimentWriteOperator}, {@link CompactMarkers#cleanWriterOrphans}). The
 * writers of a restored job write while this operator restores, so the cleanup waits: once per
 * attempt, after the first checkpoint M this attempt completed and every window up to M was
 * committed, it deletes the marked files under {@code write-after-<B>} with B &lt; M that no
 * snapshot and no window in state references (every live writer passed barrier M, and sent what it
 * had created before it). Checkpoint ids grow across restores, so every dead attempt wrote under a
 * smaller B. With unaligned checkpoints a window may still be in flight when M completes: no
 * cleanup runs then. At end of input every writer ended: every marked file no snapshot references
 * is deleted. The directory is the one of the commit user the sink was planned with, kept in state
 * ({@code marker-user}, like the writers'), so restored writers and committer agree.
 */
public final class SedimentCommitOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<Tuple2<Long, byte[]>, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SedimentCommitOperator.class);

  private final Table table;
  private final boolean streaming;
  private final boolean overwrite;
  private final Predicate overwriteFilter;
  private final String initialCommitUser;

  private transient CommitWindows<CommitMessage> windows;
  private transient TableCommit streamCommit;
  private transient Counter expiryFailures;
  private transient ListState<String> markerUserState;
  private transient String markerUser;
  private transient long restoredCheckpointId;
  private transient boolean writersCleaned;

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
    // Registered here, not in open(): restored windows are committed before open().
    expiryFailures = getMetricGroup().counter("snapshotExpiryFailures");
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
    markerUser = initialCommitUser != null ? initialCommitUser : windows.commitUser();
    if (context.isRestored()) {
      for (String u : markerUserState.get()) {
        markerUser = u;
      }
    }
    restoredCheckpointId = context.getRestoredCheckpointId().orElse(0L);
    writersCleaned = false;
    if (streaming && windows.size() > 0) {
      LOG.info(
          "Committing {} restored window(s) of {} as user {}",
          windows.size(),
          table.fullName(),
          windows.commitUser());
      windows.commitUpTo(Long.MAX_VALUE, true, this::commitWindow);
    }
  }

  @Override
  public void processElement(StreamRecord<Tuple2<Long, byte[]>> element) throws Exception {
    List<CommitMessage> messages =
        CommitMessageListCodec.fromBytes(element.getValue().f1, getUserCodeClassloader());
    windows.add(element.getValue().f0, messages);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    windows.snapshotState(context.getCheckpointId());
    markerUserState.update(List.of(markerUser));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    if (streaming) {
      windows.commitUpTo(checkpointId, false, this::commitWindow);
      if (!writersCleaned && checkpointId > restoredCheckpointId) {
        if (alignedCheckpoints()) {
          writersCleaned = deleteFilesOfDeadWriters(checkpointId, Set.of());
        } else {
          LOG.info(
              "Unaligned checkpoints: files of dead writers of {} are deleted at end of input only",
              table.fullName());
          writersCleaned = true;
        }
      }
    }
  }

  /**
   * With unaligned checkpoints a writer's window sent before barrier M may still be in flight
   * (channel state) when M completes: its files would look like a dead writer's.
   */
  private boolean alignedCheckpoints() {
    return !CheckpointingOptions.isUnalignedCheckpointEnabled(
        getContainingTask().getEnvironment().getJobConfiguration());
  }

  /**
   * Deletes the marked files written under a barrier before {@code writtenBefore} that no snapshot
   * and no window in state references; the markers of {@code committed} files (just committed) go
   * without reading snapshots. Returns whether it ran; a failure is logged (retried at the next
   * checkpoint, or at end of input).
   */
  private boolean deleteFilesOfDeadWriters(long writtenBefore, Set<String> committed) {
    try {
      int n =
          CompactMarkers.cleanWriterOrphans(
              table.store(),
              markerUser,
              writtenBefore,
              CompactMarkers.outputNames(windows.pending()),
              committed);
      if (n > 0) {
        LOG.info(
            "Deleted {} file(s) of {} that writers of {} had written and not committed before they"
                + " died",
            n,
            table.fullName(),
            markerUser);
      }
      return true;
    } catch (RuntimeException e) {
      LOG.warn(
          "Could not delete the uncommitted files of dead writers of {} in {}: {}",
          markerUser,
          table.fullName(),
          e.toString());
      return false;
    }
  }

  @Override
  public void endInput() throws Exception {
    Set<String> committed = new HashSet<>();
    if (streaming) {
      windows.commitUpTo(
          Long.MAX_VALUE,
          false,
          (window, messages, restored) -> {
            if (commitWindow(window, messages, restored)) {
              committed.addAll(CompactMarkers.outputNames(messages));
            }
          });
    } else {
      List<CommitMessage> all = windows.takeAll();
      TableCommit commit =
          table.newBatchWriteBuilder().withCommitUser(windows.commitUser()).newCommit();
      List<Long> ids = overwrite ? commit.overwrite(all, overwriteFilter) : commit.commit(all);
      expiryFailures.inc(commit.expiryFailures());
      LOG.info("Batch write of {} committed snapshot(s) {}", table.fullName(), ids);
      committed.addAll(CompactMarkers.outputNames(all));
    }
    // Every writer ended: a marked file no snapshot references is one of an attempt that Flink
    // restarted (a lost TaskManager, a failed task). A failure leaves it for remove_orphan_files.
    deleteFilesOfDeadWriters(Long.MAX_VALUE, committed);
  }

  /**
   * Commits one window as an APPEND snapshot. Windows that already landed (restored ones) are
   * skipped by the stream commit's (commit user, identifier) check. Returns whether the window's
   * files are committed (now or before).
   */
  private boolean commitWindow(long window, List<CommitMessage> messages, boolean restored) {
    if (messages.isEmpty()) {
      return true;
    }
    if (streamCommit == null) {
      streamCommit = table.newStreamWriteBuilder().withCommitUser(windows.commitUser()).newCommit();
    }
    try {
      long failuresBefore = streamCommit.expiryFailures();
      List<Long> ids = streamCommit.commit(window, messages);
      expiryFailures.inc(streamCommit.expiryFailures() - failuresBefore);
      LOG.info("Window {} of {} committed as snapshot(s) {}", window, table.fullName(), ids);
      return true;
    } catch (CommitConflictException e) {
      // Only a writer's own compaction can conflict (appends never do, and a conflicting
      // compaction after landed appends is dropped by the commit). Its outputs are deleted;
      // failing would conflict again on every restore.
      LOG.warn(
          "Window {} of {}: the writer's compaction conflicted with a concurrent commit and"
              + " was dropped: {}",
          window,
          table.fullName(),
          e.getMessage());
      return false;
    }
  }

  public String commitUser() {
    return windows.commitUser();
  }
}
