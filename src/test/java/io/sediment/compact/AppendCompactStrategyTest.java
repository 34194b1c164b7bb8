package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.schema.TableOptions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How an append bucket's small files are packed into compaction tasks (docs/compaction.md and the
 * {@code compaction.*} options of docs/configuration.md). Target file size 100 bytes throughout, so
 * a file is small below 75 bytes (ratio 0.75).
 */
class AppendCompactStrategyTest {

  private final Map<String, String> options = new HashMap<>();
  private long nextSequence;
  private int nextName;

  @BeforeEach
  void reset() {
    options.clear();
    options.put("target-file-size", "100 b");
    nextSequence = 0;
    nextName = 0;
  }

  @Test
  void noFilesNoTasks() {
    assertThat(plan(List.of())).isEmpty();
  }

  @Test
  void smallFilesArePackedIntoGroupsOfAboutTheTargetSize() {
    List<DataFileMeta> files = files(25, 10);
    List<CompactTask> tasks = plan(files);

    assertThat(tasks).extracting(t -> t.inputs().size()).containsExactly(10, 10, 5);
    assertThat(tasks).allSatisfy(t -> assertThat(totalSize(t)).isLessThanOrEqualTo(100));
    assertThat(tasks.stream().flatMap(t -> t.inputs().stream())).containsExactlyElementsOf(files);
    assertThat(tasks)
        .allSatisfy(
            t -> {
              assertThat(t.kind()).isEqualTo(CompactTask.Kind.APPEND_REWRITE);
              assertThat(t.outputLevel()).isZero();
              assertThat(t.dropDeletes()).isFalse();
            });
  }

  @Test
  void aGroupIsClosedBeforeItWouldExceedTheTargetSize() {
    options.put("compaction.min.file-num", "2");
    // 60 + 30 = 90; adding 30 would make 120 > 100, so the third file starts a new group, which
    // stays alone and is not rewritten.
    List<DataFileMeta> files = List.of(file(60), file(30), file(30));
    List<CompactTask> tasks = plan(files);
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).inputs()).containsExactly(files.get(0), files.get(1));

    // Exactly the target size fits.
    List<DataFileMeta> exact = List.of(file(50), file(50));
    assertThat(plan(exact)).hasSize(1);
  }

  @Test
  void groupsSmallerThanMinFileNumAreLeftWaiting() {
    // 23 files of 10: groups of 10, 10 and 3; the last is below compaction.min.file-num (5).
    List<DataFileMeta> files = files(23, 10);
    Bucket tasksAndBacklog = planWithBacklog(files);
    assertThat(tasksAndBacklog.tasks).extracting(t -> t.inputs().size()).containsExactly(10, 10);
    assertThat(tasksAndBacklog.waiting).isEqualTo(3);

    assertThat(plan(files(4, 10))).isEmpty();
    assertThat(planWithBacklog(files(4, 10)).waiting).isEqualTo(4);
  }

  @Test
  void minFileNumIsTheOption() {
    options.put("compaction.min.file-num", "3");
    assertThat(plan(files(2, 10))).isEmpty();
    assertThat(plan(files(3, 10))).hasSize(1);
  }

  @Test
  void minFileNumBelowTwoActsAsTwo() {
    options.put("compaction.min.file-num", "1");
    assertThat(plan(files(1, 10))).as("a single file has nothing to merge with").isEmpty();
    assertThat(planWithBacklog(files(1, 10)).waiting).isZero();
    assertThat(plan(files(2, 10))).hasSize(1);
  }

  @Test
  void filesAtOrAboveTheSmallFileThresholdAreLeftAlone() {
    // 100 x 0.75 = 75: a 74-byte file is small, a 75-byte one is not.
    options.put("compaction.min.file-num", "2");
    DataFileMeta small = file(74);
    DataFileMeta notSmall = file(75);
    DataFileMeta target = file(100);
    DataFileMeta large = file(500);
    DataFileMeta tiny = file(1);
    List<CompactTask> tasks = plan(List.of(small, notSmall, target, large, tiny));
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).inputs()).containsExactly(small, tiny);
  }

  @Test
  void smallFileRatioIsTheOption() {
    options.put("compaction.min.file-num", "2");
    options.put("compaction.small-file-ratio", "0.5");
    assertThat(plan(List.of(file(50), file(10)))).isEmpty();
    assertThat(plan(List.of(file(49), file(10)))).hasSize(1);
  }

  @Test
  void fullCompactionRewritesEveryFileBelowTheTargetInGroupsOfTwoOrMore() {
    options.put("compaction.full", "true");
    DataFileMeta a = file(90);
    DataFileMeta b = file(95);
    DataFileMeta atTarget = file(100);
    DataFileMeta c = file(5);
    List<CompactTask> tasks = plan(List.of(a, b, atTarget, c));
    // 90 alone (90 + 95 > 100); 95 + 5 = 100 fit one group; the 100-byte file is left alone.
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).inputs()).containsExactly(b, c);
    // The 90-byte file alone has nothing to be merged with: not counted as waiting.
    assertThat(planWithBacklog(List.of(a, b, atTarget, c)).waiting).isZero();
  }

  @Test
  void fullCompactionIgnoresMinFileNum() {
    options.put("compaction.full", "true");
    assertThat(plan(files(2, 10))).hasSize(1);
    assertThat(plan(files(1, 10))).isEmpty();
  }

  @Test
  void fixedBucketTablesPackOnlyContiguousRunsInSequenceOrder() {
    options.put("bucket", "2");
    options.put("compaction.min.file-num", "2");
    DataFileMeta s1 = file(10);
    DataFileMeta s2 = file(10);
    DataFileMeta large = file(90);
    DataFileMeta s3 = file(10);
    DataFileMeta s4 = file(10);
    List<DataFileMeta> shuffled = new ArrayList<>(List.of(s4, large, s2, s3, s1));

    List<CompactTask> tasks = plan(shuffled);
    // Sequence order s1 s2 | large | s3 s4: an output never spans the large file's sequence range.
    assertThat(tasks)
        .extracting(CompactTask::inputs)
        .containsExactly(List.of(s1, s2), List.of(s3, s4));
  }

  @Test
  void bucketUnawareTablesPackSmallFilesAcrossLargeOnes() {
    options.put("compaction.min.file-num", "2");
    DataFileMeta s1 = file(10);
    DataFileMeta large = file(90);
    DataFileMeta s2 = file(10);
    List<CompactTask> tasks = plan(List.of(s1, large, s2));
    assertThat(tasks).extracting(CompactTask::inputs).containsExactly(List.of(s1, s2));
  }

  @Test
  void fixedBucketContiguousRunsAreStillSplitAtTheTargetSize() {
    options.put("bucket", "4");
    List<DataFileMeta> files = files(12, 20);
    Collections.reverse(files);
    List<CompactTask> tasks = plan(files);
    assertThat(tasks).extracting(t -> t.inputs().size()).containsExactly(5, 5);
    List<DataFileMeta> inOrder = new ArrayList<>(files);
    Collections.reverse(inOrder);
    assertThat(tasks.get(0).inputs()).containsExactlyElementsOf(inOrder.subList(0, 5));
    assertThat(tasks.get(1).inputs()).containsExactlyElementsOf(inOrder.subList(5, 10));
  }

  @Test
  void theTaskCarriesTheBucketItWasPlannedFor() {
    options.put("bucket", "4");
    List<CompactTask> tasks =
        strategy()
            .plan(new CompactPlanner.Bucket("db.t", BinaryRows.EMPTY, "p=1", 3, 4, files(5, 10)));
    assertThat(tasks).hasSize(1);
    CompactTask t = tasks.get(0);
    assertThat(t.table()).isEqualTo("db.t");
    assertThat(t.partitionPath()).isEqualTo("p=1");
    assertThat(t.bucket()).isEqualTo(3);
    assertThat(t.totalBuckets()).isEqualTo(4);
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * Generated: a bucket of 1-6 small files (all in one group) is compacted by a minor compaction
   * exactly when the count reaches compaction.min.file-num, or it has two or more files and their
   * bytes reach compaction.trigger.min-bytes or the oldest was written compaction.trigger.max-delay
   * ago.
   */
  @Test
  void byteAndTimeTriggersCompactSmallGroupsExactlyWhenTheyFire() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(23);
    long now = System.currentTimeMillis();
    for (int i = 0; i < 300; i++) {
      reset();
      int minFiles = 2 + r.nextInt(6);
      options.put("compaction.min.file-num", Integer.toString(minFiles));
      Long minBytes = r.nextBoolean() ? 5L + r.nextInt(60) : null;
      if (minBytes != null) {
        options.put("compaction.trigger.min-bytes", minBytes + " b");
      }
      boolean delay = r.nextBoolean();
      if (delay) {
        options.put("compaction.trigger.max-delay", "1 h");
      }
      int count = 1 + r.nextInt(6);
      List<DataFileMeta> files = new ArrayList<>();
      long bytes = 0;
      long oldest = Long.MAX_VALUE;
      for (int f = 0; f < count; f++) {
        long size = 1 + r.nextInt(14); // 6 files of at most 14 bytes fit in one group of 100
        long written = now - (r.nextInt(4) == 0 ? 2 * 3_600_000L : r.nextInt(60_000));
        files.add(file(size, written));
        bytes += size;
        oldest = Math.min(oldest, written);
      }
      boolean fires =
          count >= minFiles
              || (count >= 2
                  && ((minBytes != null && bytes >= minBytes)
                      || (delay && oldest <= now - 3_600_000L)));
      assertThat(plan(files))
          .as("case %s: %s files, %s bytes, options %s", i, count, bytes, options)
          .hasSize(fires ? 1 : 0);
    }
    // a full compaction ignores the triggers: any group of two or more
    reset();
    options.put("compaction.min.file-num", "10");
    options.put("compaction.trigger.min-bytes", "1 kb");
    options.put("compaction.full", "true");
    assertThat(plan(List.of(file(10, now), file(10, now)))).hasSize(1);
  }

  private record Bucket(List<CompactTask> tasks, long waiting) {}

  private AppendCompactStrategy strategy() {
    return new AppendCompactStrategy(TableOptions.of(options));
  }

  private List<CompactTask> plan(List<DataFileMeta> files) {
    return strategy().plan(bucket(files));
  }

  private Bucket planWithBacklog(List<DataFileMeta> files) {
    AppendCompactStrategy s = strategy();
    List<CompactTask> tasks = s.plan(bucket(files));
    return new Bucket(tasks, s.waitingFiles(bucket(files), tasks));
  }

  private static CompactPlanner.Bucket bucket(List<DataFileMeta> files) {
    return new CompactPlanner.Bucket("db.t", BinaryRows.EMPTY, "", 0, 1, files);
  }

  private static long totalSize(CompactTask t) {
    return t.inputs().stream().mapToLong(DataFileMeta::fileSize).sum();
  }

  private List<DataFileMeta> files(int count, long size) {
    List<DataFileMeta> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(file(size));
    }
    return out;
  }

  /** A file written after every file made before it (higher sequence numbers). */
  private DataFileMeta file(long size) {
    return file(size, 0);
  }

  /** The same, its creation time {@code writtenMillis}. */
  private DataFileMeta file(long size, long writtenMillis) {
    long seq = nextSequence;
    nextSequence += 10;
    return new DataFileMeta(
        "data-" + nextName++ + ".parquet",
        size,
        10,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        BinaryRows.EMPTY,
        new long[0],
        seq,
        seq + 9,
        0,
        0,
        writtenMillis,
        FileSource.APPEND,
        0);
  }
}
