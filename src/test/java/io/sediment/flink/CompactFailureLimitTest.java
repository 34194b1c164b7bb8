package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.fill;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The dedicated job's limit on consecutive failed windows ({@code faulty:} warehouse). */
class CompactFailureLimitTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private JobClient client;

  @AfterEach
  void stop() throws Exception {
    FaultyFileSystem.reset();
    if (client != null) {
      try {
        StreamingJobs.cancelAndWait(client);
      } catch (Exception ignored) {
        // already ended
      }
    }
  }

  /** One partition, six small files: one task per plan. */
  private Table table(FileSystemCatalog catalog) {
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a");
    return table;
  }

  private JobClient submit() throws Exception {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(200);
    return CompactJob.builder(FaultyFileSystem.uri(dir), "db.t")
        .commitUser("limit")
        .option("compaction.min.file-num", "3")
        .option("compaction.discovery-interval", "100ms")
        .option("compaction.max-consecutive-failures", "2")
        .parallelism(2)
        .build()
        .submitStreaming(env);
  }

  private static String firstInput(Table table) {
    return FlinkTestSupport.liveFileMetas(table).get(0).fileName();
  }

  @Test
  void taskFailingInEveryWindowFailsTheJobAfterTheLimitCommittingNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table = table(catalog);
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();
    String victim = firstInput(table);
    AtomicInteger failures = new AtomicInteger();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith(victim)) {
            failures.incrementAndGet();
            throw new IOException("Injected failure opening " + p);
          }
        });

    client = submit();
    CompletableFuture<?> result = client.getJobExecutionResult();
    await().atMost(Duration.ofSeconds(30)).until(result::isDone);
    assertThat(result).isCompletedExceptionally();
    Throwable error = result.handle((r, e) -> e).get();
    assertThat(ExceptionUtils.findThrowableWithMessage(error, "2 windows in a row")).isPresent();
    assertThat(ExceptionUtils.findThrowableWithMessage(error, "Injected failure opening"))
        .isPresent();
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
    // The task was handed out again after its first window was aborted.
    assertThat(failures.get()).isGreaterThanOrEqualTo(2);
    FaultyFileSystem.reset();

    Table t = catalog.getTable("db.t");
    assertThat(snapshots(t)).hasSize(snapshotsBefore);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void failureInOneWindowOnlyIsRetriedAndCompactedNextTime() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table = table(catalog);
    List<String> before = rows(table);
    String victim = firstInput(table);
    AtomicInteger failures = new AtomicInteger();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith(victim) && failures.get() == 0) {
            failures.incrementAndGet();
            throw new IOException("Injected failure opening " + p);
          }
        });

    client = submit();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> snapshots(table).stream().anyMatch(s -> s.commitKind() == CommitKind.COMPACT));
    assertThat(failures.get()).isEqualTo(1);
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    StreamingJobs.cancelAndWait(client);
    client = null;
    FaultyFileSystem.reset();

    Table t = catalog.getTable("db.t");
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    assertThat(compacts).hasSize(1);
    // The failed task's files were planned again: the victim is compacted away.
    assertThat(FlinkTestSupport.liveFiles(t)).doesNotContain(victim).hasSize(1);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("db.db/t"))).isEmpty();
  }
}
