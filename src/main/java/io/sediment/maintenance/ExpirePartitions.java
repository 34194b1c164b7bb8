package io.sediment.maintenance;

import io.sediment.commit.PartitionPredicates;
import io.sediment.data.PartitionComputer;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.table.Table;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Drops the partitions whose time is older than an expiration time ({@code CALL
 * sys.expire_partitions}, Paimon's procedure): one OVERWRITE snapshot removing every live file of
 * those partitions, as {@code ALTER TABLE ... DROP PARTITION} does. Their files go when snapshot
 * expiry retires the snapshots before it.
 *
 * <p>A partition's time is, with the {@code values-time} strategy (the default), read from its
 * values: {@code timestampPattern} with {@code $key} replaced by the value of partition column
 * {@code key} (default: the first partition column's value), parsed with {@code timestampFormatter}
 * (a {@link DateTimeFormatter} pattern; default {@code yyyy-MM-dd HH:mm:ss} or {@code yyyy-MM-dd})
 * in the local time zone; a partition whose values do not parse is kept. With {@code update-time}
 * it is the creation time of its newest live file.
 */
public final class ExpirePartitions {

  /** A {@code $column} of a timestamp pattern. */
  private static final Pattern COLUMN = Pattern.compile("\\$(\\w+)");

  /** The strategies, by the names Paimon gives them. */
  public static final List<String> STRATEGIES = List.of("values-time", "update-time");

  private final Table table;
  private Duration expiration;
  private List<DateTimeFormatter> formats =
      List.of(
          DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT),
          DateTimeFormatter.ofPattern("yyyy-MM-dd", Locale.ROOT));
  private String pattern;
  private String strategy = "values-time";
  private int maxExpires = Integer.MAX_VALUE;

  public ExpirePartitions(Table table) {
    if (table.schema().partitionKeys().isEmpty()) {
      throw new IllegalArgumentException(
          table.fullName() + " is not partitioned: it has no partition to expire");
    }
    this.table = table;
  }

  /** Partitions older than this are dropped (required, more than 0). */
  public ExpirePartitions expirationTime(Duration expiration) {
    if (expiration == null || expiration.isNegative() || expiration.isZero()) {
      throw new IllegalArgumentException(
          "The expiration time must be more than 0, got " + expiration);
    }
    this.expiration = expiration;
    return this;
  }

  /** A {@link DateTimeFormatter} pattern such as {@code yyyyMMdd}; null for the default. */
  public ExpirePartitions timestampFormatter(String formatter) {
    if (formatter != null) {
      try {
        this.formats = List.of(DateTimeFormatter.ofPattern(formatter, Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "'" + formatter + "' is not a date-time pattern: " + e.getMessage(), e);
      }
    }
    return this;
  }

  /**
   * How a partition's values make its time, e.g. {@code $dt $hh:00:00}: every {@code $key} must
   * name a partition column. Null for the first partition column's value.
   */
  public ExpirePartitions timestampPattern(String pattern) {
    if (pattern != null) {
      Matcher m = COLUMN.matcher(pattern);
      while (m.find()) {
        if (!table.schema().partitionKeys().contains(m.group(1))) {
          throw new IllegalArgumentException(
              "'"
                  + pattern
                  + "' names $"
                  + m.group(1)
                  + ", which is not a partition column; partition columns are "
                  + table.schema().partitionKeys());
        }
      }
    }
    this.pattern = pattern;
    return this;
  }

  /** {@code values-time} (default) or {@code update-time}. */
  public ExpirePartitions strategy(String strategy) {
    if (!STRATEGIES.contains(strategy)) {
      throw new IllegalArgumentException(
          "Unknown expire strategy '" + strategy + "': allowed are 'values-time', 'update-time'");
    }
    this.strategy = strategy;
    return this;
  }

  /** At most this many partitions (the oldest), at least 1. */
  public ExpirePartitions maxExpires(int maxExpires) {
    if (maxExpires < 1) {
      throw new IllegalArgumentException("max_expires must be at least 1, got " + maxExpires);
    }
    this.maxExpires = maxExpires;
    return this;
  }

  /**
   * Drops the expired partitions in one OVERWRITE snapshot (none when no partition expired).
   *
   * @return the dropped partitions, oldest first, as their paths ({@code dt=2024-01-01})
   */
  public List<String> execute() {
    if (expiration == null) {
      throw new IllegalArgumentException("An expiration time is required");
    }
    FileStore store = table.store();
    long now = store.clock().millis();
    long cutoff = now - Math.min(expiration.toMillis(), now - Long.MIN_VALUE / 2);
    // each partition's time, in epoch millis: parsed once per partition (values-time), or its
    // newest file's creation time (update-time)
    Map<BinaryRowData, Long> times = new LinkedHashMap<>();
    Set<BinaryRowData> unparsed = new HashSet<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : store.newScan().plan(s)) {
                BinaryRowData partition = e.partition();
                if (strategy.equals("update-time")) {
                  times.merge(partition.copy(), e.file().creationTimeMillis(), Math::max);
                } else if (!times.containsKey(partition) && !unparsed.contains(partition)) {
                  Long t = valuesTime(store, partition);
                  if (t == null) {
                    unparsed.add(partition.copy());
                  } else {
                    times.put(partition.copy(), t);
                  }
                }
              }
            });
    List<Map.Entry<BinaryRowData, Long>> expired = new ArrayList<>();
    for (Map.Entry<BinaryRowData, Long> e : times.entrySet()) {
      if (e.getValue() < cutoff) {
        expired.add(e);
      }
    }
    expired.sort(Map.Entry.comparingByValue());
    List<BinaryRowData> drop = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (Map.Entry<BinaryRowData, Long> e :
        expired.subList(0, Math.min(maxExpires, expired.size()))) {
      drop.add(e.getKey());
      names.add(store.partitionPath(e.getKey()));
    }
    if (!drop.isEmpty()) {
      table
          .newBatchWriteBuilder()
          .newCommit()
          .overwrite(List.of(), PartitionPredicates.in(store.partitionType(), drop));
    }
    return names;
  }

  /** The time a partition's values give, in the local zone; null when they do not parse. */
  private Long valuesTime(FileStore store, BinaryRowData partition) {
    List<String> keys = table.schema().partitionKeys();
    List<String> values = PartitionComputer.toStrings(store.partitionType(), partition);
    String text;
    if (pattern == null) {
      text = values.get(0);
    } else {
      Matcher m = COLUMN.matcher(pattern);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String v = values.get(keys.indexOf(m.group(1)));
        m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? "" : v));
      }
      m.appendTail(sb);
      text = sb.toString();
    }
    LocalDateTime t = text == null ? null : parse(text);
    return t == null ? null : t.atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
  }

  private LocalDateTime parse(String text) {
    for (DateTimeFormatter f : formats) {
      try {
        TemporalAccessor t = f.parse(text);
        return t.isSupported(ChronoField.HOUR_OF_DAY)
            ? LocalDateTime.from(t)
            : LocalDate.from(t).atStartOfDay();
      } catch (DateTimeException ignored) {
        // not this format (or not a date at all: the partition is kept)
      }
    }
    return null;
  }
}
