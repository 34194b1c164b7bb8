package io.sediment.retention;

import io.sediment.manifest.FileStore;

/**
 * What every committer runs after a commit that made a snapshot: the partition expiry when a check
 * is due ({@link PartitionRetention}), the automatic tags ({@link TagAutoCreation}), the tags whose
 * time ran out ({@link TagExpiry}), then the snapshot expiry ({@link SnapshotRetention}) after the
 * last snapshot, the partitions' drop included. One instance per committer, which keeps the
 * partition check's schedule and the next tag's period. Never throws: the commit has landed.
 */
public final class AfterCommitMaintenance {

  /** What one run did; each part failed or not on its own. */
  public record Outcome(
      PartitionRetention.Outcome partitions,
      TagAutoCreation.Outcome tags,
      TagExpiry.Outcome expiredTags,
      SnapshotRetention.Outcome snapshots) {
    /** How many of each part failed (0 or 1 each; the tags' two parts count as one). */
    public Failures failureCounts() {
      return new Failures(
          snapshots.failed() ? 1 : 0,
          partitions.failed() ? 1 : 0,
          tags.failed() || expiredTags.failed() ? 1 : 0);
    }
  }

  /**
   * Failures counted by part, for a committer's metrics: of snapshot expiry, of partition expiry,
   * of automatic tags.
   */
  public record Failures(long snapshots, long partitions, long tags) {
    public static final Failures NONE = new Failures(0, 0, 0);

    public Failures plus(Failures o) {
      return new Failures(snapshots + o.snapshots, partitions + o.partitions, tags + o.tags);
    }

    public Failures minus(Failures o) {
      return new Failures(snapshots - o.snapshots, partitions - o.partitions, tags - o.tags);
    }
  }

  private final String tableName;
  private final PartitionRetention partitions;
  private final TagAutoCreation tags;
  private final TagExpiry tagExpiry;

  /** A committer's maintenance; the partition check's interval starts now. */
  public AfterCommitMaintenance(FileStore store, String tableName) {
    this.tableName = tableName;
    this.partitions = new PartitionRetention(store, tableName);
    this.tags = new TagAutoCreation(tableName);
    this.tagExpiry = new TagExpiry(tableName);
  }

  /** See {@link TagAutoCreation#wantsSnapshot}. */
  public boolean wantsSnapshot(FileStore store, Long watermark) {
    return tags.wantsSnapshot(store, watermark);
  }

  /** See {@link TagAutoCreation#failedChecks}. */
  public long failedTagChecks() {
    return tags.failedChecks();
  }

  /**
   * After a commit to {@code store}.
   *
   * @param committedSnapshotId the commit's last snapshot; negative: unknown (snapshot expiry
   *     lists)
   * @param wroteRows whether the commit wrote rows (a writer's or a compaction's commit), so
   *     partitions and tags are checked; not after a drop of partitions or a truncation, as in
   *     Paimon
   * @param endOfInput whether it was the commit at the end of a bounded input
   */
  public Outcome run(
      FileStore store, long committedSnapshotId, boolean wroteRows, boolean endOfInput) {
    PartitionRetention.Outcome dropped =
        wroteRows
            ? partitions.expireAfterCommit(store, endOfInput)
            : PartitionRetention.Outcome.NOTHING;
    TagAutoCreation.Outcome tagged =
        wroteRows ? tags.run(store, committedSnapshotId) : TagAutoCreation.Outcome.NOTHING;
    TagExpiry.Outcome expiredTags = wroteRows ? tagExpiry.run(store) : TagExpiry.Outcome.NOTHING;
    SnapshotRetention.Outcome expired =
        new SnapshotRetention(store, tableName)
            .expireAfterCommit(dropped.lastSnapshotId(committedSnapshotId));
    return new Outcome(dropped, tagged, expiredTags, expired);
  }
}
