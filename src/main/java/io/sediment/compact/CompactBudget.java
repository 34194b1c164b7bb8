package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.TableOptions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.configuration.MemorySize;

/**
 * How much one compaction commit rewrites ({@code compaction.max-rewrite-bytes}) and how many
 * commits one batch run makes ({@code partial-progress.enabled}, {@code
 * partial-progress.max-commits}, Iceberg's names). A run with partial progress plans, commits the
 * first budget's worth, plans again from the new snapshot, and so on: each commit is a COMPACT
 * snapshot of its own, so a failure keeps the commits made before it.
 */
public final class CompactBudget {

  private CompactBudget() {}

  /**
   * The tasks of {@code plan} that one commit of at most {@code budget} input bytes rewrites: whole
   * units (a task, or all sort ranges of a bucket), those whose oldest input file is oldest first,
   * while the sum stays within the budget, and at least the first of them (a unit larger than the
   * budget goes alone); in plan order. Oldest first, so that a bucket left out now is taken by a
   * later commit or run: compaction outputs are new files, and in plan order the same buckets at
   * the front were taken every time while those behind them never were.
   */
  public static List<CompactTask> cap(List<CompactTask> plan, long budget) {
    if (budget == Long.MAX_VALUE) {
      return plan;
    }
    List<Unit> units = new ArrayList<>();
    for (int i = 0; i < plan.size(); ) {
      int end = unitEnd(plan, i);
      long oldest = Long.MAX_VALUE;
      for (CompactTask t : plan.subList(i, end)) {
        for (DataFileMeta f : t.inputs()) {
          oldest = Math.min(oldest, f.creationTimeMillis());
        }
      }
      units.add(new Unit(i, end, oldest, replacedBytes(plan.subList(i, end))));
      i = end;
    }
    List<Unit> byAge = new ArrayList<>(units);
    byAge.sort(Comparator.comparingLong(Unit::oldest)); // stable: plan order among equals
    Set<Unit> taken = new HashSet<>();
    long sum = 0;
    for (Unit u : byAge) {
      if (!taken.isEmpty() && sum + u.bytes() > budget) {
        break;
      }
      taken.add(u);
      sum += u.bytes();
    }
    List<CompactTask> out = new ArrayList<>();
    for (Unit u : units) {
      if (taken.contains(u)) {
        out.addAll(plan.subList(u.start(), u.end()));
      }
    }
    return out;
  }

  /** Tasks {@code start} (inclusive) to {@code end} of a plan, committed together or not at all. */
  private record Unit(int start, int end, long oldest, long bytes) {}

  /**
   * The end (exclusive) of the unit starting at {@code from}: a bucket's sort ranges go together.
   */
  private static int unitEnd(List<CompactTask> plan, int from) {
    CompactTask first = plan.get(from);
    int end = from + 1;
    if (first.kind() == CompactTask.Kind.SORT_REWRITE) {
      while (end < plan.size()
          && plan.get(end).kind() == CompactTask.Kind.SORT_REWRITE
          && !plan.get(end).sortRange().orElseThrow().replacesInputs()
          && sameBucket(first, plan.get(end))) {
        end++;
      }
    }
    return end;
  }

  private static boolean sameBucket(CompactTask a, CompactTask b) {
    return Objects.equals(a.table(), b.table())
        && a.partitionPath().equals(b.partitionPath())
        && a.bucket() == b.bucket();
  }

  /** Input bytes the tasks replace (a sort's ranges count their shared inputs once). */
  public static long replacedBytes(List<CompactTask> tasks) {
    long sum = 0;
    for (CompactTask t : tasks) {
      sum += t.replacedBytes();
    }
    return sum;
  }

  /** {@code compaction.max-rewrite-bytes}, if set. */
  public static OptionalLong maxRewriteBytes(TableOptions options) {
    MemorySize max = options.get(CompactionOptions.COMPACTION_MAX_REWRITE_BYTES);
    return max == null ? OptionalLong.empty() : OptionalLong.of(max.getBytes());
  }

  /** The commits one batch run makes at most: {@code partial-progress.max-commits}, or 1. */
  public static int commits(TableOptions options) {
    return options.get(CompactionOptions.PARTIAL_PROGRESS_ENABLED)
        ? options.get(CompactionOptions.PARTIAL_PROGRESS_MAX_COMMITS)
        : 1;
  }

  /**
   * The budget of each commit of a batch run whose first plan is {@code plan}: {@code
   * compaction.max-rewrite-bytes} when set; else, with partial progress, the plan's input bytes
   * split evenly over {@code partial-progress.max-commits}; else no limit.
   */
  public static long perCommit(TableOptions options, List<CompactTask> plan) {
    OptionalLong max = maxRewriteBytes(options);
    if (max.isPresent()) {
      return max.getAsLong();
    }
    int commits = commits(options);
    if (commits <= 1) {
      return Long.MAX_VALUE;
    }
    long total = replacedBytes(plan);
    return Math.max(1, (total + commits - 1) / commits);
  }
}
