package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import org.apache.flink.core.fs.Path;

/**
 * Publishes while holding the table's commit lock, for file systems without an atomic
 * create-if-absent (object stores): under the lock, a free id stays free until its holder writes
 * it. The lease is renewed right before the snapshot file becomes visible, and nothing is published
 * when that fails ({@link CommitLockLostException}): a committer that lost its lock (paused longer
 * than {@code lock.expire-time}, cut off from the database) never publishes.
 */
final class LockedSnapshotCommit implements SnapshotCommit {

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
  public boolean tryPublish(Snapshot snapshot) throws IOException {
    try (CommitLease lease = lock.acquire(lockKey)) {
      if (snapshots.exists(snapshot.id())) {
        return false;
      }
      snapshots.publishGuarded(snapshot, lease::checkHeld);
      return true;
    }
  }

  @Override
  public boolean tryCreate(Path file, byte[] content) throws IOException {
    try (CommitLease lease = lock.acquire(lockKey)) {
      if (fileIO.fileExists(file)) {
        return false;
      }
      fileIO.createGuarded(file, content, lease::checkHeld);
      return true;
    }
  }
}
