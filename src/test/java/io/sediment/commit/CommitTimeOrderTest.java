package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotWatermarks;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit times never decrease along snapshot ids, whatever the committers' clocks say (one behind
 * another: a writer's TaskManager and a compaction job's): the searches by time binary-search on
 * it. A commit stamps the later of its clock and the previous snapshot's time. A clock behind made
 * a query at time t return a snapshot committed after one at a later time, or miss one before it.
 */
class CommitTimeOrderTest {

  @TempDir Path dir;

  @Test
  void searchesByTimeFindTheNewestSnapshotCommittedAtOrBefore() {
    for (int seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      ManualClock clock = new ManualClock();
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("s" + seed)).withClock(clock),
              "t",
              TestTables.idValueSchema().build());
      long now = 1_000_000;
      int commits = 3 + r.nextInt(8);
      for (int i = 0; i < commits; i++) {
        now += r.nextInt(1000);
        // a committer whose clock is up to 3 s behind
        clock.set(now - (r.nextInt(3) == 0 ? r.nextInt(3000) : 0));
        TestTables.writeBatch(t, List.of(row((long) i, "v")));
      }
      List<Snapshot> all = new ArrayList<>();
      for (long id : t.snapshotManager().listIds()) {
        all.add(t.snapshotManager().snapshot(id));
      }
      for (int i = 1; i < all.size(); i++) {
        assertThat(all.get(i).timeMillis())
            .as("seed %d: snapshot %d", seed, all.get(i).id())
            .isGreaterThanOrEqualTo(all.get(i - 1).timeMillis());
      }
      for (long at = 1_000_000 - 3000; at <= now; at += 1 + r.nextInt(200)) {
        Optional<Snapshot> expected = Optional.empty();
        for (Snapshot s : all) {
          if (s.timeMillis() <= at) {
            expected = Optional.of(s); // the newest id at or before the instant
          } else {
            break;
          }
        }
        assertThat(
                SnapshotWatermarks.committedAtOrBefore(t.snapshotManager(), at).map(Snapshot::id))
            .as("seed %d, at %d", seed, at)
            .isEqualTo(expected.map(Snapshot::id));
      }
    }
  }
}
