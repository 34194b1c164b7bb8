package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paimon's {@code tag.automatic-creation = batch}, through the SQL sink's committer (run without
 * Flink): a batch write that committed tags the latest snapshot {@code batch-write-<day>},
 * replacing that day's tag; {@code tag.batch.customized-name} names one tag every write replaces;
 * {@code tag.num-retained-max} keeps the newest day tags and never deletes other tags.
 */
class BatchTagsTest {

  private static final LocalDateTime DAY1 = LocalDateTime.of(2026, 6, 1, 10, 0);

  @TempDir Path dir;

  private final ManualClock clock =
      new ManualClock(DAY1.atZone(ZoneId.systemDefault()).toInstant());

  private Table table(Map<String, String> options) {
    Schema.Builder b = TestTables.idValueSchema();
    options.forEach(b::option);
    return TestTables.create(TestTables.catalog(dir).withClock(clock), "t", b.build());
  }

  /** One batch SQL write of {@code id}, committed as the sink's committer commits it. */
  private static void batchWrite(Table t, long id) throws Exception {
    List<CommitMessage> messages =
        TestTables.prepare(t.newBatchWriteBuilder(), List.of(row(id, "v" + id)));
    SinkCommitter committer = SinkCommitters.started(t, false);
    committer.add(SedimentWriteOperator.END_OF_INPUT, messages);
    committer.endInput(null, false);
    assertThat(committer.failures().tags()).isZero();
  }

  private static Map<String, Long> tags(Table t) {
    Map<String, Long> out = new TreeMap<>();
    new Tags(t).all().forEach((name, tag) -> out.put(name, tag.snapshot().id()));
    return out;
  }

  @Test
  void aBatchWriteTagsItsSnapshotByDayAndTheMaximumKeepsTheNewestDays() throws Exception {
    Table t = table(Map.of("tag.automatic-creation", "batch", "tag.num-retained-max", "2"));
    batchWrite(t, 1);
    assertThat(tags(t)).isEqualTo(Map.of("batch-write-2026-06-01", 1L));
    clock.advance(Duration.ofHours(2));
    batchWrite(t, 2); // the same day: its tag now keeps snapshot 2
    assertThat(tags(t)).isEqualTo(Map.of("batch-write-2026-06-01", 2L));
    new Tags(t).create("by-hand", OptionalLong.of(1));
    clock.advance(Duration.ofDays(1));
    batchWrite(t, 3);
    clock.advance(Duration.ofDays(1));
    batchWrite(t, 4);
    assertThat(tags(t))
        .as("the oldest day tag goes; a tag made by hand never does")
        .isEqualTo(
            Map.of("by-hand", 1L, "batch-write-2026-06-02", 3L, "batch-write-2026-06-03", 4L));
    List<String> rowsAtDay2 =
        TestTables.toStrings(
            t.rowType(),
            TestTables.readAll(t.copy(Map.of("scan.tag-name", "batch-write-2026-06-02"))));
    assertThat(rowsAtDay2).hasSize(3);
  }

  @Test
  void aCustomizedNameIsOneTagEveryWriteReplacesAndOtherModesMakeNone() throws Exception {
    Table t =
        table(
            Map.of(
                "tag.automatic-creation", "batch",
                "tag.batch.customized-name", "last-load",
                "tag.default-time-retained", "3 d"));
    batchWrite(t, 1);
    clock.advance(Duration.ofDays(2));
    batchWrite(t, 2);
    TagManager.Tag last = new Tags(t).all().get("last-load");
    assertThat(tags(t)).isEqualTo(Map.of("last-load", 2L));
    assertThat(last.createdMillis()).as("made anew").isEqualTo(clock.millis());
    assertThat(last.timeRetained()).isEqualTo(Duration.ofDays(3));

    Table none = t.copy(Map.of("tag.automatic-creation", "none"));
    batchWrite(none, 3);
    assertThat(tags(t)).isEqualTo(Map.of("last-load", 2L));
  }
}
