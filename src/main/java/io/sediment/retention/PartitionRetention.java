package io.sediment.retention;

import io.sediment.manifest.FileStore;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.Durations;
import io.sediment.schema.TableOptions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The automatic partition expiry of one committer (Paimon's {@code partition.expiration-time}):
 * after a commit, when {@code partition.expiration-check-interval} has passed since the committer
 * started or last checked (0: every commit), or at the end of a batch input with {@code
 * end-input.check-partition-expire}, drops the partitions {@link PartitionExpiry#fromOptions} finds
 * expired. It reads the options of the store it is given at each call; a running job keeps the
 * table (and options) it started with, as Paimon's do.
 *
 * <p>The commit has landed when this runs, so it never throws: a failure is logged and returned for
 * the caller's metrics, and the next check (an interval later) retries. Paimon's failing check
 * fails the commit instead.
 */
public final class PartitionRetention {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionRetention.class);

  /** What one check did: the partitions dropped and the snapshot that dropped them. */
  public record Outcome(PartitionExpiry.Dropped dropped, RuntimeException failure) {
    public static final Outcome NOTHING = new Outcome(PartitionExpiry.Dropped.NONE, null);

    public boolean failed() {
      return failure != null;
    }

    /** The snapshot the drop made, or {@code orElse} when none. */
    public long lastSnapshotId(long orElse) {
      List<Long> ids = dropped.snapshotIds();
      return ids.isEmpty() ? orElse : ids.get(ids.size() - 1);
    }
  }

  private final String tableName;
  private long lastCheckMillis;

  /** A committer's schedule, starting now on the store's clock (the first check is due later). */
  public PartitionRetention(FileStore store, String tableName) {
    this.tableName = tableName;
    this.lastCheckMillis = store.clock().millis();
  }

  /**
   * After a commit to {@code store} that made a snapshot: drops the expired partitions when a check
   * is due; never throws.
   *
   * @param endOfInput whether this was a batch input's commit
   */
  public Outcome expireAfterCommit(FileStore store, boolean endOfInput) {
    long now = store.clock().millis();
    try {
      TableOptions options = store.options();
      if (options.get(CommitOptions.PARTITION_EXPIRATION_TIME) == null) {
        return Outcome.NOTHING;
      }
      long interval =
          Durations.saturatedMillis(options.get(CommitOptions.PARTITION_EXPIRATION_CHECK_INTERVAL));
      boolean due =
          interval == 0
              || now - lastCheckMillis > interval
              || (endOfInput && options.get(CommitOptions.END_INPUT_CHECK_PARTITION_EXPIRE));
      if (!due) {
        return Outcome.NOTHING;
      }
      // a failing check waits for the next interval too: it scans the table
      lastCheckMillis = now;
      PartitionExpiry expiry = PartitionExpiry.fromOptions(store);
      PartitionExpiry.Dropped dropped =
          expiry == null ? PartitionExpiry.Dropped.NONE : expiry.dropExpired(store);
      if (!dropped.partitions().isEmpty()) {
        LOG.info(
            "Expired partition(s) {} of {} in snapshot(s) {}",
            dropped.partitions(),
            tableName,
            dropped.snapshotIds());
      }
      return new Outcome(dropped, null);
    } catch (RuntimeException e) {
      LOG.warn(
          "Automatic partition expiry of {} failed after a successful commit; the next check"
              + " retries it",
          tableName,
          e);
      return new Outcome(PartitionExpiry.Dropped.NONE, e);
    }
  }
}
