package io.sediment.retention;

import io.sediment.manifest.FileStore;

/**
 * What every committer runs after a commit that made a snapshot: the partition expiry when a check
 * is due ({@link PartitionRetention}), then the snapshot expiry ({@link SnapshotRetention}) after
 * the last snapshot, the partitions' drop included. One instance per committer, which keeps the
 * partition check's schedule. Never throws: the commit has landed.
 */
public final class AfterCommitExpiry {

  /** What one run did; each part failed or not on its own. */
  public record Outcome(
      PartitionRetention.Outcome partitions, SnapshotRetention.Outcome snapshots) {
    /** How many of the two failed (each was logged). */
    public int failures() {
      return (partitions.failed() ? 1 : 0) + (snapshots.failed() ? 1 : 0);
    }
  }

  private final String tableName;
  private final PartitionRetention partitions;

  /** A committer's expiry; the partition check's interval starts now. */
  public AfterCommitExpiry(FileStore store, String tableName) {
    this.tableName = tableName;
    this.partitions = new PartitionRetention(store, tableName);
  }

  /**
   * After a commit to {@code store}.
   *
   * @param committedSnapshotId the commit's last snapshot; negative: unknown (snapshot expiry
   *     lists)
   * @param checkPartitions whether the commit wrote rows (a writer's or a compaction's commit), so
   *     partitions are checked; not after a drop of partitions or a truncation, as in Paimon
   * @param endOfInput whether it was the commit at the end of a bounded input
   */
  public Outcome run(
      FileStore store, long committedSnapshotId, boolean checkPartitions, boolean endOfInput) {
    PartitionRetention.Outcome dropped =
        checkPartitions
            ? partitions.expireAfterCommit(store, endOfInput)
            : PartitionRetention.Outcome.NOTHING;
    SnapshotRetention.Outcome expired =
        new SnapshotRetention(store, tableName)
            .expireAfterCommit(dropped.lastSnapshotId(committedSnapshotId));
    return new Outcome(dropped, expired);
  }
}
