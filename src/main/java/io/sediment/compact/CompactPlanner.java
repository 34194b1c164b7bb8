package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.schema.Durations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Plans compaction of one table: reads the live files of a snapshot (with a partition filter),
 * groups them per partition and bucket, and asks the table kind's strategy which files of each
 * bucket to rewrite. Files in {@code excluded} (held by unfinished tasks) are never planned. Every
 * task carries the id of the snapshot it was planned from.
 */
public final class CompactPlanner {

  private final FileStore store;
  private final String tableName;
  private final BucketStrategy strategy;
  private final Duration partitionIdleTime;

  /** Plans as a writer's own compaction does: minor, or full with {@code compaction.full}. */
  public CompactPlanner(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
    this.strategy = TableKind.of(store).compactStrategy(store);
    this.partitionIdleTime = null;
  }

  /**
   * Plans with {@code strategy}; with a {@code partitionIdleTime} (null for none) only partitions
   * whose newest file was written longer ago than that.
   */
  public CompactPlanner(
      FileStore store, String tableName, CompactStrategy strategy, Duration partitionIdleTime) {
    this.store = store;
    this.tableName = tableName;
    this.strategy = TableKind.of(store).compactStrategy(store, strategy);
    this.partitionIdleTime = partitionIdleTime;
  }

  /**
   * Plans a sort compaction: every file of the selected append buckets, rewritten in {@code order}
   * by up to {@code maxRanges} tasks per bucket.
   */
  public CompactPlanner(
      FileStore store,
      String tableName,
      SortOrder order,
      int maxRanges,
      Duration partitionIdleTime) {
    order.validate(tableName, store.schema());
    this.store = store;
    this.tableName = tableName;
    this.strategy = new SortCompactStrategy(store, order, maxRanges);
    this.partitionIdleTime = partitionIdleTime;
  }

  /** Decides which files of one bucket to compact. */
  public interface BucketStrategy {

    List<CompactTask> plan(Bucket bucket);

    /**
     * Files of the bucket this strategy counts as waiting for compaction although {@code planned}
     * (its plan of the bucket) does not include them, e.g. small files of an append bucket that are
     * fewer than {@code compaction.min.file-num}. Used for the backlog metric.
     */
    default long waitingFiles(Bucket bucket, List<CompactTask> planned) {
      return 0;
    }

    /**
     * Whether the files of a bucket not held by an unfinished task may be planned while others are
     * held. Only where the bucket's files keep no order (the size tiers of unbucketed append
     * tables): elsewhere planning around held files could reorder rows (sequence order of
     * fixed-bucket appends, a sort's ranges) or overlap key ranges (sorted runs).
     */
    default boolean plansAroundHeldFiles() {
      return false;
    }
  }

  /** The live files of one bucket, in the order they were added. */
  /**
   * One bucket's live files.
   *
   * @param deletedRows per data file name, the rows its deletion vector marks deleted (files
   *     without one are absent; empty when not known, as in a writer's own compaction)
   */
  public record Bucket(
      String table,
      BinaryRowData partition,
      String partitionPath,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> files,
      Map<String, Long> deletedRows) {

    public Bucket(
        String table,
        BinaryRowData partition,
        String partitionPath,
        int bucket,
        int totalBuckets,
        List<DataFileMeta> files) {
      this(table, partition, partitionPath, bucket, totalBuckets, files, Map.of());
    }
  }

  /**
   * Plans tasks for the snapshot. {@code partitionFilter} is on the partition row type (null for
   * all partitions); {@code excluded} holds names of files that must not be planned.
   */
  public List<CompactTask> plan(
      Snapshot snapshot, Predicate partitionFilter, Set<String> excluded) {
    return planWithBacklog(snapshot, partitionFilter, excluded).tasks();
  }

  /**
   * A plan and its backlog: {@code waitingFiles} counts the files the strategies consider eligible
   * (e.g. small files) that no planned task includes, over the buckets planned (buckets with an
   * excluded file are not looked at, unless the strategy plans around held files); {@code
   * blockedBuckets} counts the buckets with an excluded file (their files held by unfinished
   * tasks), outside partitions left alone for their idle time.
   */
  public record Plan(List<CompactTask> tasks, long waitingFiles, int blockedBuckets) {}

  /** {@link #plan} with the number of eligible files left out of the plan. */
  public Plan planWithBacklog(Snapshot snapshot, Predicate partitionFilter, Set<String> excluded) {
    Map<ManifestEntry.Identifier, List<DataFileMeta>> files = new LinkedHashMap<>();
    Map<ManifestEntry.Identifier, ManifestEntry> first = new LinkedHashMap<>();
    Set<ManifestEntry.Identifier> blocked = new HashSet<>();
    // Partitions written within the idle time are left alone (partition_idle_time).
    Set<BinaryRowData> busy = new HashSet<>();
    long idleSince =
        partitionIdleTime == null
            ? Long.MAX_VALUE
            : store.clock().millis() - Durations.saturatedMillis(partitionIdleTime);
    // Entries come bucket by bucket from each manifest, sharing their partition row: the bucket
    // of the entry before is reused rather than looked up (a plan of a large table hashes every
    // partition row once per bucket run instead of once per file).
    ManifestEntry.Identifier run = null;
    List<DataFileMeta> runFiles = null;
    for (ManifestEntry e : store.newScan().withPartitionFilter(partitionFilter).plan(snapshot)) {
      if (run == null || run.partition() != e.partition() || run.bucket() != e.bucket()) {
        run = new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, "");
        runFiles = null;
      }
      if (e.file().creationTimeMillis() > idleSince) {
        busy.add(e.partition());
      }
      if (excluded.contains(e.file().fileName())) {
        // A bucket with files held by an unfinished task is left alone until the task ends, unless
        // its files keep no order (BucketStrategy#plansAroundHeldFiles).
        blocked.add(run);
        continue;
      }
      if (runFiles == null) {
        runFiles = files.computeIfAbsent(run, k -> new ArrayList<>());
        first.putIfAbsent(run, e);
      }
      runFiles.add(e.file());
    }
    Map<String, Long> deletedRows = deletedRows(snapshot);
    List<CompactTask> tasks = new ArrayList<>();
    long waiting = 0;
    for (Map.Entry<ManifestEntry.Identifier, List<DataFileMeta>> g : files.entrySet()) {
      if ((blocked.contains(g.getKey()) && !strategy.plansAroundHeldFiles())
          || busy.contains(g.getKey().partition())) {
        continue;
      }
      ManifestEntry e = first.get(g.getKey());
      Bucket bucket =
          new Bucket(
              tableName,
              e.partition(),
              store.partitionPath(e.partition()),
              e.bucket(),
              e.totalBuckets(),
              g.getValue(),
              deletedRows);
      List<CompactTask> planned = new ArrayList<>();
      for (CompactTask t : strategy.plan(bucket)) {
        CompactTask task = t.withBaseSnapshotId(snapshot.id());
        if (MergeTreeCompactRewriter.looksUp(store.options(), task)) {
          task = task.lookingUpIn(bucket.files()); // its rewrite reads the other levels too
        }
        planned.add(task);
      }
      tasks.addAll(planned);
      waiting += strategy.waitingFiles(bucket, planned);
    }
    int blockedBuckets = 0;
    for (ManifestEntry.Identifier key : blocked) {
      if (!busy.contains(key.partition())) {
        blockedBuckets++;
      }
    }
    return new Plan(tasks, waiting, blockedBuckets);
  }

  /** Rows marked deleted per data file, from the snapshot's deletion vectors (none: empty). */
  private Map<String, Long> deletedRows(Snapshot snapshot) {
    if (snapshot.indexManifest() == null) {
      return Map.of();
    }
    Map<String, Long> out = new HashMap<>();
    try {
      for (IndexManifest.Entry e :
          new IndexManifest(store.fileIO(), store.paths()).read(snapshot.indexManifest())) {
        out.put(e.deletionFile().dataFile(), e.deletionFile().cardinality());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the deletion vectors of snapshot " + snapshot.id(), e);
    }
    return out;
  }
}
