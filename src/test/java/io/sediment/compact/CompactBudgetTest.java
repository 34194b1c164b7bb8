package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.schema.TableOptions;
import io.sediment.testutil.DataFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * What one commit of a budgeted compaction takes ({@code compaction.max-rewrite-bytes}, {@code
 * partial-progress.*}), against the definition in docs/compaction.md, over generated plans of
 * rewrites and sort compactions of several buckets: whole units (a task, or every range of a
 * bucket's sort), those with the oldest input first, while their input bytes stay within the
 * budget, and at least one unit. And the sort ranges a plan is made of refuse what cannot be a
 * range.
 */
class CompactBudgetTest {

  private int nextName;
  private long written; // the creation time of the files made next

  @Test
  void aCommitTakesWholeUnitsOldestFirstWithinTheBudget() {
    SplittableRandom r = new SplittableRandom(7);
    int capped = 0;
    for (int run = 0; run < 300; run++) {
      List<List<CompactTask>> units = new ArrayList<>();
      List<CompactTask> plan = new ArrayList<>();
      for (int bucket = 0, n = 1 + r.nextInt(8); bucket < n; bucket++) {
        written = r.nextInt(3) == 0 ? 0 : r.nextInt(5); // ties too
        List<CompactTask> unit =
            r.nextBoolean() ? List.of(rewrite(bucket, r)) : sort(bucket, 1 + r.nextInt(4), r);
        units.add(unit);
        plan.addAll(unit);
      }
      long budget = r.nextInt(4) == 0 ? Long.MAX_VALUE : 1 + r.nextLong(4_000);

      List<CompactTask> taken = CompactBudget.cap(plan, budget);

      // the model: units by their oldest input (plan order among equals), while within the budget
      List<List<CompactTask>> byAge = new ArrayList<>(units);
      byAge.sort(java.util.Comparator.comparingLong(CompactBudgetTest::oldest));
      java.util.Set<List<CompactTask>> chosen =
          java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      long sum = 0;
      for (List<CompactTask> unit : byAge) {
        long bytes = unit.get(0).replacedBytes(); // a sort's inputs are replaced by its range 0
        if (!chosen.isEmpty() && budget != Long.MAX_VALUE && sum + bytes > budget) {
          break;
        }
        chosen.add(unit);
        sum += bytes;
      }
      List<CompactTask> expected = new ArrayList<>();
      units.stream().filter(chosen::contains).forEach(expected::addAll);
      assertThat(taken).as("run %d, budget %d, plan %s", run, budget, plan).isEqualTo(expected);
      assertThat(CompactBudget.replacedBytes(taken)).isEqualTo(sum);
      capped += taken.size() < plan.size() ? 1 : 0;
    }
    assertThat(capped).as("runs whose budget left tasks out").isGreaterThan(50);
  }

  /**
   * Runs under a budget that takes two of ten buckets, each bucket's small files written again
   * after it is compacted (a steady writer): every bucket is compacted within five runs. Taken in
   * plan order, the first two buckets were compacted every run and the others never.
   */
  @Test
  void everyBucketIsReachedByLaterRuns() {
    long now = 1;
    List<CompactTask> plan = new ArrayList<>();
    for (int bucket = 0; bucket < 10; bucket++) {
      written = now;
      plan.add(rewrite(bucket, 100));
    }
    java.util.Set<Integer> compacted = new java.util.TreeSet<>();
    for (int run = 0; run < 5; run++) {
      List<CompactTask> taken = CompactBudget.cap(plan, 200);
      assertThat(taken).hasSize(2);
      now += 10; // later than any file before, whatever a file's own few milliseconds
      for (CompactTask t : taken) {
        compacted.add(t.bucket());
        written = now; // its output, and the writer's new files, are newer than the rest
        plan.set(t.bucket(), rewrite(t.bucket(), 100));
      }
    }
    assertThat(compacted).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  private static long oldest(List<CompactTask> unit) {
    return unit.stream()
        .flatMap(t -> t.inputs().stream())
        .mapToLong(DataFileMeta::creationTimeMillis)
        .min()
        .orElseThrow();
  }

  @Test
  void theBudgetOfEachCommitFollowsTheOptions() {
    List<CompactTask> plan = List.of(rewrite(0, 1_000), rewrite(1, 2_000), rewrite(2, 1));
    assertThat(CompactBudget.replacedBytes(plan)).isEqualTo(3_001);

    assertThat(CompactBudget.perCommit(options(Map.of()), plan))
        .as("no budget, no partial progress: one commit of everything")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(CompactBudget.commits(options(Map.of()))).isEqualTo(1);
    assertThat(CompactBudget.maxRewriteBytes(options(Map.of()))).isEmpty();

    Map<String, String> maxBytes = Map.of("compaction.max-rewrite-bytes", "1500 b");
    assertThat(CompactBudget.perCommit(options(maxBytes), plan)).isEqualTo(1_500);
    assertThat(CompactBudget.maxRewriteBytes(options(maxBytes))).isEqualTo(OptionalLong.of(1_500));

    Map<String, String> partial =
        Map.of("partial-progress.enabled", "true", "partial-progress.max-commits", "4");
    assertThat(CompactBudget.commits(options(partial))).isEqualTo(4);
    assertThat(CompactBudget.perCommit(options(partial), plan))
        .as("the plan's bytes over four commits, rounded up")
        .isEqualTo(751);
    assertThat(CompactBudget.perCommit(options(partial), List.of(rewrite(0, 3))))
        .as("at least a byte")
        .isEqualTo(1);
    assertThat(
            CompactBudget.perCommit(
                options(
                    Map.of(
                        "partial-progress.enabled", "true", "partial-progress.max-commits", "1")),
                plan))
        .as("one commit: no limit")
        .isEqualTo(Long.MAX_VALUE);
    assertThat(
            CompactBudget.perCommit(
                options(
                    Map.of(
                        "partial-progress.enabled",
                        "true",
                        "partial-progress.max-commits",
                        "4",
                        "compaction.max-rewrite-bytes",
                        "100 b")),
                plan))
        .as("max-rewrite-bytes wins over the split")
        .isEqualTo(100);
    assertThat(CompactBudget.commits(options(Map.of("partial-progress.max-commits", "4"))))
        .as("max-commits without partial progress")
        .isEqualTo(1);
  }

  @Test
  void aSortRangeIsARangeOfABucketsRanges() {
    SortOrder order = SortOrder.of("order", "id");
    byte[] low = {1};
    byte[] high = {2};
    SortRange only = new SortRange(order, 0, 0, 1, null, null);
    assertThat(only.contains(low)).isTrue();
    assertThat(only.replacesInputs()).isTrue();
    SortRange last = new SortRange(order, 0, 1, 2, low, null);
    assertThat(last.replacesInputs()).isFalse();
    assertThat(last.contains(low)).as("lower bound inclusive").isTrue();
    assertThat(new SortRange(order, 0, 0, 2, null, high).contains(high))
        .as("upper bound exclusive")
        .isFalse();
    assertThat(new SortRange(order, 0, 0, 3, low, high).contains(new byte[] {0})).isFalse();

    assertThatThrownBy(() -> new SortRange(null, 0, 0, 1, null, null))
        .hasMessageContaining("Sort order must not be null");
    for (int[] bad : new int[][] {{0, 0}, {-1, 2}, {2, 2}, {3, 2}}) {
      assertThatThrownBy(() -> new SortRange(order, 0, bad[0], bad[1], null, null))
          .as("range %d of %d", bad[0], bad[1])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Bad sort range " + bad[0] + " of " + bad[1]);
    }
    assertThatThrownBy(() -> new SortRange(order, 0, 1, 3, high, high))
        .hasMessageContaining("Empty sort range");
    assertThatThrownBy(() -> new SortRange(order, 0, 1, 3, high, low))
        .hasMessageContaining("Empty sort range");

    // a value: equal bounds by content, every field counts
    SortRange range = new SortRange(order, 3, 1, 3, new byte[] {1}, new byte[] {2});
    assertThat(range).isEqualTo(new SortRange(order, 3, 1, 3, new byte[] {1}, new byte[] {2}));
    assertThat(range.hashCode())
        .isEqualTo(new SortRange(order, 3, 1, 3, new byte[] {1}, new byte[] {2}).hashCode());
    assertThat(range)
        .isNotEqualTo(new SortRange(SortOrder.of("zorder", "id"), 3, 1, 3, low, high))
        .isNotEqualTo(new SortRange(order, 4, 1, 3, low, high))
        .isNotEqualTo(new SortRange(order, 3, 2, 3, low, high))
        .isNotEqualTo(new SortRange(order, 3, 1, 4, low, high))
        .isNotEqualTo(new SortRange(order, 3, 1, 3, new byte[] {0}, high))
        .isNotEqualTo(new SortRange(order, 3, 1, 3, low, new byte[] {3}))
        .isNotEqualTo("range 2 of 3");
    assertThat(range.toString()).startsWith("range 2 of 3 (");
  }

  private static TableOptions options(Map<String, String> options) {
    return TableOptions.of(options);
  }

  private CompactTask rewrite(int bucket, SplittableRandom r) {
    return rewrite(bucket, 1 + r.nextInt(2_000));
  }

  private CompactTask rewrite(int bucket, long bytes) {
    return new CompactTask(
        "t",
        BinaryRows.EMPTY,
        "",
        bucket,
        8,
        List.of(file(bytes)),
        0,
        CompactTask.Kind.APPEND_REWRITE,
        false);
  }

  /** The ranges of one bucket's sort: range 0 replaces the shared inputs. */
  private List<CompactTask> sort(int bucket, int ranges, SplittableRandom r) {
    List<DataFileMeta> inputs = List.of(file(1 + r.nextInt(1_500)), file(1 + r.nextInt(1_500)));
    SortOrder order = SortOrder.of("order", "id");
    List<CompactTask> out = new ArrayList<>();
    for (int i = 0; i < ranges; i++) {
      byte[] lower = i == 0 ? null : new byte[] {(byte) i};
      byte[] upper = i == ranges - 1 ? null : new byte[] {(byte) (i + 1)};
      out.add(
          new CompactTask(
              "t",
              BinaryRows.EMPTY,
              "",
              bucket,
              8,
              inputs,
              0,
              CompactTask.Kind.SORT_REWRITE,
              false,
              OptionalLong.empty(),
              new SortRange(order, 0, i, ranges, lower, upper)));
    }
    return out;
  }

  private DataFileMeta file(long size) {
    // each file its own time, so that a unit's oldest input is not just any of them
    return DataFiles.tenRows(
        "data-" + nextName++ + ".parquet", size, 0, written + nextName % 3, FileSource.APPEND);
  }
}
