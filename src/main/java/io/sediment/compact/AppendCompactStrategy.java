package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Picks the small files of one bucket of an append table and groups them into tasks, each group
 * rewritten into one file of at most {@code target-file-size}.
 *
 * <ul>
 *   <li>Small: smaller than {@code target-file-size x compaction.small-file-ratio}; in a full
 *       compaction ({@link CompactStrategy#FULL}), every file below the target size.
 *   <li>Tables without fixed buckets (minor compaction): size tiers. The small files, smallest
 *       first, form groups in which the largest file is at most {@code r = 1 +
 *       compaction.size-ratio/100} times the rest of the group together, so every rewrite makes the
 *       file each of its bytes was in at least {@code 1 + 1/r} (about 2) times larger, in input
 *       bytes: a byte is rewritten at most about log2(target size / the smallest file) times,
 *       however long files keep arriving (packing the growing file with every new batch instead
 *       rewrites it once per batch). Each group takes the most files from its smallest that keep
 *       that rule and fit the target size; a triggered group too, so a file more than the smaller
 *       ones together waits for files of its size.
 *   <li>Fixed-bucket tables keep sequence order: only contiguous runs of small files (by sequence
 *       number) are packed together, so an output never spans a large file's sequence range; a
 *       group is closed before it would exceed the target size. A full compaction packs every
 *       bucket so.
 *   <li>Minor compaction keeps groups of at least {@code compaction.min.file-num} files, full
 *       compaction any group of two or more. Minor compaction also keeps a group of two or more
 *       files that a trigger fired for: its files add up to {@code compaction.trigger.min-bytes},
 *       or its oldest file was written {@code compaction.trigger.max-delay} ago (on the clock of
 *       the planner, when it was made).
 * </ul>
 */
final class AppendCompactStrategy implements CompactPlanner.BucketStrategy {

  private final long targetSize;
  private final long smallThreshold;
  private final int minFiles;
  private final boolean full;
  private final boolean fixedBucket;
  private final double sizeRatio;
  private final CompactTrigger trigger;

  /** Full when {@code compaction.full} is set, else minor. */
  AppendCompactStrategy(TableOptions options, Clock clock) {
    this(options, options.get(CompactionOptions.COMPACTION_FULL), clock);
  }

  /** {@code clock}: the table's, for {@code compaction.trigger.max-delay}. */
  AppendCompactStrategy(TableOptions options, boolean full, Clock clock) {
    this.targetSize = options.targetFileSize();
    this.full = full;
    this.smallThreshold =
        full
            ? targetSize
            : (long) (targetSize * options.get(CompactionOptions.COMPACTION_SMALL_FILE_RATIO));
    this.minFiles = full ? 2 : Math.max(2, options.get(CompactionOptions.COMPACTION_MIN_FILE_NUM));
    this.fixedBucket = options.bucket() > 0;
    this.sizeRatio = 1 + options.get(CompactionOptions.COMPACTION_SIZE_RATIO) / 100.0;
    this.trigger = full ? CompactTrigger.never() : CompactTrigger.of(options, clock);
  }

  /**
   * Size tiers group files by size, not by the order they were added, so a bucket's new files are
   * planned while older ones are held by an unfinished task: a rewrite that missed its checkpoint
   * does not keep a streaming writer's next files waiting for another one.
   */
  @Override
  public boolean plansAroundHeldFiles() {
    return !fixedBucket && !full;
  }

  @Override
  public List<CompactTask> plan(CompactPlanner.Bucket bucket) {
    List<List<DataFileMeta>> groups =
        fixedBucket || full ? packedGroups(bucket.files()) : sizeTieredGroups(bucket.files());
    List<CompactTask> tasks = new ArrayList<>();
    for (List<DataFileMeta> g : groups) {
      tasks.add(
          new CompactTask(
              bucket.table(),
              bucket.partition(),
              bucket.partitionPath(),
              bucket.bucket(),
              bucket.totalBuckets(),
              g,
              0,
              CompactTask.Kind.APPEND_REWRITE,
              false));
    }
    return tasks;
  }

  /**
   * Small files of the bucket that no planned task includes (e.g. fewer than min.file-num), when
   * there are at least two of them: a single small file has nothing to be merged with.
   */
  @Override
  public long waitingFiles(CompactPlanner.Bucket bucket, List<CompactTask> planned) {
    Set<String> inTasks = new HashSet<>();
    for (CompactTask t : planned) {
      t.inputs().forEach(f -> inTasks.add(f.fileName()));
    }
    long n = 0;
    for (DataFileMeta f : bucket.files()) {
      if (f.fileSize() < smallThreshold && !inTasks.contains(f.fileName())) {
        n++;
      }
    }
    return n >= 2 ? n : 0;
  }

  /**
   * Small files in order (by sequence number in a fixed bucket), packed into groups of at most the
   * target size; in a fixed bucket a file that is not small ends the group.
   */
  private List<List<DataFileMeta>> packedGroups(List<DataFileMeta> bucketFiles) {
    List<DataFileMeta> files = new ArrayList<>(bucketFiles);
    if (fixedBucket) {
      files.sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
    }
    List<List<DataFileMeta>> groups = new ArrayList<>();
    List<DataFileMeta> group = new ArrayList<>();
    long groupSize = 0;
    for (DataFileMeta f : files) {
      boolean small = f.fileSize() < smallThreshold;
      if (!small) {
        if (fixedBucket) {
          // A large file ends the contiguous run.
          closeGroup(groups, group);
          group = new ArrayList<>();
          groupSize = 0;
        }
        continue;
      }
      if (!group.isEmpty() && groupSize + f.fileSize() > targetSize) {
        closeGroup(groups, group);
        group = new ArrayList<>();
        groupSize = 0;
      }
      group.add(f);
      groupSize += f.fileSize();
    }
    closeGroup(groups, group);
    return groups;
  }

  /**
   * The small files, smallest first, in size tiers: from the smallest file not yet grouped, the
   * longest run of next-larger files that fits the target size and whose last (largest) file is at
   * most {@link #sizeRatio} times the rest of the run; a run that does not qualify leaves its first
   * file, and the next file is tried.
   */
  private List<List<DataFileMeta>> sizeTieredGroups(List<DataFileMeta> bucketFiles) {
    List<DataFileMeta> small = new ArrayList<>();
    for (DataFileMeta f : bucketFiles) {
      if (f.fileSize() < smallThreshold) {
        small.add(f);
      }
    }
    small.sort(BY_SIZE);
    List<List<DataFileMeta>> groups = new ArrayList<>();
    int start = 0;
    while (start < small.size()) {
      long sum = small.get(start).fileSize();
      int end = start; // the last file of the longest run found so far
      for (int k = start + 1; k < small.size(); k++) {
        long size = small.get(k).fileSize();
        if (sum + size > targetSize) {
          break;
        }
        if (size <= sizeRatio * sum) {
          end = k;
        }
        sum += size;
      }
      List<DataFileMeta> group = new ArrayList<>(small.subList(start, end + 1));
      // chosen by size, rewritten in sequence order: each output's range then holds its rows
      group.sort(Comparator.comparingLong(DataFileMeta::minSequenceNumber));
      if (end > start && closeGroup(groups, group)) {
        start = end + 1;
      } else {
        start++; // a shorter run from a larger file may still qualify
      }
    }
    return groups;
  }

  private static final Comparator<DataFileMeta> BY_SIZE =
      Comparator.comparingLong(DataFileMeta::fileSize)
          .thenComparingLong(DataFileMeta::creationTimeMillis)
          .thenComparingLong(DataFileMeta::minSequenceNumber)
          .thenComparing(DataFileMeta::fileName);

  /** Adds {@code group} to {@code groups} when it qualifies; whether it did. */
  private boolean closeGroup(List<List<DataFileMeta>> groups, List<DataFileMeta> group) {
    if (group.size() >= minFiles || (group.size() >= 2 && trigger.fired(group))) {
      groups.add(group);
      return true;
    }
    return false;
  }
}
