package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StrategyTables;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flink jobs' strategy defaults (batch full, dedicated minor) and the database job with
 * including and excluding regexes.
 */
class CompactStrategyJobTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private JobClient client;

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      StreamingJobs.cancelAndWait(client);
    }
  }

  @Test
  void batchJobIsFullByDefault() throws Exception {
    Table table = StrategyTables.PRIMARY_KEY.create(TestTables.catalog(dir), "t");

    CompactResult r =
        CompactJob.builder(dir.toString(), "db.t")
            .build()
            .runBatch(FlinkTestSupport.restartingEnv());

    assertThat(r.snapshotId()).isNotNull();
    assertThat(StrategyTables.liveFiles(table)).hasSize(1);
    assertThat(StrategyTables.rows(table)).isEqualTo(StrategyTables.PRIMARY_KEY.expectedRows());
  }

  @Test
  void dedicatedJobIsMinorByDefault() throws Exception {
    Table table = StrategyTables.DELETION_VECTORS.create(TestTables.catalog(dir), "t");

    client = dedicated(CompactJob.builder(dir.toString(), "db.t"));
    awaitCompactCommits(table, 2); // one from the table's setup, one from the job

    // Minor moved the level-0 file one level below the top: two files, not one.
    assertThat(StrategyTables.liveFiles(table)).hasSize(2);
    assertThat(StrategyTables.rows(table))
        .isEqualTo(StrategyTables.DELETION_VECTORS.expectedRows());
  }

  @Test
  void dedicatedJobWithFullStrategyMergesEverything() throws Exception {
    Table table = StrategyTables.DELETION_VECTORS.create(TestTables.catalog(dir), "t");

    client = dedicated(CompactJob.builder(dir.toString(), "db.t").strategy("full"));
    awaitCompactCommits(table, 2);

    assertThat(StrategyTables.liveFiles(table)).hasSize(1);
    assertThat(StrategyTables.rows(table))
        .isEqualTo(StrategyTables.DELETION_VECTORS.expectedRows());
  }

  @Test
  void dedicatedDatabaseJobFollowsIncludingAndExcludingRegexes() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table orders = StrategyTables.APPEND.create(catalog, "orders");
    Table ordersTmp = StrategyTables.APPEND.create(catalog, "orders_tmp");
    Table users = StrategyTables.PRIMARY_KEY.create(catalog, "users");

    client =
        dedicated(
            CompactJob.builderForDatabase(dir.toString(), "db", "orders.*|db\\.users")
                .excludingTables(".*_tmp")
                .option("compaction.min.file-num", "3")
                .option("num-sorted-run.compaction-trigger", "2"));

    awaitCompactCommits(orders, 1);
    awaitCompactCommits(users, 1);
    assertThat(StrategyTables.liveFiles(orders)).hasSize(1);
    assertThat(StrategyTables.liveFiles(users)).hasSize(1);
    // Planned in the same rounds as the others, never compacted.
    assertThat(compactCommits(ordersTmp)).isZero();
    assertThat(StrategyTables.liveFiles(ordersTmp)).hasSize(3);
  }

  @Test
  void batchDatabaseJobMakesOneCommitPerTable() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table a = StrategyTables.APPEND.create(catalog, "a");
    Table b = StrategyTables.DELETION_VECTORS.create(catalog, "b");
    Table skipped = StrategyTables.APPEND.create(catalog, "c");

    CompactResult r =
        CompactJob.builderForDatabase(dir.toString(), "d.*", "a|b")
            .build()
            .runBatch(FlinkTestSupport.restartingEnv());

    assertThat(r.tasks()).isEqualTo(2);
    assertThat(compactCommits(a)).isEqualTo(1);
    assertThat(compactCommits(b)).isEqualTo(2); // the setup's and this one
    assertThat(compactCommits(skipped)).isZero();
    assertThat(StrategyTables.liveFiles(a)).hasSize(1);
    assertThat(StrategyTables.liveFiles(b)).hasSize(1);
  }

  private static JobClient dedicated(CompactJob.Builder builder) throws Exception {
    return builder
        .commitUser("dedicated")
        .option("compaction.discovery-interval", "100ms")
        .build()
        .submitStreaming(FlinkTestSupport.restartingStreamEnv());
  }

  private static void awaitCompactCommits(Table table, int n) {
    await().atMost(Duration.ofSeconds(60)).until(() -> compactCommits(table) >= n);
  }

  private static long compactCommits(Table table) {
    return FlinkTestSupport.snapshots(table).stream()
        .map(Snapshot::commitKind)
        .filter(k -> k == CommitKind.COMPACT)
        .count();
  }
}
