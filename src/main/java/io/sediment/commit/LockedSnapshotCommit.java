package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes under the table's commit lock, for file systems without an atomic create-if-absent
 * (object stores), fenced for the whole publish by a claim in the lock's database:
 *
 * <ol>
 *   <li>take the lock ({@link JdbcCommitLock}); finish the claim a previous holder left (below);
 *   <li>refuse when the target exists; check the snapshot's new files exist ({@code
 *       beforePublish});
 *   <li>write the content to a staged file, then claim the target in the database, in one statement
 *       that also checks the lease: a holder whose lease ran out (paused, cut off) fails here and
 *       publishes nothing;
 *   <li>move the staged file into place, then clear the claim.
 * </ol>
 *
 * Once claimed, the target's content is decided: a holder that stalls between its claim and its
 * move (longer than {@code lock.expire-time}) may finish late, but the next holder, finding the
 * claim with its staged file, moves that same content into place first ("rolls it forward") and
 * builds on it. A late move then writes the same bytes again. So no two committers ever publish
 * different snapshots under one id, whatever pauses happen. A staged file that is gone (its holder
 * deleted it, having published nothing) leaves an abandoned claim, which the next holder replaces.
 */
final class LockedSnapshotCommit implements SnapshotCommit {

  private static final Logger LOG = LoggerFactory.getLogger(LockedSnapshotCommit.class);

  private final SnapshotManager snapshots;
  private final JdbcCommitLock lock;
  private final String lockKey;
  private final FileIO fileIO;

  LockedSnapshotCommit(
      SnapshotManager snapshots, FileIO fileIO, JdbcCommitLock lock, String lockKey) {
    this.snapshots = snapshots;
    this.fileIO = fileIO;
    this.lock = lock;
    this.lockKey = lockKey;
  }

  @Override
  public boolean tryPublish(Snapshot snapshot, FileIO.PublishFence beforePublish)
      throws IOException {
    boolean published =
        publish(
            snapshots.paths().snapshot(snapshot.id()),
            snapshot.toJson().getBytes(StandardCharsets.UTF_8),
            beforePublish);
    if (published) {
      snapshots.writeHints(snapshot);
    }
    return published;
  }

  @Override
  public boolean tryCreate(Path file, byte[] content) throws IOException {
    return publish(file, content, () -> {});
  }

  private boolean publish(Path target, byte[] content, FileIO.PublishFence beforePublish)
      throws IOException {
    try (CommitLease lease = lock.acquire(lockKey)) {
      JdbcCommitLock.Claim previous = lease.readClaim();
      rollForward(previous);
      if (fileIO.fileExists(target)) {
        return false;
      }
      beforePublish.check();
      Path staged = FileIO.temporaryPathFor(target);
      fileIO.writeNew(staged, content);
      JdbcCommitLock.Claim claim = new JdbcCommitLock.Claim(target.toString(), staged.toString());
      boolean claimed;
      try {
        claimed = lease.replaceClaim(previous, claim);
      } catch (CommitLockLostException e) {
        fileIO.deleteQuietly(staged); // the claim failed: nobody will roll it forward
        throw e;
      }
      if (!claimed) {
        fileIO.deleteQuietly(staged);
        lease.checkHeld(); // throws: the lease ran out, another committer holds the lock
        throw new CommitLockLostException(
            "The claim of " + lockKey + " changed while this committer held its lock", null);
      }
      // From here the target will hold `content`: this committer moves it, or the next holder.
      // A failure now is an unknown outcome: the commit's files must stay.
      boolean taken;
      try {
        taken = fileIO.fileExists(target);
      } catch (IOException | RuntimeException e) {
        throw claimedButNotMoved(staged, target, e);
      }
      if (taken) {
        // Only a committer not using this lock (another lock.jdbc.url) can have created it.
        try {
          lease.replaceClaim(claim, previous);
        } catch (CommitLockLostException e) {
          throw claimedButNotMoved(staged, target, e);
        }
        fileIO.deleteQuietly(staged);
        throw new IllegalStateException(
            target
                + " appeared while this committer held the commit lock of "
                + lockKey
                + ": another committer publishes to this table under another lock (check"
                + " 'lock.jdbc.url' of every writer and compaction job); nothing was published");
      }
      try {
        if (!fileIO.rename(staged, target)) {
          throw new IOException("the file system did not move it");
        }
      } catch (IOException | RuntimeException e) {
        // The next holder may have moved it already (this one stalled past its lease): the target
        // then holds this claim's content, and nothing else can.
        if (!movedByAnother(target)) {
          throw claimedButNotMoved(staged, target, e);
        }
        LOG.warn("{} was published by the next holder of the lock of {}", target, lockKey);
      }
      try {
        lease.replaceClaim(claim, JdbcCommitLock.Claim.NONE);
      } catch (CommitLockLostException e) {
        // Published; the next holder finds the staged file gone and the target there.
        LOG.debug("Could not clear the claim of {}: {}", lockKey, e.toString());
      }
      return true;
    }
  }

  private boolean movedByAnother(Path target) {
    try {
      return fileIO.fileExists(target);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static CommitOutcomeUnknownException claimedButNotMoved(
      Path staged, Path target, Exception cause) {
    return new CommitOutcomeUnknownException(
        "Could not move "
            + staged
            + " to "
            + target
            + " after claiming it; the next commit to the table publishes it",
        cause);
  }

  /**
   * Finishes what the previous holder claimed: its staged file, if still there, is moved into place
   * (or deleted, if the target exists already); then the claim is cleared. The staged file is
   * looked at first: a holder that moves it deletes it only after the target exists.
   */
  private void rollForward(JdbcCommitLock.Claim claim) throws IOException {
    if (claim.isNone()) {
      return;
    }
    Path staged = new Path(claim.staged());
    Path target = new Path(claim.target());
    if (fileIO.fileExists(staged)) {
      if (!fileIO.fileExists(target)) {
        LOG.warn(
            "Publishing {} for a committer that claimed it and stopped before moving it into"
                + " place (it stalled past 'lock.expire-time' or died)",
            target);
        fileIO.replaceAtomically(target, fileIO.readBytes(staged));
      }
      fileIO.deleteQuietly(staged);
    }
  }
}
