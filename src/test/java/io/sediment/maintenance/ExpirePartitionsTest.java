package io.sediment.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.CommitKind;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Partitions older than an expiration time are dropped in one snapshot; the rest stay. */
class ExpirePartitionsTest {

  @TempDir Path dir;

  private static final LocalDateTime NOW = LocalDateTime.of(2024, 6, 15, 12, 0);

  private ManualClock clock() {
    return new ManualClock(NOW.atZone(ZoneId.systemDefault()).toInstant());
  }

  /** db.&lt;name&gt; (id, dt STRING, hh INT) partitioned by dt, hh, on {@code clock}. */
  private Table table(String name, ManualClock clock) {
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    return TestTables.create(
        catalog,
        name,
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT())
            .column("dt", DataTypes.STRING())
            .column("hh", DataTypes.INT())
            .partitionKeys("dt", "hh")
            .build());
  }

  private static GenericRowData row(long id, String dt, Integer hh) {
    return GenericRowData.of(id, StringData.fromString(dt), hh);
  }

  private static List<String> rows(Table t) throws Exception {
    List<String> out = new ArrayList<>();
    TestTables.readAll(t).forEach(r -> out.add(r.getString(1) + "/" + r.getInt(2)));
    out.sort(null);
    return out;
  }

  /**
   * Generated cases: days around the cut-off in several formats and hours; every partition older
   * than the expiration goes, every other stays, in one OVERWRITE snapshot.
   */
  @Test
  void exactlyThePartitionsOlderThanTheExpirationGo() throws Exception {
    Random rnd = new Random(11);
    for (int round = 0; round < 12; round++) {
      ManualClock clock = clock();
      Table t = table("t" + round, clock);
      int days = 1 + rnd.nextInt(10);
      boolean withHour = rnd.nextBoolean();
      String format = withHour ? "yyyyMMdd H" : (rnd.nextBoolean() ? "yyyyMMdd" : null);
      DateTimeFormatter dtFormat =
          DateTimeFormatter.ofPattern(format == null ? "yyyy-MM-dd" : "yyyyMMdd");
      List<GenericRowData> batch = new ArrayList<>();
      TreeSet<String> kept = new TreeSet<>();
      TreeSet<String> expired = new TreeSet<>();
      for (int d = 0; d < 14; d++) {
        LocalDate day = NOW.toLocalDate().minusDays(d);
        int hh = rnd.nextInt(24);
        String dt = day.format(dtFormat);
        LocalDateTime time = withHour ? day.atTime(hh, 0) : day.atStartOfDay();
        batch.add(row(d, dt, hh));
        (time.isBefore(NOW.minusDays(days)) ? expired : kept).add("dt=" + dt + "/hh=" + hh);
      }
      batch.add(row(99, "not-a-date", 1)); // kept: its values make no time
      kept.add("dt=not-a-date/hh=1");
      TestTables.writeBatch(t, batch);
      long before = t.latestSnapshot().orElseThrow().id();

      ExpirePartitions expire = new ExpirePartitions(t).expirationTime(Duration.ofDays(days));
      if (format != null) {
        expire.timestampFormatter(format);
      }
      if (withHour) {
        expire.timestampPattern("$dt $hh");
      }
      String what = "expiration " + days + " d, format " + format;
      assertThat(new TreeSet<>(expire.execute())).as(what).isEqualTo(expired);
      List<String> left = new ArrayList<>();
      for (String p : kept) {
        left.add(p.replace("dt=", "").replace("hh=", ""));
      }
      left.sort(null);
      assertThat(rows(t)).as(what).isEqualTo(left);
      assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before + 1);
      assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.OVERWRITE);

      // nothing more is old enough: no snapshot
      assertThat(
              new ExpirePartitions(t)
                  .expirationTime(Duration.ofDays(days))
                  .timestampFormatter(format)
                  .timestampPattern(withHour ? "$dt $hh" : null)
                  .execute())
          .isEmpty();
      assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before + 1);
    }
  }

  @Test
  void maxExpiresTakesTheOldestAndUpdateTimeReadsTheNewestFile() throws Exception {
    ManualClock clock = clock();
    Table t = table("t", clock);
    TestTables.writeBatch(
        t, List.of(row(1, "2024-06-01", 0), row(2, "2024-06-02", 0), row(3, "2024-06-03", 0)));
    assertThat(new ExpirePartitions(t).expirationTime(Duration.ofDays(1)).maxExpires(2).execute())
        .containsExactly("dt=2024-06-01/hh=0", "dt=2024-06-02/hh=0");
    assertThat(rows(t)).containsExactly("2024-06-03/0");

    // update-time: the partition written an hour ago is kept, whatever its values say
    TestTables.writeBatch(t, List.of(row(4, "1999-01-01", 0)));
    clock.advance(Duration.ofHours(1));
    TestTables.writeBatch(t, List.of(row(5, "2024-06-03", 0)));
    clock.advance(Duration.ofMinutes(30));
    assertThat(
            new ExpirePartitions(t)
                .expirationTime(Duration.ofMinutes(45))
                .strategy("update-time")
                .execute())
        .containsExactly("dt=1999-01-01/hh=0");
    assertThat(rows(t)).containsExactly("2024-06-03/0", "2024-06-03/0");
  }

  /** Snapshots are expired after the drop, as after any commit (the table's retention). */
  @Test
  void snapshotsAreExpiredAfterTheDrop() throws Exception {
    Table t =
        table("t", clock())
            .copy(Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "1"));
    TestTables.writeBatch(t, List.of(row(1, "2024-06-01", 0)));
    TestTables.writeBatch(t, List.of(row(2, "2024-06-03", 0)));
    assertThat(new ExpirePartitions(t).expirationTime(Duration.ofDays(1)).execute()).hasSize(2);
    assertThat(t.snapshotManager().listIds()).hasSize(1);
  }

  @Test
  void badArgumentsAreRefusedBeforeAnythingChanges() throws Exception {
    Table t = table("t", clock());
    TestTables.writeBatch(t, List.of(row(1, "2000-01-01", 0)));
    ExpirePartitions e = new ExpirePartitions(t);
    assertThatThrownBy(() -> e.expirationTime(Duration.ZERO))
        .hasMessage("The expiration time must be more than 0, got PT0S");
    assertThatThrownBy(() -> e.timestampFormatter("yyyy-MM-dd'"))
        .hasMessageStartingWith("'yyyy-MM-dd'' is not a date-time pattern");
    assertThatThrownBy(() -> e.timestampPattern("$day"))
        .hasMessage(
            "'$day' names $day, which is not a partition column; partition columns are [dt, hh]");
    assertThatThrownBy(() -> e.timestampPattern("$dtx $hh"))
        .hasMessageStartingWith("'$dtx $hh' names $dtx, which is not a partition column");
    assertThatThrownBy(() -> e.strategy("sometimes"))
        .hasMessage(
            "Unknown expire strategy 'sometimes': allowed are 'values-time', 'update-time'");
    assertThatThrownBy(() -> e.maxExpires(0)).hasMessage("max_expires must be at least 1, got 0");
    assertThatThrownBy(e::execute).hasMessage("An expiration time is required");
    assertThat(rows(t)).containsExactly("2000-01-01/0");

    Table flat =
        TestTables.create(
            TestTables.catalog(dir),
            "flat",
            Schema.newBuilder().column("id", DataTypes.BIGINT()).build());
    assertThatThrownBy(() -> new ExpirePartitions(flat))
        .hasMessage("db.flat is not partitioned: it has no partition to expire");
  }

  /**
   * The procedure drops what its arguments choose and nothing more, also on a table whose writers
   * expire partitions after every commit ({@code partition.expiration-time}): its drop is no commit
   * of rows, so it runs no automatic check. Formatter and pattern not given are the table's.
   */
  @Test
  void theProcedureDropsOnlyWhatItsArgumentsChoose() throws Exception {
    ManualClock clock = clock();
    Table t = table("auto", clock);
    List<GenericRowData> rows = new ArrayList<>();
    for (int d = 1; d <= 4; d++) {
      rows.add(row(d, "202405" + (10 + d), 1));
    }
    TestTables.writeBatch(t, rows);
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    catalog.alterTable(
        new Identifier("db", "auto"),
        List.of(
            SchemaChange.setOption("partition.expiration-time", "1 d"),
            SchemaChange.setOption("partition.expiration-check-interval", "0 s"),
            SchemaChange.setOption("partition.timestamp-formatter", "yyyyMMdd")));
    t = catalog.getTable(new Identifier("db", "auto"));

    assertThat(new ExpirePartitions(t).expirationTime(Duration.ofDays(30)).maxExpires(1).execute())
        .containsExactly("dt=20240511/hh=1");
    assertThat(rows(t)).containsExactly("20240512/1", "20240513/1", "20240514/1");
  }
}
