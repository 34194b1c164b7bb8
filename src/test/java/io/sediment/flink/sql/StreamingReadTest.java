package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.flink.CompactJob;
import io.sediment.flink.CompactListener;
import io.sediment.maintenance.Consumers;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.StreamingJobs.FailOnce;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import io.sediment.testutil.WatchedRows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming {@code SELECT} while a writer commits and compactions rewrite the table, with one
 * failover of the reading job: every committed row arrives once (append), the changelog rebuilds
 * the table exactly (primary key), and no COMPACT snapshot adds a row.
 */
class StreamingReadTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerFourSlots();

  @TempDir Path warehouse;

  private StreamTableEnvironment streaming() {
    FailOnce.reset(true);
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 100);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    return tEnv;
  }

  private Table table(String name) {
    return new FileSystemCatalog(warehouse.toString()).getTable("db." + name);
  }

  private WatchedRows stream(StreamTableEnvironment tEnv, String name) throws Exception {
    return stream(tEnv, name, "");
  }

  private WatchedRows stream(StreamTableEnvironment tEnv, String name, String options)
      throws Exception {
    DataStream<Row> rows =
        tEnv.toChangelogStream(
            tEnv.sqlQuery(
                "SELECT * FROM c.db."
                    + name
                    + " /*+ OPTIONS('continuous.discovery-interval' = '50 ms'"
                    + options
                    + ") */"));
    return new WatchedRows(
        rows.map(new FailOnce<Row>()).returns(rows.getType()).executeAndCollect());
  }

  /**
   * A read with a {@code consumer-id} records its position at each checkpoint; expiry keeps the
   * snapshots it still needs, and a new read with the same id resumes there instead of reading the
   * table again.
   */
  @Test
  void aConsumerHoldsBackExpiryAndANewReadResumesWhereItLeftOff() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    FailOnce.reset(false); // no injected failure here
    tEnv.executeSql(
        "CREATE TABLE c.db.r (id BIGINT) WITH ("
            + " 'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '1')");
    Table r = table("r");
    ConsumerManager consumers = new ConsumerManager(r.store().fileIO(), r.store().paths());
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(r, List.of(row(i)));
    }
    List<Long> first = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "r", ", 'consumer-id' = 'reader1'")) {
      TestTables.writeBatch(r, List.of(row(3L)));
      while (first.size() < 4) {
        first.add((Long) it.next().getField(0));
      }
      long after = r.snapshotManager().latestId().getAsLong() + 1;
      await()
          .atMost(Duration.ofMinutes(2))
          .until(() -> consumers.nextSnapshot("reader1").orElse(-1) == after);
    }
    assertThat(first).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    long held = consumers.nextSnapshot("reader1").getAsLong();
    TestTables.writeBatch(r, List.of(row(4L)));
    TestTables.writeBatch(r, List.of(row(5L)));
    assertThat(r.snapshotManager().listIds())
        .as("retain-max 1, but the consumer needs snapshot %s on", held)
        .startsWith(held);
    List<Long> second = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "r", ", 'consumer-id' = 'reader1'")) {
      while (second.size() < 2) {
        second.add((Long) it.next().getField(0));
      }
    }
    assertThat(second)
        .as("only what was committed after the first read")
        .containsExactlyInAnyOrder(4L, 5L);

    // a consumer an operator set (sys.reset_consumer) at the latest snapshot: a read with its id
    // starts there, with that snapshot's rows, then the later commits
    long latest = r.snapshotManager().latestId().getAsLong();
    new Consumers(r).reset("reader2", latest);
    List<Long> third = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "r", ", 'consumer-id' = 'reader2'")) {
      third.add((Long) it.next().getField(0));
      TestTables.writeBatch(r, List.of(row(6L)));
      third.add((Long) it.next().getField(0));
    }
    assertThat(third).as("from snapshot %s on", latest).containsExactly(5L, 6L);

    // a read from a tag: the tag's snapshot in full (read from the tag once expiry retired the
    // snapshot), then the later commits
    long tagged = r.snapshotManager().latestId().getAsLong();
    new Tags(r).create("before 7", OptionalLong.of(tagged));
    new Consumers(r).clear(Pattern.compile(".*"), null); // they no longer hold snapshots back
    TestTables.writeBatch(r, List.of(row(7L)));
    assertThat(r.snapshotManager().snapshotIfExists(tagged)).as("expired").isEmpty();
    List<Long> fromTag = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "r", ", 'scan.tag-name' = 'before 7'")) {
      while (fromTag.size() < 8) {
        fromTag.add((Long) it.next().getField(0));
      }
    }
    assertThat(fromTag).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
  }

  private static void compactFully(Table table) throws Exception {
    table.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
  }

  @Test
  void everyAppendedRowArrivesOnceThroughCompactionsAndAFailover() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql("CREATE TABLE c.db.a (id BIGINT, p INT) PARTITIONED BY (p)");
    Table a = table("a");
    TestTables.writeBatch(a, List.of(row(0L, 0), row(1L, 1)));
    List<Long> ids = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "a")) {
      long id = 2;
      for (int round = 0; round < 12; round++) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < 25; i++, id++) {
          rows.add(row(id, (int) (id % 3)));
        }
        TestTables.writeBatch(a, rows);
        if (round % 3 == 2) {
          compactFully(a);
        }
        if (round == 3) { // rows written after a completed checkpoint meet the injected failure
          await().atMost(Duration.ofMinutes(2)).until(FailOnce.CHECKPOINTED::get);
        }
      }
      // Buckets are read by different readers, in no order between them: read until every id
      // came; a duplicate would show in the list.
      Set<Long> distinct = new HashSet<>();
      while (distinct.size() < id) {
        Row r = it.next();
        assertThat(r.getKind()).isEqualTo(RowKind.INSERT);
        long got = (Long) r.getField(0);
        ids.add(got);
        distinct.add(got);
      }
      assertThat(ids).as("every id once").doesNotHaveDuplicates().hasSize((int) id);
    }
    assertThat(FailOnce.FAILED).as("the injected failure happened").isTrue();
    assertThat(a.snapshotManager().listIds().stream().map(i -> a.snapshotManager().snapshot(i)))
        .extracting(Snapshot::commitKind)
        .contains(CommitKind.COMPACT);
  }

  @Test
  void theChangelogOfAPrimaryKeyTableRebuildsItThroughCompactionsAndAFailover() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.k (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2', 'write-only' = 'true')");
    Table k = table("k");
    Random random = new Random(42);
    TestTables.writeBatch(k, List.of(row(0L, "start")));
    Map<Long, String> view = new TreeMap<>();
    try (WatchedRows it = stream(tEnv, "k")) {
      for (int round = 0; round < 12; round++) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          GenericRowData r = row((long) random.nextInt(30), "v" + round + "." + i);
          if (random.nextInt(6) == 0) {
            r.setRowKind(RowKind.DELETE);
          }
          rows.add(r);
        }
        TestTables.writeBatch(k, rows);
        if (round % 3 == 2) {
          compactFully(k);
        }
        if (round == 3) {
          await().atMost(Duration.ofMinutes(2)).until(FailOnce.CHECKPOINTED::get);
        }
      }
      Map<Long, String> table = new TreeMap<>();
      for (var r : TestTables.readAll(k)) {
        table.put(r.getLong(0), r.getString(1).toString());
      }
      // Buckets are read by different readers: read until the changes rebuilt the table.
      while (!view.equals(table)) {
        Row r = it.next();
        long id = (Long) r.getField(0);
        switch (r.getKind()) {
          case INSERT, UPDATE_AFTER -> view.put(id, (String) r.getField(1));
          case DELETE -> view.remove(id);
          default -> {} // UPDATE_BEFORE: the +U that follows replaces it
        }
      }
    }
    assertThat(FailOnce.FAILED).as("the injected failure happened").isTrue();
  }

  /**
   * The must-show of changelog-producer = lookup: a streaming writer job ({@code GROUP BY} counts,
   * an update stream), the dedicated compaction job (which computes the changelog when it moves the
   * writer's level-0 rows up) and a streaming {@code SELECT} with a consumer run together; expiry
   * runs after every compaction commit and the reader fails over once. The reader gets each change
   * once and in order per key: every -U retracts exactly the value it received last for the key,
   * and the changes applied end at the exact counts.
   */
  @Test
  void aWriterTheCompactionJobAndAReaderOfTheLookupChangelogRunTogether() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.cnt (k BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
            + " 'bucket' = '2', 'changelog-producer' = 'lookup', 'write-only' = 'true',"
            + " 'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '3')");
    Table cnt = table("cnt");
    long n = 2000;
    int keys = 40;
    StreamTableEnvironment writer = writerOf(n);
    JobClient compaction = dedicatedJob("db.cnt", CompactListener.NONE);
    Map<Long, Long> view = new TreeMap<>();
    long changes = 0;
    try (WatchedRows it = stream(tEnv, "cnt", ", 'consumer-id' = 'counts'")) {
      TableResult written =
          writer.executeSql(
              "INSERT INTO c.db.cnt SELECT f0 % "
                  + keys
                  + ", COUNT(*) FROM ids GROUP BY f0 % "
                  + keys);
      it.watching(compaction).watching(written.getJobClient().orElseThrow());
      Map<Long, Long> expected = new TreeMap<>();
      for (long k = 0; k < keys; k++) {
        expected.put(k, n / keys);
      }
      while (!view.equals(expected)) {
        Row r = it.next();
        changes++;
        long k = (Long) r.getField(0);
        long count = (Long) r.getField(1);
        switch (r.getKind()) {
          case INSERT -> {
            assertThat(view).as("+I of a new key %s", k).doesNotContainKey(k);
            view.put(k, count);
          }
          case UPDATE_BEFORE, DELETE -> {
            assertThat(view.get(k))
                .as("%s retracts what was received for %s", r, k)
                .isEqualTo(count);
            view.remove(k);
          }
          case UPDATE_AFTER -> {
            assertThat(view).as("+U of %s follows its -U", k).doesNotContainKey(k);
            assertThat(count).as("counts only grow").isPositive();
            view.put(k, count);
          }
        }
      }
      written.await();
    } finally {
      StreamingJobs.cancelAndWait(compaction);
    }
    assertThat(FailOnce.FAILED).as("the reader failed over once").isTrue();
    assertThat(changes).as("the counts were read as they grew").isGreaterThan(2L * keys);
    List<Snapshot> snapshots = new ArrayList<>();
    for (long id : cnt.snapshotManager().listIds()) {
      snapshots.add(cnt.snapshotManager().snapshot(id));
    }
    assertThat(snapshots.get(0).id()).as("expiry ran during the run").isGreaterThan(1);
    assertThat(TestTables.readAll(cnt)).hasSize(keys);
  }

  /**
   * The same three jobs on an append table: a streaming writer job committing small files at every
   * checkpoint, the dedicated compaction job rewriting them (several COMPACT snapshots) and a
   * streaming {@code SELECT} with a consumer that fails over once: every written row arrives
   * exactly once, while expiry runs after every compaction commit.
   */
  @Test
  void aWriterTheCompactionJobAndAReaderOfAnAppendTableRunTogether() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.events (id BIGINT, p INT) PARTITIONED BY (p) WITH ("
            + " 'compaction.min.file-num' = '3',"
            + " 'snapshot.num-retained.min' = '1', 'snapshot.num-retained.max' = '3')");
    Table events = table("events");
    long n = 2000;
    StreamTableEnvironment writer = writerOf(n);
    Rewrites.COUNT.set(0);
    JobClient compaction = dedicatedJob("db.events", new Rewrites());
    List<Long> ids = new ArrayList<>();
    try (WatchedRows it = stream(tEnv, "events", ", 'consumer-id' = 'events'")) {
      TableResult written =
          writer.executeSql("INSERT INTO c.db.events SELECT f0, CAST(f0 % 2 AS INT) FROM ids");
      it.watching(compaction).watching(written.getJobClient().orElseThrow());
      Set<Long> distinct = new HashSet<>();
      while (distinct.size() < n) {
        Row r = it.next();
        assertThat(r.getKind()).isEqualTo(RowKind.INSERT);
        ids.add((Long) r.getField(0));
        distinct.add((Long) r.getField(0));
      }
      written.await();
    } finally {
      StreamingJobs.cancelAndWait(compaction);
    }
    assertThat(ids).as("every row once").doesNotHaveDuplicates().hasSize((int) n);
    assertThat(FailOnce.FAILED).as("the reader failed over once").isTrue();
    assertThat(Rewrites.COUNT.get())
        .as("the dedicated job rewrote files several times")
        .isGreaterThan(1);
    assertThat(events.snapshotManager().listIds().get(0))
        .as("expiry ran during the run")
        .isGreaterThan(1);
  }

  /**
   * A streaming environment of its own (checkpoints every 100 ms) with catalog {@code c} and a view
   * {@code ids} of the longs {@code 0..n-1}, 400 a second: the source of a writer job.
   */
  private StreamTableEnvironment writerOf(long n) {
    StreamExecutionEnvironment env = StreamingJobs.restarting(1, 100);
    StreamTableEnvironment writer = StreamTableEnvironment.create(env);
    writer.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    writer.createTemporaryView(
        "ids",
        env.fromSource(
            new DataGeneratorSource<>(x -> x, n, RateLimiterStrategy.perSecond(400), Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "ids"));
    return writer;
  }

  /** The dedicated compaction job of {@code table}, looking for snapshots every 100 ms. */
  private JobClient dedicatedJob(String table, CompactListener listener) throws Exception {
    return CompactJob.builder(warehouse.toUri().toString(), table)
        .option("compaction.discovery-interval", "100 ms")
        .parallelism(1)
        .listener(listener)
        .build()
        .submitStreaming(StreamingJobs.restarting(1, 150));
  }

  /** Counts the dedicated job's rewrites (the MiniCluster runs in this JVM). */
  private static final class Rewrites implements CompactListener {
    static final AtomicInteger COUNT = new AtomicInteger();

    @Override
    public void rewritten(CompactTask task, CompactTaskResult result) {
      COUNT.incrementAndGet();
    }
  }

  /**
   * A read that watches a job ends with that job's error when the job fails, instead of waiting for
   * rows the job would have made (the wait of the last CI hang had no end).
   */
  @Test
  void aReadWatchingAJobThatFailsEndsWithThatJobsError() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    FailOnce.reset(false);
    tEnv.executeSql("CREATE TABLE c.db.w (id BIGINT)");
    tEnv.executeSql("INSERT INTO c.db.w VALUES (1)").await();
    try (WatchedRows it = stream(tEnv, "w")) {
      // the read runs (its collect sink is open) before the producer starts: closing a read whose
      // sink never opened hits a Flink error that ends the task manager
      assertThat(it.next().getField(0)).isEqualTo(1L);
      it.watching(failingProducer());
      assertThatThrownBy(it::next)
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("ended FAILED while its rows were awaited")
          .hasStackTraceContaining("the producer broke");
    }
  }

  /** A job of one slot that fails at its first record, without restarts. */
  private static JobClient failingProducer() throws Exception {
    Configuration noRestart = new Configuration();
    noRestart.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(noRestart);
    env.setParallelism(1);
    env.fromData(1L)
        .map(
            (MapFunction<Long, Long>)
                x -> {
                  throw new IllegalStateException("the producer broke");
                })
        .returns(Types.LONG)
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("a producer that fails");
  }

  @Test
  void aStreamingReadOfAnEngineWithoutAChangelogIsRefusedAtPlanning() {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.pu (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'merge-engine' = 'partial-update')");
    assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM c.db.pu").execute())
        .hasStackTraceContaining("A streaming read of db.pu (merge-engine partial-update)")
        .hasStackTraceContaining("'changelog-producer' = 'lookup'")
        .hasStackTraceContaining("'execution.runtime-mode' = 'batch'");
    // the input of a partial-update table is partial rows, not its changelog
    tEnv.executeSql(
        "CREATE TABLE c.db.pi (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            + " 'bucket' = '1', 'merge-engine' = 'partial-update', 'changelog-producer' = 'input')");
    assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM c.db.pi").execute())
        .hasStackTraceContaining("changelog-producer input, merge-engine partial-update")
        .hasStackTraceContaining("'changelog-producer' = 'lookup'");
  }
}
