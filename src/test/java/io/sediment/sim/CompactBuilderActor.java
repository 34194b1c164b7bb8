package io.sediment.sim;

import io.sediment.commit.CommitConflictException;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactStrategy;
import java.util.List;
import java.util.Random;

/**
 * In-process compactions ({@code table.newCompactBuilder().execute()}), minor or full, and on an
 * append table without fixed buckets sometimes a sort compaction ({@code order}, {@code zorder} or
 * {@code hilbert} by {@code k, a}), which rewrites every file of a partition.
 */
final class CompactBuilderActor implements Actor {

  private static final String[] SORT_ORDERS = {"order", "zorder", "hilbert"};

  /** Sort compactions committed (all seeds of the JVM), for the summary line. */
  static final java.util.concurrent.atomic.AtomicLong SORTS =
      new java.util.concurrent.atomic.AtomicLong();

  private final SimTable sim;
  private final Random rnd;
  int conflicts;

  CompactBuilderActor(SimTable sim, Random rnd) {
    this.sim = sim;
    this.rnd = rnd;
  }

  @Override
  public String name() {
    return "compact-builder";
  }

  @Override
  public List<String> enabled() {
    return List.of("compact");
  }

  @Override
  public String step(String step) throws Exception {
    CompactStrategy s = rnd.nextBoolean() ? CompactStrategy.FULL : CompactStrategy.MINOR;
    try {
      CompactBuilder builder = sim.latest().newCompactBuilder();
      String order = null;
      if (sim.config.appendOnly() && sim.config.buckets() == 1 && rnd.nextInt(3) == 0) {
        // a sort rewrites whole partitions: it takes no strategy (minor is refused)
        order = SORT_ORDERS[rnd.nextInt(SORT_ORDERS.length)];
        builder.withSortOrder(order, "k,a");
      } else {
        builder.withStrategy(s);
      }
      String filter = sim.drawPartitionFilter(rnd);
      if (filter != null) {
        builder.withPartitionFilter(filter);
      }
      CompactResult r = builder.execute();
      if (order != null && r.tasks() > 0) {
        SORTS.incrementAndGet();
      }
      return (order == null ? s.value() : order + " by k,a")
          + (filter == null ? "" : " of " + filter)
          + ": "
          + r.tasks()
          + " task(s), snapshot "
          + r.snapshotId();
    } catch (CommitConflictException e) {
      conflicts++;
      return s.value() + ": conflicted, nothing committed: " + e.getMessage();
    }
  }
}
