package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.fill;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction committer expires snapshots after its commits by the table's retention options, a
 * failing expiry counted in {@code snapshotExpiryFailures} without failing the job, and the
 * dedicated job removes old orphan files on the {@code compaction.remove-orphans.interval}
 * schedule.
 */
class CommitterRetentionTest {

  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER =
      new SharedMiniCluster(
          new MiniClusterResourceConfiguration.Builder()
              .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private static List<Long> ids(Table t) {
    return t.snapshotManager().listIds();
  }

  /** The sum of counter {@code name} over the jobs whose name contains {@code job}. */
  private static long counter(String job, String name) {
    long total = 0;
    for (Map.Entry<MetricGroup, Map<String, Metric>> g : REPORTER.getMetricsByGroup().entrySet()) {
      String jobName = g.getKey().getAllVariables().get("<job_name>");
      if (jobName != null && jobName.contains(job) && g.getValue().get(name) instanceof Counter c) {
        total += c.getCount();
      }
    }
    return total;
  }

  @Test
  void failingExpiryAfterTheCompactCommitIsCountedAndFinishedByTheNextCommit() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            FlinkTestSupport.partitioned()
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "2")
                .option("manifest.merge-min-count", "3")
                .build());
    List<String> rows = TestTables.toStrings(table.rowType(), fill(table, 0, 6, 20, "a", "b"));
    assertThat(ids(table)).containsExactly(5L, 6L); // the writers' commits expire too
    FaultyFileSystem.failDelete(p -> p.contains("/manifest/"));

    CompactResult result =
        CompactJob.builder(FaultyFileSystem.uri(dir), "db.t")
            .commitUser("retention")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());

    assertThat(result.snapshotId()).isEqualTo(7L); // the commit stands
    assertThat(counter("sediment compact db.t", "snapshotExpiryFailures")).isEqualTo(1);
    assertThat(counter("sediment compact db.t", "commits")).isEqualTo(1);
    assertThat(dir.resolve("db.db/t/snapshot/EXPIRING")).exists();
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rows);

    FaultyFileSystem.reset();
    rows.addAll(TestTables.toStrings(table.rowType(), fill(table, 1000, 1, 5, "a")));
    assertThat(dir.resolve("db.db/t/snapshot/EXPIRING")).doesNotExist();
    assertThat(ids(table)).containsExactly(7L, 8L);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rows);
    assertThat(FlinkTestSupport.orphanDataFiles(table, dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void sqlInsertCountsAFailingExpiryWithoutFailingTheInsert() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "q",
            FlinkTestSupport.partitioned()
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "1")
                .option("manifest.merge-min-count", "3")
                .build());
    List<String> rows = TestTables.toStrings(table.rowType(), fill(table, 0, 2, 5, "a"));
    FaultyFileSystem.failDelete(p -> p.contains("/manifest/"));

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setRuntimeMode(RuntimeExecutionMode.BATCH);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '"
            + FaultyFileSystem.uri(dir)
            + "')");
    tEnv.executeSql("INSERT INTO c.db.q VALUES (CAST(7001 AS BIGINT), 'a', 'sql')")
        .await(); // the INSERT succeeds although its expiry fails

    assertThat(FaultyFileSystem.DELETE_FAILURES.get()).isPositive();
    assertThat(counter("c.db.q", "snapshotExpiryFailures")).isEqualTo(1);
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(3L);
    assertThat(dir.resolve("db.db/q/snapshot/EXPIRING")).exists();
    FaultyFileSystem.reset();
    assertThat(FlinkTestSupport.rows(table)).hasSize(rows.size() + 1);
  }

  @Test
  void dedicatedJobExpiresAndRemovesOldOrphansOnItsSchedule() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "s",
            FlinkTestSupport.partitioned()
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "3")
                .build());
    List<String> rows = TestTables.toStrings(table.rowType(), fill(table, 0, 6, 10, "a"));
    Path partition = dir.resolve("db.db/s/p=a");
    assertThat(partition).isDirectory();
    Path oldOrphan = partition.resolve("data-left-by-a-dead-writer.parquet");
    Path youngOrphan = partition.resolve("data-being-written.parquet");
    Files.writeString(oldOrphan, "x");
    Files.setLastModifiedTime(
        oldOrphan, FileTime.fromMillis(System.currentTimeMillis() - Duration.ofDays(2).toMillis()));
    Files.writeString(youngOrphan, "x");

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(200);
    JobClient client =
        CompactJob.builder(dir.toString(), "db.s")
            .commitUser("scheduled")
            .option("compaction.min.file-num", "3")
            .option("compaction.discovery-interval", "100ms")
            .option("compaction.remove-orphans.interval", "1 h")
            .parallelism(2)
            .build()
            .submitStreaming(env);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  FlinkTestSupport.snapshots(table).stream()
                          .anyMatch(s -> s.commitKind() == CommitKind.COMPACT)
                      && !Files.exists(oldOrphan));
    } finally {
      StreamingJobs.cancelAndWait(client);
    }
    assertThat(youngOrphan).exists(); // younger than a day: may be a write in progress
    List<Snapshot> snapshots = FlinkTestSupport.snapshots(table);
    assertThat(snapshots).hasSizeLessThanOrEqualTo(3);
    assertThat(snapshots.get(snapshots.size() - 1).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rows);
    String job = "sediment compact (dedicated) db.s";
    assertThat(counter(job, "snapshotExpiryFailures")).isZero();
    assertThat(counter(job, "orphanRemovalFailures")).isZero();
  }
}
