package io.sediment.table;

import io.sediment.commit.BatchMessagesCommittedException;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitOutcomeUnknownException;
import io.sediment.commit.FileStoreCommit;
import io.sediment.compact.PartitionFilters;
import io.sediment.manifest.FileStore;
import io.sediment.predicate.Predicate;
import io.sediment.retention.AfterCommitMaintenance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits what {@link TableWrite#prepareCommit()} returned. A batch commit makes one snapshot from
 * one call; a stream commit carries an identifier (a checkpoint id, say) and is skipped when the
 * same (commit user, identifier) already landed. When a commit fails on a conflict, the files the
 * messages added are deleted before the error is thrown.
 *
 * <p>After each commit that made a snapshot ({@link AfterCommitMaintenance}): the partitions {@code
 * partition.expiration-time} no longer keeps are dropped when a check is due, automatic tags are
 * made ({@code tag.automatic-creation}), and snapshots the table's retention options no longer keep
 * are expired (bounded by {@code snapshot.expire.limit}); a failure is logged, counted in {@link
 * #expiryFailures()} and retried later, never failing the commit that landed. A {@code write-only}
 * table's writers skip this, as Paimon's do: its compaction (job, procedure or builder) does it
 * instead.
 */
public final class TableCommit {

  /** Identifier of batch commits: every batch commit is new. */
  public static final long BATCH_IDENTIFIER = FileStoreCommit.BATCH_IDENTIFIER;

  private static final Logger LOG = LoggerFactory.getLogger(TableCommit.class);

  private final FileStoreCommit commit;
  private final boolean streaming;
  private final FileStore store;
  private final AfterCommitMaintenance maintenance; // null: write-only, the compaction does it
  private boolean batchCommitted;
  private AfterCommitMaintenance.Failures failures = AfterCommitMaintenance.Failures.NONE;

  TableCommit(FileStore store, String commitUser, boolean streaming) {
    this.store = store;
    this.commit = new FileStoreCommit(store, commitUser);
    this.streaming = streaming;
    this.maintenance =
        store.options().writeOnly()
            ? null
            : new AfterCommitMaintenance(store, store.paths().root().toString());
  }

  public String commitUser() {
    return commit.commitUser();
  }

  /**
   * Batch commit: all messages in one snapshot. A batch commit can be made only once, and its
   * messages (these objects) are refused by any later batch commit or overwrite in this process
   * while it runs and once it landed or its outcome is unknown ({@link
   * CommitOutcomeUnknownException}), with {@link BatchMessagesCommittedException}: a batch commit
   * cannot tell that it landed already, so they would be added twice. After a failure with nothing
   * landed, other than a conflict (which deletes their files), they may be committed again.
   */
  public List<Long> commit(List<CommitMessage> messages) {
    return commit(messages, null);
  }

  /**
   * {@link #commit(List)}, recording {@code watermark} (epoch milliseconds; null: none) in the
   * snapshot: the table's watermark becomes the larger of it and the latest snapshot's.
   */
  public List<Long> commit(List<CommitMessage> messages, Long watermark) {
    if (streaming) {
      throw new IllegalStateException(
          "A stream commit needs an identifier: use commit(id, messages)");
    }
    if (batchCommitted) {
      throw new IllegalStateException("A batch write can be committed only once");
    }
    batchCommitted = true;
    return doCommit(BATCH_IDENTIFIER, messages, false, watermark);
  }

  /**
   * Batch truncate: one OVERWRITE snapshot removing every live file of the table (none when it
   * holds no file). Can be made only once, as a batch commit.
   */
  public List<Long> truncate() {
    if (streaming) {
      throw new IllegalStateException("Truncate is supported for batch writes only");
    }
    if (batchCommitted) {
      throw new IllegalStateException("A batch write can be committed only once");
    }
    batchCommitted = true;
    List<Long> ids = commit.truncate(BATCH_IDENTIFIER);
    expireIfCommitted(ids, false, true);
    return ids;
  }

  /**
   * Batch overwrite: one OVERWRITE snapshot replacing every live file of the partitions matching
   * {@code partitionFilter} (on partition columns, by name: built on the table's row type or on its
   * partition type; null for none) and of the partitions the messages write to; an unpartitioned
   * table is replaced whole. A filter on other columns is refused, nothing changed. Can be made
   * only once, and its messages are claimed as {@link #commit(List)}'s are. On a failure the new
   * files are deleted before the error is thrown, unless the overwrite may have landed ({@link
   * CommitOutcomeUnknownException}) or the messages were committed before.
   */
  public List<Long> overwrite(List<CommitMessage> messages, Predicate partitionFilter) {
    return overwrite(messages, partitionFilter, null);
  }

  /**
   * {@link #overwrite(List, Predicate)}, recording {@code watermark} as {@link #commit(List,
   * Long)}.
   */
  public List<Long> overwrite(
      List<CommitMessage> messages, Predicate partitionFilter, Long watermark) {
    if (partitionFilter != null) {
      // bound by name: a filter built on the table's row type has other field positions
      partitionFilter = PartitionFilters.fromRowFilter(store.schema(), partitionFilter);
    }
    if (streaming) {
      throw new IllegalStateException("Overwrite is supported for batch writes only");
    }
    if (batchCommitted) {
      throw new IllegalStateException("A batch write can be committed only once");
    }
    batchCommitted = true;
    List<Long> ids;
    try {
      ids = commit.overwrite(messages, partitionFilter, BATCH_IDENTIFIER, false, watermark);
    } catch (RuntimeException e) {
      if (!FileStoreCommit.filesMayBeReferenced(e)) {
        abortInto(messages, e);
      }
      throw e;
    }
    expireIfCommitted(ids, !messages.isEmpty(), true); // no messages: a drop of partitions
    return ids;
  }

  /**
   * Stream commit: lands once per (commit user, identifier); a repeated or older identifier is
   * skipped and returns no snapshot id.
   */
  public List<Long> commit(long identifier, List<CommitMessage> messages) {
    return commit(identifier, messages, null);
  }

  /**
   * {@link #commit(long, List)}, recording {@code watermark} (the writer's watermark at the
   * checkpoint; null: none) as {@link #commit(List, Long)}.
   */
  public List<Long> commit(long identifier, List<CommitMessage> messages, Long watermark) {
    if (!streaming) {
      throw new IllegalStateException("A batch commit takes no identifier: use commit(messages)");
    }
    return doCommit(identifier, messages, true, watermark);
  }

  /**
   * Whether automatic tags want a snapshot though the checkpoint wrote nothing (Paimon's forced
   * snapshot, {@link io.sediment.retention.TagAutoCreation#wantsSnapshot}); {@code watermark} is
   * the checkpoint's (null: none).
   */
  public boolean wantsSnapshotForTags(Long watermark) {
    if (!streaming || maintenance == null) {
      return false;
    }
    long failedBefore = maintenance.failedTagChecks();
    boolean wanted = maintenance.wantsSnapshot(store, watermark);
    long failed = maintenance.failedTagChecks() - failedBefore;
    if (failed > 0) {
      failures = failures.plus(new AfterCommitMaintenance.Failures(0, 0, failed));
    }
    return wanted;
  }

  /**
   * Stream commit of an empty APPEND snapshot recording {@code watermark}, then the after-commit
   * maintenance (which makes the automatic tags it was committed for); skipped when the identifier
   * landed.
   */
  public List<Long> commitEmpty(long identifier, Long watermark) {
    if (!streaming) {
      throw new IllegalStateException("An empty snapshot is a stream commit");
    }
    List<Long> ids = commit.commitEmpty(identifier, watermark);
    expireIfCommitted(ids, true, false);
    return ids;
  }

  private List<Long> doCommit(
      long identifier, List<CommitMessage> messages, boolean checkCommitted, Long watermark) {
    // The commit skips an identifier that landed, then refuses messages whose files are missing.
    List<Long> ids;
    try {
      ids = commit.commit(messages, identifier, checkCommitted, watermark);
    } catch (CommitConflictException e) {
      abortInto(messages, e);
      throw e;
    }
    // a bounded streaming input ends with the batch identifier too (its end-of-input window)
    expireIfCommitted(ids, true, !streaming || identifier == BATCH_IDENTIFIER);
    return ids;
  }

  /**
   * The identifier of this commit user's newest stream commit (empty: none). A job restored from a
   * checkpoint older than it reuses identifiers that landed (see {@code
   * io.sediment.commit.CommitUsers#afterRewind}).
   */
  public OptionalLong latestCommitIdentifier() {
    return commit
        .latestCommit()
        .map(c -> OptionalLong.of(c.commitIdentifier()))
        .orElse(OptionalLong.empty());
  }

  /**
   * After a commit that made a snapshot: partitions when {@code checkPartitions} (the commit wrote
   * rows), then snapshots; never throws: the commit has landed.
   */
  private void expireIfCommitted(
      List<Long> snapshotIds, boolean checkPartitions, boolean endOfInput) {
    if (!snapshotIds.isEmpty() && maintenance != null) {
      long latest = snapshotIds.get(snapshotIds.size() - 1);
      failures =
          failures.plus(
              maintenance.run(store, latest, checkPartitions, endOfInput).failureCounts());
    }
  }

  /** How many automatic snapshot expiries after this object's commits failed (each was logged). */
  public long expiryFailures() {
    return failures.snapshots();
  }

  /**
   * How many of the automatic snapshot expiries, partition expiries and tag creations after this
   * object's commits failed (each was logged).
   */
  public AfterCommitMaintenance.Failures failures() {
    return failures;
  }

  /** Deletes every file the messages added. Errors are logged and thrown as one. */
  public void abort(List<CommitMessage> messages) {
    List<IOException> errors = commit.abort(messages);
    if (!errors.isEmpty()) {
      IOException first =
          new IOException("Could not delete " + errors.size() + " file(s) while aborting");
      errors.forEach(first::addSuppressed);
      LOG.warn("Abort left files behind", first);
      throw new UncheckedIOException(first);
    }
  }

  /** Aborts after a failure, attaching (never replacing) deletion errors to the original. */
  public void abortInto(List<CommitMessage> messages, Throwable original) {
    for (IOException e : commit.abort(messages)) {
      LOG.warn("Could not delete a file while aborting: {}", e.toString());
      original.addSuppressed(e);
    }
  }
}
