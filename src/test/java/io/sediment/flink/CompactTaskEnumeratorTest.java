package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.Identifier;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.ExecutionMode;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.marker.ReleaseRecords;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The task source's enumerator alone, on Flink's mock enumerator context: planning rounds run when
 * the test runs them, readers ask when the test says. Covers the hand-out of tasks, the gate of a
 * continuous job (nothing handed out before a checkpoint of the attempt completed), held files kept
 * out of new plans, tasks given back by a restarted reader, and a restore.
 */
class CompactTaskEnumeratorTest {

  private static final String USER = "enumerator-user";

  @TempDir Path dir;

  private CompactTargets targets;

  /** Three partitions of four small files each: one append task per partition. */
  @BeforeEach
  void setUp() {
    targets = FlinkTestSupport.targets(dir, FlinkTestSupport.threePartitionsOfFourFiles(dir));
  }

  private CompactTaskEnumerator enumerator(
      MockSplitEnumeratorContext<CompactTaskSplit> context,
      ExecutionMode mode,
      CompactEnumeratorState restored) {
    CompactTaskEnumerator e =
        new CompactTaskEnumerator(context, targets, mode, 60_000, USER, restored);
    e.start();
    return e;
  }

  private static void readers(MockSplitEnumeratorContext<CompactTaskSplit> context, int n) {
    for (int i = 0; i < n; i++) {
      context.registerReader(new ReaderInfo(i, "localhost"));
    }
  }

  private static List<CompactTaskSplit> assigned(
      MockSplitEnumeratorContext<CompactTaskSplit> context) {
    List<CompactTaskSplit> out = new ArrayList<>();
    for (SplitsAssignment<CompactTaskSplit> a : context.getSplitsAssignmentSequence()) {
      a.assignment().values().forEach(out::addAll);
    }
    return out;
  }

  private static Set<String> inputs(List<CompactTaskSplit> splits) {
    Set<String> names = new HashSet<>();
    for (CompactTaskSplit s : splits) {
      names.addAll(s.inputFileNames());
    }
    return names;
  }

  @Test
  void aBatchSourcePlansOnceHandsEachTaskOutOnceThenSignalsTheEnd() throws Throwable {
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(2)) {
      readers(context, 2);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.BATCH, null);
      e.handleSplitRequest(0, "localhost"); // before the plan: waits
      assertThat(assigned(context)).isEmpty();
      context.runNextOneTimeCallable();
      assertThat(assigned(context)).hasSize(1);

      e.handleSplitRequest(1, "localhost");
      e.handleSplitRequest(0, "localhost");
      e.handleSplitRequest(1, "localhost");
      List<CompactTaskSplit> all = assigned(context);
      assertThat(all).hasSize(3);
      assertThat(all).extracting(CompactTaskSplit::splitId).doesNotHaveDuplicates();
      assertThat(all).extracting(CompactTaskSplit::commitUser).containsOnly(USER);
      assertThat(inputs(all)).hasSize(12);
      assertThat(context.hasNoMoreSplits(1)).isTrue();

      e.handleSplitRequest(0, "localhost");
      assertThat(context.hasNoMoreSplits(0)).isTrue();
      assertThat(assigned(context)).hasSize(3);
    }
  }

  @Test
  void aContinuousSourceHandsOutNothingBeforeACheckpointOfItsAttemptCompleted() throws Throwable {
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(2)) {
      readers(context, 2);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      context.runPeriodicCallable(0);
      e.handleSplitRequest(0, "localhost");
      e.handleSplitRequest(1, "localhost");
      assertThat(assigned(context)).isEmpty();
      assertThat(e.snapshotState(1).pending()).hasSize(3);

      e.notifyCheckpointComplete(1);
      assertThat(assigned(context)).hasSize(2);
      CompactEnumeratorState state = e.snapshotState(2);
      assertThat(state.pending()).hasSize(1);
      assertThat(state.held()).hasSize(2);
      assertThat(state.commitUser()).isEqualTo(USER);
      assertThat(context.hasNoMoreSplits(0)).isFalse();
    }
  }

  /** A new round while tasks are out plans none of their files again. */
  @Test
  void filesOfTasksHandedOutAreNotPlannedAgain() throws Throwable {
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      context.runPeriodicCallable(0);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      e.handleSplitRequest(0, "localhost"); // the first task's rewrite ended; its window is open
      e.handleSplitRequest(0, "localhost");
      for (int round = 0; round < 3; round++) {
        context.runPeriodicCallable(0);
      }
      e.handleSplitRequest(0, "localhost");
      List<CompactTaskSplit> all = assigned(context);
      assertThat(all).hasSize(3);
      assertThat(inputs(all)).hasSize(12);
      CompactEnumeratorState state = e.snapshotState(2);
      assertThat(state.pending()).isEmpty();
      assertThat(state.held()).hasSize(3);
    }
  }

  /**
   * A restarted reader gives back the tasks it was handed after the restored checkpoint: the gate
   * closes until a later checkpoint completes (the restarted committer deletes their outputs
   * first), then they are handed out again, before anything else.
   */
  @Test
  void tasksGivenBackByARestartedReaderGoOutAgainAfterTheNextCheckpoint() throws Throwable {
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      context.runPeriodicCallable(0);
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      CompactTaskSplit first = assigned(context).get(0);
      e.snapshotState(2);

      e.addSplitsBack(List.of(first), 0);
      e.handleSplitRequest(0, "localhost");
      assertThat(assigned(context)).hasSize(1); // the gate is closed
      e.notifyCheckpointComplete(2); // taken before the restart: still closed
      assertThat(assigned(context)).hasSize(1);
      e.snapshotState(3);
      e.notifyCheckpointComplete(3);
      List<CompactTaskSplit> all = assigned(context);
      assertThat(all).hasSize(2);
      assertThat(all.get(1).inputFileNames()).isEqualTo(first.inputFileNames());
    }
  }

  /**
   * A restored source keeps its pending tasks, ids and commit user; the tasks it held release when
   * the first checkpoint of the new attempt completes (their rewrites ended with the old attempt),
   * so their files are planned again.
   */
  @Test
  void aRestoredSourceReleasesItsHeldTasksAtItsFirstCheckpoint() throws Throwable {
    CompactEnumeratorState state;
    List<CompactTaskSplit> before;
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(2)) {
      readers(context, 2);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      context.runPeriodicCallable(0);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      e.handleSplitRequest(1, "localhost");
      before = assigned(context);
      state = e.snapshotState(5);
    }
    assertThat(state.held()).hasSize(2);
    assertThat(state.pending()).hasSize(1);

    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      // a new submission with another commit user: the restored one stays
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(
              context, targets, ExecutionMode.STREAMING, 60_000, "new", state);
      e.start();
      e.handleSplitRequest(0, "localhost");
      assertThat(assigned(context)).isEmpty();
      e.snapshotState(6);
      e.notifyCheckpointComplete(6);
      context.runPeriodicCallable(0); // plans the released files again
      for (int i = 0; i < 3; i++) {
        e.handleSplitRequest(0, "localhost");
      }
      List<CompactTaskSplit> after = assigned(context);
      assertThat(after).hasSize(3);
      // the restored pending task goes out first, as it was (before any new round planned)
      assertThat(after.get(0).splitId()).isEqualTo(state.pending().get(0).splitId());
      assertThat(after).extracting(CompactTaskSplit::commitUser).containsOnly(USER);
      assertThat(inputs(after))
          .isEqualTo(inputs(List.of(state.pending().get(0), before.get(0), before.get(1))));
      // ids continue after the restored ones
      Set<String> oldIds = new HashSet<>();
      before.forEach(s -> oldIds.add(s.splitId()));
      oldIds.add(state.pending().get(0).splitId());
      assertThat(after.subList(1, 3))
          .extracting(CompactTaskSplit::splitId)
          .doesNotContainAnyElementsOf(oldIds);
    }
  }

  /**
   * The source's metrics: tasks planned (each once), pending and running, and the backlog of files
   * waiting for compaction (inputs of tasks not yet released).
   */
  @Test
  void theMetricsCountPlannedPendingAndRunningTasksAndTheBacklog() throws Throwable {
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(2, metrics)) {
      readers(context, 2);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      assertThat(metrics.registered("tasksPlanned").getCount()).isZero();
      assertThat(metrics.gauge("backlog")).isEqualTo(0L);
      context.runPeriodicCallable(0);
      assertThat(metrics.registered("tasksPlanned").getCount()).isEqualTo(3);
      assertThat(metrics.gauge("tasksPending")).isEqualTo(3);
      assertThat(metrics.gauge("tasksRunning")).isEqualTo(0);
      assertThat(metrics.gauge("backlog")).isEqualTo(12L);

      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      e.handleSplitRequest(1, "localhost");
      assertThat(metrics.gauge("tasksPending")).isEqualTo(1);
      assertThat(metrics.gauge("tasksRunning")).isEqualTo(2);
      assertThat(metrics.gauge("backlog")).isEqualTo(12L);
      context.runPeriodicCallable(0); // nothing new: nothing planned again
      assertThat(metrics.registered("tasksPlanned").getCount()).isEqualTo(3);

      // the window of one task committed: its files leave the backlog
      CompactTaskSplit first = assigned(context).get(0);
      Table table = targets.table("db.t");
      table.newCompactBuilder().withCommitUser("window").execute();
      ReleaseRecords.write(table.store(), USER, 1, List.of(first.splitId()));
      context.runPeriodicCallable(0);
      assertThat(metrics.gauge("backlog")).isEqualTo(8L);
    }
  }

  /** In a batch job a task's files leave the backlog once its reader asks for the next task. */
  @Test
  void aBatchSourcesBacklogEmptiesAsReadersFinishTheirTasks() throws Throwable {
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      readers(context, 1);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.BATCH, null);
      context.runNextOneTimeCallable();
      assertThat(metrics.gauge("backlog")).isEqualTo(12L);
      List<Long> backlog = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        e.handleSplitRequest(0, "localhost");
        backlog.add((Long) metrics.gauge("backlog"));
      }
      assertThat(backlog).containsExactly(12L, 8L, 4L, 0L);
      assertThat(context.hasNoMoreSplits(0)).isTrue();
      assertThat(
              metrics.has("handOverLeadMs")
                  || metrics.has("rewriteMarginMs")
                  || metrics.has("planningWindowMs"))
          .as("a batch job does not align to checkpoints")
          .isFalse();
    }
  }

  /**
   * Without full-compaction triggers a continuous job's rounds plan by the table's strategy: a
   * partition of fewer files than compaction.min.file-num is left alone (a full compaction would
   * take it).
   */
  @Test
  void withoutTriggersARoundPlansByTheStrategyNotAFullCompaction() throws Throwable {
    Table table = targets.table("db.t");
    FlinkTestSupport.fill(table, 1000, 2, 1, "d"); // two files: under compaction.min.file-num 3
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e = enumerator(context, ExecutionMode.STREAMING, null);
      context.runPeriodicCallable(0);
      List<CompactTaskSplit> planned = e.snapshotState(1).pending();
      assertThat(planned)
          .extracting(s -> s.task().partitionPath())
          .containsExactlyInAnyOrder("p=a", "p=b", "p=c");
    }
  }

  /**
   * {@code compaction.trigger.max-delay} in a continuous job: small files that waited long enough
   * are planned although no snapshot came since the last round (the writers stopped).
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3})
  void anAgeTriggerFiresWithoutANewSnapshot(long seed) throws Throwable {
    Random random = new Random(seed);
    ManualClock clock = new ManualClock();
    long delay = 60_000 + random.nextInt(3_600_000);
    Path warehouse = dir.resolve("age-" + seed);
    Table table =
        TestTables.create(
            TestTables.catalog(warehouse).withClock(clock),
            "t",
            FlinkTestSupport.partitioned()
                .option("compaction.min.file-num", "100")
                .option("compaction.trigger.max-delay", delay + " ms")
                .build());
    FlinkTestSupport.fill(table, 1, 2 + random.nextInt(3), 1, "a");
    long written = clock.millis();
    CompactTargets onClock = FlinkTestSupport.targets(warehouse, table).withClock(clock);
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(context, onClock, ExecutionMode.STREAMING, 1, USER, null);
      e.start();
      context.runPeriodicCallable(0);
      assertThat(e.snapshotState(1).pending()).as("young files").isEmpty();
      for (int round = 0; round < 3; round++) {
        clock.advance(Duration.ofSeconds(1 + random.nextInt(30)));
        context.runPeriodicCallable(0);
      }
      clock.set(written + delay);
      context.runPeriodicCallable(0);
      assertThat(e.snapshotState(2).pending())
          .as("seed %s, delay %s ms", seed, delay)
          .singleElement()
          .satisfies(s -> assertThat(s.task().partitionPath()).isEqualTo("p=a"));
    }
  }

  /**
   * A failed planning round of a continuous job is retried by the next round even when no discovery
   * is due; a batch job fails, naming what it planned.
   */
  @Test
  void aFailedPlanningRoundIsRetriedInStreamingAndFailsABatch() throws Throwable {
    CompactTargets faulty = new CompactTargets(FaultyFileSystem.uri(dir), targets.spec());
    try {
      ManifestCache.clear();
      FaultyFileSystem.failOpen(p -> p.contains("/manifest/"));
      try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
        readers(context, 1);
        CompactTaskEnumerator e =
            new CompactTaskEnumerator(context, faulty, ExecutionMode.BATCH, 60_000, USER, null);
        e.start();
        assertThatThrownBy(context::runNextOneTimeCallable)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("Planning compaction of")
            .hasMessageContaining("failed")
            .hasStackTraceContaining("Injected failure opening");
      }
      try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
        readers(context, 1);
        CompactTaskEnumerator e =
            new CompactTaskEnumerator(
                context,
                faulty.withClock(new ManualClock()),
                ExecutionMode.STREAMING,
                60_000,
                USER,
                null);
        e.start();
        context.runPeriodicCallable(0); // the discovery round fails
        assertThat(e.snapshotState(1).pending()).isEmpty();
        FaultyFileSystem.reset();
        context.runPeriodicCallable(0); // no discovery due (the clock stands): the retry
        assertThat(e.snapshotState(2).pending()).hasSize(3);
      }
    } finally {
      FaultyFileSystem.reset();
    }
  }

  /**
   * In a continuous job over several tables, one table whose planning fails (an I/O error, a table
   * dropped or refused meanwhile) does not keep the others from being planned in the round; it is
   * planned again at the next one.
   */
  @Test
  void aTableWhosePlanningFailsDoesNotHoldBackTheOthers() throws Throwable {
    Table u =
        TestTables.create(
            TestTables.catalog(dir),
            "u",
            FlinkTestSupport.partitioned().option("compaction.min.file-num", "3").build());
    FlinkTestSupport.fill(u, 0, 4, 5, "a", "b");
    CompactTargets database =
        new CompactTargets(FaultyFileSystem.uri(dir), CompactSpec.forDatabase("db", ".*").build())
            .withClock(new ManualClock());
    try {
      ManifestCache.clear();
      FaultyFileSystem.failOpen(p -> p.contains("/u/manifest/"));
      try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
        readers(context, 1);
        CompactTaskEnumerator e =
            new CompactTaskEnumerator(
                context, database, ExecutionMode.STREAMING, 60_000, USER, null);
        e.start();
        context.runPeriodicCallable(0);
        assertThat(e.snapshotState(1).pending())
            .as("t's three tasks, though u failed")
            .hasSize(3)
            .allSatisfy(s -> assertThat(s.task().table()).isEqualTo("db.t"));
        FaultyFileSystem.reset();
        context.runPeriodicCallable(0); // u is planned again without a new snapshot
        assertThat(e.snapshotState(2).pending())
            .hasSize(5)
            .filteredOn(s -> s.task().table().equals("db.u"))
            .hasSize(2);
      }
    } finally {
      FaultyFileSystem.reset();
    }
  }

  /**
   * A table dropped and created again under its name while the job runs: the tasks planned for the
   * old table are forgotten, and the new one is planned as a new table (its snapshot ids start
   * again, below those the job saw).
   */
  @Test
  void aTableCreatedAgainIsPlannedAfreshAndItsOldTasksForgotten() throws Throwable {
    CompactTargets database =
        new CompactTargets(dir.toString(), CompactSpec.forDatabase("db", ".*").build())
            .withClock(new ManualClock());
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(context, database, ExecutionMode.STREAMING, 60_000, USER, null);
      e.start();
      context.runPeriodicCallable(0);
      assertThat(e.snapshotState(1).pending()).hasSize(3);

      TestTables.catalog(dir).dropTable(new Identifier("db", "t"), false);
      Table again =
          TestTables.create(
              TestTables.catalog(dir),
              "t",
              FlinkTestSupport.partitioned().option("compaction.min.file-num", "3").build());
      FlinkTestSupport.fill(again, 0, 3, 2, "x", "y");
      Set<String> files = new HashSet<>();
      for (ManifestEntry m : again.store().newScan().plan(again.latestSnapshot().orElseThrow())) {
        files.add(m.file().fileName());
      }

      context.runPeriodicCallable(0);
      List<CompactTaskSplit> pending = e.snapshotState(2).pending();
      assertThat(pending).hasSize(2);
      assertThat(inputs(pending)).isSubsetOf(files);
    }
  }

  /** A mock context whose enumerator registers its metrics in {@code metrics}. */
  private static MockSplitEnumeratorContext<CompactTaskSplit> contextWithMetrics(
      int parallelism, RecordingMetrics metrics) {
    return new MockSplitEnumeratorContext<>(parallelism) {
      @Override
      public SplitEnumeratorMetricGroup metricGroup() {
        return metrics;
      }
    };
  }

  /** Metrics that keep what is registered, by name. */
  private static final class RecordingMetrics extends UnregisteredMetricsGroup
      implements SplitEnumeratorMetricGroup {
    private final Map<String, Metric> metrics = new HashMap<>();

    @Override
    public Counter counter(String name) {
      return counter(name, new SimpleCounter());
    }

    @Override
    public <C extends Counter> C counter(String name, C counter) {
      metrics.putIfAbsent(name, counter);
      return counter;
    }

    @Override
    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
      metrics.put(name, gauge);
      return gauge;
    }

    @Override
    public <G extends Gauge<Long>> G setUnassignedSplitsGauge(G gauge) {
      return gauge;
    }

    Object gauge(String name) {
      return ((Gauge<?>) metrics.get(name)).getValue();
    }

    boolean has(String name) {
      return metrics.containsKey(name);
    }

    Counter registered(String counter) {
      return (Counter) metrics.get(counter);
    }
  }

  /**
   * Between discoveries (every {@code compaction.discovery-interval}, and every round until two
   * checkpoints were seen) a continuous source plans only when tasks were released, or in the round
   * after one that took releases (it planned with their files still held). Generated histories of
   * appends, clock moves, hand-outs, releases and rounds: no round outside those plans a new task,
   * and every task is handed out once.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void betweenDiscoveriesOnlyReleasesMakeARoundPlan(long seed) throws Throwable {
    Random random = new Random(seed);
    Table table = FlinkTestSupport.threePartitionsOfFourFiles(dir.resolve("d"));
    ManualClock clock = new ManualClock();
    CompactTargets onClock = FlinkTestSupport.targets(dir.resolve("d"), table).withClock(clock);
    long interval = 60_000;
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(
              context, onClock, ExecutionMode.STREAMING, interval, USER, null);
      e.start();
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      long lastCheckpoint = clock.millis();
      boolean intervalKnown = false; // two checkpoints at different times seen
      long lastDiscovery = Long.MIN_VALUE / 2;
      boolean replan = true; // the first round plans
      boolean released = false; // records written since the last round
      Set<String> known = new HashSet<>();
      List<String> out = new ArrayList<>(); // handed out, not released
      Set<String> done = new HashSet<>(); // released
      long id = 1000;
      for (int step = 0; step < 40; step++) {
        int op = random.nextInt(10);
        if (op < 3) {
          String p = List.of("a", "b", "c").get(random.nextInt(3));
          // three small files: enough for a task of their own, held files or not
          FlinkTestSupport.fill(table, id, 3, 1, p);
          id += 3;
        } else if (op < 5) {
          clock.advance(Duration.ofSeconds(10L * random.nextInt(4)));
        } else if (op < 6) {
          e.handleSplitRequest(0, "localhost");
          List<CompactTaskSplit> all = assigned(context);
          all.forEach(
              t -> {
                if (!out.contains(t.splitId()) && !done.contains(t.splitId())) {
                  out.add(t.splitId());
                }
              });
          assertThat(all).extracting(CompactTaskSplit::splitId).doesNotHaveDuplicates();
        } else if (op < 7 && !out.isEmpty()) {
          String finished = out.remove(random.nextInt(out.size()));
          done.add(finished);
          // its window commits (here: a compaction of the whole table stands for it), then the
          // committer records the release
          table.newCompactBuilder().withCommitUser("window").execute();
          ReleaseRecords.write(table.store(), USER, step, List.of(finished));
          released = true;
        } else {
          long now = clock.millis();
          if (e.roundWaits(now)) {
            // a round that waits for a time nearer the expected checkpoint takes nothing
            context.runPeriodicCallable(0);
            intervalKnown |= now > lastCheckpoint;
            lastCheckpoint = now;
            assertThat(e.snapshotState(step + 2).pending())
                .as("seed %d, step %d: a waiting round planned", seed, step)
                .extracting(CompactTaskSplit::splitId)
                .isSubsetOf(known);
            continue;
          }
          // until the checkpoints are known every round discovers
          boolean discovery = now - lastDiscovery >= interval || !intervalKnown;
          if (discovery) {
            lastDiscovery = now;
          }
          boolean mayPlan = discovery || replan || released;
          replan = released;
          released = false;
          context.runPeriodicCallable(0);
          intervalKnown |= now > lastCheckpoint;
          lastCheckpoint = now;
          CompactEnumeratorState state = e.snapshotState(step + 2);
          Set<String> planned = new HashSet<>();
          state.pending().forEach(t -> planned.add(t.splitId()));
          state.held().forEach(t -> planned.add(t.splitId()));
          assigned(context).forEach(t -> planned.add(t.splitId()));
          planned.removeAll(known);
          if (!mayPlan) {
            assertThat(planned)
                .as(
                    "seed %d, step %d: tasks planned between discoveries, nothing released",
                    seed, step)
                .isEmpty();
          }
          known.addAll(planned);
        }
      }
      assertThat(known).as("seed %d: the first round planned", seed).isNotEmpty();
    }
  }

  /**
   * A continuous job's output is committed at the first checkpoint after its rewrite, so a due
   * round (a discovery, or one taking released tasks) hands its tasks over only its own lead before
   * the expected next checkpoint: before the interval's last half the rounds wait; one in it plans
   * and, when its lead (a poll plus twice its plan and the rewrite of its bytes at the throughput
   * the job measured) is shorter than the time left, hands nothing over and plans again then, with
   * the files that arrived meanwhile. A round of several times the bytes of the last ones hands
   * over at once, so that it makes the checkpoint too. Once the expected checkpoint is overdue a
   * round plans at once. The job's gauges show the last round's lead, the throughput and how long
   * before the checkpoint its rewrite ended.
   */
  @Test
  void aDueRoundHandsItsTasksOverItsOwnLeadBeforeTheExpectedCheckpoint() throws Throwable {
    Table table = FlinkTestSupport.threePartitionsOfFourFiles(dir.resolve("d"));
    ManualClock clock = new ManualClock();
    long start = clock.millis();
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      CompactTaskEnumerator e = continuousOnClock(context, table, clock, 1_000);
      assertThat(metrics.gauge("handOverLeadMs")).isEqualTo(-1L);
      assertThat(metrics.gauge("rewriteBytesPerSecond")).isEqualTo(0L);
      e.snapshotState(1); // one checkpoint: no interval known
      context.runPeriodicCallable(0); // plans at once: three tasks of four files
      e.notifyCheckpointComplete(1);
      for (int i = 0; i < 4; i++) {
        e.handleSplitRequest(0, "localhost"); // one reader rewrites them in 3 s: the throughput
        clock.advance(Duration.ofSeconds(1));
      }
      List<CompactTaskSplit> first = assigned(context);
      assertThat(first).hasSize(3);
      long firstBytes = first.stream().mapToLong(s -> s.task().inputBytes()).sum();
      assertThat(metrics.gauge("rewriteBytesPerSecond")).isEqualTo(Math.round(firstBytes / 3.0));
      assertThat(metrics.gauge("rewriteMarginMs")).as("no checkpoint expected then").isNull();

      // checkpoint 2 at 10 s; three new files in a and a discovery due right after it
      clock.advance(Duration.ofSeconds(6));
      e.snapshotState(2);
      FlinkTestSupport.fill(table, 100, 3, 1, "a");
      assertThat(roundsUntilHandedOver(context, clock, start + 14_500))
          .as("the first half of the interval")
          .isNegative();
      clock.advance(Duration.ofMillis(500)); // 15 s: a round plans, its lead is shorter: it defers
      assertThat(e.roundWaits(clock.millis())).isFalse();
      assertThat(roundsUntilHandedOver(context, clock, clock.millis())).isNegative();
      FlinkTestSupport.fill(table, 200, 1, 1, "a"); // arrives after the deferred round
      long small = roundsUntilHandedOver(context, clock, start + 20_000);
      assertThat(small - start).as("handed over before the checkpoint").isBetween(15_001L, 19_999L);
      CompactTaskSplit a = assigned(context).get(3);
      assertThat(a.inputFileNames()).as("the file that arrived meanwhile taken").hasSize(4);
      long lead = 1_000 + 2 * (long) Math.ceil(a.task().inputBytes() / (firstBytes / 3_000.0));
      assertThat(metrics.gauge("handOverLeadMs"))
          .as("a poll and twice its rewrite at the measured throughput")
          .isEqualTo(lead);
      assertThat(lead)
          .as("as long as the time left")
          .isGreaterThanOrEqualTo(start + 20_000 - small);
      clock.advance(Duration.ofMillis(1));
      e.handleSplitRequest(0, "localhost");
      assertThat(metrics.gauge("rewriteMarginMs"))
          .as("rewritten 1 ms after the hand-over: made the checkpoint with the rest to spare")
          .isEqualTo(start + 20_000 - clock.millis());

      // checkpoint 3 at 20 s: releases of the first tasks wait too; 24 new files in b, six times
      // the bytes the last round handed over: their rewrite needs more than the time left
      clock.advance(Duration.ofMillis(start + 20_000 - clock.millis()));
      e.snapshotState(3);
      ReleaseRecords.write(
          table.store(), USER, 3, first.stream().map(CompactTaskSplit::splitId).toList());
      FlinkTestSupport.fill(table, 300, 24, 1, "b");
      assertThat(roundsUntilHandedOver(context, clock, start + 24_500)).isNegative();
      long large = roundsUntilHandedOver(context, clock, start + 30_000);
      assertThat(large - start).as("the first round of the last half").isEqualTo(25_000);
      assertThat(metrics.gauge("planningWindowMs"))
          .as("its lead is longer, but it merges append files only: half the interval still")
          .isEqualTo(5_000L);

      // an expected checkpoint that is overdue does not hold a round back
      e.handleSplitRequest(0, "localhost");
      int before = assigned(context).size();
      clock.advance(Duration.ofSeconds(20)); // 45 s: the checkpoint expected at 30 s overdue
      FlinkTestSupport.fill(table, 400, 3, 1, "c");
      assertThat(e.roundWaits(clock.millis())).isFalse();
      context.runPeriodicCallable(0);
      e.handleSplitRequest(0, "localhost");
      assertThat(assigned(context).size()).isGreaterThan(before);
    }
  }

  /**
   * A minor round in the window before the expected checkpoint (its last half) may be the last
   * whose output that checkpoint commits: a group of two or more small files qualifies without
   * {@code compaction.min.file-num} files (the time trigger fires), and a round that finds nothing
   * keeps its discovery due, so the next round plans what the writer adds before the checkpoint
   * instead of leaving it a whole interval. Once the checkpoint is overdue neither holds: groups
   * need their count, and an empty round counts as the discovery.
   */
  @Test
  void theRoundsShortlyBeforeACheckpointTakeEveryGroupOfTwoFilesAndKeepTheirDiscoveryDue()
      throws Throwable {
    // compaction.min.file-num not set (5): a count a table sets is waited for in every round
    Table table =
        TestTables.create(
            TestTables.catalog(dir.resolve("d")), "t", FlinkTestSupport.partitioned().build());
    ManualClock clock = new ManualClock();
    long start = clock.millis();
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      CompactTaskEnumerator e = continuousOnClock(context, table, clock, 10_000);
      e.snapshotState(1);
      context.runPeriodicCallable(0);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      clock.advance(Duration.ofSeconds(10));
      e.snapshotState(2); // every 10 s: the lead is one poll, 1 s

      FlinkTestSupport.fill(table, 100, 1, 1, "a"); // one file: no group
      clock.advance(Duration.ofSeconds(9)); // 19 s: in the window, a discovery due
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).isEmpty();
      FlinkTestSupport.fill(table, 200, 1, 1, "a");
      clock.advance(Duration.ofMillis(500));
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).as("planned before the checkpoint").hasSize(1);
      assertThat(assigned(context).get(0).inputFileNames()).as("two files").hasSize(2);

      e.handleSplitRequest(0, "localhost");
      clock.advance(Duration.ofMillis(start + 31_000 - clock.millis())); // checkpoint 3 overdue
      FlinkTestSupport.fill(table, 300, 2, 1, "b");
      context.runPeriodicCallable(0); // a discovery: two files are no group of five
      assertThat(assigned(context)).hasSize(1);
      FlinkTestSupport.fill(table, 400, 3, 1, "b");
      clock.advance(Duration.ofMillis(500));
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).as("no discovery due").hasSize(1);
      clock.advance(Duration.ofSeconds(10));
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).as("the next discovery").hasSize(2);
      assertThat(assigned(context).get(1).inputFileNames()).hasSize(5);
    }
  }

  /**
   * Until two checkpoints were seen (a job's start, with a writer started beside it) every round
   * looks for new snapshots: a bucket is planned once its runs qualify, not at the next discovery,
   * which may fall just before the checkpoint. Afterwards discoveries are every interval again.
   */
  @Test
  void untilTheCheckpointsAreKnownEveryRoundDiscovers() throws Throwable {
    Table table = oneKeyBucketTable();
    ManualClock clock = new ManualClock();
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      CompactTaskEnumerator e = continuousOnClock(context, table, clock, 10_000);
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      context.runPeriodicCallable(0); // the first discovery: an empty table
      oneRunPerKey(table, 0, 5);
      clock.advance(Duration.ofSeconds(1));
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).as("five runs, a second later").hasSize(1);
      assertThat(assigned(context).get(0).inputFileNames()).hasSize(5);
    }
  }

  /**
   * A job's enumerator knows the checkpoint interval it was given: no round plans before the first
   * checkpoint (what it handed over would be committed only at the second), and the rounds after it
   * wait for the last half of the interval, then hand over before the checkpoint expected one
   * interval after the first.
   */
  @Test
  void withTheIntervalGivenRoundsWaitForTheFirstCheckpointAndAimAtTheNext() throws Throwable {
    Table table = oneKeyBucketTable();
    ManualClock clock = new ManualClock();
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      CompactTaskEnumerator e = continuousOnClock(context, table, clock, 10_000, 10_000);
      e.handleSplitRequest(0, "localhost");
      oneRunPerKey(table, 0, 5);
      context.runPeriodicCallable(0);
      assertThat(plannedAfter(context, clock, metrics, Duration.ofSeconds(30)))
          .as("before the first checkpoint")
          .isZero();
      long first = clock.millis();
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      assertThat(plannedAfter(context, clock, metrics, Duration.ofMillis(4_999)))
          .as("the first half of the interval")
          .isZero();
      clock.advance(Duration.ofMillis(1));
      long handedOver = roundsUntilHandedOver(context, clock, first + 9_999);
      assertThat(handedOver)
          .as("handed over in the last half, before the checkpoint expected 10 s after the first")
          .isBetween(first + 5_000, first + 9_999);
      assertThat(assigned(context).get(0).inputFileNames()).hasSize(5);
    }
  }

  /**
   * A primary-key bucket's level-0 runs are not moved up early in the window (each round would add
   * a sorted run until universal compaction merges them): they wait for {@code
   * num-sorted-run.compaction-trigger}, and the round that finds nothing keeps its discovery due.
   */
  @Test
  void primaryKeyBucketsShortlyBeforeACheckpointWaitForTheirRunCount() throws Throwable {
    Table table = oneKeyBucketTable();
    ManualClock clock = new ManualClock();
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      CompactTaskEnumerator e = withTenSecondCheckpoints(context, table, clock); // lead: a 1 s poll
      oneRunPerKey(table, 0, 2);
      clock.advance(Duration.ofSeconds(9)); // in the window: two level-0 runs of five
      context.runPeriodicCallable(0);
      e.handleSplitRequest(0, "localhost");
      assertThat(assigned(context)).isEmpty();
      oneRunPerKey(table, 2, 5);
      clock.advance(Duration.ofMillis(500));
      context.runPeriodicCallable(0);
      assertThat(assigned(context)).as("five runs, before the checkpoint").hasSize(1);
      assertThat(assigned(context).get(0).inputFileNames()).hasSize(5);
    }
  }

  /**
   * A primary-key bucket is left out of planning until its merge is committed, so a round that
   * merges buckets opens the planning window of the next rounds at its lead (up to a poll after the
   * checkpoint): a round as large then hands over in time. (Rounds of append files leave the window
   * at half the interval: see the test of the own lead.)
   */
  @Test
  void aRoundThatMergedAPrimaryKeyBucketOpensTheNextWindowsAtItsLead() throws Throwable {
    Table table = oneKeyBucketTable();
    ManualClock clock = new ManualClock();
    long start = clock.millis();
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      CompactTaskEnumerator e = withTenSecondCheckpoints(context, table, clock);
      assertThat(metrics.gauge("planningWindowMs")).isEqualTo(5_000L);
      long handedOver = widenTheWindow(context, e, clock, table, metrics);
      assertThat(handedOver - start)
          .as(
              "ten runs, twice the bytes: a lead of about 17 s, longer than the window; at the"
                  + " round after the one that read the release (its files still held then)")
          .isEqualTo(25_500);
      assertThat((Long) metrics.gauge("handOverLeadMs")).isGreaterThan(10_000L);
      assertThat(metrics.gauge("planningWindowMs"))
          .as("the next windows open at that lead, a poll after the checkpoint at most")
          .isEqualTo(9_000L);
      assertThat(e.roundWaits(start + 30_999)).isTrue();
      assertThat(e.roundWaits(start + 31_000))
          .as("a round plans 9 s before the checkpoint")
          .isFalse();
    }
  }

  /**
   * Primary-key merges that widen the window, from the checkpoint at 10 s: five runs merged half a
   * second before the checkpoint at 20 s and rewritten in 4 s (the throughput; the lead of that
   * round was a poll, the window stays at 5 s), then ten runs, twice the bytes, handed over at the
   * round after the one that read the first task's release. Ends at the checkpoint at 30 s; returns
   * when the second round handed over.
   */
  private static long widenTheWindow(
      MockSplitEnumeratorContext<CompactTaskSplit> context,
      CompactTaskEnumerator e,
      ManualClock clock,
      Table table,
      RecordingMetrics metrics)
      throws Throwable {
    long start = clock.millis() - 10_000;
    oneRunPerKey(table, 0, 5);
    e.handleSplitRequest(0, "localhost"); // the reader waits for a task
    clock.advance(Duration.ofMillis(9_500));
    context.runPeriodicCallable(0);
    List<CompactTaskSplit> first = assigned(context);
    assertThat(first).as("five runs, half a second before the checkpoint").hasSize(1);
    clock.advance(Duration.ofMillis(500));
    e.snapshotState(3);
    clock.advance(Duration.ofMillis(3_500));
    e.handleSplitRequest(0, "localhost"); // rewritten in 4 s: the throughput
    assertThat(metrics.gauge("planningWindowMs"))
        .as("its lead was a poll: no throughput known yet")
        .isEqualTo(5_000L);
    ReleaseRecords.write(
        table.store(), USER, 3, first.stream().map(CompactTaskSplit::splitId).toList());
    oneRunPerKey(table, 5, 10);
    assertThat(e.roundWaits(start + 24_999)).isTrue();
    long handedOver = roundsUntilHandedOver(context, clock, start + 30_000);
    e.handleSplitRequest(0, "localhost");
    clock.advance(Duration.ofMillis(start + 30_000 - clock.millis()));
    e.snapshotState(4);
    return handedOver;
  }

  /**
   * In a job over a primary-key table and an append table, the window the primary-key merges
   * widened does not widen the stretch in which an append partition's group of two small files
   * qualifies: a round before the last half of the interval leaves two files for their count, and a
   * round in the last half takes them.
   */
  @Test
  void aWiderWindowLeavesGroupsOfTwoToTheLastHalfOfTheInterval() throws Throwable {
    Path warehouse = dir.resolve("d");
    Table pk =
        TestTables.create(
            TestTables.catalog(warehouse), "pk", FlinkTestSupport.oneKeyBucket().build());
    Table log =
        TestTables.create(
            TestTables.catalog(warehouse), "log", FlinkTestSupport.partitioned().build());
    ManualClock clock = new ManualClock();
    long start = clock.millis();
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      readers(context, 1);
      CompactTargets both =
          new CompactTargets(warehouse.toString(), CompactSpec.forDatabase("db", ".*").build())
              .withClock(clock);
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(context, both, ExecutionMode.STREAMING, 10_000, USER, null);
      e.start();
      checkpointsTenSecondsApart(e, clock);
      assertThat(widenTheWindow(context, e, clock, pk, metrics)).isPositive();
      assertThat(metrics.gauge("planningWindowMs")).isEqualTo(9_000L);

      FlinkTestSupport.fill(log, 100, 2, 1, "a"); // two small files: no count of five
      long handedOver = roundsUntilHandedOver(context, clock, start + 40_000);
      assertThat(handedOver - start)
          .as("the group of two taken in the last half of the interval only")
          .isBetween(35_000L, 39_999L);
      assertThat(assigned(context).get(assigned(context).size() - 1).task().table())
          .isEqualTo("db.log");
    }
  }

  /**
   * A full compaction round ({@code full-compaction.delta-commits}) hands over at once whatever its
   * lead, so it does not widen the window of the rounds after it, long as its lead is.
   */
  @Test
  void aFullRoundDoesNotOpenTheWindowEarlier() throws Throwable {
    Table table =
        TestTables.create(
            TestTables.catalog(dir.resolve("d")),
            "t",
            FlinkTestSupport.oneKeyBucket()
                .option("full-compaction.delta-commits", "1")
                .option("num-sorted-run.compaction-trigger", "100")
                .build());
    ManualClock clock = new ManualClock();
    long start = clock.millis();
    RecordingMetrics metrics = new RecordingMetrics();
    try (var context = contextWithMetrics(1, metrics)) {
      CompactTaskEnumerator e = withTenSecondCheckpoints(context, table, clock);
      oneRunPerKey(table, 0, 5);
      e.handleSplitRequest(0, "localhost");
      clock.advance(Duration.ofSeconds(5));
      context.runPeriodicCallable(0); // 15 s: a full round, at once
      List<CompactTaskSplit> first = assigned(context);
      assertThat(first).hasSize(1);
      clock.advance(Duration.ofSeconds(4));
      e.handleSplitRequest(0, "localhost"); // rewritten in 4 s: the throughput
      clock.advance(Duration.ofSeconds(1));
      e.snapshotState(3);
      ReleaseRecords.write(
          table.store(), USER, 3, first.stream().map(CompactTaskSplit::splitId).toList());
      oneRunPerKey(table, 5, 10);
      assertThat(roundsUntilHandedOver(context, clock, start + 30_000)).isPositive();
      assertThat((Long) metrics.gauge("handOverLeadMs"))
          .as("ten runs at the measured throughput: longer than half the interval")
          .isGreaterThan(5_000L);
      assertThat(metrics.gauge("planningWindowMs")).isEqualTo(5_000L);
    }
  }

  /**
   * Checkpoints closer together than the lead: a round never waits (waiting would make its output
   * miss the checkpoint it could make).
   */
  @Test
  void checkpointsCloserThanTheLeadNeverHoldARoundBack() throws Throwable {
    Table table = FlinkTestSupport.threePartitionsOfFourFiles(dir.resolve("d"));
    ManualClock clock = new ManualClock();
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      CompactTaskEnumerator e = continuousOnClock(context, table, clock, 500);
      e.snapshotState(1);
      context.runPeriodicCallable(0); // the first round: three tasks
      clock.advance(Duration.ofMillis(500));
      e.snapshotState(2); // every 500 ms, the rounds every 500 ms too: the lead is 500 ms
      FlinkTestSupport.fill(table, 100, 3, 1, "a");
      assertThat(e.roundWaits(clock.millis())).isFalse();
      context.runPeriodicCallable(0);
      assertThat(e.snapshotState(3).pending()).hasSize(4);
    }
  }

  /**
   * A partition of an unbucketed append table whose task is still held (its window not committed)
   * has its new files planned all the same: size tiers keep no order among a partition's files, so
   * a rewrite that missed its checkpoint does not keep the writer's next files waiting. With fixed
   * buckets (sequence order kept) the bucket waits for the held task's release.
   */
  @ParameterizedTest
  @ValueSource(strings = {"-1", "1"})
  void newFilesOfAPartitionWithAHeldTaskArePlannedOnlyWhereFilesKeepNoOrder(String buckets)
      throws Throwable {
    Schema.Builder schema = FlinkTestSupport.partitioned().option("compaction.min.file-num", "3");
    if (!buckets.equals("-1")) {
      schema.option("bucket", buckets).option("bucket-key", "id");
    }
    Table table = TestTables.create(TestTables.catalog(dir.resolve("d")), "t", schema.build());
    FlinkTestSupport.fill(table, 0, 4, 5, "a");
    ManualClock clock = new ManualClock();
    CompactTargets t = FlinkTestSupport.targets(dir.resolve("d"), table).withClock(clock);
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      readers(context, 1);
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(context, t, ExecutionMode.STREAMING, 1_000, USER, null);
      e.start();
      context.runPeriodicCallable(0);
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      CompactTaskSplit held = assigned(context).get(0);
      assertThat(held.inputFileNames()).hasSize(4);

      FlinkTestSupport.fill(table, 100, 3, 1, "a");
      clock.advance(Duration.ofSeconds(1)); // a discovery is due
      context.runPeriodicCallable(0);
      List<CompactTaskSplit> planned = e.snapshotState(2).pending();
      if (buckets.equals("-1")) {
        assertThat(planned).hasSize(1);
        assertThat(planned.get(0).inputFileNames())
            .hasSize(3)
            .doesNotContainAnyElementsOf(held.inputFileNames());
      } else {
        assertThat(planned).as("the bucket waits for the held task").isEmpty();
      }
    }
  }

  /**
   * A started continuous enumerator of db.t in {@code dir/d} on {@code clock}, discovering every
   * {@code intervalMillis}, with one registered reader.
   */
  private CompactTaskEnumerator continuousOnClock(
      MockSplitEnumeratorContext<CompactTaskSplit> context,
      Table table,
      ManualClock clock,
      long intervalMillis) {
    return continuousOnClock(context, table, clock, intervalMillis, -1);
  }

  /** The same, given the job's checkpoint interval {@code checkpointIntervalMillis}. */
  private CompactTaskEnumerator continuousOnClock(
      MockSplitEnumeratorContext<CompactTaskSplit> context,
      Table table,
      ManualClock clock,
      long intervalMillis,
      long checkpointIntervalMillis) {
    readers(context, 1);
    CompactTargets onClock = FlinkTestSupport.targets(dir.resolve("d"), table).withClock(clock);
    CompactTaskEnumerator e =
        new CompactTaskEnumerator(
            context,
            onClock,
            ExecutionMode.STREAMING,
            intervalMillis,
            new JobCheckpoints(checkpointIntervalMillis, 0),
            USER,
            null);
    e.start();
    return e;
  }

  /** db.t: a one-bucket primary-key table ({@link FlinkTestSupport#oneKeyBucket}). */
  private Table oneKeyBucketTable() {
    return TestTables.create(
        TestTables.catalog(dir.resolve("d")), "t", FlinkTestSupport.oneKeyBucket().build());
  }

  /**
   * A continuous enumerator of {@code table} planning every 10 s, after {@link
   * #checkpointsTenSecondsApart}.
   */
  private CompactTaskEnumerator withTenSecondCheckpoints(
      MockSplitEnumeratorContext<CompactTaskSplit> context, Table table, ManualClock clock)
      throws Exception {
    CompactTaskEnumerator e = continuousOnClock(context, table, clock, 10_000);
    checkpointsTenSecondsApart(e, clock);
    return e;
  }

  /** Checkpoints 1 (completed) and 2, 10 s apart: the interval is known from then on. */
  private static void checkpointsTenSecondsApart(CompactTaskEnumerator e, ManualClock clock)
      throws Exception {
    e.snapshotState(1);
    e.notifyCheckpointComplete(1);
    clock.advance(Duration.ofSeconds(10));
    e.snapshotState(2);
  }

  /** One commit per key of {@code [from, to)}: one level-0 run each. */
  private static void oneRunPerKey(Table table, long from, long to) {
    for (long k = from; k < to; k++) {
      TestTables.writeBatch(table, List.of(GenericRowData.of(k, StringData.fromString("v"))));
    }
  }

  /** The tasks planned so far, after a round {@code wait} later. */
  private static long plannedAfter(
      MockSplitEnumeratorContext<CompactTaskSplit> context,
      ManualClock clock,
      RecordingMetrics metrics,
      Duration wait)
      throws Throwable {
    clock.advance(wait);
    context.runPeriodicCallable(0);
    return metrics.registered("tasksPlanned").getCount();
  }

  /**
   * Rounds every 500 ms from now until one hands a task to the waiting reader, the last at {@code
   * untilMillis}: when one did, or -1.
   */
  private static long roundsUntilHandedOver(
      MockSplitEnumeratorContext<CompactTaskSplit> context, ManualClock clock, long untilMillis)
      throws Throwable {
    int before = assigned(context).size();
    while (true) {
      context.runPeriodicCallable(0);
      if (assigned(context).size() > before) {
        return clock.millis();
      }
      if (clock.millis() + 500 > untilMillis) {
        return -1;
      }
      clock.advance(Duration.ofMillis(500));
    }
  }
}
