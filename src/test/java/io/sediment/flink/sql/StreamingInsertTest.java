package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.StreamingJobs.FailOnce;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Streaming INSERT with checkpoints, a failure after a committed checkpoint, and a restore; the
 * watermarks it records.
 */
class StreamingInsertTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path warehouse;

  @Test
  void exactlyOnceAcrossAFailover() throws Exception {
    long n = 600;
    FailOnce.reset(true);
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 100);
    StreamTableEnvironment tEnv = tableEnvironment(env);
    tEnv.executeSql("CREATE TABLE c.db.s (id BIGINT, p INT)");

    DataStream<Long> ids =
        idsWithoutWatermarks(env, n, 400).map(new FailOnce<Long>()).returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    tEnv.executeSql("INSERT INTO c.db.s SELECT f0, CAST(f0 % 3 AS INT) FROM ids").await();

    assertThat(FailOnce.FAILED).isTrue();
    Table table = new FileSystemCatalog(warehouse.toString()).getTable("db.s");
    List<RowData> rows = TestTables.readAll(table);
    Set<Long> seen = new HashSet<>();
    for (RowData r : rows) {
      assertThat(seen.add(r.getLong(0))).as("duplicate id %s", r.getLong(0)).isTrue();
    }
    assertThat(rows).hasSize((int) n);
    assertThat(seen).hasSize((int) n);
    List<Long> snapshotIds = table.snapshotManager().listIds();
    assertThat(snapshotIds.size())
        .isGreaterThan(1); // one commit per checkpoint, not one at the end
    for (long id : snapshotIds) {
      Snapshot s = table.snapshotManager().snapshot(id);
      assertThat(s.commitKind()).isEqualTo(CommitKind.APPEND);
      assertThat(s.commitUser())
          .isEqualTo(table.snapshotManager().snapshot(snapshotIds.get(0)).commitUser());
    }
  }

  /**
   * A streaming INSERT whose input has event-time watermarks (one minute of event time per row):
   * every snapshot records a watermark, they never decrease, and each snapshot holds every row
   * whose event time is at or before its watermark (the writers flushed those rows before that
   * checkpoint's barrier). With {@code tag.automatic-creation = watermark}, the hourly tags the
   * writer's committer makes each hold every row of their hour and of the hours before.
   */
  @Test
  void snapshotsRecordTheWatermarkAndWatermarkTagsHoldTheirHours() throws Exception {
    long n = 600; // two seconds of input: checkpoints every 100 ms, watermarks every 200 ms
    long minute = 60_000;
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 100);
    StreamTableEnvironment tEnv = tableEnvironment(env);
    tEnv.executeSql(
        "CREATE TABLE c.db.w (id BIGINT) WITH ('tag.automatic-creation' = 'watermark',"
            + " 'tag.creation-period' = 'hourly')");
    DataStream<Long> ids =
        env.fromSource(
            new DataGeneratorSource<>(x -> x, n, RateLimiterStrategy.perSecond(300), Types.LONG),
            WatermarkStrategy.<Long>forMonotonousTimestamps()
                .withTimestampAssigner((id, previous) -> id * minute),
            "ids");
    // the stream's watermarks, as a table source with WATERMARK FOR would give them
    tEnv.createTemporaryView(
        "ids",
        ids,
        org.apache.flink.table.api.Schema.newBuilder()
            .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
            .watermark("rowtime", "SOURCE_WATERMARK()")
            .build());
    tEnv.executeSql("INSERT INTO c.db.w SELECT f0 FROM ids").await();

    Table table = new FileSystemCatalog(warehouse.toString()).getTable("db.w");
    assertThat(TestTables.readAll(table)).hasSize((int) n);
    Long previous = null;
    int withWatermark = 0;
    for (long id : table.snapshotManager().listIds()) {
      Snapshot s = table.snapshotManager().snapshot(id);
      if (s.watermark() == null) {
        assertThat(previous).as("snapshot %s lost the watermark", id).isNull();
        continue;
      }
      withWatermark++;
      assertThat(s.watermark())
          .as("snapshot %s", id)
          .isGreaterThanOrEqualTo(previous == null ? Long.MIN_VALUE : previous);
      assertThat(s.watermark()).isLessThan(n * minute); // the input's end records none
      previous = s.watermark();
      Set<Long> held = ids(table.copy(java.util.Map.of("scan.snapshot-id", "" + id)));
      for (long row = 0; row * minute <= s.watermark(); row++) {
        assertThat(held).as("snapshot %s, watermark %s", id, s.watermark()).contains(row);
      }
    }
    assertThat(withWatermark).isPositive();
    java.util.Map<String, io.sediment.manifest.TagManager.Tag> tags =
        new io.sediment.maintenance.Tags(table).all();
    assertThat(tags).isNotEmpty();
    for (String name : tags.keySet()) {
      // "1970-01-01 02" holds every row before 03:00 (event time, UTC)
      long hourEnd =
          java.time.LocalDateTime.parse(
                          name, java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH"))
                      .toEpochSecond(java.time.ZoneOffset.UTC)
                  * 1000
              + 60 * minute;
      Set<Long> held = ids(table.copy(java.util.Map.of("scan.tag-name", name)));
      for (long row = 0; row * minute < hourEnd; row++) {
        assertThat(held).as("tag %s", name).contains(row);
      }
    }
  }

  /** The rows an INSERT's input emitted (counted after the source, before the sink). */
  static final java.util.concurrent.atomic.AtomicLong EMITTED =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * {@code stop-with-savepoint --drain} of a streaming INSERT: what was left at the end of input is
   * committed when the savepoint (the job's final checkpoint) completes, so every row the input
   * emitted is in the table, once, with the last snapshot under the savepoint's id.
   */
  @Test
  void aDrainingStopCommitsEveryRowWithItsSavepoint() throws Exception {
    EMITTED.set(0);
    StreamExecutionEnvironment env = StreamingJobs.restarting(1, 200);
    StreamTableEnvironment tEnv = tableEnvironment(env);
    tEnv.executeSql("CREATE TABLE c.db.d (id BIGINT)");
    DataStream<Long> ids =
        idsWithoutWatermarks(env, Long.MAX_VALUE, 200)
            .map(
                (org.apache.flink.api.common.functions.MapFunction<Long, Long>)
                    x -> {
                      EMITTED.incrementAndGet();
                      return x;
                    })
            .returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    org.apache.flink.core.execution.JobClient client =
        tEnv.executeSql("INSERT INTO c.db.d SELECT f0 FROM ids").getJobClient().orElseThrow();
    Table table = new FileSystemCatalog(warehouse.toString()).getTable("db.d");
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofMinutes(2))
        .until(() -> table.snapshotManager().latestId().isPresent());
    String savepoint =
        client
            .stopWithSavepoint(
                true,
                warehouse.resolve("savepoints").toUri().toString(),
                org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
            .get();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofMinutes(2))
        .until(() -> client.getJobStatus().get() == org.apache.flink.api.common.JobStatus.FINISHED);

    Set<Long> seen = ids(table);
    assertThat(TestTables.readAll(table)).hasSize(seen.size()); // each row once
    assertThat(seen).hasSize((int) EMITTED.get());
    for (long id = 0; id < EMITTED.get(); id++) {
      assertThat(seen).contains(id);
    }
    assertThat(savepoint).isNotBlank();
    List<Long> snapshotIds = table.snapshotManager().listIds();
    assertThat(
            table
                .snapshotManager()
                .snapshot(snapshotIds.get(snapshotIds.size() - 1))
                .commitIdentifier())
        .as("the rest lands under the savepoint's checkpoint id, not as a batch commit")
        .isLessThan(Long.MAX_VALUE);
  }

  /**
   * A streaming INSERT from a source whose subtasks end apart (here a split of 10 rows and one that
   * goes on, as a bounded source with fewer or uneven splits than subtasks gives): Flink completes
   * checkpoints after the first writer ended (it keeps no union list state), so its last rows and
   * the running writer's are committed while the job runs, not at its end.
   */
  @Test
  void checkpointsGoOnWhileSomeWritersEnded() throws Exception {
    long shortSplit = 10;
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 100);
    StreamTableEnvironment tEnv = tableEnvironment(env);
    tEnv.executeSql("CREATE TABLE c.db.e (id BIGINT)");
    tEnv.createTemporaryView(
        "ids",
        env.fromSource(
            new DataGeneratorSource<>(
                x -> x,
                new UnevenSplits(shortSplit),
                RateLimiterStrategy.perSecond(100),
                Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "ids"));
    org.apache.flink.core.execution.JobClient client =
        tEnv.executeSql("INSERT INTO c.db.e SELECT f0 FROM ids").getJobClient().orElseThrow();
    Table table = new FileSystemCatalog(warehouse.toString()).getTable("db.e");
    try {
      // The long split gives 50 rows a second: 200 of them come two seconds after the short one
      // ended, so only checkpoints completed since then can have committed them.
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofMinutes(2))
          .until(
              () -> {
                Set<Long> seen = ids(table);
                return seen.stream().filter(id -> id < shortSplit).count() == shortSplit
                    && seen.stream().filter(id -> id >= shortSplit).count() >= 200;
              });
      assertThat(client.getJobStatus().get())
          .isEqualTo(org.apache.flink.api.common.JobStatus.RUNNING);
    } finally {
      StreamingJobs.cancelAndWait(client);
    }
    assertThat(TestTables.readAll(table)).hasSize(ids(table).size()); // each row once
  }

  /** Two splits: ids below {@code first}, and every id from there on. */
  private static final class UnevenSplits
      extends org.apache.flink.api.connector.source.lib.NumberSequenceSource {
    private static final long serialVersionUID = 1L;
    private final long first;

    UnevenSplits(long first) {
      super(0, Long.MAX_VALUE - 1);
      this.first = first;
    }

    @Override
    protected List<NumberSequenceSplit> splitNumberRange(long from, long to, int numSplits) {
      return List.of(
          new NumberSequenceSplit("0", from, first - 1), new NumberSequenceSplit("1", first, to));
    }
  }

  /**
   * A streaming INSERT under unaligned checkpoints is refused when it is planned (Paimon's rule).
   */
  @Test
  void unalignedCheckpointsAreRefused() {
    StreamExecutionEnvironment env = StreamingJobs.restarting(1, 100);
    env.getCheckpointConfig().enableUnalignedCheckpoints();
    StreamTableEnvironment tEnv = tableEnvironment(env);
    tEnv.executeSql("CREATE TABLE c.db.u (id BIGINT)");
    tEnv.createTemporaryView(
        "ids",
        env.fromSource(
            new DataGeneratorSource<>(x -> x, 10, Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "ids"));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> tEnv.executeSql("INSERT INTO c.db.u SELECT f0 FROM ids"))
        .hasStackTraceContaining(
            "A streaming write into db.u needs aligned checkpoints, as Paimon's sink does")
        .hasStackTraceContaining("Set execution.checkpointing.unaligned.enabled to false");
    assertThat(new FileSystemCatalog(warehouse.toString()).getTable("db.u").latestSnapshot())
        .isEmpty();
  }

  /** Ids 0, 1, ... {@code n - 1}, {@code perSecond} a second, without watermarks. */
  private static DataStream<Long> idsWithoutWatermarks(
      StreamExecutionEnvironment env, long n, double perSecond) {
    return env.fromSource(
        new DataGeneratorSource<>(x -> x, n, RateLimiterStrategy.perSecond(perSecond), Types.LONG),
        WatermarkStrategy.noWatermarks(),
        "ids");
  }

  /** A table environment of {@code env} with catalog c on the warehouse and its database c.db. */
  private StreamTableEnvironment tableEnvironment(StreamExecutionEnvironment env) {
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    return tEnv;
  }

  private static Set<Long> ids(Table table) {
    Set<Long> out = new HashSet<>();
    for (RowData r : TestTables.readAll(table)) {
      out.add(r.getLong(0));
    }
    return out;
  }
}
