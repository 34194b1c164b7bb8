package io.sediment.retention;

import io.sediment.manifest.FileStore;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.TableOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic expiry that runs after each commit of a writer or a compaction: expires the
 * snapshots the table's retention options ({@code snapshot.num-retained.min}, {@code
 * snapshot.num-retained.max}, {@code snapshot.time-retained}) no longer keep, at most {@code
 * snapshot.expire.limit} of them per commit.
 *
 * <p>The commit has landed when this runs, so it never throws: a failure is logged, returned for
 * the caller's metrics, and the expiration (its record marked abandoned) is finished by the next
 * commit's expiry. When another expiration of the table is in progress (its record {@code
 * snapshot/EXPIRING} exists and is not abandoned), this one skips.
 */
public final class SnapshotRetention {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotRetention.class);

  /** What one automatic expiry did. */
  public record Outcome(int expiredSnapshots, boolean skipped, RuntimeException failure) {
    public boolean failed() {
      return failure != null;
    }
  }

  private final FileStore store;
  private final String tableName;

  public SnapshotRetention(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
  }

  /** Expires what the table's options no longer retain, bounded; never throws. */
  public Outcome expireAfterCommit() {
    return expireAfterCommit(-1);
  }

  /**
   * As {@link #expireAfterCommit()}, after the commit of snapshot {@code committedSnapshotId}: when
   * the options retain every snapshot up to it, finds that without listing the snapshot directory
   * ({@link SnapshotExpiration#afterCommitOf}). A negative id: unknown, list.
   */
  public Outcome expireAfterCommit(long committedSnapshotId) {
    TableOptions options = store.options();
    try {
      SnapshotExpiration.Result r =
          new SnapshotExpiration(store, tableName)
              .retainMin(options.snapshotRetainMin())
              .retainMax(options.get(CommitOptions.SNAPSHOT_NUM_RETAINED_MAX))
              .olderThan(
                  store.clock().millis()
                      - options.get(CommitOptions.SNAPSHOT_TIME_RETAINED).toMillis())
              .limit(options.get(CommitOptions.SNAPSHOT_EXPIRE_LIMIT))
              .skipLiveExpiration(true)
              .afterCommitOf(committedSnapshotId)
              .execute();
      return new Outcome(r.expiredSnapshots().size(), r.skipped(), null);
    } catch (RuntimeException e) {
      LOG.warn(
          "Automatic snapshot expiry of {} failed after a successful commit; the next commit"
              + " retries it",
          tableName,
          e);
      return new Outcome(0, false, e);
    }
  }
}
