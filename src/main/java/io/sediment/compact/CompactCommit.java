package io.sediment.compact;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.commit.SnapshotCommits;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the results of compaction tasks as one COMPACT snapshot, or aborts them: the one place
 * where compaction outputs become part of the table or are deleted, shared by {@link
 * CompactBuilder} and the Flink committer.
 */
public final class CompactCommit {

  private static final Logger LOG = LoggerFactory.getLogger(CompactCommit.class);

  private final FileStore store;
  private final FileStoreCommit commit;

  public CompactCommit(FileStore store, String commitUser) {
    this.store = store;
    this.commit = new FileStoreCommit(store, commitUser);
  }

  public String commitUser() {
    return commit.commitUser();
  }

  public boolean isCommitted(long identifier) {
    return commit.isCommitted(identifier);
  }

  /** The identifier of this user's newest stream commit, if any. */
  public OptionalLong latestCommitIdentifier() {
    return commit
        .latestCommit()
        .map(c -> OptionalLong.of(c.commitIdentifier()))
        .orElse(OptionalLong.empty());
  }

  /**
   * Commits the messages as one COMPACT snapshot and returns its id (null if there was nothing to
   * commit or {@code checkCommitted} found the identifier already landed). On a conflict the
   * outputs are deleted and the {@link CommitConflictException}, naming the conflicting files, is
   * thrown.
   */
  public Long commit(List<CommitMessage> messages, long identifier, boolean checkCommitted) {
    List<CommitMessage> nonEmpty = new ArrayList<>();
    for (CommitMessage m : messages) {
      if (!m.isEmpty()) {
        nonEmpty.add(m);
      }
    }
    if (nonEmpty.isEmpty()) {
      return null;
    }
    if (checkCommitted && identifier == FileStoreCommit.BATCH_IDENTIFIER) {
      // A restarted batch committer: the job's commit user is its own (a random suffix per job),
      // so a batch commit of it among the snapshots is this job's, which landed. (isCommitted
      // never sees batch commits.)
      Optional<Snapshot> landed =
          SnapshotCommits.settledBatchCommitOfUser(store, commit.commitUser());
      if (landed.isPresent()) {
        return landed.get().id();
      }
    } else if (checkCommitted && commit.isCommitted(identifier)) {
      return null;
    }
    try {
      // Refuses outputs that are missing, after skipping an identifier that landed.
      List<Long> ids = commit.commit(nonEmpty, identifier, checkCommitted);
      return ids.isEmpty() ? null : ids.get(ids.size() - 1);
    } catch (RuntimeException e) {
      if (!FileStoreCommit.filesMayBeReferenced(e)) {
        abortInto(nonEmpty, e);
      }
      throw e;
    }
  }

  /**
   * Deletes every output of the messages after {@code failure}: deletion errors are logged as
   * warnings and attached to {@code failure} as suppressed, never replacing it.
   */
  public void abortInto(List<CommitMessage> messages, Throwable failure) {
    for (IOException e : commit.abort(messages)) {
      LOG.warn("Could not delete a compaction output while aborting: {}", e.toString(), e);
      failure.addSuppressed(e);
    }
  }

  /** Deletes every output of the messages; returns the deletion errors. */
  public List<IOException> abort(List<CommitMessage> messages) {
    return commit.abort(messages);
  }
}
