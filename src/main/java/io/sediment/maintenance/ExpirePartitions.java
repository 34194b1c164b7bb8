package io.sediment.maintenance;

import io.sediment.manifest.FileStore;
import io.sediment.retention.PartitionExpiry;
import io.sediment.retention.SnapshotRetention;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.PartitionTimeExtractor;
import io.sediment.schema.TableOptions;
import io.sediment.table.Table;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Drops the partitions whose time is older than an expiration time ({@code CALL
 * sys.expire_partitions}, Paimon's procedure): one OVERWRITE snapshot removing every live file of
 * those partitions, as {@code ALTER TABLE ... DROP PARTITION} does. Their files go when snapshot
 * expiry retires the snapshots before it. The partitions are chosen as the automatic expiry after
 * commits chooses them ({@link PartitionExpiry}).
 *
 * <p>A partition's time is, with the {@code values-time} strategy (the default), read from its
 * values: {@code timestampPattern} with {@code $key} replaced by the value of partition column
 * {@code key} (default: the first partition column's value), parsed with {@code timestampFormatter}
 * (a {@link DateTimeFormatter} pattern; default {@code yyyy-MM-dd HH:mm:ss} or {@code yyyy-MM-dd})
 * in the local time zone; a partition whose values do not parse is kept. With {@code update-time}
 * it is the creation time of its newest live file. The formatter, pattern and strategy not given
 * are the table's ({@code partition.timestamp-formatter}, {@code partition.timestamp-pattern},
 * {@code partition.expiration-strategy}).
 */
public final class ExpirePartitions {

  private final Table table;
  private final List<String> partitionKeys;
  private Duration expiration;
  private String formatter;
  private String pattern;
  private String strategy;
  private int maxExpires = Integer.MAX_VALUE;

  public ExpirePartitions(Table table) {
    if (table.schema().partitionKeys().isEmpty()) {
      throw new IllegalArgumentException(
          table.fullName() + " is not partitioned: it has no partition to expire");
    }
    this.table = table;
    this.partitionKeys = table.schema().partitionKeys();
    TableOptions options = table.store().options();
    this.formatter = options.get(CommitOptions.PARTITION_TIMESTAMP_FORMATTER);
    this.pattern = options.get(CommitOptions.PARTITION_TIMESTAMP_PATTERN);
    this.strategy = options.get(CommitOptions.PARTITION_EXPIRATION_STRATEGY);
  }

  /** Partitions older than this are dropped (required, more than 0). */
  public ExpirePartitions expirationTime(Duration expiration) {
    this.expiration = PartitionExpiry.checkExpiration(expiration);
    return this;
  }

  /** A {@link DateTimeFormatter} pattern such as {@code yyyyMMdd}; null for the table's. */
  public ExpirePartitions timestampFormatter(String formatter) {
    if (formatter != null) {
      PartitionTimeExtractor.checkFormatter(formatter);
      this.formatter = formatter;
    }
    return this;
  }

  /**
   * How a partition's values make its time, e.g. {@code $dt $hh:00:00}: every {@code $key} must
   * name a partition column. Null for the table's (by default the first partition column's value).
   */
  public ExpirePartitions timestampPattern(String pattern) {
    if (pattern != null) {
      PartitionTimeExtractor.checkPattern(pattern, partitionKeys);
      this.pattern = pattern;
    }
    return this;
  }

  /** {@code values-time} (default) or {@code update-time}. */
  public ExpirePartitions strategy(String strategy) {
    this.strategy = PartitionExpiry.checkStrategy(strategy);
    return this;
  }

  /** At most this many partitions (the oldest), at least 1. */
  public ExpirePartitions maxExpires(int maxExpires) {
    this.maxExpires = PartitionExpiry.checkMaxExpires(maxExpires);
    return this;
  }

  /**
   * Drops the expired partitions in one OVERWRITE snapshot (none when no partition expired), then
   * expires snapshots as after any commit.
   *
   * @return the dropped partitions, oldest first, as their paths ({@code dt=2024-01-01})
   */
  public List<String> execute() {
    if (expiration == null) {
      throw new IllegalArgumentException("An expiration time is required");
    }
    FileStore store = table.store();
    PartitionExpiry expiry =
        new PartitionExpiry(
            expiration,
            new PartitionTimeExtractor(pattern, formatter, partitionKeys),
            strategy,
            maxExpires);
    PartitionExpiry.Dropped dropped = expiry.dropExpired(store);
    if (!dropped.snapshotIds().isEmpty() && !store.options().writeOnly()) {
      // as after any commit (a write-only table's expiry is its compaction job's)
      new SnapshotRetention(store, table.fullName())
          .expireAfterCommit(dropped.snapshotIds().get(dropped.snapshotIds().size() - 1));
    }
    return dropped.partitions();
  }
}
