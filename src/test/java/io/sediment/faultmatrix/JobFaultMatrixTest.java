package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.sediment.compact.CompactTask;
import io.sediment.flink.CompactJob;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Faults in the compaction jobs, on one shared MiniCluster: a task exception at every task index
 * (batch and dedicated job), a task that fails over the job, the loss of a task manager between
 * write and commit, and a job-manager failover after a snapshot was published but before the
 * checkpoint's notification completed. After each: the invariants, and each window committed at
 * most once.
 */
@ExtendWith(NamedFailures.class)
class JobFaultMatrixTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  /** Index of the task manager running now (a replaced one stays in the cluster's list). */
  private static int taskManager = 0;

  @TempDir Path dir;

  private JobClient client;

  @AfterEach
  void stop() throws Exception {
    JobHooks.reset();
    FaultyFileSystem.reset();
    if (client != null) {
      StreamingJobs.cancelAndWait(client);
    }
  }

  static Stream<Arguments> taskIndexes() {
    return Stream.of(TableKind.values()).flatMap(k -> Stream.of(0, 1).map(i -> Arguments.of(k, i)));
  }

  private MatrixTable table(TableKind kind) {
    return MatrixTable.withBatches(kind, dir, 3);
  }

  private static CompactJob.Builder job(MatrixTable t) {
    return CompactJob.builder(t.warehouseUri(), "db.t")
        .commitUser("matrix")
        .listener(JobHooks.listener())
        .options(t.kind.fullCompaction())
        .parallelism(2);
  }

  private static CompactJob dedicated(MatrixTable t) {
    return job(t).option("compaction.discovery-interval", "100ms").build();
  }

  private static StreamExecutionEnvironment restartingEnv(boolean checkpoints) {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    if (checkpoints) {
      env.enableCheckpointing(300);
    }
    return env;
  }

  /** Opening the first input of task {@code index} fails once, as a read error would. */
  private static AtomicBoolean failTaskOnce(CompactJob job, int index) {
    List<CompactTask> tasks = job.plan();
    assertThat(tasks).hasSizeGreaterThan(index);
    String victim = tasks.get(index).inputs().get(0).fileName();
    AtomicBoolean fired = new AtomicBoolean();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith(victim) && fired.compareAndSet(false, true)) {
            throw new IOException("Injected failure opening " + p);
          }
        });
    return fired;
  }

  private static boolean fullyCompacted(MatrixTable t) {
    Table table = t.table();
    Map<String, Integer> perPartition = new HashMap<>();
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      perPartition.merge(table.store().partitionPath(e.partition()), 1, Integer::sum);
    }
    return perPartition.values().stream().allMatch(n -> n == 1);
  }

  /** The job's COMPACT snapshots, each window committed once. */
  private static List<Snapshot> committedOnce(MatrixTable t, String commitUser) {
    Table table = t.table();
    List<Snapshot> compacts = new ArrayList<>();
    for (long id : table.snapshotManager().listIds()) {
      Snapshot s = table.snapshotManager().snapshot(id);
      if (s.commitKind() == CommitKind.COMPACT && s.commitUser().equals(commitUser)) {
        compacts.add(s);
      }
    }
    assertThat(compacts.stream().map(Snapshot::commitIdentifier))
        .as("each window committed once")
        .doesNotHaveDuplicates();
    return compacts;
  }

  @ParameterizedTest(name = "{0} task {1}")
  @MethodSource("taskIndexes")
  void compactBuilderTaskException(TableKind kind, int index) {
    MatrixTable t = table(kind);
    var builder = Compactions.builder(t.table(), kind.fullCompaction());
    List<CompactTask> tasks = builder.plan();
    String victim = tasks.get(index).inputs().get(0).fileName();
    FaultyFileSystem.failOpen(p -> p.endsWith(victim));
    TableState before = TableState.of(t);

    Throwable e = catchThrowable(builder::execute);

    FaultyFileSystem.reset();
    assertThat(CorruptInputMatrixTest.chainMessages(e)).contains("Injected failure opening");
    Invariants.assertUnchanged(before, TableState.of(t), "compaction with a failing task");
    Invariants.checkAfterJobsEnded(t);
  }

  @ParameterizedTest(name = "{0} task {1}")
  @MethodSource("taskIndexes")
  void batchJobTaskException(TableKind kind, int index) {
    MatrixTable t = table(kind);
    CompactJob job = job(t).build();
    failTaskOnce(job, index);
    TableState before = TableState.of(t);

    Throwable e =
        catchThrowable(() -> job.runBatch(StreamExecutionEnvironment.getExecutionEnvironment()));

    FaultyFileSystem.reset();
    assertThat(CorruptInputMatrixTest.chainMessages(e)).contains("Injected failure opening");
    Invariants.assertUnchanged(before, TableState.of(t), "batch job with a failing task");
    Invariants.checkAfterJobsEnded(t);
  }

  @ParameterizedTest(name = "{0} task {1}")
  @MethodSource("taskIndexes")
  void dedicatedJobTaskException(TableKind kind, int index) throws Exception {
    MatrixTable t = table(kind);
    CompactJob job = dedicated(t);
    AtomicBoolean fired = failTaskOnce(job, index);

    client = job.submitStreaming(restartingEnv(true));
    await().atMost(Duration.ofSeconds(90)).until(() -> fired.get() && fullyCompacted(t));
    StreamingJobs.cancelAndWait(client);
    client = null;

    assertThat(committedOnce(t, job.commitUser())).isNotEmpty();
    Invariants.checkAfterJobsEnded(t);
  }

  /** A rewrite throws out of its operator after writing: the job fails over and restarts. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void batchJobFailoverAfterRewrite(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    CompactJob job = job(t).build();
    JobHooks.failAfterRewriteOnce();

    job.runBatch(restartingEnv(false));

    assertThat(JobHooks.failAfterRewriteFired()).isTrue();
    assertThat(committedOnce(t, job.commitUser())).hasSize(1);
    Invariants.checkAfterJobsEnded(t);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void dedicatedJobFailoverAfterRewrite(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    CompactJob job = dedicated(t);
    JobHooks.failAfterRewriteOnce();

    client = job.submitStreaming(restartingEnv(true));
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> JobHooks.failAfterRewriteFired() && fullyCompacted(t));
    StreamingJobs.cancelAndWait(client);
    client = null;

    assertThat(committedOnce(t, job.commitUser())).isNotEmpty();
    Invariants.checkAfterJobsEnded(t);
  }

  enum Mode {
    BATCH,
    DEDICATED
  }

  static Stream<Arguments> modesAndKinds() {
    return Stream.of(Mode.values())
        .flatMap(m -> Stream.of(TableKind.values()).map(k -> Arguments.of(m, k)));
  }

  /**
   * The task manager running a rewrite goes away after the rewrite wrote its outputs, before it
   * reported them (technique of {@code flink.CompactTaskManagerLossTest}); the job restarts on a
   * new task manager and finishes.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("modesAndKinds")
  void taskManagerLossBetweenWriteAndCommit(
      Mode mode, TableKind kind, @InjectMiniCluster MiniCluster cluster) throws Exception {
    MatrixTable t = table(kind);
    CompactJob job = mode == Mode.BATCH ? job(t).build() : dedicated(t);
    CountDownLatch parked = new CountDownLatch(1);
    JobHooks.parkAfterRewriteOnce(parked);

    var batchResult =
        mode == Mode.BATCH
            ? CompletableFuture.supplyAsync(
                () -> {
                  try {
                    return job.runBatch(restartingEnv(false));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                })
            : null;
    if (mode == Mode.DEDICATED) {
      client = job.submitStreaming(restartingEnv(true));
    }
    assertThat(parked.await(60, TimeUnit.SECONDS)).as("a rewrite wrote its outputs").isTrue();
    cluster.terminateTaskManager(taskManager).get();
    cluster.startTaskManager();
    taskManager++;

    if (mode == Mode.BATCH) {
      batchResult.get(90, TimeUnit.SECONDS);
    } else {
      await().atMost(Duration.ofSeconds(90)).until(() -> fullyCompacted(t));
      StreamingJobs.cancelAndWait(client);
      client = null;
    }
    assertThat(committedOnce(t, job.commitUser())).isNotEmpty();
    Invariants.checkAfterJobsEnded(t);
  }

  /**
   * Task-manager loss during a minor compaction of a deletion-vector table, whose outputs include
   * deletion-vector files ({@code index/dv-*}): those of the lost attempt must go too. Writers are
   * write-only here, so that level-0 files wait for the dedicated job.
   */
  @Test
  void taskManagerLossDuringMinorCompactionWritingDeletionVectors(
      @InjectMiniCluster MiniCluster cluster) throws Exception {
    MatrixTable t =
        MatrixTable.withBatches(TableKind.DELETION_VECTORS, dir, 2, Map.of("write-only", "true"));
    Compactions.execute(t); // a top level for the updates to add deletion vectors to
    t.write(2);
    t.write(3);
    CompactJob job =
        CompactJob.builder(t.warehouseUri(), "db.t")
            .commitUser("minor")
            .listener(JobHooks.listener())
            .option("compaction.discovery-interval", "100ms")
            .parallelism(2)
            .build();
    CountDownLatch parked = new CountDownLatch(1);
    JobHooks.parkAfterRewriteOnce(parked);

    client = job.submitStreaming(restartingEnv(true));
    assertThat(parked.await(60, TimeUnit.SECONDS)).as("a rewrite wrote its outputs").isTrue();
    cluster.terminateTaskManager(taskManager).get();
    cluster.startTaskManager();
    taskManager++;
    await().atMost(Duration.ofSeconds(90)).until(() -> noLevelZero(t));
    StreamingJobs.cancelAndWait(client);
    client = null;

    assertThat(committedOnce(t, job.commitUser())).isNotEmpty();
    Invariants.checkAfterJobsEnded(t);
  }

  private static boolean noLevelZero(MatrixTable t) {
    Table table = t.table();
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      if (e.file().level() == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The committer dies right after publishing a window's snapshot, before it finished
   * notifyCheckpointComplete (as when the job manager fails over then): the job restarts from the
   * checkpoint that holds the window and must not commit it again.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void jobManagerFailoverAfterPublishBeforeCheckpointCompletes(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    CompactJob job = dedicated(t);
    long next = t.table().latestSnapshot().orElseThrow().id() + 1;
    AtomicBoolean died = new AtomicBoolean();
    FaultyFileSystem.crashAfterRenameOnce(p -> p.endsWith("/snapshot/snapshot-" + next), died);

    client = job.submitStreaming(restartingEnv(true));
    await().atMost(Duration.ofSeconds(90)).until(() -> died.get() && fullyCompacted(t));
    StreamingJobs.cancelAndWait(client);
    client = null;

    assertThat(committedOnce(t, job.commitUser())).isNotEmpty();
    Invariants.checkAfterJobsEnded(t);
  }
}
