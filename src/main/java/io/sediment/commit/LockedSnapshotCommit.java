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
      if (fileIO.fileExists(target)) {
        // Only a committer not using this lock (another lock.jdbc.url) can have created it.
        lease.replaceClaim(claim, previous);
        fileIO.deleteQuietly(staged);
        throw new IllegalStateException(
            target
                + " appeared while this committer held the commit lock of "
                + lockKey
                + ": another committer publishes to this table under another lock (check"
                + " 'lock.jdbc.url' of every writer and compaction job); nothing was published");
      }
      if (!fileIO.rename(staged, target)) {
        throw new CommitOutcomeUnknownException(
            "Could not move "
                + staged
                + " to "
                + target
                + "; it is claimed, so the next commit publishes it",
            null);
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
