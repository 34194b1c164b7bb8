package io.sediment.flink.sql;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.commit.FileStoreCommit;
import io.sediment.commit.SnapshotCommits;
import io.sediment.flink.CommitRefusedException;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.TableReplacedException;
import io.sediment.marker.WriterMarkers;
import io.sediment.predicate.Predicate;
import io.sediment.retention.AfterCommitMaintenance;
import io.sediment.retention.TagBatchCreation;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer of a SQL sink, free of Flink's runtime ({@link SedimentCommitOperator} runs it).
 *
 * <p>Streaming: the writers' messages wait per checkpoint window ({@link CommitWindows}); when a
 * checkpoint completes, every window up to it is committed in order, one APPEND snapshot with
 * identifier = checkpoint id (and a COMPACT one for a primary-key writer's own compaction). Each
 * (commit user, identifier) lands once: a restored window that already landed is skipped. What is
 * left at the end of input is committed when the first checkpoint after it completes (Flink's final
 * checkpoint), so that only windows a completed checkpoint holds are ever committed ({@link
 * #endInput}).
 *
 * <p>Restores from an older checkpoint: Flink numbers the checkpoints of a job restored from
 * checkpoint R from R + 1 on, whatever ids the job had reached. When this job's commits had already
 * reached an identifier above R (a savepoint restored after later checkpoints committed), the new
 * windows would reuse identifiers that landed and be skipped as if committed: the committer then
 * commits under a new user ({@link CommitUsers#afterRewind}, kept in state), after committing the
 * restored windows (those of R and before, which landed or not) under the old one; with aligned
 * checkpoints no window of R or before comes after the restore.
 *
 * <p>Markers: after publishing a window (or finding it published, or dropping its compaction) the
 * committer deletes the markers of its files: until then they keep orphan removal off them. Files
 * of writers that died (a lost TaskManager: no close() ran) are deleted through their markers, once
 * per attempt, at the first completed checkpoint M of the attempt above every barrier any earlier
 * attempt wrote after: every live writer passed barrier M and sent what it created before it, so a
 * marked file written after a smaller barrier that no snapshot and no pending window references is
 * a dead writer's. That needs aligned checkpoints, as the windows do: a window that reaches the
 * committer after it took the window's checkpoint fails the job ({@link #add}), and the operator
 * refuses unaligned checkpoints ({@link UnalignedCheckpointsRefused}).
 *
 * <p>Watermarks: the operator reports the watermark it had received at each checkpoint ({@link
 * #checkpointTaken}); a window's snapshots record its checkpoint's watermark (the writers sent the
 * window before that barrier, after every watermark they had passed on), and the end of input's the
 * last one received ({@link io.sediment.manifest.Snapshot#watermark()}). A writer whose input ended
 * while others go on no longer holds back the watermark the operator receives (Flink's is the
 * smallest of the writers' still running) and sent its rest as the end of input's: that rest joins
 * the next checkpoint's window, so the first snapshot whose watermark no longer waits for this
 * writer holds all its rows.
 *
 * <p>Batch: everything is committed once at the end of input (APPEND, or OVERWRITE), then, with
 * {@code tag.automatic-creation = batch}, the latest snapshot is tagged ({@link TagBatchCreation}).
 * A commit that fails with nothing published deletes every file the job wrote, markers included,
 * and fails the job without a restart ({@link CommitRefusedException}): its files are gone, so no
 * restart could commit them.
 */
public final class SinkCommitter {

  private static final Logger LOG = LoggerFactory.getLogger(SinkCommitter.class);

  private final Table table;
  private final boolean streaming;
  private final boolean overwrite;
  private final Predicate overwriteFilter;
  private final CommitWindows<CommitMessage> windows;

  private String markerUser;
  private TableCommit streamCommit;

  private long cleanAbove;
  private boolean writersCleaned;
  private AfterCommitMaintenance.Failures failures = AfterCommitMaintenance.Failures.NONE;

  /** The watermark at each checkpoint of a window not committed yet (kept in state). */
  private final TreeMap<Long, Long> watermarks = new TreeMap<>();

  /**
   * The first checkpoint taken after the end of input, whose completion commits what is left (0:
   * the input did not end, or no checkpoint was taken since; -1: what was left is committed).
   */
  private long finalCheckpoint;

  /** Whether the input ended and Flink takes a final checkpoint that commits what is left. */
  private boolean awaitingFinalCheckpoint;

  /** The watermark the end of input's window records (null: none). */
  private Long endWatermark;

  /** The snapshots this committer's windows made (to tell a checkpoint that wrote nothing). */
  private long snapshotsCommitted;

  /** Whether this is a retried attempt of the committer's task ({@link #retriedAttempt}). */
  private boolean retriedAttempt;

  /** The newest checkpoint this attempt took or was restored from (0: none). */
  private long lastCheckpointTaken;

  /**
   * @param windows the windows and commit user, restored or not ({@link
   *     CommitWindows#initializeState} or {@link CommitWindows#restore})
   */
  public SinkCommitter(
      Table table,
      boolean streaming,
      boolean overwrite,
      Predicate overwriteFilter,
      CommitWindows<CommitMessage> windows) {
    this.table = table;
    this.streaming = streaming;
    this.overwrite = overwrite;
    this.overwriteFilter = overwriteFilter;
    this.windows = windows;
  }

  /**
   * Starts the committer of one attempt: commits the restored windows and, after a restore from a
   * checkpoint older than the job's commits, switches to a new commit user.
   *
   * @param restoredCheckpoint the checkpoint restored from; 0 at a first start
   * @param markerUser the directory of the writers' markers
   */
  public void start(long restoredCheckpoint, String markerUser) throws Exception {
    this.markerUser = markerUser;
    this.writersCleaned = false;
    this.finalCheckpoint = 0;
    this.awaitingFinalCheckpoint = false;
    this.endWatermark = null;
    this.lastCheckpointTaken = restoredCheckpoint;
    if (!streaming) {
      return;
    }
    if (windows.size() > 0) {
      LOG.info(
          "Committing {} restored window(s) of {} as user {}",
          windows.size(),
          table.fullName(),
          windows.commitUser());
      windows.commitUpTo(Long.MAX_VALUE, true, this::commitWindow);
    }
    watermarks.clear(); // every restored window landed
    if (restoredCheckpoint > 0) {
      OptionalLong last = streamCommit().latestCommitIdentifier();
      if (last.isPresent() && last.getAsLong() > restoredCheckpoint) {
        String next = CommitUsers.afterRewind(windows.commitUser(), restoredCheckpoint);
        LOG.info(
            "{} was restored from checkpoint {}, but its user {} committed up to identifier {}:"
                + " the new checkpoints reuse those ids, so it commits as user {} from now on",
            table.fullName(),
            restoredCheckpoint,
            windows.commitUser(),
            last.getAsLong(),
            next);
        windows.switchCommitUser(next);
        streamCommit = null;
      }
    }
    // Dead writers of any attempt wrote after a barrier at most this one.
    cleanAbove =
        Math.max(restoredCheckpoint, WriterMarkers.latestWriteBarrier(table.store(), markerUser));
  }

  /**
   * A writer's messages for {@code window} (the checkpoint it flushed them for, or the end of
   * input).
   *
   * @throws UnalignedCheckpointsRefused when the committer took that checkpoint already, or was
   *     restored from it: the window may be committed without them, and their commit would then be
   *     skipped as landed (with aligned checkpoints a writer's window always comes before its
   *     barrier, so they are an unaligned checkpoint's in-flight data)
   */
  public void add(long window, List<CommitMessage> messages) {
    if (window != SedimentWriteOperator.END_OF_INPUT) {
      if (window <= lastCheckpointTaken) {
        throw new UnalignedCheckpointsRefused(table.fullName(), window, lastCheckpointTaken);
      }
      windows.add(window, messages);
    } else if (streaming) {
      // A writer whose input ended (a bounded source's subtask, while others go on) sends its rest
      // once. It joins the next checkpoint's window, whose snapshot records a watermark that
      // counts this writer as done: kept for the end of the job, its rows would be missing from
      // snapshots whose watermark claims them, and invisible until every writer ended.
      windows.addAllToNext(messages);
    } else {
      windows.add(window, messages);
    }
  }

  /**
   * The operator took checkpoint {@code checkpointId}, having received {@code watermark} (null:
   * none): what window {@code checkpointId}'s snapshots record. Writers' windows up to it are
   * complete. Call before the windows' state is written ({@link CommitWindows#snapshotState}).
   */
  public void checkpointTaken(long checkpointId, Long watermark) {
    // the rest of writers that ended since the last checkpoint, all that is left after the end
    windows.seal(checkpointId);
    if (awaitingFinalCheckpoint && finalCheckpoint == 0) {
      finalCheckpoint = checkpointId; // its state holds everything left
      if (endWatermark != null) {
        watermark = endWatermark; // end-input.watermark
      }
    }
    lastCheckpointTaken = Math.max(lastCheckpointTaken, checkpointId);
    if (watermark != null) {
      watermarks.put(checkpointId, watermark);
    }
  }

  /** The watermarks of the windows not committed yet, by window (what the state keeps). */
  public Map<Long, Long> watermarks() {
    return new TreeMap<>(watermarks);
  }

  /** Starts from restored {@link #watermarks()} (before {@link #start}). */
  public void restoreWatermarks(Map<Long, Long> restored) {
    watermarks.clear();
    watermarks.putAll(restored);
  }

  /**
   * Checkpoint {@code checkpointId} completed: commits every window up to it, then, once per
   * attempt, deletes the files of dead writers. The completion of the first checkpoint taken after
   * the end of input commits everything left.
   */
  public void checkpointComplete(long checkpointId) throws Exception {
    if (!streaming) {
      return;
    }
    if (finalCheckpoint > 0 && checkpointId >= finalCheckpoint) {
      finalCheckpoint = -1;
      commitTheRest();
      return;
    }
    long snapshotsBefore = snapshotsCommitted;
    windows.commitUpTo(checkpointId, false, this::commitWindow);
    Long watermark = watermarks.get(checkpointId);
    watermarks.headMap(checkpointId, true).clear(); // their windows landed, or had nothing
    if (snapshotsCommitted == snapshotsBefore) {
      commitForTags(checkpointId, watermark);
    }
    if (!writersCleaned && checkpointId > cleanAbove) {
      writersCleaned = deleteFilesOfDeadWriters(checkpointId, Set.of());
    }
  }

  /**
   * Every writer ended: what is left is committed, then what dead writers left is deleted. {@code
   * watermark}: the last watermark the operator received (null: none), recorded by the commit of
   * the end of input's window (or a batch write's).
   *
   * <p>Streaming with {@code finalCheckpoint} (checkpoints on, and Flink's checkpoints after tasks
   * finished, its default): what is left joins the window of the first checkpoint taken after now,
   * and is committed, with every window before it, when a checkpoint from that one on completes, as
   * Flink's own committer and Paimon's wait for the final checkpoint. Committed now, a failover
   * before that checkpoint completes would restore an older one, whose replayed input the restarted
   * job would commit again. Without a final checkpoint it is committed now, as the window {@link
   * SedimentWriteOperator#END_OF_INPUT}.
   */
  public void endInput(Long watermark, boolean finalCheckpoint) throws Exception {
    if (streaming) {
      if (finalCheckpoint) {
        awaitingFinalCheckpoint = true;
        endWatermark = watermark;
        LOG.info(
            "The input of the write into {} ended: what is left is committed when the next"
                + " checkpoint completes",
            table.fullName());
        return;
      }
      windows.seal(SedimentWriteOperator.END_OF_INPUT); // the rest of the writers that ended last
      if (watermark != null) {
        watermarks.put(SedimentWriteOperator.END_OF_INPUT, watermark);
      }
      commitTheRest();
      return;
    }
    Set<String> committed = new HashSet<>();
    List<CommitMessage> all = windows.takeAll();
    if (batchCommitLanded()) {
      // An earlier attempt of this committer committed, then failed (a lost TaskManager, or the
      // JobManager: a recovered job numbers its attempts from 0 again): its commit user is this
      // planned job's alone. What the writers wrote again is no snapshot's.
      LOG.info(
          "The batch write of {} as user {} landed in an earlier attempt: not committed again",
          table.fullName(),
          windows.commitUser());
      deleteFilesOfDeadWriters(Long.MAX_VALUE, committed);
      return;
    }
    checkStillThisTable();
    TableCommit commit =
        table.newBatchWriteBuilder().withCommitUser(windows.commitUser()).newCommit();
    List<Long> ids;
    try {
      ids =
          overwrite
              ? commit.overwrite(all, overwriteFilter, watermark)
              : commit.commit(all, watermark);
    } catch (RuntimeException e) {
      if (FileStoreCommit.filesMayBeReferenced(e)) {
        throw e; // it may have landed: the files stay, a restarted committer finds out
      }
      // Nothing landed: a batch commit whose append landed returns its id, whatever became of the
      // compaction that followed it (FileStoreCommit.commitCompaction).
      throw refused(commit, all, e);
    }
    failures = failures.plus(commit.failures());
    LOG.info("Batch write of {} committed snapshot(s) {}", table.fullName(), ids);
    boolean landed = !ids.isEmpty();
    if (landed && TagBatchCreation.run(table.store(), table.fullName()).failed()) {
      failures = failures.plus(new AfterCommitMaintenance.Failures(0, 0, 1));
    }
    committed.addAll(CommitMessage.outputFileNames(all));
    WriterMarkers.deleteMarkers(table.store(), markerUser, committed);
    // Every writer ended: a marked file no snapshot references is one of an attempt that Flink
    // restarted (a lost TaskManager, a failed task). A failure leaves it for remove_orphan_files.
    deleteFilesOfDeadWriters(Long.MAX_VALUE, committed);
  }

  /**
   * Checkpoint {@code checkpointId} wrote nothing: commits an empty snapshot with its {@code
   * watermark} when automatic tags want one (Paimon's forced snapshot: an idle input's tags are
   * made all the same). A failure is logged and counted; the next checkpoint tries again.
   */
  private void commitForTags(long checkpointId, Long watermark) {
    TableCommit commit = streamCommit();
    AfterCommitMaintenance.Failures failuresBefore = commit.failures();
    boolean wanted = commit.wantsSnapshotForTags(watermark);
    failures = failures.plus(commit.failures().minus(failuresBefore));
    if (!wanted) {
      return;
    }
    checkStillThisTable();
    try {
      failuresBefore = commit.failures();
      List<Long> ids = commit.commitEmpty(checkpointId, watermark);
      failures = failures.plus(commit.failures().minus(failuresBefore));
      LOG.info(
          "Checkpoint {} of {} wrote nothing: committed empty snapshot(s) {} for the automatic tags",
          checkpointId,
          table.fullName(),
          ids);
    } catch (RuntimeException e) {
      failures = failures.plus(new AfterCommitMaintenance.Failures(0, 0, 1));
      LOG.warn(
          "Could not commit an empty snapshot of {} for its automatic tags: {}",
          table.fullName(),
          e.toString());
    }
  }

  /** Streaming, after the end of input: commits every window left, then cleans up. */
  private void commitTheRest() throws Exception {
    Set<String> committed = new HashSet<>();
    windows.commitUpTo(
        Long.MAX_VALUE,
        false,
        (window, messages, restored) -> {
          commitWindow(window, messages, restored);
          committed.addAll(CommitMessage.outputFileNames(messages));
        });
    watermarks.clear();
    deleteFilesOfDeadWriters(Long.MAX_VALUE, committed);
  }

  /** Whether a batch commit of this job's commit user (its own) is among the snapshots. */
  private boolean batchCommitLanded() {
    try {
      return SnapshotCommits.settledBatchCommitOfUser(table.store(), windows.commitUser())
          .isPresent();
    } catch (RuntimeException e) {
      if (retriedAttempt) {
        throw e; // a retried task: its earlier attempt may well have committed
      }
      // A first attempt (or one of a job the JobManager recovered, numbered from 0 again): the
      // commit that follows finds the same trouble and fails with what it is.
      LOG.warn(
          "Could not tell whether {} committed before: {}", windows.commitUser(), e.toString());
      return false;
    }
  }

  /**
   * This committer is a retried attempt of its task (Flink restarted it after a failure): a batch
   * commit of an earlier attempt may have landed.
   */
  public void retriedAttempt(boolean retried) {
    this.retriedAttempt = retried;
  }

  /**
   * A batch commit failed with nothing published: deletes the job's files and their markers, and
   * returns the error that fails the job without a restart.
   */
  private RuntimeException refused(TableCommit commit, List<CommitMessage> all, Exception e) {
    commit.abortInto(all, e);
    WriterMarkers.deleteMarkers(table.store(), markerUser, CommitMessage.outputFileNames(all));
    try {
      deleteFilesOfDeadWriters(Long.MAX_VALUE, Set.of());
    } catch (RuntimeException cleanup) {
      e.addSuppressed(cleanup);
    }
    return new CommitRefusedException(
        "The write into "
            + table.fullName()
            + " was not committed, and the files it wrote were deleted: "
            + e.getMessage(),
        e);
  }

  /**
   * Deletes the marked files written after a barrier below {@code writtenBefore} that no snapshot
   * and no pending window references; the markers of {@code committed} files go without reading
   * snapshots. Returns whether it ran; a failure is logged (retried at the next checkpoint, or at
   * end of input).
   */
  private boolean deleteFilesOfDeadWriters(long writtenBefore, Set<String> committed) {
    try {
      int n =
          WriterMarkers.cleanOrphans(
              table.store(),
              markerUser,
              writtenBefore,
              CommitMessage.outputFileNames(windows.pending()),
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

  /**
   * The table at the path must still be the one this job loaded (one small file read per commit):
   * after a DROP and CREATE, or a RENAME, its commits would put files of the old schema into the
   * table there now, as the compaction committer's check says.
   */
  private void checkStillThisTable() {
    if (!table.store().stillThisTable()) {
      throw new TableReplacedException(table.fullName());
    }
  }

  private TableCommit streamCommit() {
    if (streamCommit == null) {
      streamCommit = table.newStreamWriteBuilder().withCommitUser(windows.commitUser()).newCommit();
    }
    return streamCommit;
  }

  /**
   * Commits one window; a window that landed before is skipped by the commit's (commit user,
   * identifier) check. Then the markers of its files go: they are in a snapshot, or deleted.
   */
  private void commitWindow(long window, List<CommitMessage> messages, boolean restored) {
    // A window whose checkpoint saw no watermark (none had come, or its checkpoint was not taken)
    // records none: a later watermark may count rows that came after its barrier.
    Long watermark = watermarks.get(window);
    if (messages.isEmpty()) {
      return;
    }
    checkStillThisTable();
    TableCommit commit = streamCommit();
    try {
      AfterCommitMaintenance.Failures failuresBefore = commit.failures();
      List<Long> ids = commit.commit(window, messages, watermark);
      snapshotsCommitted += ids.size();
      failures = failures.plus(commit.failures().minus(failuresBefore));
      LOG.info("Window {} of {} committed as snapshot(s) {}", window, table.fullName(), ids);
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
    }
    WriterMarkers.deleteMarkers(table.store(), markerUser, CommitMessage.outputFileNames(messages));
  }

  public String commitUser() {
    return windows.commitUser();
  }

  public String markerUser() {
    return markerUser;
  }

  /**
   * The automatic snapshot expiries, partition expiries and tag creations after this committer's
   * commits that failed (each was logged).
   */
  public AfterCommitMaintenance.Failures failures() {
    return failures;
  }
}
