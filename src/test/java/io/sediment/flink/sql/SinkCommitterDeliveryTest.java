package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.table.Table;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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

  /**
   * Generated event-time deliveries in which writers' inputs end at different checkpoints (a
   * bounded source's subtasks, FLIP-147): each writer sends rows in event-time order and passes on
   * the watermark of the last one; the committer receives the smallest watermark of the writers
   * still running, and a writer that ends sends its rest as the end of input's. After every commit
   * the latest snapshot holds every row sent with an event time at or before its watermark; at the
   * end every row is there once. (Before a writer's rest joined the next checkpoint's window, it
   * waited for the end of the job, under snapshots whose watermark claimed it.)
   */
  @Test
  void everySnapshotHoldsTheRowsUpToItsWatermarkWhenWritersEndApart() throws Exception {
    int endedApart = 0;
    for (int seed = 0; seed < 16; seed++) {
      Random rnd = new Random(seed);
      Table t = table("w" + seed);
      WriteBuilder wb = t.newStreamWriteBuilder();
      SinkCommitter committer = streamingCommitter(t);
      int writers = 2 + rnd.nextInt(2);
      long[] endsAt = new long[writers]; // the checkpoint before which each writer's input ends
      long[] eventTime = new long[writers];
      for (int w = 0; w < writers; w++) {
        endsAt[w] = 2 + rnd.nextInt(6);
      }
      TreeMap<Long, Long> sentAt = new TreeMap<>(); // row id -> event time
      long nextId = 0;
      Long received = null; // the last watermark the committer received (null: none)
      String what = "seed " + seed;
      // in some seeds every checkpoint while some writers ended and others run aborts, as Flink's
      // do for operators with union list state (a primary-key table's writers, briefly, and any
      // writers restored from state of earlier versions): their windows land together at the end
      boolean abortWhilePartlyEnded = seed % 3 == 0;
      long checked = 0; // the snapshots up to it were checked
      for (long checkpoint = 1; ; checkpoint++) {
        long smallest = Long.MAX_VALUE;
        boolean someEnded = false;
        for (int w = 0; w < writers; w++) {
          if (checkpoint > endsAt[w]) {
            continue; // ended before: sends nothing
          }
          List<RowData> rows = new ArrayList<>();
          for (int r = rnd.nextInt(4); r > 0; r--) {
            eventTime[w] += 1 + rnd.nextInt(10);
            rows.add(GenericRowData.of(nextId, StringData.fromString("w" + w)));
            sentAt.put(nextId++, eventTime[w]);
          }
          boolean ends = checkpoint == endsAt[w];
          if (!rows.isEmpty()) {
            committer.add(
                ends ? SedimentWriteOperator.END_OF_INPUT : checkpoint,
                TestTables.prepare(wb, rows));
          }
          if (!ends) {
            smallest = Math.min(smallest, eventTime[w]); // rows sent, then the watermark
          }
        }
        for (int w = 0; w < writers; w++) {
          someEnded |= checkpoint > endsAt[w];
        }
        if (smallest == Long.MAX_VALUE) {
          // every writer ended: Flink's final checkpoint commits what is left
          committer.endInput(received, true);
          committer.checkpointTaken(checkpoint, received);
          committer.checkpointComplete(checkpoint);
          checked = assertSnapshotsHoldRowsUpToWatermark(t, sentAt, checked, what + ", end");
          break;
        }
        if (smallest > 0) {
          received = smallest;
        }
        committer.checkpointTaken(checkpoint, received);
        boolean aborts = rnd.nextInt(4) == 0 || (abortWhilePartlyEnded && someEnded);
        if (!aborts) { // an aborted checkpoint's windows wait for a later one
          committer.checkpointComplete(checkpoint);
          checked =
              assertSnapshotsHoldRowsUpToWatermark(
                  t, sentAt, checked, what + ", checkpoint " + checkpoint);
        }
      }
      Set<Long> landed = new HashSet<>();
      for (RowData r : TestTables.readAll(t)) {
        assertThat(landed.add(r.getLong(0))).as(what + ": row %s twice", r.getLong(0)).isTrue();
      }
      assertThat(landed).as(what).isEqualTo(sentAt.keySet());
      if (java.util.Arrays.stream(endsAt).distinct().count() > 1) {
        endedApart++;
      }
    }
    assertThat(endedApart).isGreaterThan(8);
  }

  /**
   * Checks each snapshot after {@code checked}: it holds every row sent with an event time at or
   * before its watermark. Returns the latest snapshot id.
   */
  private static long assertSnapshotsHoldRowsUpToWatermark(
      Table t, TreeMap<Long, Long> sentAt, long checked, String what) {
    long latest = t.snapshotManager().latestId().orElse(0);
    for (long id = checked + 1; id <= latest; id++) {
      Long watermark = t.snapshotManager().snapshot(id).watermark();
      if (watermark == null) {
        continue;
      }
      Set<Long> held = new HashSet<>();
      TestTables.readAll(t.copy(java.util.Map.of("scan.snapshot-id", "" + id)))
          .forEach(r -> held.add(r.getLong(0)));
      for (Map.Entry<Long, Long> row : sentAt.entrySet()) {
        if (row.getValue() <= watermark) {
          assertThat(held)
              .as(
                  "%s: snapshot %s, row %s (event time %s) under watermark %s",
                  what, id, row.getKey(), row.getValue(), watermark)
              .contains(row.getKey());
        }
      }
    }
    return latest;
  }

  private Table table(String warehouse) {
    return TestTables.create(
        TestTables.catalog(dir.resolve(warehouse)), "t", TestTables.idValueSchema().build());
  }

  /** A streaming job's committer at its first start, as the operator runs it. */
  private static SinkCommitter streamingCommitter(Table t) throws Exception {
    return SinkCommitters.started(t, true);
  }

  /** One delivery; returns whether it ended normally (else a late window was refused). */
  private boolean delivery(int seed, boolean late) throws Exception {
    Random rnd = new Random(seed);
    Table t = table("s" + seed);
    WriteBuilder wb = t.newStreamWriteBuilder();
    SinkCommitter committer = streamingCommitter(t);
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
      committer.endInput(null, true); // Flink's final checkpoint commits what is left
      committer.checkpointTaken(7, null);
      committer.checkpointComplete(7);
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
