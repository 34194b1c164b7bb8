package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import org.apache.flink.core.fs.Path;

/**
 * How a table publishes a snapshot so that of several committers racing for one id exactly one
 * wins: an exclusive create where the file system has one ({@link ExclusiveCreateSnapshotCommit}),
 * a commit lock held in a database elsewhere ({@link LockedSnapshotCommit}). Chosen per table by
 * {@link SnapshotCommits}.
 */
interface SnapshotCommit {

  /**
   * Publishes {@code snapshot} (and updates the hints) unless its id is taken; false, changing
   * nothing, when another committer has it. {@code beforePublish} runs right before the snapshot
   * becomes visible (under the lock, where there is one) and throws to publish nothing: it checks
   * that every file the snapshot adds still exists.
   */
  boolean tryPublish(Snapshot snapshot, FileIO.PublishFence beforePublish) throws IOException;

  /**
   * Creates another file of the table that only one of several racing writers may create (an expiry
   * record, the first schema), by the same means; false, changing nothing, when it exists.
   */
  boolean tryCreate(Path file, byte[] content) throws IOException;

  /**
   * Finishes a publish another committer decided and did not finish (under a commit lock: a claimed
   * snapshot not moved into place), so that the snapshots listed next show every decided commit.
   * Nothing to do with an exclusive create, which decides and publishes in one step.
   */
  default void settlePending() throws IOException {}
}
