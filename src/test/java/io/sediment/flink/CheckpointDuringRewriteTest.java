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
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dedicated job keeps completing checkpoints while a rewrite runs: the rewrite runs off the task
 * thread, and a rewrite still running at a checkpoint is given up cleanly on a restore or a cancel.
 * A {@code faulty:} warehouse holds the rewrite at the open of an input file until the test lets it
 * go, which stands for a long rewrite of a large bucket.
 */
class CheckpointDuringRewriteTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private JobClient client;
  private final InjectedFaults faults = InjectedFaults.create();
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicBoolean held = new AtomicBoolean();

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    faults.close();
    FaultyFileSystem.reset();
    if (client != null) {
      try {
        StreamingJobs.cancelAndWait(client);
      } catch (Exception ignored) {
        // already ended
      }
    }
  }

  private FileSystemCatalog catalog() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    return catalog;
  }

  /** One bucket of a primary-key table in six small files: one task per plan. */
  private Table primaryKeyBucket(FileSystemCatalog catalog) {
    Table table =
        TestTables.create(
            catalog,
            "t",
            FlinkTestSupport.partitioned()
                .primaryKey("p", "id")
                .option("bucket", "1")
                .option("write-only", "true")
                .build());
    fill(table, 0, 6, 20, "a");
    return table;
  }

  /**
   * Holds every rewrite at the open of its {@code n}-th distinct input data file until {@link
   * #release} (counted over the job's attempts), and records that one was held.
   */
  private void holdRewriteAtInput(int n) {
    Set<String> opened = ConcurrentHashMap.newKeySet();
    FaultyFileSystem.onOpen(
        p -> {
          if (!p.contains("/bucket-") || release.getCount() == 0) {
            return;
          }
          opened.add(p);
          if (opened.size() >= n) {
            held.set(true);
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("interrupted while held at " + p);
            }
          }
        });
  }

  private JobClient submit(boolean restart) throws Exception {
    Configuration conf = new Configuration();
    if (restart) {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
      conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    } else {
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.enableCheckpointing(200);
    return CompactJob.builder(FaultyFileSystem.uri(dir), "db.t")
        .commitUser("long-rewrite")
        .option("compaction.min.file-num", "3")
        .option("compaction.discovery-interval", "100ms")
        .parallelism(2)
        .listener(faults)
        .build()
        .submitStreaming(env);
  }

  private long completedCheckpoints(MiniCluster cluster) throws Exception {
    return cluster
        .getExecutionGraph(client.getJobID())
        .get()
        .getCheckpointStatsSnapshot()
        .getCounts()
        .getNumberOfCompletedCheckpoints();
  }

  /** Waits until a rewrite is held, then until {@code n} more checkpoints completed. */
  private void awaitCheckpointsWhileHeld(MiniCluster cluster, int n) throws Exception {
    await().atMost(Duration.ofSeconds(60)).untilTrue(held);
    long atHold = completedCheckpoints(cluster);
    await().atMost(Duration.ofSeconds(60)).until(() -> completedCheckpoints(cluster) >= atHold + n);
  }

  private static List<Snapshot> compacts(Table table) {
    return snapshots(table).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
  }

  @Test
  void checkpointsKeepCompletingWhileAPrimaryKeyBucketIsRewritten(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    FileSystemCatalog catalog = catalog();
    Table table = primaryKeyBucket(catalog);
    List<String> before = rows(table);
    holdRewriteAtInput(1);

    client = submit(false);
    // The barrier passes the held rewrite: checkpoints go on completing.
    awaitCheckpointsWhileHeld(cluster, 3);
    assertThat(compacts(table)).isEmpty();

    release.countDown();
    // the last: the size-amplification rule merges every run into one top-level run
    await().atMost(Duration.ofSeconds(60)).until(() -> compacts(table).size() == 1);
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(1);
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
  }

  @Test
  void aRewriteRunningAtTheRestoredCheckpointIsDoneAgainOnceWithoutOrphans(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    FileSystemCatalog catalog = catalog();
    Table table = primaryKeyBucket(catalog);
    List<String> before = rows(table);
    holdRewriteAtInput(1);
    // The first rewrite that ends fails its task before its result is emitted: the job restores
    // a checkpoint taken while that rewrite ran, and its outputs are on disk.
    faults.failAfterRewriteOnce();

    client = submit(true);
    awaitCheckpointsWhileHeld(cluster, 2);
    release.countDown();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> faults.allFired() && compacts(table).size() == 1);
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    Path tableDir = dir.resolve("db.db/t");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> FlinkTestSupport.markerFiles(tableDir).isEmpty());
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(compacts(t)).hasSize(1);
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(1);
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
  }

  @Test
  void stoppingWithASavepointMidRewriteLeavesNoOutputAndNoMarker() throws Exception {
    FileSystemCatalog catalog = catalog();
    Table table = primaryKeyBucket(catalog);
    List<String> before = rows(table);
    holdRewriteAtInput(1);

    client = submit(false);
    await().atMost(Duration.ofSeconds(60)).untilTrue(held);
    // A plain stop (no drain): the running rewrite belongs to no checkpoint. Let it go as the stop
    // begins, so that it ends while the job stops.
    CompletableFuture<String> savepoint =
        client.stopWithSavepoint(
            false, dir.resolve("savepoints").toUri().toString(), SavepointFormatType.CANONICAL);
    release.countDown();
    assertThat(savepoint.get()).isNotBlank();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.getJobStatus().get() == JobStatus.FINISHED);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
    // A release record may stay for the resumed job (when the rewrite landed in the savepoint's
    // window); no output marker does.
    assertThat(FlinkTestSupport.markerFiles(tableDir))
        .noneMatch(m -> m.getFileName().toString().startsWith("marker-"));
  }

  @Test
  void cancellingTheJobMidRewriteLeavesNoOutputAndNoMarker() throws Exception {
    FileSystemCatalog catalog = catalog();
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();
    // Held at the fourth input: the rewrite has written part of its output by then.
    holdRewriteAtInput(4);

    client = submit(false);
    await().atMost(Duration.ofSeconds(60)).untilTrue(held);
    StreamingJobs.cancelAndWait(client);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> client.getJobStatus().get() == JobStatus.CANCELED);
    client = null;
    release.countDown();

    Table t = catalog.getTable("db.t");
    assertThat(snapshots(t)).hasSize(snapshotsBefore);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
    assertThat(FlinkTestSupport.markerFiles(tableDir)).isEmpty();
  }
}
