package io.sediment.maintenance;

import io.sediment.retention.SnapshotExpiration;
import io.sediment.table.Table;
import java.util.List;

/**
 * Expires old snapshots of a table and deletes the files only they use ({@code CALL
 * sys.expire_snapshots}); the work is {@link SnapshotExpiration}'s.
 *
 * <p>The snapshots kept are always the newest ones (a contiguous range ending at the latest): at
 * most {@code retainMax}; of those, the ones older than {@code olderThanMillis} are expired too,
 * but never below {@code retainMin} (at least 1, so the latest always stays). Snapshots at the old
 * end whose metadata is already gone (an expiration of an older version was interrupted) are
 * expired as well. A file is deleted only when no retained snapshot uses it.
 *
 * <p>Crash-safe at every step, each one idempotent: (1) each commit user's newest expired stream
 * commit is written into the user's hint; (2) the expiry record {@code snapshot/EXPIRING} is
 * created, naming the snapshots to retire and their manifest lists; (3) their snapshot files are
 * deleted, oldest first, so the listing stays a contiguous, readable range; (4) the data and
 * deletion-vector files only they referenced are deleted, then (5) their manifests and index
 * manifests, then (6) their manifest lists, and (7) the record. A run that finds a record (the last
 * one failed or died) finishes it first; files already gone are skipped.
 *
 * <p>Run it from one process at a time per table; it is safe against concurrent writers, which
 * always commit on top of the latest snapshot, and against their automatic expiry after commits,
 * which skips while a record exists that no failed run abandoned (docs/operations.md).
 */
public final class ExpireSnapshots {

  private final Table table;
  private int retainMax = Integer.MAX_VALUE;
  private int retainMin = 1;
  private long olderThanMillis = Long.MIN_VALUE;
  private int maxDeletes = Integer.MAX_VALUE;

  public ExpireSnapshots(Table table) {
    this.table = table;
  }

  /** Keep at most this many snapshots (>= 1). */
  public ExpireSnapshots retainMax(int retainMax) {
    if (retainMax < 1) {
      throw new IllegalArgumentException("retain_max must be at least 1, got " + retainMax);
    }
    this.retainMax = retainMax;
    return this;
  }

  /** Keep at least this many snapshots however old (>= 1). */
  public ExpireSnapshots retainMin(int retainMin) {
    if (retainMin < 1) {
      throw new IllegalArgumentException("retain_min must be at least 1, got " + retainMin);
    }
    this.retainMin = retainMin;
    return this;
  }

  /**
   * Expire at most this many snapshots in this run, the oldest first (>= 1; Paimon's {@code
   * max_deletes}); unlimited by default.
   */
  public ExpireSnapshots maxDeletes(int maxDeletes) {
    if (maxDeletes < 1) {
      throw new IllegalArgumentException("max_deletes must be at least 1, got " + maxDeletes);
    }
    this.maxDeletes = maxDeletes;
    return this;
  }

  /** Expire snapshots created before this time (epoch millis), subject to retainMin. */
  public ExpireSnapshots olderThan(long epochMillis) {
    this.olderThanMillis = epochMillis;
    return this;
  }

  /**
   * What an expiration did, including an interrupted one it finished. The counts are of the files
   * it set out to delete; files a failed run already deleted are counted again by the rerun.
   */
  public record Result(
      List<Long> expiredSnapshots, int deletedDataFiles, int deletedMetadataFiles) {}

  /** Checks the arguments together: retain_min at most retain_max ({@link #execute} does too). */
  public ExpireSnapshots check() {
    if (retainMin > retainMax) {
      throw new IllegalArgumentException(
          "retain_min (" + retainMin + ") must not be larger than retain_max (" + retainMax + ")");
    }
    return this;
  }

  public Result execute() {
    check();
    SnapshotExpiration.Result r =
        new SnapshotExpiration(table.store(), table.fullName())
            .retainMin(retainMin)
            .retainMax(retainMax)
            .olderThan(olderThanMillis)
            .limit(maxDeletes)
            .execute();
    return new Result(r.expiredSnapshots(), r.deletedDataFiles(), r.deletedMetadataFiles());
  }
}
