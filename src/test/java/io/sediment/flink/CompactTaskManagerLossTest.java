package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.filesPerPartition;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task manager running a rewrite goes away after the rewrite wrote its outputs and before it
 * reported them. The job (dedicated or batch) restarts on a new task manager, compacts, and leaves
 * the rows unchanged, each window committed once, and no file of the lost attempt behind.
 */
class CompactTaskManagerLossTest {

  // Its own cluster: the test replaces the task manager.
  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  // MiniCluster keeps terminated task managers in its list: the live one is the last started.
  private static int liveTaskManager = 0;

  private static void replaceTaskManager(MiniCluster cluster) throws Exception {
    cluster.terminateTaskManager(liveTaskManager).get();
    cluster.startTaskManager();
    liveTaskManager++;
  }

  private JobClient client;
  private final InjectedFaults faults = InjectedFaults.create();

  @AfterEach
  void stop() throws Exception {
    faults.close();
    if (client != null) {
      StreamingJobs.cancelAndWait(client);
    }
  }

  @Test
  void restartsOnNewTaskManagerAndCleansUpTheLostAttempt(@InjectMiniCluster MiniCluster cluster)
      throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 8, 10, "a", "b");
    List<String> before = rows(table);
    long snapshotsBefore = snapshots(table).size();
    CountDownLatch parked = new CountDownLatch(1);
    faults.parkAfterRewriteOnce(parked);

    client =
        FlinkTestSupport.dedicatedJob(dir, faults)
            .submitStreaming(FlinkTestSupport.restartingStreamEnv());

    assertThat(parked.await(60, TimeUnit.SECONDS)).as("a rewrite wrote its outputs").isTrue();
    Path tableDir = dir.resolve("db.db/t");
    // The parked rewrite's outputs are on disk and no snapshot has them yet.
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir)).isNotEmpty();
    replaceTaskManager(cluster);

    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> filesPerPartition(table).values().stream().allMatch(n -> n <= 2));
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    assertThat(compacts).isNotEmpty();
    assertThat(snapshots(t).size()).isGreaterThan((int) snapshotsBefore);
    assertThat(compacts.stream().map(Snapshot::commitIdentifier)).doesNotHaveDuplicates();
    // The lost attempt's outputs were found (by their markers) and deleted.
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
  }

  /**
   * A streaming {@code GROUP BY ... COUNT(*)} into a primary-key table loses its task manager after
   * a committed checkpoint: the job restarts on a new task manager from that checkpoint, and the
   * counts are exact (a retried window is committed once, rows of the lost attempt never land).
   */
  @Test
  void aStreamingGroupByKeepsExactCountsThroughTaskManagerLoss(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    long n = 3000;
    StreamExecutionEnvironment env = FlinkTestSupport.restartingStreamEnv();
    env.setParallelism(2);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + dir.toUri() + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    tEnv.executeSql(
        "CREATE TABLE c.db.cnt (k BIGINT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED)"
            + " WITH ('bucket' = '2')");
    DataStream<Long> ids =
        env.fromSource(
            new DataGeneratorSource<>(x -> x, n, RateLimiterStrategy.perSecond(600), Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "ids");
    tEnv.createTemporaryView("ids", ids);
    TableResult insert =
        tEnv.executeSql("INSERT INTO c.db.cnt SELECT f0 % 7, COUNT(*) FROM ids GROUP BY f0 % 7");
    Table table = new FileSystemCatalog(dir.toString()).getTable("db.cnt");
    await().atMost(Duration.ofSeconds(60)).until(() -> table.latestSnapshot().isPresent());
    replaceTaskManager(cluster);
    insert.await();

    List<String> expected = new ArrayList<>();
    for (long k = 0; k < 7; k++) {
      expected.add("(" + k + "," + (n / 7 + (k < n % 7 ? 1 : 0)) + ")");
    }
    assertThat(rows(new FileSystemCatalog(dir.toString()).getTable("db.cnt")))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void batchJobRecoversFromTaskManagerLossAndLeavesNoFileOfTheLostAttempt(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 8, 10, "a", "b");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();
    CountDownLatch parked = new CountDownLatch(1);
    faults.parkAfterRewriteOnce(parked);
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .listener(faults)
            .build();

    CompletableFuture<CompactResult> run =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return job.runBatch(FlinkTestSupport.restartingEnv());
              } catch (Exception e) {
                throw new CompletionException(e);
              }
            });
    assertThat(parked.await(60, TimeUnit.SECONDS)).as("a rewrite wrote its outputs").isTrue();
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir)).isNotEmpty();
    replaceTaskManager(cluster);
    CompactResult result = run.get(90, TimeUnit.SECONDS);

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> after = snapshots(t);
    assertThat(after).hasSize(snapshotsBefore + 1);
    assertThat(after.get(after.size() - 1).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(result.snapshotId()).isEqualTo(after.get(after.size() - 1).id());
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(2);
    // The lost attempt's outputs were found (by their markers) and deleted.
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
    assertThat(FlinkTestSupport.markerFiles(tableDir)).isEmpty();
  }
}
