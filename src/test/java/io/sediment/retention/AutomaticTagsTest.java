package io.sediment.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tag.automatic-creation = process-time} (Paimon's option): the committers tag, once a
 * period has ended (plus {@code tag.creation-delay}), the first snapshot committed after it with
 * the name of the period before the snapshot's own; a table without automatic tags gets one on its
 * first snapshot; {@code tag.num-retained-max} deletes the oldest automatic tags, never the others.
 */
class AutomaticTagsTest {

  private static final LocalDateTime NOW = LocalDateTime.of(2024, 6, 15, 12, 0);
  private static final ZoneId ZONE = ZoneId.systemDefault();

  @TempDir Path dir;

  private static ManualClock clock() {
    return new ManualClock(NOW.atZone(ZONE).toInstant());
  }

  private static Schema schema(Map<String, String> options) {
    Schema.Builder b =
        Schema.newBuilder().column("id", DataTypes.BIGINT()).column("s", DataTypes.STRING());
    options.forEach(b::option);
    return b.build();
  }

  private static RowData row(long id) {
    return GenericRowData.of(id, StringData.fromString("r" + id));
  }

  /** The model's period start of {@code t}: midnight, the hour, or the even hour. */
  private static LocalDateTime periodStart(LocalDateTime t, String period) {
    return switch (period) {
      case "daily" -> t.truncatedTo(ChronoUnit.DAYS);
      case "hourly" -> t.truncatedTo(ChronoUnit.HOURS);
      default -> t.truncatedTo(ChronoUnit.HOURS).minusHours(t.getHour() % 2);
    };
  }

  private static Duration length(String period) {
    return switch (period) {
      case "daily" -> Duration.ofDays(1);
      case "hourly" -> Duration.ofHours(1);
      default -> Duration.ofHours(2);
    };
  }

  private static DateTimeFormatter names(String period, String formatter) {
    if (period.equals("daily")) {
      return DateTimeFormatter.ofPattern(
          formatter.equals("with_dashes") ? "yyyy-MM-dd" : "yyyyMMdd");
    }
    if (period.equals("two-hours") || formatter.equals("with_dashes")) {
      return DateTimeFormatter.ofPattern("yyyy-MM-dd HH");
    }
    return DateTimeFormatter.ofPattern(
        formatter.equals("without_dashes") ? "yyyyMMdd HH" : "yyyyMMddHH");
  }

  /**
   * Generated histories (seeds): a streaming writer and, now and then, a new batch writer commit
   * while the clock moves by minutes to a day, for each period, several delays and formatters, with
   * and without {@code tag.num-retained-max}, and a tag made by hand. A model of the rules, run
   * over the snapshots in order, says after every commit which tags exist and which snapshot each
   * keeps; at the end every tag reads the rows its snapshot had, although snapshot expiry retired
   * most of those snapshots.
   */
  @Test
  void committersTagTheFirstSnapshotAfterEachPeriodAsTheRulesSay() {
    int made = 0;
    int deleted = 0;
    for (int seed = 0; seed < 12; seed++) {
      int[] counts = history(seed, false);
      made += counts[0];
      deleted += counts[1];
    }
    assertThat(made).isGreaterThan(60);
    assertThat(deleted).isGreaterThan(10);
  }

  /**
   * {@code tag.automatic-creation = watermark}: the same generated histories, but the commits
   * record watermarks (none at first, then event times that jump ahead, stand still, or come lower
   * than the table's, which keeps its own), read in a random {@code sink.watermark-time-zone}. The
   * model runs the rules over the snapshots' watermarks, as local times in that zone, instead of
   * their commit times, passing over snapshots without one.
   */
  @Test
  void byWatermarkTheSnapshotsWatermarksDecide() {
    int made = 0;
    for (int seed = 100; seed < 110; seed++) {
      made += history(seed, true)[0];
    }
    assertThat(made).isGreaterThan(40);
  }

  /** One history; returns {tags made, tags deleted by the maximum}. */
  private int[] history(int seed, boolean byWatermark) {
    Random rnd = new Random(seed);
    String period = List.of("daily", "hourly", "two-hours").get(rnd.nextInt(3));
    String formatter =
        List.of("with_dashes", "without_dashes", "without_dashes_and_spaces").get(rnd.nextInt(3));
    Duration delay = rnd.nextBoolean() ? Duration.ZERO : Duration.ofMinutes(10 + rnd.nextInt(40));
    Integer max = rnd.nextBoolean() ? null : 1 + rnd.nextInt(3);
    Map<String, String> options = new HashMap<>();
    options.put("tag.automatic-creation", byWatermark ? "watermark" : "process-time");
    ZoneId zone = ZoneId.of(List.of("UTC", "Asia/Shanghai", "GMT-08:00").get(rnd.nextInt(3)));
    if (byWatermark) {
      options.put("sink.watermark-time-zone", zone.getId());
    }
    options.put("tag.creation-period", period);
    options.put("tag.period-formatter", formatter);
    options.put("tag.creation-delay", delay.toMinutes() + " min");
    options.put("snapshot.num-retained.min", "2");
    if (max != null) {
      options.put("tag.num-retained-max", String.valueOf(max));
    }
    String what = "seed " + seed + ": " + options;
    ManualClock clock = clock();
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed)).withClock(clock);
    Table t = TestTables.create(catalog, "t", schema(options));
    DateTimeFormatter names = names(period, formatter);
    long minutes = length(period).toMinutes();

    WriteBuilder stream = t.newStreamWriteBuilder();
    TableCommit streamCommit = stream.newCommit();
    Map<String, Long> expected = new LinkedHashMap<>(); // automatic tag -> snapshot
    Map<Long, Integer> rowsAt = new HashMap<>();
    LocalDateTime nextTag = null;
    Long tableWatermark = null; // the largest a commit recorded
    long eventTime = NOW.atZone(ZONE).toInstant().toEpochMilli() - Duration.ofDays(3).toMillis();
    int rows = 0;
    int made = 0;
    int deleted = 0;
    for (int step = 0; step < 24; step++) {
      clock.advance(
          Duration.ofMinutes(
              rnd.nextInt(4) == 0 ? rnd.nextInt(3 * (int) minutes) : rnd.nextInt(40)));
      LocalDateTime now = LocalDateTime.ofInstant(clock.instant(), ZONE);
      Long watermark = null;
      if (byWatermark && step >= 2 && rnd.nextInt(5) != 0) {
        eventTime += Duration.ofMinutes(rnd.nextInt(3 * (int) minutes)).toMillis();
        watermark = rnd.nextInt(6) == 0 ? eventTime - Duration.ofDays(1).toMillis() : eventTime;
      }
      List<RowData> batch = List.of(row(step * 2L), row(step * 2L + 1));
      List<Long> ids;
      if (rnd.nextInt(4) == 0) {
        WriteBuilder wb = t.newBatchWriteBuilder();
        ids = wb.newCommit().commit(TestTables.prepare(wb, batch), watermark);
      } else {
        ids = streamCommit.commit(step, TestTables.prepare(stream, batch), watermark);
      }
      if (watermark != null) {
        tableWatermark = tableWatermark == null ? watermark : Math.max(tableWatermark, watermark);
      }
      rows += batch.size();
      for (long id : ids) {
        rowsAt.put(id, rows);
        assertThat(t.snapshotManager().snapshot(id).watermark())
            .as(what + ", watermark of snapshot " + id)
            .isEqualTo(tableWatermark);
        // the model: is the snapshot (committed now, or of this watermark) the next period's?
        LocalDateTime time =
            !byWatermark
                ? now
                : tableWatermark == null
                    ? null
                    : LocalDateTime.ofInstant(java.time.Instant.ofEpochMilli(tableWatermark), zone);
        if (time == null) {
          continue; // no watermark yet: passed over
        }
        if (nextTag == null || !time.minus(delay).isBefore(nextTag.plus(length(period)))) {
          LocalDateTime tagStart = periodStart(time, period).minus(length(period));
          String name = tagStart.format(names);
          if (!expected.containsKey(name)) {
            expected.put(name, id);
            made++;
          }
          nextTag = tagStart.plus(length(period));
          while (max != null && expected.size() > max) {
            expected.remove(expected.keySet().iterator().next());
            deleted++;
          }
        }
      }
      if (step == 5) {
        new Tags(t).create("by-hand", java.util.OptionalLong.empty()); // never counted or deleted
      }
      Map<String, Long> actual = new TreeMap<>();
      for (TagManager.Tag tag : new Tags(t).all().values()) {
        actual.put(tag.name(), tag.snapshot().id());
      }
      Map<String, Long> want = new TreeMap<>(expected);
      if (step >= 5) {
        want.put("by-hand", actual.get("by-hand"));
        assertThat(actual).as(what + ", step " + step).containsKey("by-hand");
      }
      assertThat(actual).as(what + ", step " + step + " at " + now).isEqualTo(want);
    }
    assertThat(streamCommit.failures()).as(what).isEqualTo(AfterCommitMaintenance.Failures.NONE);
    for (Map.Entry<String, Long> tag : expected.entrySet()) {
      Table atTag = t.copy(Map.of("scan.tag-name", tag.getKey()));
      assertThat(TestTables.readAll(atTag))
          .as(what + ", tag " + tag.getKey())
          .hasSize(rowsAt.get(tag.getValue()));
    }
    return new int[] {made, deleted};
  }

  /**
   * An hourly tag is named with a space ({@code 2024-06-15 11}), and a daily one without dashes
   * with digits only ({@code 20240615}), as in Paimon: they read and delete like any tag. Paimon's
   * batch creation, a delay of a whole period and an unknown watermark time zone are refused,
   * naming the option.
   */
  @Test
  void hourlyTagsHaveASpaceAndBadOptionsAreRefused() {
    ManualClock clock = clock();
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    Table t =
        TestTables.create(
            catalog,
            "t",
            schema(
                Map.of("tag.automatic-creation", "process-time", "tag.creation-period", "hourly")));
    TestTables.writeBatch(t, List.of(row(1)));
    clock.advance(Duration.ofMinutes(61));
    TestTables.writeBatch(t, List.of(row(2)));
    assertThat(new Tags(t).all().keySet()).containsExactly("2024-06-15 11", "2024-06-15 12");
    assertThat(TestTables.readAll(t.copy(Map.of("scan.tag-name", "2024-06-15 12")))).hasSize(2);
    new Tags(t).delete(List.of("2024-06-15 11"));
    assertThat(new Tags(t).all().keySet()).containsExactly("2024-06-15 12");

    // daily tags without dashes are digits only: made automatically and deleted like any tag,
    // though a tag made by hand cannot have such a name (it would read as a snapshot id)
    Table digits =
        TestTables.create(
            catalog,
            "digits",
            schema(
                Map.of(
                    "tag.automatic-creation", "process-time",
                    "tag.period-formatter", "without_dashes")));
    TestTables.writeBatch(digits, List.of(row(1)));
    assertThat(new Tags(digits).all().keySet()).containsExactly("20240614");
    assertThatThrownBy(() -> new Tags(digits).create("20240616", java.util.OptionalLong.empty()))
        .hasMessageContaining("a tag name of digits only reads as a snapshot id");
    new Tags(digits).delete(List.of("20240614"));
    assertThat(new Tags(digits).all()).isEmpty();

    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog, "w", schema(Map.of("tag.automatic-creation", "event-time"))))
        .hasMessageContaining("'tag.automatic-creation'")
        .hasMessageContaining("allowed: [none, process-time, watermark, batch]");
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog, "z", schema(Map.of("sink.watermark-time-zone", "Mars/Olympus"))))
        .hasMessageContaining("'sink.watermark-time-zone'")
        .hasMessageContaining("must be a time zone id such as 'UTC'");
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "d",
                    schema(
                        Map.of("tag.creation-period", "hourly", "tag.creation-delay", "60 min"))))
        .hasMessageContaining(
            "'tag.creation-delay': must be shorter than one tag.creation-period (hourly)");
  }

  /**
   * Automatic tags with a retention ({@code tag.default-time-retained}) shorter than the tags live:
   * each is deleted once its time ran out, and once none is left a new committer, which starts at
   * the earliest snapshot, does not make again the tags of periods whose tag would be gone by now
   * (before, it re-made them with a fresh retention, again and again).
   */
  @Test
  void expiredAutomaticTagsAreNotMadeAgain() {
    LocalDateTime day1 = LocalDateTime.of(2026, 6, 1, 0, 0);
    ManualClock clock = new ManualClock(day1.plusHours(10).atZone(ZONE).toInstant());
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("retained")).withClock(clock);
    Map<String, String> options = new HashMap<>();
    options.put("tag.automatic-creation", "process-time");
    options.put("tag.default-time-retained", "12 h");
    Table t = TestTables.create(catalog, "t", schema(options));
    Tags tags = new Tags(t);
    long[] id = {0};
    java.util.function.Consumer<LocalDateTime> commitAt =
        time -> {
          clock.set(time.atZone(ZONE).toInstant().toEpochMilli());
          TestTables.writeBatch(t, List.of(row(id[0]++))); // a new committer each time
        };
    commitAt.accept(day1.plusHours(10)); // the earliest snapshot gets the day before's tag
    assertThat(tags.all().keySet()).containsExactly("2026-05-31");
    commitAt.accept(day1.plusHours(21)); // made at 10:00, kept until 22:00
    assertThat(tags.all().keySet()).containsExactly("2026-05-31");
    commitAt.accept(day1.plusHours(25)); // day 1's tag made; the day before's expired
    assertThat(tags.all().keySet()).containsExactly("2026-06-01");
    commitAt.accept(day1.plusHours(38)); // made at 01:00: its time ran out at 13:00
    assertThat(tags.all()).isEmpty();
    commitAt.accept(day1.plusHours(39));
    commitAt.accept(day1.plusHours(40));
    assertThat(tags.all()).as("no expired period tagged again").isEmpty();
    commitAt.accept(day1.plusHours(49)); // day 2 ended: its tag is made, kept until 13:00
    assertThat(tags.all().keySet()).containsExactly("2026-06-02");
  }

  /**
   * By watermark with a retention: a backfill of old event times is tagged (a tag is kept from when
   * it is made, not from its period), the tags expire on the committers' clock, and once every one
   * expired, new committers that start at the earliest snapshot do not make them again.
   */
  @Test
  void watermarkTagsOfOldEventTimesAreMadeAndNotMadeAgainOnceExpired() {
    LocalDateTime now = LocalDateTime.of(2026, 6, 1, 10, 0);
    ManualClock clock = new ManualClock(now.atZone(ZONE).toInstant());
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("backfill")).withClock(clock);
    Map<String, String> options = new HashMap<>();
    options.put("tag.automatic-creation", "watermark");
    options.put("tag.default-time-retained", "12 h");
    Table t = TestTables.create(catalog, "t", schema(options));
    Tags tags = new Tags(t);
    long[] id = {0};
    java.util.function.BiConsumer<LocalDateTime, LocalDateTime> commit =
        (wallTime, eventTime) -> {
          clock.set(wallTime.atZone(ZONE).toInstant().toEpochMilli());
          WriteBuilder wb = t.newBatchWriteBuilder(); // a new committer each time
          wb.newCommit()
              .commit(
                  TestTables.prepare(wb, List.of(row(id[0]++))),
                  eventTime.toInstant(java.time.ZoneOffset.UTC).toEpochMilli());
        };
    LocalDateTime events = LocalDateTime.of(2020, 3, 1, 12, 0); // a backfill of 2020
    commit.accept(now, events); // the first snapshot with a watermark: the day before's tag
    commit.accept(now.plusMinutes(1), events.plusDays(1));
    commit.accept(now.plusMinutes(2), events.plusDays(2));
    assertThat(tags.all().keySet()).containsExactly("2020-02-29", "2020-03-01", "2020-03-02");
    commit.accept(now.plusHours(13), events.plusDays(2).plusHours(1)); // all three ran out
    assertThat(tags.all()).isEmpty();
    commit.accept(now.plusHours(14), events.plusDays(2).plusHours(2));
    assertThat(tags.all()).as("no expired period tagged again").isEmpty();
    commit.accept(now.plusHours(15), events.plusDays(3)); // 2020-03-03 ended: tagged
    assertThat(tags.all().keySet()).containsExactly("2020-03-03");
  }
}
