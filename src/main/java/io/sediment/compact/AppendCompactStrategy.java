package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.TableOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Picks the small files of one bucket of an append table and bin-packs them into groups of about
 * {@code target-file-size}, each group one task.
 *
 * <ul>
 *   <li>Small: smaller than {@code target-file-size x compaction.small-file-ratio}; in a full
 *       compaction ({@link CompactStrategy#FULL}), every file below the target size.
 *   <li>Fixed-bucket tables keep sequence order: only contiguous runs of small files (by sequence
 *       number) are packed together, so an output never spans a large file's sequence range.
 *   <li>A group is closed before it would exceed the target size; minor compaction keeps groups of
 *       at least {@code compaction.min.file-num} files, full compaction any group of two or more.
 *   <li>Minor compaction also keeps a group of two or more files that a trigger fired for: its
 *       files add up to {@code compaction.trigger.min-bytes}, or its oldest file was written {@code
 *       compaction.trigger.max-delay} ago (on the clock of the planner, when it was made).
 * </ul>
 */
final class AppendCompactStrategy implements CompactPlanner.BucketStrategy {

  private final long targetSize;
  private final long smallThreshold;
  private final int minFiles;
  private final boolean full;
  private final boolean fixedBucket;
  private final CompactTrigger trigger;

  /** Full when {@code compaction.full} is set, else minor. */
  AppendCompactStrategy(TableOptions options) {
    this(options, options.get(TableOptions.COMPACTION_FULL));
  }

  AppendCompactStrategy(TableOptions options, boolean full) {
    this.targetSize = options.targetFileSize();
    this.full = full;
    this.smallThreshold =
        full
            ? targetSize
            : (long) (targetSize * options.get(TableOptions.COMPACTION_SMALL_FILE_RATIO));
    this.minFiles = full ? 2 : Math.max(2, options.get(TableOptions.COMPACTION_MIN_FILE_NUM));
    this.fixedBucket = options.bucket() > 0;
    this.trigger = full ? CompactTrigger.never() : CompactTrigger.of(options);
  }

  @Override
  public List<CompactTask> plan(CompactPlanner.Bucket bucket) {
    List<DataFileMeta> files = new ArrayList<>(bucket.files());
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

  private void closeGroup(List<List<DataFileMeta>> groups, List<DataFileMeta> group) {
    if (group.size() >= minFiles || (group.size() >= 2 && trigger.fired(group))) {
      groups.add(group);
    }
  }
}
