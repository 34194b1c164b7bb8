package io.sediment.flink;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.ExecutionMode;
import io.sediment.marker.OutputMarkers;
import io.sediment.marker.ReleaseRecords;
import io.sediment.retention.AfterCommitMaintenance;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the compaction committer finishes one window of {@link CompactMessage}s: one COMPACT snapshot
 * per table the window touched (commit identifier = the window), or, when a task of the window
 * failed, every output of the window deleted. Then the markers of the window's outputs are deleted
 * by output name, and (streaming) a release record tells the task source that the window's tasks
 * finished. What follows from an outcome (metrics, results, the failure limit) is the operator's
 * {@link Outcomes}.
 *
 * <p>After a table's commit, its partitions that {@code partition.expiration-time} no longer keeps
 * are dropped when a check is due, its automatic tags are made and its snapshots that the retention
 * options no longer keep are expired ({@link AfterCommitMaintenance}) and, in the streaming job,
 * its orphan files are removed when {@code compaction.remove-orphans.interval} says so; either
 * failing is reported, never failing the window, and retried after the next commit.
 */
final class CompactWindowCommit {

  private static final Logger LOG = LoggerFactory.getLogger(CompactWindowCommit.class);

  /** What the committer operator does with the outcome of a window. */
  interface Outcomes {
    /** A table's part of the window committed (snapshot null: nothing to commit, or committed). */
    void committed(String table, List<CompactMessage> messages, Long snapshotId, long millis);

    /**
     * A table's part of the window lost to a concurrent commit (its outputs are deleted, its files
     * planned again): not a failure. A batch run reports it as the run's error.
     */
    void conflicted(String table, long window, CommitConflictException conflict) throws Exception;

    /** A table's commit failed; may throw to fail the operator. */
    void failed(long window, Throwable failure) throws Exception;

    /**
     * A task of the window failed (its outputs are deleted, nothing of the window is committed);
     * may throw to fail the operator.
     */
    default void taskFailed(long window, Throwable failure) throws Exception {
      failed(window, failure);
    }

    /** The automatic snapshot expiry after a table's commit failed; the commit stands. */
    void expiryFailed(String table, Throwable failure);

    /** The automatic partition expiry after a table's commit failed; the commit stands. */
    void partitionExpiryFailed(String table, Throwable failure);

    /** The automatic tags after a table's commit failed; the commit stands. */
    void automaticTagFailed(String table, Throwable failure);

    /** The scheduled orphan removal after a table's commit failed; the commit stands. */
    void orphanRemovalFailed(String table, Throwable failure);
  }

  private final Function<String, Table> tables;

  /** The user of the job's markers and release records (the task source reads them there). */
  private final String commitUser;

  /** The user its snapshots are committed as: the job's, or a new one after a rewind. */
  private String snapshotUser;

  // whether the task source re-plans released tasks' files (the streaming job)
  private final boolean writeReleases;
  private final OrphanRemovalSchedule orphanRemoval;

  /**
   * Each table's expiry after commits (its partition check's schedule runs from the job's start).
   */
  private final Map<String, AfterCommitMaintenance> maintenance = new HashMap<>();

  CompactWindowCommit(Function<String, Table> tables, String commitUser, ExecutionMode mode) {
    this.tables = tables;
    this.commitUser = commitUser;
    this.snapshotUser = commitUser;
    this.writeReleases = mode == ExecutionMode.STREAMING;
    this.orphanRemoval = new OrphanRemovalSchedule();
  }

  /**
   * Commits as {@code user} from now on (the job's user otherwise): after a restore from a
   * checkpoint older than the job's commits, whose ids the new run reuses.
   */
  void commitAs(String user) {
    this.snapshotUser = user;
  }

  String snapshotUser() {
    return snapshotUser;
  }

  /**
   * Commits (or aborts) one window. Returns true when every table of a non-empty window committed.
   *
   * @param restored whether an earlier attempt may have committed the window (its identifier is
   *     checked first)
   */
  boolean finish(long window, List<CompactMessage> messages, boolean restored, Outcomes outcomes)
      throws Exception {
    if (messages.isEmpty()) {
      return false;
    }
    Map<String, List<CompactMessage>> byTable = new LinkedHashMap<>();
    Throwable failure = null;
    for (CompactMessage m : messages) {
      byTable.computeIfAbsent(m.table(), k -> new ArrayList<>()).add(m);
      if (m.failed() && failure == null) {
        failure = m.failureCause();
        LOG.warn(
            "Compaction task {} failed; aborting its window {}",
            m.taskDescription(),
            window == FileStoreCommit.BATCH_IDENTIFIER ? "(the batch run)" : window);
      }
    }
    if (failure != null) {
      for (Map.Entry<String, List<CompactMessage>> t : byTable.entrySet()) {
        Table table;
        try {
          table = tables.apply(t.getKey());
        } catch (RuntimeException e) {
          LOG.warn("Cannot load {} to abort window {}", t.getKey(), window, e);
          continue; // the window counts as failed below
        }
        new CompactCommit(table.store(), snapshotUser)
            .abortInto(commitMessages(t.getValue()), failure);
        finishMessages(table, window, t.getValue(), Set.of());
      }
      outcomes.taskFailed(window, failure);
      return false;
    }
    RuntimeException failed = null; // the window's first failure: a window fails once
    for (Map.Entry<String, List<CompactMessage>> t : byTable.entrySet()) {
      Table table;
      try {
        table = tables.apply(t.getKey());
      } catch (RuntimeException e) {
        // Dropped since its tasks were planned, say: throwing would fail the committer again at
        // every restore that replays the window. Its outputs go with the table, or to the
        // orphan removal.
        LOG.warn("Cannot load {} to commit window {}", t.getKey(), window, e);
        failed = failed == null ? e : failed;
        continue;
      }
      CompactCommit commit = new CompactCommit(table.store(), snapshotUser);
      long start = System.currentTimeMillis();
      Long snapshotId;
      try {
        snapshotId = commit.commit(commitMessages(t.getValue()), window, restored);
        outcomes.committed(
            t.getKey(), t.getValue(), snapshotId, System.currentTimeMillis() - start);
        LOG.info(
            "Committed {} of {}: {} task(s), snapshot {}",
            window == FileStoreCommit.BATCH_IDENTIFIER
                ? "the batch compaction"
                : "compaction window " + window,
            t.getKey(),
            t.getValue().size(),
            snapshotId);
      } catch (CommitConflictException e) {
        // Lost to a concurrent commit of the same files or bucket: not a failure. CompactCommit
        // deleted the outputs; the released files are planned again on the new state.
        LOG.info(
            "{} of {} conflicted with a concurrent commit and was aborted; its files are planned"
                + " again: {}",
            window == FileStoreCommit.BATCH_IDENTIFIER
                ? "The batch compaction"
                : "Compaction window " + window,
            t.getKey(),
            e.getMessage());
        finishMessages(table, window, t.getValue(), Set.of());
        outcomes.conflicted(t.getKey(), window, e);
        continue;
      } catch (RuntimeException e) {
        // The outputs were deleted, or the outcome is unknown: outputs that still exist keep their
        // markers for the restart cleanup.
        finishMessages(table, window, t.getValue(), Set.of());
        failed = failed == null ? e : failed;
        continue;
      }
      // Committed now, or by an earlier attempt (a restored window): every output is referenced.
      finishMessages(table, window, t.getValue(), outputNames(t.getValue()));
      maintain(
          table,
          snapshotId == null ? -1 : snapshotId,
          window == FileStoreCommit.BATCH_IDENTIFIER,
          outcomes);
    }
    if (failed != null) {
      outcomes.failed(window, failed);
    }
    return failed == null;
  }

  /** Forgets what was kept for table {@code name}: it was dropped or replaced. */
  void forget(String name) {
    maintenance.remove(name);
  }

  /**
   * Partition expiry, automatic tags, snapshot expiry and (streaming) scheduled orphan removal
   * after a commit; failures only reported.
   */
  private void maintain(Table table, long snapshotId, boolean endOfInput, Outcomes outcomes) {
    AfterCommitMaintenance.Outcome expiry =
        maintenance
            .computeIfAbsent(table.fullName(), n -> new AfterCommitMaintenance(table.store(), n))
            .run(table.store(), snapshotId, true, endOfInput);
    if (expiry.partitions().failed()) {
      outcomes.partitionExpiryFailed(table.fullName(), expiry.partitions().failure());
    }
    if (expiry.tags().failed()) {
      outcomes.automaticTagFailed(table.fullName(), expiry.tags().failure());
    }
    if (expiry.expiredTags().failed()) {
      outcomes.automaticTagFailed(table.fullName(), expiry.expiredTags().failure());
    }
    if (expiry.snapshots().failed()) {
      outcomes.expiryFailed(table.fullName(), expiry.snapshots().failure());
    }
    if (!writeReleases) {
      return; // a batch job is not dedicated: orphans are removed on a schedule by streaming jobs
    }
    try {
      orphanRemoval.afterCommit(table);
    } catch (RuntimeException e) {
      LOG.warn("Scheduled orphan removal of {} failed; retried after the next interval", table, e);
      outcomes.orphanRemovalFailed(table.fullName(), e);
    }
  }

  /**
   * Removes the markers of a finished window's outputs and releases its tasks' files. Markers go by
   * output name: those of {@code committed} outputs, and those of outputs that are gone. A marker
   * whose output could not be deleted stays, and the restart cleanup retries.
   */
  private void finishMessages(
      Table table, long window, List<CompactMessage> messages, Set<String> committed) {
    List<String> markers = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (CompactMessage m : messages) {
      markers.addAll(m.markers());
      ids.add(m.taskId());
    }
    OutputMarkers.deleteMarkersOfFinishedOutputs(table.store().fileIO(), markers, committed);
    if (writeReleases) {
      ReleaseRecords.write(table.store(), commitUser, window, ids);
    }
  }

  /** File names of the outputs of the messages: data files and deletion-vector files. */
  private static Set<String> outputNames(List<CompactMessage> messages) {
    return CommitMessage.outputFileNames(commitMessages(messages));
  }

  private static List<CommitMessage> commitMessages(List<CompactMessage> messages) {
    List<CommitMessage> out = new ArrayList<>();
    for (CompactMessage m : messages) {
      if (m.result() != null) {
        out.add(m.result().message());
      }
    }
    return out;
  }
}
