package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.maintenance.Tags;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idle streaming write does not hold its automatic tags back (Paimon's forced snapshot), through
 * the SQL sink's committer (run without Flink): when a checkpoint wrote nothing and a tag is due by
 * process time, or, by watermark with {@code snapshot.watermark-idle-timeout}, the watermark went
 * past the latest snapshot's after the table had no commit for that long, the committer commits an
 * empty snapshot, and the tag is made. Without a due tag it commits nothing.
 */
class IdleTagsTest {

  private static final LocalDateTime START = LocalDateTime.of(2026, 6, 1, 10, 0);
  private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyy-MM-dd HH");

  @TempDir Path dir;

  private Table table(String name, ManualClock clock, Map<String, String> options) {
    Schema.Builder b = TestTables.idValueSchema();
    options.forEach(b::option);
    return TestTables.create(
        TestTables.catalog(dir.resolve(name)).withClock(clock), "t", b.build());
  }

  private static SinkCommitter committer(Table t) throws Exception {
    return SinkCommitters.started(t, true);
  }

  private static Set<String> tags(Table t) {
    return new Tags(t).all().keySet();
  }

  /**
   * Generated streaming writes with hourly process-time tags, half of them with a 10-minute {@code
   * tag.creation-delay}: checkpoints every 1 to 15 minutes, a third of them with rows, a fifth
   * aborted. After every completed checkpoint the previous hour's tag is there (the hour before the
   * one the checkpoint completed in, less the delay), and the empty snapshots number at most the
   * hours that passed.
   */
  @Test
  void processTimeTagsAreMadeThroughIdleHours() throws Exception {
    int idleTags = 0;
    for (int seed = 0; seed < 8; seed++) {
      Random rnd = new Random(seed);
      ManualClock clock = new ManualClock(START.atZone(ZoneId.systemDefault()).toInstant());
      Duration delay = Duration.ofMinutes(seed % 2 == 0 ? 0 : 10);
      Table t =
          table(
              "p" + seed,
              clock,
              Map.of(
                  "tag.automatic-creation",
                  "process-time",
                  "tag.creation-period",
                  "hourly",
                  "tag.creation-delay",
                  delay.toMinutes() + " min",
                  "snapshot.num-retained.min",
                  "1000")); // every snapshot stays, to be counted
      SinkCommitter committer = committer(t);
      long nextId = 0;
      int hours = 0;
      LocalDateTime lastHour = START;
      for (long checkpoint = 1; checkpoint <= 60; checkpoint++) {
        clock.advance(Duration.ofMinutes(1 + rnd.nextInt(15)));
        boolean writes = checkpoint == 1 || rnd.nextInt(3) == 0;
        if (writes) {
          committer.add(
              checkpoint,
              TestTables.prepare(t.newStreamWriteBuilder(), List.of(row(nextId, "v" + nextId++))));
        }
        committer.checkpointTaken(checkpoint, null);
        if (checkpoint > 1 && rnd.nextInt(5) == 0) {
          continue; // aborted: a later checkpoint commits its window
        }
        committer.checkpointComplete(checkpoint);
        LocalDateTime now = LocalDateTime.ofInstant(clock.instant(), ZoneId.systemDefault());
        LocalDateTime hour = now.minus(delay).truncatedTo(ChronoUnit.HOURS);
        if (hour.isAfter(lastHour)) {
          hours += (int) ChronoUnit.HOURS.between(lastHour, hour);
          lastHour = hour;
        }
        String what = "seed " + seed + ", checkpoint " + checkpoint + " at " + now;
        if (!hour.isBefore(START)) { // the first snapshot's tag is the hour before START's
          assertThat(tags(t)).as(what).contains(hour.minusHours(1).format(HOUR));
        }
        long empty =
            t.snapshotManager().listIds().stream()
                .map(id -> t.snapshotManager().snapshot(id))
                .filter(s -> s.deltaRecordCount() == 0)
                .count();
        assertThat(empty).as(what + ": empty snapshots").isLessThanOrEqualTo(hours);
      }
      for (var tag : new Tags(t).all().values()) {
        if (tag.snapshot().deltaRecordCount() == 0) {
          idleTags++; // made for an empty snapshot: it reads what the snapshot before it did
          long id = tag.snapshot().id();
          assertThat(TestTables.readAll(t.copy(Map.of("scan.tag-name", tag.name()))))
              .hasSameSizeAs(TestTables.readAll(t.copy(Map.of("scan.snapshot-id", "" + (id - 1)))));
        }
      }
      assertThat(committer.failures().tags()).isZero();
      assertThat(TestTables.readAll(t)).hasSize((int) nextId);
    }
    assertThat(idleTags).as("tags made on empty snapshots").isGreaterThan(8);
  }

  @Test
  void anIdleInputsWatermarkTagsAreMadeAfterTheIdleTimeout() throws Exception {
    ManualClock clock = new ManualClock(START.plusMinutes(30).toInstant(ZoneOffset.UTC));
    Map<String, String> options =
        Map.of(
            "tag.automatic-creation",
            "watermark",
            "tag.creation-period",
            "hourly",
            "snapshot.watermark-idle-timeout",
            "10 min");
    Table t = table("w", clock, options);
    SinkCommitter committer = committer(t);
    long w1030 = START.plusMinutes(30).toInstant(ZoneOffset.UTC).toEpochMilli();
    committer.add(1, TestTables.prepare(t.newStreamWriteBuilder(), List.of(row(1L, "a"))));
    committer.checkpointTaken(1, w1030);
    committer.checkpointComplete(1);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L);

    long w1105 = START.plusMinutes(65).toInstant(ZoneOffset.UTC).toEpochMilli();
    clock.advance(Duration.ofMinutes(5));
    committer.checkpointTaken(2, w1105); // idle for 5 minutes only
    committer.checkpointComplete(2);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L);

    clock.advance(Duration.ofMinutes(6));
    committer.checkpointTaken(3, w1105 + 60_000); // idle for 11 minutes, the watermark went on
    committer.checkpointComplete(3);
    Snapshot empty = t.snapshotManager().latest().orElseThrow();
    assertThat(empty.id()).isEqualTo(2);
    assertThat(empty.deltaRecordCount()).isZero();
    assertThat(empty.watermark()).isEqualTo(w1105 + 60_000);
    assertThat(empty.commitIdentifier()).isEqualTo(3);
    assertThat(tags(t)).contains("2026-06-01 10"); // the hour the watermark passed
    assertThat(TestTables.readAll(t)).hasSize(1);

    clock.advance(Duration.ofMinutes(30));
    committer.checkpointTaken(4, w1105 + 60_000); // the watermark stayed: nothing to record
    committer.checkpointComplete(4);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L);

    // without the option an idle input commits nothing
    ManualClock other = new ManualClock(START.plusMinutes(30).toInstant(ZoneOffset.UTC));
    Table without =
        table(
            "n",
            other,
            Map.of("tag.automatic-creation", "watermark", "tag.creation-period", "hourly"));
    SinkCommitter plain = committer(without);
    plain.add(1, TestTables.prepare(without.newStreamWriteBuilder(), List.of(row(1L, "a"))));
    plain.checkpointTaken(1, w1030);
    plain.checkpointComplete(1);
    other.advance(Duration.ofHours(2));
    plain.checkpointTaken(2, w1105 + 60_000);
    plain.checkpointComplete(2);
    assertThat(without.snapshotManager().listIds()).containsExactly(1L);
  }
}
