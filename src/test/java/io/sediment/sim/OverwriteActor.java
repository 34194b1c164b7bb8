package io.sediment.sim;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.PartitionFilters;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code INSERT OVERWRITE}, as a batch job: a few new rows replace the whole table, or on a
 * partitioned table one partition, while the streaming writers, compactions and maintenance go on
 * (windows committed after it stay, on top; a compaction planned before it conflicts). On a
 * primary-key table its writer ignores the table's files ({@code withIgnorePreviousFiles}), so its
 * rows are numbered below every writer's (from -2^62), so later windows win, and its own
 * compactions (a deletion-vector table moves level 0 up) are folded into the one snapshot. A
 * streaming read does not see it (as in Paimon, overwrite snapshots are not streamed): histories
 * with a stream read on a primary-key table have no overwrite.
 */
final class OverwriteActor implements Actor {

  private final SimTable sim;
  private final SimModel model;
  private final Random rnd;
  int conflicts;

  OverwriteActor(SimTable sim, SimModel model, Random rnd) {
    this.sim = sim;
    this.model = model;
    this.rnd = rnd;
  }

  @Override
  public String name() {
    return "overwrite";
  }

  @Override
  public List<String> enabled() {
    return List.of("overwrite");
  }

  @Override
  public String step(String step) throws Exception {
    int partitions = sim.config.partitions();
    Integer partition = partitions == 0 ? null : rnd.nextInt(partitions);
    List<Change> rows = new ArrayList<>();
    int n = rnd.nextInt(4); // none: a partition (or the table) emptied
    for (int i = 0; i < n; i++) {
      long k = rnd.nextInt(sim.config.keys());
      if (partition != null) {
        k = k - SimTable.partitionOf(k, partitions) + partition;
      }
      rows.add(new Change(k, rnd.nextInt(100), "o" + rnd.nextInt(1000), false));
    }
    // the job loaded the table when it started: its schema is the one the writers loaded
    Table table = sim.table();
    Predicate filter =
        partition == null
            ? null
            : PartitionFilters.ofPartition(
                "db.t", table.store().schema(), Map.of("p", String.valueOf(partition)));
    try (TableWrite write =
        table.newBatchWriteBuilder().newWrite().withIgnorePreviousFiles(!sim.config.appendOnly())) {
      for (Change c : rows) {
        write.write(c.toRow(partitions));
      }
      List<CommitMessage> messages = write.prepareCommit();
      TableCommit commit = table.newBatchWriteBuilder().newCommit();
      try {
        List<Long> ids = commit.overwrite(messages, filter);
        int writers = sim.config.ownCompaction().size();
        model.overwrite(partition, partitions, rows, k -> (int) Math.floorMod(k, (long) writers));
        return "overwrote "
            + (partition == null ? "the table" : "p=" + partition)
            + " with "
            + rows
            + " as snapshot(s) "
            + ids;
      } catch (CommitConflictException e) {
        conflicts++;
        return "conflicted, nothing committed: " + e.getMessage();
      }
    }
  }
}
