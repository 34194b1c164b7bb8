package io.sediment.sim;

import io.sediment.commit.CommitConflictException;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactStrategy;
import java.util.List;
import java.util.Random;

/** In-process compactions ({@code table.newCompactBuilder().execute()}), minor or full. */
final class CompactBuilderActor implements Actor {

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
      CompactBuilder builder = sim.latest().newCompactBuilder().withStrategy(s);
      String filter = sim.drawPartitionFilter(rnd);
      if (filter != null) {
        builder.withPartitionFilter(filter);
      }
      CompactResult r = builder.execute();
      return s.value()
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
