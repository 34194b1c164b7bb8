package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.table.Table;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated deliveries of writers' windows to the SQL sink's committer (run without Flink): several
 * writers send a window per checkpoint, the committer takes checkpoints and hears of some of them
 * completing (others abort), then the input ends. When every window comes before its checkpoint's
 * barrier (aligned checkpoints), every row lands exactly once. When some come after the committer
 * took their checkpoint (what an unaligned barrier that overtook them would bring), the committer
 * refuses them: no delivery ends with rows silently missing (before the refusal, the later part of
 * a window was skipped as committed).
 */
class SinkCommitterDeliveryTest {

  @TempDir Path dir;

  @Test
  void rowsLandExactlyOnceOrTheLateWindowIsRefused() throws Exception {
    int refused = 0;
    int aligned = 0;
    for (int seed = 0; seed < 24; seed++) {
      boolean late = seed % 2 == 1;
      if (delivery(seed, late)) {
        aligned++;
      } else {
        refused++;
      }
    }
    assertThat(aligned).isGreaterThanOrEqualTo(12);
    assertThat(refused).as("deliveries with a late window").isGreaterThan(8);
  }

  /** One delivery; returns whether it ended normally (else a late window was refused). */
  private boolean delivery(int seed, boolean late) throws Exception {
    Random rnd = new Random(seed);
    Table t =
        TestTables.create(
            TestTables.catalog(dir.resolve("s" + seed)), "t", TestTables.idValueSchema().build());
    WriteBuilder wb = t.newStreamWriteBuilder();
    CommitWindows<CommitMessage> windows = new CommitWindows<>(CommitMessageCodec.INSTANCE);
    String user = CommitUsers.random();
    windows.restore(user, new TreeMap<>());
    SinkCommitter committer = new SinkCommitter(t, true, false, null, windows);
    committer.start(0, user);
    int writers = 2 + rnd.nextInt(2);
    long nextId = 0;
    Set<Long> sent = new HashSet<>();
    List<Runnable> held = new ArrayList<>(); // windows an unaligned barrier overtook
    String what = "seed " + seed + (late ? " (late windows)" : "");
    try {
      for (long checkpoint = 1; checkpoint <= 6; checkpoint++) {
        for (int w = 0; w < writers; w++) {
          List<RowData> rows = new ArrayList<>();
          for (int r = rnd.nextInt(3); r > 0; r--) {
            rows.add(GenericRowData.of(nextId, StringData.fromString("w" + w)));
            sent.add(nextId++);
          }
          if (rows.isEmpty()) {
            continue;
          }
          List<CommitMessage> messages = TestTables.prepare(wb, rows);
          long window = checkpoint;
          if (late && rnd.nextInt(3) == 0) {
            held.add(() -> committer.add(window, messages));
          } else {
            committer.add(window, messages);
          }
        }
        committer.checkpointTaken(checkpoint, null);
        // in flight behind the barrier: processed after the checkpoint was taken, before or after
        // the committer hears that it completed
        boolean afterCompletion = rnd.nextBoolean();
        if (!afterCompletion) {
          held.forEach(Runnable::run);
        }
        if (rnd.nextInt(4) != 0) { // some checkpoints abort: a later one commits their windows
          committer.checkpointComplete(checkpoint);
        }
        if (afterCompletion) {
          held.forEach(Runnable::run);
        }
        held.clear();
      }
      committer.endInput(null);
    } catch (UnalignedCheckpointsRefused e) {
      assertThat(late).as(what + ": refused " + e.getMessage()).isTrue();
      return false;
    }
    Set<Long> landed = new HashSet<>();
    for (RowData r : TestTables.readAll(t)) {
      assertThat(landed.add(r.getLong(0))).as(what + ": row %s twice", r.getLong(0)).isTrue();
    }
    assertThat(landed).as(what).isEqualTo(sent);
    return true;
  }
}
