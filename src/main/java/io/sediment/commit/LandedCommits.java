package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.UserCommit;
import java.util.Optional;

/**
 * What one {@link FileStoreCommit} knows of the commits of its commit user that landed: the user's
 * newest stream commit, and whether a commit of an identifier was published since a snapshot (by an
 * earlier attempt of it). Separate from the committer because it only reads the snapshots and the
 * user's hint to decide what to skip, while the committer builds and publishes snapshots.
 */
final class LandedCommits {

  private final SnapshotManager snapshots;
  private final String commitUser;

  /**
   * This user's newest stream commit as far as this committer knows (null: none), valid while
   * {@link #resolved}. Resolved from the snapshots once, then kept up to date by this committer's
   * own commits: with one committer per commit user nobody else adds to it, and the user's hint is
   * read on every check so that another committer of the same user is noticed.
   */
  private UserCommit known;

  private boolean resolved;

  LandedCommits(SnapshotManager snapshots, String commitUser) {
    this.snapshots = snapshots;
    this.commitUser = commitUser;
  }

  /**
   * The newest stream commit of this user (batch commits, identifier Long.MAX_VALUE, say nothing
   * about stream identifiers and are skipped). Reads the user's hint; the snapshots only when this
   * committer does not know yet, or the hint shows a commit it did not make.
   */
  Optional<UserCommit> latestCommit() {
    Optional<UserCommit> hint = snapshots.readUserHint(commitUser);
    boolean trusted =
        resolved
            && (hint.isEmpty() || (known != null && hint.get().snapshotId() <= known.snapshotId()));
    if (!trusted) {
      known = snapshots.latestCommitOfUser(commitUser, hint).orElse(null);
      resolved = true;
    }
    return Optional.ofNullable(known);
  }

  /** This committer published {@code s}: it is now the user's newest commit. */
  void published(Snapshot s) {
    if (SnapshotManager.isStreamCommit(s)) {
      known = UserCommit.of(s);
      resolved = true;
    }
  }

  /** A commit failed: its outcome may be unknown, so the snapshots are read again next time. */
  void forget() {
    resolved = false;
  }

  /**
   * The snapshot of this user, identifier and kind published after snapshot {@code since} up to
   * {@code latest}, if any (stream commits only; none on a first attempt, {@code since} -1).
   */
  Long landedSince(long since, Optional<Snapshot> latest, CommitKind kind, long identifier) {
    if (since < 0 || identifier == FileStoreCommit.BATCH_IDENTIFIER || latest.isEmpty()) {
      return null;
    }
    for (long id = latest.get().id(); id > since; id--) {
      Optional<Snapshot> s = id == latest.get().id() ? latest : snapshots.snapshotIfExists(id);
      if (s.isPresent()
          && commitUser.equals(s.get().commitUser())
          && s.get().commitIdentifier() == identifier
          && s.get().commitKind() == kind) {
        return id;
      }
    }
    return null;
  }
}
