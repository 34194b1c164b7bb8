package io.sediment.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code partition.expiration-time} (Paimon's option): a table's committers drop the partitions
 * older than it after their commits, when a check is due ({@code
 * partition.expiration-check-interval} since the committer started or last checked; a batch commit
 * with {@code end-input.check-partition-expire}), at most {@code partition.expiration-max-num} of
 * them, the oldest first; a failed check never fails the commit and is retried.
 */
class AutomaticPartitionExpiryTest {

  private static final LocalDateTime NOW = LocalDateTime.of(2024, 6, 15, 12, 0);
  private static final ZoneId ZONE = ZoneId.systemDefault();

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private static ManualClock clock() {
    return new ManualClock(NOW.atZone(ZONE).toInstant());
  }

  /** {@code (id BIGINT, dt STRING, v INT)} partitioned by dt; primary key (id, dt) if asked. */
  private static Schema schema(boolean primaryKey, Map<String, String> options) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("dt", DataTypes.STRING().notNull())
            .column("v", DataTypes.INT())
            .partitionKeys("dt");
    if (primaryKey) {
      b.primaryKey("id", "dt").option("bucket", "1");
    }
    options.forEach(b::option);
    return b.build();
  }

  private static RowData row(long id, String dt, int v) {
    return GenericRowData.of(id, StringData.fromString(dt), v);
  }

  /** The table's rows as {@code id@dt=v}, sorted. */
  private static List<String> rows(Table t) {
    List<String> out = new ArrayList<>();
    for (RowData r : TestTables.readAll(t)) {
      out.add(r.getLong(0) + "@" + r.getString(1) + "=" + r.getInt(2));
    }
    out.sort(null);
    return out;
  }

  private static long overwrites(Table t) {
    return t.snapshotManager().listIds().stream()
        .map(t.snapshotManager()::snapshot)
        .map(Snapshot::commitKind)
        .filter(CommitKind.OVERWRITE::equals)
        .count();
  }

  /**
   * Generated histories (seeds): a streaming writer and, now and then, a batch writer commit rows
   * into days around a moving clock, on append and primary-key tables, with either strategy, an
   * expiration of 1–4 days, check intervals of 0, 1, 6 and 24 hours, a few maximum counts, both
   * formats and with or without the end-of-input check, with snapshot expiry running after the
   * drops. A model of the rules says after every commit which partitions are left and whether an
   * OVERWRITE snapshot dropped some; the table must hold exactly the model's rows.
   */
  @Test
  void committersDropExactlyThePartitionsTheRulesExpire() {
    int drops = 0;
    int cappedDrops = 0;
    for (int seed = 0; seed < 16; seed++) {
      int[] counts = history(seed);
      drops += counts[0];
      cappedDrops += counts[1];
    }
    // the histories reach what they claim to cover
    assertThat(drops).isGreaterThan(40);
    assertThat(cappedDrops).isGreaterThan(3);
  }

  /** One history; returns {drops, drops that max-num cut short}. */
  private int[] history(int seed) {
    Random rnd = new Random(seed);
    ManualClock clock = clock();
    int expirationDays = 1 + rnd.nextInt(4);
    long intervalHours = new long[] {0, 1, 6, 24}[rnd.nextInt(4)];
    boolean updateTime = rnd.nextInt(3) == 0;
    // update-time partitions written by one commit share a time: no cut among them
    int maxNum = updateTime ? 100 : new int[] {1, 2, 100}[rnd.nextInt(3)];
    boolean compactFormat = rnd.nextBoolean();
    boolean endInput = rnd.nextBoolean();
    boolean primaryKey = rnd.nextBoolean();
    Map<String, String> options = new HashMap<>();
    options.put("partition.expiration-time", expirationDays + " d");
    options.put("partition.expiration-check-interval", intervalHours + " h");
    options.put("partition.expiration-max-num", String.valueOf(maxNum));
    options.put("partition.expiration-strategy", updateTime ? "update-time" : "values-time");
    options.put("end-input.check-partition-expire", String.valueOf(endInput));
    if (compactFormat) {
      options.put("partition.timestamp-formatter", "yyyyMMdd");
    }
    String what =
        "seed "
            + seed
            + ": "
            + options
            + (primaryKey ? ", primary key" : ", append")
            + (compactFormat ? "" : ", default format");
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed)).withClock(clock);
    Table t = TestTables.create(catalog, "t", schema(primaryKey, options));
    DateTimeFormatter format =
        compactFormat ? DateTimeFormatter.BASIC_ISO_DATE : DateTimeFormatter.ISO_LOCAL_DATE;

    WriteBuilder stream = t.newStreamWriteBuilder();
    TableCommit streamCommit = stream.newCommit();
    long lastCheck = clock.millis();
    Map<String, String> model = new TreeMap<>(); // id@dt -> v
    Map<String, Long> updated = new HashMap<>(); // dt -> newest file's creation time
    int drops = 0;
    int capped = 0;
    for (int step = 0; step < 16; step++) {
      clock.advance(Duration.ofHours(rnd.nextInt(30)));
      long now = clock.millis();
      LocalDate today = LocalDateTime.ofInstant(clock.instant(), ZONE).toLocalDate();
      List<RowData> batch = new ArrayList<>();
      for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
        String dt = rnd.nextInt(12) == 0 ? "none" : today.minusDays(rnd.nextInt(8)).format(format);
        long id = primaryKey ? rnd.nextInt(6) : step * 10L + i;
        batch.add(row(id, dt, step));
        model.put(id + "@" + dt, String.valueOf(step));
        updated.put(dt, now);
      }
      boolean due;
      boolean dropped = false;
      if (rnd.nextInt(4) == 0) {
        WriteBuilder wb = t.newBatchWriteBuilder();
        wb.newCommit().commit(TestTables.prepare(wb, batch));
        due = intervalHours == 0 || endInput; // a new committer: its interval starts now
      } else {
        streamCommit.commit(step, TestTables.prepare(stream, batch));
        due = intervalHours == 0 || now - lastCheck > Duration.ofHours(intervalHours).toMillis();
        if (due) {
          lastCheck = now;
        }
      }
      if (due) {
        long cutoff = now - Duration.ofDays(expirationDays).toMillis();
        List<String> expired = new ArrayList<>();
        for (String dt : new TreeSet<>(updated.keySet())) {
          Long time = updateTime ? updated.get(dt) : valuesTime(dt, format);
          if (time != null && time < cutoff) {
            expired.add(dt);
          }
        }
        expired.sort(
            Comparator.comparing(dt -> updateTime ? updated.get(dt) : valuesTime(dt, format)));
        dropped = !expired.isEmpty();
        if (dropped) {
          drops++;
          capped += expired.size() > maxNum ? 1 : 0;
        }
        for (String dt : expired.subList(0, Math.min(maxNum, expired.size()))) {
          updated.remove(dt);
          model.keySet().removeIf(k -> k.endsWith("@" + dt));
        }
      }
      List<String> expected = new ArrayList<>();
      model.forEach((k, v) -> expected.add(k + "=" + v));
      expected.sort(null);
      assertThat(rows(t)).as(what + ", step " + step).isEqualTo(expected);
      // a drop is its own OVERWRITE snapshot after the commit (older ones may be expired by now)
      assertThat(t.latestSnapshot().orElseThrow().commitKind() == CommitKind.OVERWRITE)
          .as(what + ", step " + step)
          .isEqualTo(dropped);
    }
    assertThat(streamCommit.failures()).as(what).isEqualTo(AfterCommitMaintenance.Failures.NONE);
    return new int[] {drops, capped};
  }

  private static Long valuesTime(String dt, DateTimeFormatter format) {
    if (dt.equals("none")) {
      return null;
    }
    return LocalDate.parse(dt, format).atStartOfDay(ZONE).toInstant().toEpochMilli();
  }

  /**
   * A check that fails (here: the drop's snapshot cannot be written) leaves the commit standing and
   * counts as an expiry failure; like any check it waits for the next interval, whose check drops
   * the partition.
   */
  @Test
  void aFailedCheckNeverFailsTheCommitAndIsRetriedAnIntervalLater() {
    ManualClock clock = clock();
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir).withClock(clock);
    Table t =
        TestTables.create(
            catalog,
            "t",
            schema(
                false,
                Map.of(
                    "partition.expiration-time", "1 d",
                    "partition.expiration-check-interval", "1 h")));
    WriteBuilder stream = t.newStreamWriteBuilder();
    TableCommit commit = stream.newCommit();
    clock.advance(Duration.ofHours(2));
    FaultyFileSystem.failCreate(p -> p.contains("/snapshot/.snapshot-2."));
    List<Long> ids = commit.commit(1, TestTables.prepare(stream, List.of(row(1, "2024-06-01", 1))));
    assertThat(ids).containsExactly(1L);
    assertThat(commit.failures()).isEqualTo(new AfterCommitMaintenance.Failures(0, 1, 0));
    assertThat(rows(t)).containsExactly("1@2024-06-01=1");

    FaultyFileSystem.reset();
    commit.commit(2, TestTables.prepare(stream, List.of(row(2, "2024-06-15", 2))));
    assertThat(rows(t)).as("not due yet").containsExactly("1@2024-06-01=1", "2@2024-06-15=2");

    clock.advance(Duration.ofHours(2));
    commit.commit(3, TestTables.prepare(stream, List.of(row(3, "2024-06-15", 3))));
    assertThat(rows(t)).containsExactly("2@2024-06-15=2", "3@2024-06-15=3");
    assertThat(overwrites(t)).isEqualTo(1);
    assertThat(commit.failures()).isEqualTo(new AfterCommitMaintenance.Failures(0, 1, 0));
  }

  /**
   * An expiry by update time decided on one snapshot, and a row committed into the partition before
   * its drop landed (a retried attempt builds on it): the drop conflicts instead of deleting that
   * file with the partition (it deleted the row of a commit that had returned). The next expiry
   * decides anew: the partition is in use again.
   */
  @Test
  void anUpdateTimeDropConflictsWithARowWrittenSinceItDecided() {
    ManualClock clock = clock();
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir).withClock(clock);
    Table t = TestTables.create(catalog, "t", schema(true, Map.of()));
    TestTables.writeBatch(t, List.of(row(1, "2024-06-01", 1)));
    clock.advance(Duration.ofDays(8));
    java.util.concurrent.atomic.AtomicBoolean raced =
        new java.util.concurrent.atomic.AtomicBoolean();
    FaultyFileSystem.onCreate(
        p -> {
          // the drop's first attempt stages snapshot 2: a writer commits it first
          if (p.contains("/snapshot/.snapshot-2.") && raced.compareAndSet(false, true)) {
            TestTables.writeBatch(t, List.of(row(2, "2024-06-01", 2)));
          }
        });
    io.sediment.maintenance.ExpirePartitions expire =
        new io.sediment.maintenance.ExpirePartitions(t)
            .expirationTime(Duration.ofDays(7))
            .strategy("update-time");
    org.assertj.core.api.Assertions.assertThatThrownBy(expire::execute)
        .isInstanceOf(io.sediment.commit.CommitConflictException.class)
        .hasMessageContaining("would replace a file written since it decided");
    FaultyFileSystem.reset();
    assertThat(raced).isTrue();
    assertThat(rows(t)).containsExactly("1@2024-06-01=1", "2@2024-06-01=2");
    assertThat(expire.execute()).as("in use again: not expired").isEmpty();
  }

  /**
   * A bounded streaming input ends with a commit of the batch identifier: with {@code
   * end-input.check-partition-expire} it checks then, as a batch commit does, not before.
   */
  @Test
  void theEndOfABoundedStreamingInputChecksWithTheEndOfInputOption() {
    Table t =
        TestTables.create(
            TestTables.catalog(dir).withClock(clock()),
            "t",
            schema(
                false,
                Map.of(
                    "partition.expiration-time", "1 d",
                    "end-input.check-partition-expire", "true")));
    WriteBuilder stream = t.newStreamWriteBuilder();
    TableCommit commit = stream.newCommit();
    commit.commit(1, TestTables.prepare(stream, List.of(row(1, "2024-06-01", 1))));
    assertThat(rows(t)).containsExactly("1@2024-06-01=1");
    commit.commit(
        TableCommit.BATCH_IDENTIFIER, TestTables.prepare(stream, List.of(row(2, "2024-06-15", 2))));
    assertThat(rows(t)).containsExactly("2@2024-06-15=2");
  }

  /**
   * Durations and partition times beyond what epoch milliseconds hold never fail a commit: an
   * interval or expiration that large never comes, a partition of year 999999999 has no time and is
   * kept, and the others expire as usual.
   */
  @Test
  void durationsAndTimesBeyondTheRangeOfMillisAreNeverReached() {
    ManualClock clock = clock();
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    Table huge =
        TestTables.create(
            catalog,
            "huge",
            schema(
                false,
                Map.of(
                    "partition.expiration-time", "200000000000 d",
                    "partition.expiration-check-interval", "200000000000 d",
                    "end-input.check-partition-expire", "true")));
    WriteBuilder wb = huge.newBatchWriteBuilder();
    TableCommit commit = wb.newCommit();
    commit.commit(TestTables.prepare(wb, List.of(row(1, "2000-01-01", 1))));
    assertThat(commit.failures()).isEqualTo(AfterCommitMaintenance.Failures.NONE);
    assertThat(rows(huge)).containsExactly("1@2000-01-01=1");

    Table far =
        TestTables.create(
            catalog,
            "far",
            schema(
                false,
                Map.of(
                    "partition.expiration-time", "1 d",
                    "partition.expiration-check-interval", "0 s")));
    wb = far.newBatchWriteBuilder();
    commit = wb.newCommit();
    commit.commit(
        TestTables.prepare(wb, List.of(row(1, "999999999-01-01", 1), row(2, "2000-01-01", 2))));
    assertThat(commit.failures()).isEqualTo(AfterCommitMaintenance.Failures.NONE);
    assertThat(rows(far)).containsExactly("1@999999999-01-01=1");
  }

  /**
   * A write-only table's writers leave expiry to its compaction, as Paimon's do: the batch
   * compaction drops the expired partition (its end-of-input check; the hourly interval has not
   * passed), its writers never do.
   */
  @Test
  void aWriteOnlyTablesCompactionExpiresItsPartitions() throws Exception {
    ManualClock clock = clock();
    Table t =
        TestTables.create(
            TestTables.catalog(dir).withClock(clock),
            "t",
            schema(
                false,
                Map.of(
                    "write-only", "true",
                    "partition.expiration-time", "1 d",
                    "end-input.check-partition-expire", "true",
                    "compaction.min.file-num", "2")));
    for (int i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "2024-06-01", i), row(10 + i, "2024-06-15", i)));
    }
    assertThat(rows(t)).hasSize(6); // the writers dropped nothing
    t.newCompactBuilder().execute();
    assertThat(rows(t)).containsExactly("10@2024-06-15=0", "11@2024-06-15=1", "12@2024-06-15=2");
    assertThat(overwrites(t)).isEqualTo(1);
  }

  /**
   * Bad options are refused when a table is created or altered and as dynamic options, naming the
   * option.
   */
  @Test
  void badOptionsAreRefusedNamingTheOption() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "u",
                    TestTables.idValueSchema().option("partition.expiration-time", "1 d").build()))
        .hasMessageContaining("'partition.expiration-time' applies only to partitioned tables");
    Map<Map<String, String>, String> refused =
        Map.of(
            Map.of("partition.timestamp-pattern", "$dt $hh"),
            "Option 'partition.timestamp-pattern': '$dt $hh' names $hh, which is not a partition"
                + " column; partition columns are [dt]",
            Map.of("partition.timestamp-formatter", "yyyyMMdd{"),
            "Option 'partition.timestamp-formatter': 'yyyyMMdd{' is not a date-time pattern",
            Map.of("partition.expiration-strategy", "oldest"),
            "'partition.expiration-strategy'",
            Map.of("partition.expiration-time", "0 s"),
            "'partition.expiration-time'",
            Map.of("partition.expiration-max-num", "0"),
            "'partition.expiration-max-num'",
            Map.of("partition.expiration-check-interval", "-1 h"),
            "'partition.expiration-check-interval'");
    Table t = TestTables.create(catalog, "t", schema(false, Map.of()));
    Identifier id = new Identifier("db", "t");
    refused.forEach(
        (options, message) -> {
          assertThatThrownBy(() -> TestTables.create(catalog, "x", schema(false, options)))
              .as("%s", options)
              .hasMessageContaining(message);
          assertThat(catalog.tableExists(new Identifier("db", "x"))).isFalse();
          List<SchemaChange> changes = new ArrayList<>();
          options.forEach((k, v) -> changes.add(SchemaChange.setOption(k, v)));
          assertThatThrownBy(() -> catalog.alterTable(id, changes))
              .as("%s", options)
              .hasMessageContaining(message);
        });
    assertThat(catalog.getTable(id).schema().id()).isEqualTo(t.schema().id());
    // dynamic options are checked alike
    assertThatThrownBy(() -> t.copy(Map.of("partition.timestamp-pattern", "$hh")))
        .hasMessageContaining("Option 'partition.timestamp-pattern': '$hh' names $hh");
  }
}
