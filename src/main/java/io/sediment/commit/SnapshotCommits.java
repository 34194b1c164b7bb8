package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.CommitOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.apache.flink.core.fs.Path;

/**
 * Chooses how a table publishes snapshots: under a commit lock when {@code lock.enabled}, else with
 * the file system's exclusive create. Refuses a table on an object store without a lock, where an
 * exclusive create does not exist and two committers could both publish one snapshot id.
 */
public final class SnapshotCommits {

  private SnapshotCommits() {}

  static SnapshotCommit forStore(FileStore store) {
    checkCommitSafe(store);
    return of(store);
  }

  private static SnapshotCommit of(FileStore store) {
    if (store.options().get(CommitOptions.LOCK_ENABLED)) {
      return new LockedSnapshotCommit(
          store.snapshotManager(),
          store.fileIO(),
          JdbcCommitLock.of(store.options()),
          lockKey(store));
    }
    return new ExclusiveCreateSnapshotCommit(store.snapshotManager(), store.fileIO());
  }

  /**
   * The latest batch commit of {@code commitUser} (see {@link
   * io.sediment.manifest.SnapshotManager#latestBatchCommitOfUser}) after settling what a committer
   * decided and did not publish ({@link SnapshotCommit#settlePending}): how a restarted batch
   * committer finds its earlier attempt's commit, also one whose move into place failed under the
   * commit lock (its outcome unknown), which it would otherwise commit a second time.
   */
  public static Optional<Snapshot> settledBatchCommitOfUser(FileStore store, String commitUser) {
    try {
      of(store).settlePending();
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Could not settle a pending commit of " + store.paths().root(), e);
    }
    return store.snapshotManager().latestBatchCommitOfUser(commitUser);
  }

  /** The name of the table's commit lock: its normalised location ({@link LockKeys}). */
  public static String lockKey(FileStore store) {
    return LockKeys.of(store.paths().root());
  }

  /**
   * Creates a file of the table that only one of several racing writers may create (an expiry
   * record, the first schema): under the table's commit lock when it has one, else with the file
   * system's exclusive create. False, changing nothing, when the file exists.
   */
  public static boolean tryCreateExclusive(FileStore store, Path file, byte[] content)
      throws IOException {
    return of(store).tryCreate(file, content);
  }

  /**
   * {@link #tryCreateExclusive} of a file that guards the table's state as a snapshot does (an
   * expiry record, a tag): refused like a commit ({@link #checkCommitSafe}) on an object store
   * without a commit lock, where the create is not exclusive and a racing expiry or tag would be
   * overwritten unseen.
   */
  public static boolean tryCreateGuarded(FileStore store, Path file, byte[] content)
      throws IOException {
    checkCommitSafe(store);
    return tryCreateExclusive(store, file, content);
  }

  /**
   * Throws, naming the options to set, when the table's commits would not be safe with more than
   * one committer: it is on an object store and no commit lock is configured. Called where a table
   * is opened for writing or compaction, before any work.
   */
  public static void checkCommitSafe(FileStore store) {
    FileIO io = store.fileIO();
    if (io.isObjectStore() && !store.options().get(CommitOptions.LOCK_ENABLED)) {
      throw new IllegalStateException(
          "Refusing to commit to "
              + store.paths().root()
              + ": it is on an object store ("
              + io.scheme()
              + "://), which has no atomic create-if-absent, so two committers (a writer and a"
              + " compaction job) could publish the same snapshot and one commit would be lost."
              + " Configure a commit lock with the table options '"
              + CommitOptions.LOCK_ENABLED.key()
              + "' = 'true' and '"
              + CommitOptions.LOCK_JDBC_URL.key()
              + "' = 'jdbc:sqlite:<file>' (committers on one machine, the default) or"
              + " 'jdbc:postgresql://<host>/<database>' (committers on many machines); see"
              + " docs/operations.md, \"Object stores\"");
    }
  }
}
