package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dedicated job loses its task manager after the rewrite tasks wrote their outputs and before
 * the window was committed. After recovery every row is present once and no data file is left
 * unreferenced.
 */
class CompactTaskManagerFailoverTest {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER =
      new MiniClusterExtension(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  private JobClient client;

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.cancel().get();
    }
  }

  @Test
  void taskManagerLostBetweenRewriteAndCommit(@InjectMiniCluster MiniCluster miniCluster)
      throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 6, 10, "a", "b");
    List<String> before = rows(table);
    Path tableDir = dir.resolve("db.db/t");

    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    // Checkpoints only when the test triggers them, so nothing commits behind its back.
    env.enableCheckpointing(Duration.ofHours(1).toMillis());
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("dedicated")
            .option("compaction.min.file-num", "3")
            .option("compaction.discovery-interval", "100ms")
            .parallelism(2)
            .build();
    client = job.submitStreaming(env);
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> client.getJobStatus().get() == JobStatus.RUNNING);

    // The first checkpoint opens the source; the tasks then write their outputs.
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .untilAsserted(() -> miniCluster.triggerCheckpoint(client.getJobID()).get());
    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> FlinkTestSupport.orphanDataFiles(table, tableDir).size() >= 2);
    // Lose the task manager right away: the outputs are on disk and not yet referenced.
    miniCluster.terminateTaskManager(0).get();
    miniCluster.startTaskManager();

    // After recovery, checkpoints drive the work to a commit.
    await()
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(
            () -> {
              miniCluster.triggerCheckpoint(client.getJobID()).get();
              return FlinkTestSupport.filesPerPartition(table).values().stream()
                      .allMatch(n -> n == 1)
                  && FlinkTestSupport.orphanDataFiles(table, tableDir).isEmpty();
            });
    client.cancel().get();
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    assertThat(compacts).isNotEmpty();
    assertThat(compacts.stream().map(Snapshot::commitIdentifier)).doesNotHaveDuplicates();
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
  }
}
