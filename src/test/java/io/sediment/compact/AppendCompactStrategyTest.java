package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.schema.TableOptions;
import io.sediment.testutil.DataFiles;
import io.sediment.testutil.ManualClock;
import java.time.Duration;
import java.time.Instant;
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
  // the planner's now for compaction.trigger.max-delay; the generated cases move it
  private final ManualClock clock = new ManualClock(Instant.parse("2024-05-01T10:00:00Z"));
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
    // Smallest first: 30 + 30 = 60; adding 60 would make 120 > 100, so the 60 stays alone.
    List<DataFileMeta> files = List.of(file(60), file(30), file(30));
    List<CompactTask> tasks = plan(files);
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).inputs()).containsExactly(files.get(1), files.get(2));

    // Exactly the target size fits.
    List<DataFileMeta> exact = List.of(file(50), file(50));
    assertThat(plan(exact)).hasSize(1);
  }

  @Test
  void aGroupsLargestFileIsAtMostTheRestOfItTogether() {
    options.put("compaction.min.file-num", "2");
    // 10 + 11 + 12 = 33: 12 <= 1.01 x 21, so all three; 40 > 1.01 x 33 is not taken with them
    DataFileMeta a = file(10);
    DataFileMeta b = file(11);
    DataFileMeta c = file(12);
    DataFileMeta d = file(40);
    assertThat(plan(List.of(d, c, b, a)))
        .extracting(CompactTask::inputs)
        .containsExactly(List.of(a, b, c));
    // 10 and 11 alone: 11 > 1.01 x 10, and nothing else to add
    assertThat(plan(List.of(b, a))).isEmpty();
    // compaction.size-ratio is the flexibility, in percent
    options.put("compaction.size-ratio", "10");
    assertThat(plan(List.of(b, a))).extracting(CompactTask::inputs).containsExactly(List.of(a, b));
    // a tiny file is not merged into a much larger one: the larger would be rewritten to absorb
    // it
    options.remove("compaction.size-ratio");
    assertThat(plan(List.of(file(70), file(1)))).isEmpty();
    // a run too short to qualify leaves only its first file: from the second 10, 10 + 25 + 35
    options.put("target-file-size", "75 b");
    options.put("compaction.min.file-num", "3");
    DataFileMeta t1 = file(10);
    DataFileMeta t2 = file(10);
    DataFileMeta t3 = file(25);
    DataFileMeta t4 = file(35);
    assertThat(plan(List.of(t4, t3, t2, t1)))
        .extracting(CompactTask::inputs)
        .containsExactly(List.of(t2, t3, t4));
    options.put("target-file-size", "100 b");
    options.put("compaction.min.file-num", "2");
    // but 1 + 1 + 2 + 4 cascade: each next file is at most the rest together
    List<DataFileMeta> cascade = List.of(file(4), file(2), file(1), file(1));
    assertThat(plan(cascade)).hasSize(1);
    assertThat(plan(cascade).get(0).inputs()).hasSize(4);
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
    DataFileMeta notSmall = file(75);
    DataFileMeta target = file(100);
    DataFileMeta large = file(500);
    DataFileMeta s1 = file(37);
    DataFileMeta s2 = file(37);
    List<CompactTask> tasks = plan(List.of(s1, notSmall, target, large, s2));
    assertThat(tasks).hasSize(1);
    assertThat(tasks.get(0).inputs()).containsExactly(s1, s2);
    // 74 and 1 are small (two waiting files); 75 is not (one)
    assertThat(planWithBacklog(List.of(file(74), file(1), target)).waiting).isEqualTo(2);
    assertThat(planWithBacklog(List.of(file(75), file(1), target)).waiting).isZero();
  }

  @Test
  void smallFileRatioIsTheOption() {
    options.put("compaction.min.file-num", "2");
    options.put("compaction.small-file-ratio", "0.5");
    assertThat(plan(List.of(file(25), file(25), file(50))))
        .extracting(t -> t.inputs().size())
        .containsExactly(2);
    assertThat(planWithBacklog(List.of(file(50), file(10))).waiting).isZero();
    assertThat(planWithBacklog(List.of(file(49), file(10))).waiting).isEqualTo(2);
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
  void bucketUnawareTablesGroupSmallFilesAcrossLargeOnes() {
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

  /**
   * Generated: a bucket of 1-6 small files of random sizes is compacted by a minor compaction only
   * when the count reaches compaction.min.file-num, or it has two or more files and their bytes
   * reach compaction.trigger.min-bytes or the oldest was written compaction.trigger.max-delay ago;
   * then all of them when they make one size tier, else groups that keep the size rule.
   */
  @Test
  void byteAndTimeTriggersCompactSmallGroupsExactlyWhenTheyFire() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(23);
    for (int i = 0; i < 300; i++) {
      reset();
      clock.advance(Duration.ofSeconds(r.nextInt(100_000)));
      long now = clock.millis();
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
        long written = ManualClock.writtenAround(now, 3_600_000L, r); // max-delay 1 h
        files.add(file(size, written));
        bytes += size;
        oldest = Math.min(oldest, written);
      }
      boolean fires =
          count >= minFiles
              || (count >= 2
                  && ((minBytes != null && bytes >= minBytes)
                      || (delay && oldest <= now - 3_600_000L)));
      long largest = files.stream().mapToLong(DataFileMeta::fileSize).max().orElseThrow();
      boolean oneTier = count >= 2 && largest <= 1.01 * (bytes - largest);
      List<CompactTask> tasks = plan(files);
      String what =
          String.format("case %s: %s files, %s bytes, options %s", i, count, bytes, options);
      if (!fires) {
        assertThat(tasks).as(what).isEmpty(); // no subset fires when the whole bucket does not
      } else if (oneTier) {
        assertThat(tasks).as(what).hasSize(1);
        assertThat(tasks.get(0).inputs()).as(what).hasSize(count);
      } else {
        // the size rule holds in whatever groups a trigger compacts
        for (CompactTask t : tasks) {
          long max = t.inputs().stream().mapToLong(DataFileMeta::fileSize).max().orElseThrow();
          assertThat((double) max).as(what).isLessThanOrEqualTo(1.01 * (totalSize(t) - max));
        }
      }
    }
    // a full compaction ignores the triggers: any group of two or more
    reset();
    options.put("compaction.min.file-num", "10");
    options.put("compaction.trigger.min-bytes", "1 kb");
    options.put("compaction.full", "true");
    assertThat(plan(List.of(file(10, clock.millis()), file(10, clock.millis())))).hasSize(1);
  }

  /**
   * Generated long runs of a bucket without fixed buckets: every round a writer adds a few small
   * files, a minor compaction is planned and applied. Whatever the sizes, the option values and the
   * length of the run: every rewrite at least about doubles the file its bytes were in, so no byte
   * is rewritten more than log2(target / smallest file) times and the bytes rewritten stay within
   * that multiple of the bytes written; after each round few small files are left (a bounded number
   * per doubling of size).
   */
  @Test
  void sizeTiersBoundTheRewritesOfEveryByteOverALongRun() {
    java.util.SplittableRandom r = new java.util.SplittableRandom(27);
    for (int run = 0; run < 60; run++) {
      reset();
      long target = 64L << 20;
      int minFiles = 2 + r.nextInt(7);
      int sizeRatio = r.nextInt(4) == 0 ? r.nextInt(30) : 1;
      options.put("target-file-size", target + " b");
      options.put("compaction.min.file-num", Integer.toString(minFiles));
      options.put("compaction.size-ratio", Integer.toString(sizeRatio));
      long smallest = 1 + r.nextInt(200_000);
      long largestWritten = smallest * (1 + r.nextInt(3));
      int rounds = 100 + r.nextInt(400);
      double growth = 1 + 1 / (1 + sizeRatio / 100.0); // least growth of a rewritten byte's file
      long maxRewrites = (long) Math.ceil(Math.log((double) target / smallest) / Math.log(growth));
      Map<String, Long> rewritesOf = new HashMap<>(); // file -> most rewrites of any of its bytes
      List<DataFileMeta> bucket = new ArrayList<>();
      long written = 0;
      long rewritten = 0;
      String context = "run " + run + ", options " + options + ", files of " + smallest + "+";
      for (int round = 0; round < rounds; round++) {
        int arriving = 1 + r.nextInt(10);
        for (int i = 0; i < arriving && written < target * 4; i++) {
          long size = smallest + r.nextLong(largestWritten - smallest + 1);
          DataFileMeta f = file(size);
          bucket.add(f);
          rewritesOf.put(f.fileName(), 0L);
          written += size;
        }
        for (CompactTask t : plan(bucket)) {
          long out = totalSize(t);
          long largest = t.inputs().stream().mapToLong(DataFileMeta::fileSize).max().orElseThrow();
          assertThat(out).as(context).isLessThanOrEqualTo(target);
          assertThat((double) out).as(context).isGreaterThanOrEqualTo(growth * largest - 1e-6);
          long depth = 0;
          for (DataFileMeta in : t.inputs()) {
            assertThat(bucket.remove(in)).as(context).isTrue();
            depth = Math.max(depth, rewritesOf.get(in.fileName()));
          }
          DataFileMeta output = file(out);
          bucket.add(output);
          rewritesOf.put(output.fileName(), depth + 1);
          assertThat(depth + 1).as(context).isLessThanOrEqualTo(maxRewrites);
          rewritten += out;
        }
        // Among files small enough that min.file-num of them fit the target, no qualifying run is
        // left: of any min.file-num consecutive ones (by size) the last is more than r times the
        // rest, at least twice the first when min.file-num >= 3 (with 2: any two later files add up
        // to more than twice the first), so sizes double at least every max(min.file-num - 1, 2)
        // files.
        long smallLeft = bucket.stream().filter(f -> f.fileSize() * minFiles <= target).count();
        long perDoubling = Math.max(minFiles - 1, 2);
        assertThat(smallLeft)
            .as(context + ", round " + round)
            .isLessThanOrEqualTo(perDoubling * (maxRewrites + 1));
      }
      assertThat((double) rewritten)
          .as(context)
          .isLessThanOrEqualTo((double) written * maxRewrites);
    }
  }

  // ---- helpers --------------------------------------------------------------------------------

  private record Bucket(List<CompactTask> tasks, long waiting) {}

  private AppendCompactStrategy strategy() {
    return new AppendCompactStrategy(TableOptions.of(options), clock);
  }

  /**
   * Files are grouped by size but rewritten in sequence order, so that each output's sequence range
   * holds its rows: a group taken smallest first was written in that order, and its outputs' ranges
   * misstated which rows each held.
   */
  @Test
  void everyTasksInputsAreInSequenceOrder() {
    java.util.Random rnd = new java.util.Random(17);
    int reordered = 0;
    for (int round = 0; round < 50; round++) {
      reset();
      options.put("compaction.min.file-num", String.valueOf(2 + rnd.nextInt(3)));
      List<DataFileMeta> files = new ArrayList<>();
      for (int n = 2 + rnd.nextInt(12); n > 0; n--) {
        files.add(file(5 + rnd.nextInt(60)));
      }
      for (CompactTask t : plan(files)) {
        assertThat(t.inputs())
            .as("round %d", round)
            .isSortedAccordingTo(
                java.util.Comparator.comparingLong(DataFileMeta::minSequenceNumber));
        List<DataFileMeta> bySize = new ArrayList<>(t.inputs());
        bySize.sort(java.util.Comparator.comparingLong(DataFileMeta::fileSize));
        reordered += bySize.equals(t.inputs()) ? 0 : 1;
      }
    }
    assertThat(reordered).as("tasks whose size order is not their sequence order").isPositive();
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
    return DataFiles.tenRows(
        "data-" + nextName++ + ".parquet", size, seq, writtenMillis, FileSource.APPEND);
  }
}
