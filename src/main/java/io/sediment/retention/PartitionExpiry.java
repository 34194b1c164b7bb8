package io.sediment.retention;

import io.sediment.commit.CommitUsers;
import io.sediment.commit.FileStoreCommit;
import io.sediment.commit.PartitionPredicates;
import io.sediment.data.PartitionComputer;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.Durations;
import io.sediment.schema.PartitionTimeExtractor;
import io.sediment.schema.TableOptions;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Which partitions are expired, and their drop: the partitions whose time is older than the
 * expiration time, oldest first, at most {@code maxExpires} of them, dropped in one OVERWRITE
 * snapshot as {@code ALTER TABLE ... DROP PARTITION} drops them. Shared by {@code CALL
 * sys.expire_partitions} and the automatic expiry after commits ({@link PartitionRetention}), so
 * both choose alike.
 *
 * <p>A partition's time is, with {@code values-time}, what {@link PartitionTimeExtractor} reads
 * from its values in the local time zone (a partition whose values do not parse has none and is
 * kept); with {@code update-time}, the creation time of its newest live file.
 */
public final class PartitionExpiry {

  /** The strategies, by the names Paimon gives them. */
  public static final List<String> STRATEGIES = List.of("values-time", "update-time");

  /** One expiry's drop: the partitions (paths such as {@code dt=2024-01-01}) and the snapshot. */
  public record Dropped(List<String> partitions, List<Long> snapshotIds) {
    public static final Dropped NONE = new Dropped(List.of(), List.of());
  }

  private final Duration expiration;
  private final PartitionTimeExtractor extractor;
  private final boolean updateTime;
  private final int maxExpires;

  /**
   * @throws IllegalArgumentException naming what is wrong: an expiration that is not above 0, an
   *     unknown strategy, or {@code maxExpires} below 1
   */
  public PartitionExpiry(
      Duration expiration, PartitionTimeExtractor extractor, String strategy, int maxExpires) {
    this.expiration = checkExpiration(expiration);
    this.extractor = extractor;
    this.updateTime = checkStrategy(strategy).equals("update-time");
    this.maxExpires = checkMaxExpires(maxExpires);
  }

  /** {@code expiration}, or a refusal when it is not above 0. */
  public static Duration checkExpiration(Duration expiration) {
    if (expiration == null || expiration.isNegative() || expiration.isZero()) {
      throw new IllegalArgumentException(
          "The expiration time must be more than 0, got " + expiration);
    }
    return expiration;
  }

  /** The strategy {@code strategy} names (any case), or a refusal naming the allowed ones. */
  public static String checkStrategy(String strategy) {
    String s = strategy.toLowerCase(Locale.ROOT);
    if (!STRATEGIES.contains(s)) {
      throw new IllegalArgumentException(
          "Unknown expire strategy '" + strategy + "': allowed are 'values-time', 'update-time'");
    }
    return s;
  }

  /** {@code maxExpires}, or a refusal when it is below 1. */
  public static int checkMaxExpires(int maxExpires) {
    if (maxExpires < 1) {
      throw new IllegalArgumentException("max_expires must be at least 1, got " + maxExpires);
    }
    return maxExpires;
  }

  /** What the table's options ask for; null when {@code partition.expiration-time} is not set. */
  public static PartitionExpiry fromOptions(FileStore store) {
    TableOptions options = store.options();
    Duration expiration = options.get(CommitOptions.PARTITION_EXPIRATION_TIME);
    if (expiration == null || store.schema().partitionKeys().isEmpty()) {
      return null;
    }
    return new PartitionExpiry(
        expiration,
        PartitionTimeExtractor.of(options, store.schema().partitionKeys()),
        options.get(CommitOptions.PARTITION_EXPIRATION_STRATEGY),
        options.get(CommitOptions.PARTITION_EXPIRATION_MAX_NUM));
  }

  /** The expired partitions of the latest snapshot at {@code nowMillis}, oldest first. */
  public List<BinaryRowData> expired(FileStore store, long nowMillis) {
    long cutoff = cutoff(nowMillis);
    Snapshot latest = store.snapshotManager().latest().orElse(null);
    if (latest == null) {
      return List.of();
    }
    // each partition's time in epoch millis: parsed once per partition (values-time), or its
    // newest file's creation time (update-time)
    Map<BinaryRowData, Long> times = new LinkedHashMap<>();
    Set<BinaryRowData> untimed = new HashSet<>();
    for (ManifestEntry e : store.newScan().plan(latest)) {
      BinaryRowData partition = e.partition();
      if (updateTime) {
        times.merge(partition.copy(), e.file().creationTimeMillis(), Math::max);
      } else if (!times.containsKey(partition) && !untimed.contains(partition)) {
        Long t = valuesTime(PartitionComputer.toStrings(store.partitionType(), partition));
        if (t == null) {
          untimed.add(partition.copy());
        } else {
          times.put(partition.copy(), t);
        }
      }
    }
    List<Map.Entry<BinaryRowData, Long>> expired = new ArrayList<>();
    for (Map.Entry<BinaryRowData, Long> e : times.entrySet()) {
      if (e.getValue() < cutoff) {
        expired.add(e);
      }
    }
    expired.sort(Map.Entry.comparingByValue());
    List<BinaryRowData> out = new ArrayList<>();
    for (Map.Entry<BinaryRowData, Long> e :
        expired.subList(0, Math.min(maxExpires, expired.size()))) {
      out.add(e.getKey());
    }
    return out;
  }

  /** A partition's time in epoch millis, in the local zone; null when its values make none. */
  private Long valuesTime(List<String> values) {
    LocalDateTime t = extractor.extract(values);
    try {
      return t == null ? null : t.atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
    } catch (ArithmeticException e) {
      return null; // a year beyond epoch millis: no time, kept
    }
  }

  /** Partitions whose time is before this, at {@code nowMillis}, are expired. */
  private long cutoff(long nowMillis) {
    return nowMillis
        - Math.min(Durations.saturatedMillis(expiration), nowMillis - Long.MIN_VALUE / 2);
  }

  /**
   * Drops the expired partitions in one OVERWRITE snapshot by a new commit user; nothing when none
   * is expired. Snapshot expiry is the caller's.
   */
  public Dropped dropExpired(FileStore store) {
    long now = store.clock().millis();
    List<BinaryRowData> drop = expired(store, now);
    if (drop.isEmpty()) {
      return Dropped.NONE;
    }
    long cutoff = cutoff(now);
    List<Long> ids =
        new FileStoreCommit(store, CommitUsers.random())
            // by update time, a file written since the decision means the partition is in use
            // again: the drop conflicts (and the next expiry decides anew) rather than delete it
            .withOverwriteGuard(e -> !updateTime || e.file().creationTimeMillis() < cutoff)
            .overwrite(
                List.of(),
                PartitionPredicates.in(store.partitionType(), drop),
                FileStoreCommit.BATCH_IDENTIFIER,
                false);
    return new Dropped(paths(store, drop), ids);
  }

  /** The partitions' paths ({@code dt=2024-01-01/hh=3}). */
  public static List<String> paths(FileStore store, List<BinaryRowData> partitions) {
    List<String> names = new ArrayList<>();
    for (BinaryRowData p : partitions) {
      names.add(store.partitionPath(p));
    }
    return names;
  }
}
