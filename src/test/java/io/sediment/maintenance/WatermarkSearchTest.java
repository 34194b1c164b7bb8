package io.sediment.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.compact.CompactStrategy;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.SnapshotWatermarks;
import io.sediment.table.StreamScan;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshots' watermarks and the lookups by watermark ({@code create_tag_from_watermark}, {@code
 * rollback_to_watermark}): over generated histories, every snapshot records the largest watermark
 * any commit up to it recorded (none before the first), whatever the commit kind, and the binary
 * searches find what a scan of every snapshot finds, after expiries too.
 */
class WatermarkSearchTest {

  @TempDir Path dir;

  @Test
  void snapshotsCarryTheLargestWatermarkAndTheSearchesFindWhatAScanFinds() throws Exception {
    int rollbacks = 0;
    int refusals = 0;
    for (int seed = 0; seed < 10; seed++) {
      Random rnd = new Random(seed);
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("s" + seed)),
              "t",
              TestTables.idValueSchema().primaryKey("id").option("bucket", "1").build());
      String what = "seed " + seed;
      WriteBuilder stream = t.newStreamWriteBuilder();
      TableCommit commit = stream.newCommit();
      Long model = null;
      long next = 1_000;
      int steps = 10 + rnd.nextInt(20);
      for (int step = 0; step < steps; step++) {
        Long watermark = null;
        if (step > 2 && rnd.nextInt(4) != 0) {
          next += rnd.nextInt(3) * 500L; // some commits repeat a watermark
          watermark = rnd.nextInt(5) == 0 ? next - 2_000 : next; // some come lower
        }
        int kind = rnd.nextInt(6);
        List<Long> ids;
        if (kind == 0 && step > 0) {
          Long id = t.newCompactBuilder().withStrategy(CompactStrategy.FULL).execute().snapshotId();
          ids = id == null ? List.of() : List.of(id);
        } else if (kind == 1 && step > 0) {
          new ExpireSnapshots(t).retainMax(1 + rnd.nextInt(6)).execute();
          ids = List.of();
        } else {
          GenericRowData row =
              GenericRowData.of((long) rnd.nextInt(8), StringData.fromString("v" + step));
          ids = commit.commit(step, TestTables.prepare(stream, List.of(row)), watermark);
          if (watermark != null) {
            model = model == null ? watermark : Math.max(model, watermark);
          }
        }
        for (long id : ids) {
          assertThat(t.snapshotManager().snapshot(id).watermark())
              .as(what + ", snapshot " + id)
              .isEqualTo(model);
        }
      }
      SnapshotManager sm = t.snapshotManager();
      List<Snapshot> all = new ArrayList<>();
      for (long id : sm.listIds()) {
        all.add(sm.snapshot(id));
      }
      for (int q = 0; q < 30; q++) {
        long w = 500 + rnd.nextInt((int) (next - 500) + 1_500);
        Optional<Snapshot> first =
            all.stream().filter(s -> has(s) && s.watermark() >= w).findFirst();
        Optional<Snapshot> last =
            all.stream().filter(s -> has(s) && s.watermark() <= w).reduce((a, b) -> b);
        assertThat(SnapshotWatermarks.firstAtOrAfter(sm, w).map(Snapshot::id))
            .as(what + ", first at or after " + w)
            .isEqualTo(first.map(Snapshot::id));
        assertThat(SnapshotWatermarks.latestAtOrBefore(sm, w).map(Snapshot::id))
            .as(what + ", latest at or before " + w)
            .isEqualTo(last.map(Snapshot::id));
        Table fromWatermark = t.copy(java.util.Map.of("scan.watermark", "" + w));
        if (first.isEmpty()) {
          assertThatThrownBy(() -> new Tags(t).snapshotAtOrAfterWatermark(w))
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("No snapshot of db.t has a watermark at or after " + w);
          assertThatThrownBy(() -> TestTables.readAll(fromWatermark))
              .hasStackTraceContaining("has a watermark at or after " + w + " (scan.watermark)");
          refusals++;
        } else {
          assertThat(new Tags(t).snapshotAtOrAfterWatermark(w)).isEqualTo(first.get().id());
          // time travel by watermark (Paimon's scan.watermark): a batch read reads that
          // snapshot, a streaming read starts with it in full
          assertThat(fromWatermark.newReadBuilder().newScan().plan().snapshotId())
              .as(what + ", scan.watermark " + w)
              .isEqualTo(first.get().id());
          StreamScan.StartPoint start =
              fromWatermark.newReadBuilder().newStreamScan().resolveStart();
          assertThat(start.fullSnapshotId()).isEqualTo(first.get().id());
          assertThat(start.nextSnapshotId()).isEqualTo(first.get().id() + 1);
          if (q < 3) {
            assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(fromWatermark)))
                .as(what + ", rows at scan.watermark " + w)
                .containsExactlyInAnyOrderElementsOf(
                    TestTables.toStrings(
                        t.rowType(),
                        TestTables.readAll(
                            t.copy(java.util.Map.of("scan.snapshot-id", "" + first.get().id())))));
          }
        }
      }
      // a rollback by watermark reads what its target read, and keeps the latest watermark
      long w = 500 + rnd.nextInt((int) (next - 500) + 1_500);
      Optional<Snapshot> target =
          all.stream().filter(s -> has(s) && s.watermark() <= w).reduce((a, b) -> b);
      if (target.isEmpty()) {
        assertThatThrownBy(() -> new Rollback(t).toWatermark(w))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("No snapshot of db.t still there has a watermark at or before");
        refusals++;
        continue;
      }
      List<String> expected =
          TestTables.toStrings(
              t.rowType(),
              TestTables.readAll(
                  t.copy(java.util.Map.of("scan.snapshot-id", "" + target.get().id()))));
      Rollback.Result r = new Rollback(t).toWatermark(w);
      assertThat(r.targetSnapshotId()).as(what).isEqualTo(target.get().id());
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as(what)
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(sm.latest().orElseThrow().watermark()).as(what).isEqualTo(model);
      rollbacks++;
    }
    assertThat(rollbacks).isGreaterThan(4);
    assertThat(refusals).isGreaterThan(3);
  }

  private static boolean has(Snapshot s) {
    return s.watermark() != null;
  }

  @Test
  void aSnapshotWithoutAWatermarkWritesNoFieldAndOneWithItReadsBack() {
    Snapshot none =
        new Snapshot(
            1, 1, 0, "b", "d", null, "u", 1, io.sediment.manifest.CommitKind.APPEND, 5, 1, 1, 1);
    assertThat(none.toJson()).doesNotContain("watermark");
    assertThat(Snapshot.fromJson(none.toJson()).watermark()).isNull();
    Snapshot with =
        new Snapshot(
            1,
            2,
            0,
            "b",
            "d",
            null,
            "u",
            2,
            io.sediment.manifest.CommitKind.APPEND,
            5,
            1,
            1,
            1,
            null,
            1_767_225_600_000L);
    assertThat(with.toJson()).contains("\"watermark\" : 1767225600000");
    assertThat(Snapshot.fromJson(with.toJson())).isEqualTo(with);
  }
}
