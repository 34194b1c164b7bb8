package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitConflictException;
import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.SchemaChange;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingTaskMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.StreamTaskActionExecutor;
import org.apache.flink.streaming.runtime.tasks.mailbox.MailboxExecutorImpl;
import org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rewrite operator and the committer, each alone in Flink's operator test harness: the windows,
 * aborts, failure limit, restores and clean-ups of each, step by step, without a job. The jobs that
 * wire them together are tested on a MiniCluster (CompactStreamingJobTest, CompactBatchJobTest,
 * CompactFailureLimitTest).
 */
class CompactOperatorHarnessTest {

  private static final String USER = "harness-user";

  private static final Duration DEFAULT_WAIT =
      CompactionOptions.COMPACTION_CHECKPOINT_WAIT.defaultValue();

  /** What the error of {@link #failedMessage} says of the input it broke. */
  private static final String INJECTED = "Cannot read the Parquet footer of data file";

  @TempDir Path dir;

  private Table table;
  private CompactTargets targets;
  private List<String> rowsBefore;
  private final RecordingListener listener = new RecordingListener();
  // of the rewriter and the committer made last
  private final Map<Class<?>, InterceptingOperatorMetricGroup> metrics = new HashMap<>();
  private final Map<Class<?>, MockEnvironment> environments = new HashMap<>();

  /** Three partitions of four small files each: one append task per partition. */
  @AfterEach
  void resetFaults() {
    FaultyFileSystem.reset();
  }

  @BeforeEach
  void setUp() {
    table = FlinkTestSupport.threePartitionsOfFourFiles(dir);
    rowsBefore = FlinkTestSupport.rows(table);
    targets = FlinkTestSupport.targets(dir, table);
  }

  private List<CompactTaskSplit> splits() {
    List<CompactTask> tasks =
        new CompactPlanner(table.store(), "db.t")
            .plan(table.latestSnapshot().orElseThrow(), null, Set.of());
    assertThat(tasks).hasSize(3);
    List<CompactTaskSplit> out = new ArrayList<>();
    for (CompactTask t : tasks) {
      out.add(new CompactTaskSplit("task-" + out.size(), t, USER));
    }
    return out;
  }

  private OneInputStreamOperatorTestHarness<CompactTaskSplit, CompactMessage> rewriter(
      ExecutionMode mode) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<>(
            new CompactRewriteOperator(targets, listener, mode, DEFAULT_WAIT),
            environment(CompactRewriteOperator.class));
    harness.open();
    return harness;
  }

  /** An environment whose operator metrics and accumulators the test reads. */
  private MockEnvironment environment(Class<?> operator) {
    InterceptingOperatorMetricGroup operatorMetrics = new InterceptingOperatorMetricGroup();
    metrics.put(operator, operatorMetrics);
    MockEnvironment environment =
        new MockEnvironmentBuilder()
            .setMetricGroup(
                new InterceptingTaskMetricGroup() {
                  @Override
                  public InternalOperatorMetricGroup getOrAddOperator(
                      OperatorID id, String name, Map<String, String> variables) {
                    return operatorMetrics;
                  }
                })
            .build();
    environments.put(operator, environment);
    return environment;
  }

  private long counter(Class<?> operator, String name) {
    return ((Counter) metrics.get(operator).get(name)).getCount();
  }

  private Object gauge(Class<?> operator, String name) {
    return ((Gauge<?>) metrics.get(operator).get(name)).getValue();
  }

  private Object accumulator(Class<?> operator, String name) {
    return environments
        .get(operator)
        .getAccumulatorRegistry()
        .getUserMap()
        .get(name)
        .getLocalValue();
  }

  /** What the listener was told, in order. */
  static final class RecordingListener implements CompactListener {
    final List<String> calls = new ArrayList<>();

    @Override
    public void rewritten(CompactTask task, CompactTaskResult result) {
      calls.add("rewritten " + task.partitionPath());
    }

    @Override
    public void beforeCommit(long checkpointId) {
      calls.add("beforeCommit " + checkpointId);
    }
  }

  /** The messages of rewriting {@code splits} (a batch rewrite operator keeps every output). */
  private List<CompactMessage> rewritten(List<CompactTaskSplit> splits) throws Exception {
    try (var harness = rewriter(ExecutionMode.BATCH)) {
      for (CompactTaskSplit s : splits) {
        harness.processElement(new StreamRecord<>(s));
      }
      return harness.extractOutputValues();
    }
  }

  private OneInputStreamOperatorTestHarness<CompactMessage, Void> committer(
      ExecutionMode mode, OperatorSubtaskState restored) throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<>(
            new CompactCommitter(targets, USER, mode, 2, listener),
            environment(CompactCommitter.class));
    harness.setup();
    if (restored != null) {
      harness.initializeState(restored);
    } else {
      harness.initializeEmptyState();
    }
    harness.open();
    return harness;
  }

  // ---- the rewrite operator ----

  @Test
  void eachTaskIsEmittedWithItsOutputsAndOneMarkerPerOutput() throws Exception {
    List<CompactMessage> messages = rewritten(splits());

    assertThat(messages).hasSize(3).noneMatch(CompactMessage::failed);
    for (CompactMessage m : messages) {
      assertThat(m.result().filesRead()).isEqualTo(4);
      assertThat(m.markers()).hasSize(1);
      assertThat(Path.of(URI.create(m.markers().get(0)))).exists();
      assertThat(output(m)).exists();
    }
    assertThat(markerNames()).hasSize(3);
    // nothing is committed by the rewrite
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(4);
    // the listener hears of each rewrite before its result is emitted; the metrics count them
    assertThat(listener.calls)
        .containsExactlyInAnyOrder("rewritten p=a", "rewritten p=b", "rewritten p=c");
    Class<?> r = CompactRewriteOperator.class;
    assertThat(counter(r, "tasksDone")).isEqualTo(3);
    assertThat(counter(r, "tasksFailed")).isZero();
    assertThat(counter(r, "filesRead")).isEqualTo(12);
    assertThat(counter(r, "filesWritten")).isEqualTo(3);
    long bytesRead = 0;
    long bytesWritten = 0;
    for (CompactMessage m : messages) {
      bytesRead += m.result().bytesRead();
      bytesWritten += Files.size(output(m));
    }
    assertThat(bytesRead).isPositive();
    assertThat(counter(r, "bytesRead")).isEqualTo(bytesRead);
    assertThat(counter(r, "bytesWritten")).isEqualTo(bytesWritten);
    assertThat(gauge(r, "tasksRunning")).isEqualTo(0);
    assertThat(accumulator(r, CompactRewriteOperator.TASKS_DONE_ACCUMULATOR)).isEqualTo(3);
  }

  @Test
  void aFailedTaskIsEmittedAsAFailureLeavingNeitherOutputNorMarker() throws Exception {
    List<CompactTaskSplit> splits = splits();
    DataFileMeta victim = splits.get(0).task().inputs().get(2);
    Files.delete(dataFile(victim.fileName()));
    Set<String> filesBefore = dataFileNames();

    List<CompactMessage> messages = rewritten(splits.subList(0, 1));

    assertThat(messages).hasSize(1);
    assertThat(messages.get(0).failed()).isTrue();
    assertThat(messages.get(0).failureCause()).hasStackTraceContaining(victim.fileName());
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(markerNames()).isEmpty();
    assertThat(listener.calls).isEmpty();
    assertThat(counter(CompactRewriteOperator.class, "tasksFailed")).isEqualTo(1);
    assertThat(counter(CompactRewriteOperator.class, "tasksDone")).isZero();
    assertThat(
            accumulator(
                CompactRewriteOperator.class, CompactRewriteOperator.TASKS_DONE_ACCUMULATOR))
        .isEqualTo(1);
  }

  /**
   * A rewrite that fails creating its output (after it wrote the output's marker, as every rewrite
   * does first) is emitted as a failure, and the marker of the output that never came goes with it.
   */
  @Test
  void aRewriteThatCannotCreateItsOutputLeavesNoMarker() throws Exception {
    targets = onFaultyFileSystem();
    List<CompactTaskSplit> splits = splits();
    Set<String> filesBefore = dataFileNames();
    AtomicInteger failed = new AtomicInteger();
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/bucket-") && p.contains("/data-")) {
            failed.incrementAndGet();
            throw new IOException("Injected failure creating " + p);
          }
        });

    List<CompactMessage> messages = rewritten(splits.subList(0, 1));

    FaultyFileSystem.reset();
    assertThat(failed).hasPositiveValue();
    assertThat(messages).hasSize(1);
    assertThat(messages.get(0).failed()).isTrue();
    assertThat(messages.get(0).failureCause()).hasStackTraceContaining("Injected failure creating");
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(markerNames()).isEmpty();
  }

  /**
   * Streaming: results emitted after the last barrier are in no checkpoint that can complete, so
   * closing the operator (a cancel, a failover) deletes their outputs and markers; those emitted
   * before the barrier are the committer's.
   */
  @Test
  void closingAStreamingRewriterDeletesWhatItEmittedAfterTheLastBarrier() throws Exception {
    List<CompactTaskSplit> splits = splits();
    List<CompactMessage> messages;
    try (var harness = rewriter(ExecutionMode.STREAMING)) {
      harness.processElement(new StreamRecord<>(splits.get(0)));
      harness.snapshot(1, 1);
      harness.processElement(new StreamRecord<>(splits.get(1)));
      harness.processElement(new StreamRecord<>(splits.get(2)));
      messages = harness.extractOutputValues();
    }

    assertThat(messages).hasSize(3);
    assertThat(output(messages.get(0))).exists();
    assertThat(markerNames()).hasSize(1);
    for (CompactMessage late : messages.subList(1, 3)) {
      assertThat(output(late)).doesNotExist();
    }
  }

  @Test
  void closingABatchRewriterKeepsEveryEmittedOutput() throws Exception {
    List<CompactMessage> messages = rewritten(splits());

    for (CompactMessage m : messages) {
      assertThat(output(m)).exists();
    }
    assertThat(markerNames()).hasSize(3);
  }

  // ---- the committer ----

  @Test
  void eachCompletedCheckpointCommitsTheMessagesBeforeItsBarrier() throws Exception {
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> messages = rewritten(splits());
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.processElement(new StreamRecord<>(messages.get(1)));
      harness.snapshot(1, 1);
      harness.processElement(new StreamRecord<>(messages.get(2)));
      harness.notifyOfCompletedCheckpoint(1);

      Snapshot first = table.latestSnapshot().orElseThrow();
      assertThat(first.commitKind()).isEqualTo(CommitKind.COMPACT);
      assertThat(first.commitIdentifier()).isEqualTo(1);
      assertThat(first.commitUser()).isEqualTo(USER);
      assertThat(FlinkTestSupport.filesPerPartition(table))
          .containsEntry("p=a", 1)
          .containsEntry("p=b", 1)
          .containsEntry("p=c", 4);

      harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2);
      assertThat(table.latestSnapshot().orElseThrow().commitIdentifier()).isEqualTo(2);
      assertThat(FlinkTestSupport.filesPerPartition(table)).containsEntry("p=c", 1);
      // a checkpoint without messages commits nothing
      harness.snapshot(3, 3);
      harness.notifyOfCompletedCheckpoint(3);
      assertThat(counter(CompactCommitter.class, "commits")).isEqualTo(2);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isZero();
    }
    assertThat(listener.calls)
        .endsWith("beforeCommit 1", "beforeCommit 2")
        .doesNotContain("beforeCommit 3");
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(6);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
    assertThat(markerNames()).isEmpty();
    // each committed window tells the task source that its tasks' files may be planned again
    assertThat(releaseNames())
        .hasSize(2)
        .anyMatch(n -> n.startsWith("release-1-"))
        .anyMatch(n -> n.startsWith("release-2-"));
    assertThat(FlinkTestSupport.unreferencedDataFiles(table, tableDir()))
        .hasSize(12); // the compacted inputs, left for expiry
  }

  /**
   * A window with a failed task commits nothing and deletes every output of the window; windows
   * failing in a row up to compaction.max-consecutive-failures fail the committer, and a committed
   * window in between starts the count again.
   */
  @Test
  void aWindowWithAFailedTaskIsAbortedWholeAndTheLimitCountsWindowsInARow() throws Exception {
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactTaskSplit> splits = splits();
      List<CompactMessage> good = rewritten(splits.subList(0, 2));
      CompactMessage failed = failedMessage(splits.get(2));
      harness.processElement(new StreamRecord<>(good.get(0)));
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1); // failed window 1 of 2
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
      assertThat(FlinkTestSupport.snapshots(table)).hasSize(4);
      assertThat(output(good.get(0))).doesNotExist();
      assertThat(markerNames()).hasSize(1); // good.get(1)'s, not yet in a window

      harness.processElement(new StreamRecord<>(good.get(1)));
      harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2); // committed: the count starts again
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(0);
      assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);

      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(3, 3);
      harness.notifyOfCompletedCheckpoint(3); // failed window 1 of 2
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(4, 4);
      assertThatThrownBy(() -> harness.notifyOfCompletedCheckpoint(4))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Compaction failed in 2 windows in a row")
          .hasMessageContaining("compaction.max-consecutive-failures=2")
          .hasMessageContaining(INJECTED);
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(5);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
  }

  /**
   * The count of failed windows in a row is in the committer's state: a restore goes on with it.
   */
  @Test
  void theCountOfFailedWindowsInARowSurvivesARestore() throws Exception {
    OperatorSubtaskState state;
    CompactMessage failed;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      failed = failedMessage(splits().get(0));
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      state = harness.snapshot(2, 2);
    }
    try (var harness = committer(ExecutionMode.STREAMING, state)) {
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(1);
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(3, 3);
      assertThatThrownBy(() -> harness.notifyOfCompletedCheckpoint(3))
          .hasMessageContaining("Compaction failed in 2 windows in a row");
    }
  }

  /**
   * A restore whose replayed window reaches the limit does not fail the restore itself (every
   * restore of that checkpoint would fail the same way, before a new rewrite could show whether the
   * cause is gone): the next window that fails fails the job, one that commits counts from zero.
   */
  @Test
  void aReplayedWindowReachingTheLimitDoesNotFailTheRestore() throws Exception {
    OperatorSubtaskState state;
    CompactMessage failed;
    List<CompactMessage> good = rewritten(splits().subList(1, 3));
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      failed = failedMessage(splits().get(0));
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1); // 1 of 2
      harness.processElement(new StreamRecord<>(failed));
      state = harness.snapshot(2, 2); // its window fails at the restore: 2 of 2
    }
    for (int attempt = 0; attempt < 2; attempt++) {
      try (var harness = committer(ExecutionMode.STREAMING, state)) {
        assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(2);
        harness.processElement(new StreamRecord<>(good.get(attempt)));
        harness.snapshot(3, 3);
        harness.notifyOfCompletedCheckpoint(3);
        assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(0);
      }
    }
    try (var harness = committer(ExecutionMode.STREAMING, state)) {
      harness.processElement(new StreamRecord<>(failed));
      harness.snapshot(3, 3);
      assertThatThrownBy(() -> harness.notifyOfCompletedCheckpoint(3))
          .hasMessageContaining("Compaction failed in 3 windows in a row");
    }
  }

  /**
   * A table dropped while its tasks are out: a rewrite of it fails as a task, and the committer
   * finishes a window of it (aborted, or not committed) without failing, where an exception would
   * fail every restore that hands out or replays it again.
   */
  @Test
  void aTableDroppedWhileItsTasksAreOutFailsThemAsTasks() throws Exception {
    List<CompactTaskSplit> splits = splits();
    List<CompactMessage> good = rewritten(splits.subList(0, 1));
    OperatorSubtaskState state;
    try (var committer = committer(ExecutionMode.STREAMING, null)) {
      committer.processElement(new StreamRecord<>(good.get(0)));
      state = committer.snapshot(1, 1); // not yet committed
    }
    TestTables.catalog(dir).dropTable(new Identifier("db", "t"), false);

    List<CompactMessage> messages;
    try (var rewriter = rewriter(ExecutionMode.STREAMING)) {
      rewriter.processElement(new StreamRecord<>(splits.get(1)));
      messages = rewriter.extractOutputValues();
    }
    assertThat(messages).singleElement().satisfies(m -> assertThat(m.failed()).isTrue());
    try (var committer = committer(ExecutionMode.STREAMING, state)) { // replays window 1
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
    }
    try (var committer = committer(ExecutionMode.STREAMING, null)) {
      committer.processElement(new StreamRecord<>(messages.get(0)));
      committer.snapshot(1, 1);
      committer.notifyOfCompletedCheckpoint(1); // aborted
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
    }
  }

  /**
   * A window of two tables, both dropped before it is committed, fails once: one failed window
   * toward {@code compaction.max-consecutive-failures} (2 here), not one per table.
   */
  @Test
  void aWindowFailsOnceHoweverManyOfItsTablesFail() throws Exception {
    Table u =
        TestTables.create(
            TestTables.catalog(dir),
            "u",
            FlinkTestSupport.partitioned().option("compaction.min.file-num", "3").build());
    FlinkTestSupport.fill(u, 0, 4, 5, "a");
    List<CompactTaskSplit> splits = new ArrayList<>(splits().subList(0, 1));
    for (CompactTask task :
        new CompactPlanner(u.store(), "db.u")
            .plan(u.latestSnapshot().orElseThrow(), null, Set.of())) {
      splits.add(new CompactTaskSplit("u-" + splits.size(), task, USER));
    }
    List<CompactMessage> messages = rewritten(splits);
    assertThat(messages).extracting(CompactMessage::table).containsExactly("db.t", "db.u");
    TestTables.catalog(dir).dropTable(new Identifier("db", "t"), false);
    TestTables.catalog(dir).dropTable(new Identifier("db", "u"), false);
    try (var committer = committer(ExecutionMode.STREAMING, null)) {
      for (CompactMessage m : messages) {
        committer.processElement(new StreamRecord<>(m));
      }
      committer.snapshot(1, 1);
      committer.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(1);
    }
  }

  /**
   * A table dropped and created again under its name while the committer runs: its windows are
   * committed to the new table with the new table's options, not through the table the committer
   * loaded first (whose partition expiry dropped the new table's partitions).
   */
  @Test
  void aTableCreatedAgainUnderItsNameIsCommittedAsTheNewTable() throws Exception {
    FlinkTestSupport.fill(table, 1000, 1, 2, "2000-01-01");
    alter(
        SchemaChange.setOption("partition.expiration-time", "1 d"),
        SchemaChange.setOption("partition.expiration-check-interval", "0 s"));
    table = TestTables.catalog(dir).getTable(new Identifier("db", "t"));
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      harness.processElement(new StreamRecord<>(rewritten(splits()).get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1); // loads the table with its expiry
      assertThat(FlinkTestSupport.filesPerPartition(table)).doesNotContainKey("p=2000-01-01");

      TestTables.catalog(dir).dropTable(new Identifier("db", "t"), false);
      table = FlinkTestSupport.threePartitionsOfFourFiles(dir); // no expiry
      var old = FlinkTestSupport.fill(table, 5000, 1, 2, "2000-01-01");
      List<String> expected = FlinkTestSupport.rows(table);
      assertThat(expected).hasSize(rowsBefore.size() + old.size());

      harness.processElement(new StreamRecord<>(rewritten(splits()).get(0)));
      harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2);
      assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
      assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  /**
   * A restored committer commits the windows of its state that never saw their checkpoint complete,
   * once however often it is restored, and deletes the outputs of tasks that ran after the restored
   * checkpoint (their markers name them; no window holds them).
   */
  @Test
  void aRestoreCommitsTheRestoredWindowsOnceAndDeletesLaterOutputs() throws Exception {
    OperatorSubtaskState state;
    List<CompactMessage> messages;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      messages = rewritten(splits());
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.processElement(new StreamRecord<>(messages.get(1)));
      state = harness.snapshot(7, 7);
      harness.processElement(new StreamRecord<>(messages.get(2)));
      // the job fails before checkpoint 7 is reported complete
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(4);

    for (int restore = 0; restore < 2; restore++) {
      try (var harness = committer(ExecutionMode.STREAMING, state)) {
        harness.snapshot(8, 8);
        harness.notifyOfCompletedCheckpoint(8);
      }
      List<Snapshot> snapshots = FlinkTestSupport.snapshots(table);
      assertThat(snapshots).hasSize(5);
      assertThat(snapshots.get(4).commitIdentifier()).isEqualTo(7);
      assertThat(output(messages.get(2))).doesNotExist();
      assertThat(markerNames()).isEmpty();
      // window 7's release (again after the second restore: the task source takes what it finds)
      assertThat(releaseNames()).hasSize(restore + 1).allMatch(n -> n.startsWith("release-7-"));
    }
    assertThat(FlinkTestSupport.filesPerPartition(table)).containsEntry("p=c", 4);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
  }

  @Test
  void aBatchCommitterCommitsEverythingAtTheEndOfInputAsOneSnapshot() throws Exception {
    try (var harness = committer(ExecutionMode.BATCH, null)) {
      List<CompactMessage> messages = rewritten(splits());
      for (CompactMessage m : messages) {
        harness.processElement(new StreamRecord<>(m));
      }
      harness.endInput();
    }
    List<Snapshot> snapshots = FlinkTestSupport.snapshots(table);
    assertThat(snapshots).hasSize(5);
    assertThat(snapshots.get(4).commitIdentifier()).isEqualTo(TableCommit.BATCH_IDENTIFIER);
    assertThat(FlinkTestSupport.filesPerPartition(table))
        .containsOnly(Map.entry("p=a", 1), Map.entry("p=b", 1), Map.entry("p=c", 1));
    assertThat(markerNames()).isEmpty();
    assertThat(releaseNames()).as("a batch job plans once: nothing to release").isEmpty();
    assertThat(listener.calls).endsWith("beforeCommit " + TableCommit.BATCH_IDENTIFIER);
    // what CompactJob reports to its caller (CALL sys.compact, the CLI)
    List<?> results =
        (List<?>) accumulator(CompactCommitter.class, CompactCommitter.RESULTS_ACCUMULATOR);
    assertThat(results).hasSize(1);
    CompactResult result = (CompactResult) results.get(0);
    assertThat(result.snapshotId()).isEqualTo(5L);
    assertThat(result.tasks()).isEqualTo(3);
    assertThat(result.filesBefore()).isEqualTo(12);
    assertThat(result.filesAfter()).isEqualTo(3);
    assertThat(result.rowsWritten()).isEqualTo(rowsBefore.size());
    assertThat(accumulator(CompactCommitter.class, CompactCommitter.RESULT_TABLES_ACCUMULATOR))
        .isEqualTo(List.of("db.t"));
  }

  @Test
  void aBatchCommitterFailsForGoodOnAFailedTaskDeletingEveryOutput() throws Exception {
    try (var harness = committer(ExecutionMode.BATCH, null)) {
      List<CompactTaskSplit> splits = splits();
      List<CompactMessage> good = rewritten(splits.subList(0, 2));
      CompactMessage failed = failedMessage(splits.get(2));
      harness.processElement(new StreamRecord<>(good.get(0)));
      harness.processElement(new StreamRecord<>(failed));
      harness.processElement(new StreamRecord<>(good.get(1)));
      assertThatThrownBy(harness::endInput)
          .isInstanceOf(UnrecoverableCompactionError.class)
          .hasMessageContaining("outputs were deleted and nothing was committed")
          .hasStackTraceContaining(INJECTED);
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(4);
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
    assertThat(markerNames()).isEmpty();
  }

  /**
   * A savepoint restored after later checkpoints committed: the new run's checkpoint ids repeat
   * landed identifiers, so its windows commit as a new user, kept in state so that a later restore
   * goes on with it; the restored window the job already committed is not committed again.
   */
  @Test
  void aRestoreFromAnOlderCheckpointCommitsAsANewUserFromThenOn() throws Exception {
    OperatorSubtaskState savepoint;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> messages = rewritten(splits());
      harness.processElement(new StreamRecord<>(messages.get(0)));
      savepoint = harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      harness.processElement(new StreamRecord<>(messages.get(1)));
      harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2);
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(6);

    OperatorSubtaskState later;
    try (var harness = committer(ExecutionMode.STREAMING, savepoint, 1)) {
      // window 1 of the savepoint landed before: nothing committed again
      assertThat(FlinkTestSupport.snapshots(table)).hasSize(6);
      List<CompactMessage> rest = rewritten(splitsOf(table.latestSnapshot().orElseThrow()));
      assertThat(rest).hasSize(1); // p=c
      harness.processElement(new StreamRecord<>(rest.get(0)));
      later = harness.snapshot(2, 2);
      harness.notifyOfCompletedCheckpoint(2);
    }
    Snapshot afterRewind = table.latestSnapshot().orElseThrow();
    String rewound = afterRewind.commitUser();
    // a new user per rewind (CommitUsers.afterRewind): the job's, the restored id, a random part
    assertThat(rewound).startsWith(USER + "~r1-");
    assertThat(afterRewind.commitIdentifier()).isEqualTo(2);
    assertThat(FlinkTestSupport.filesPerPartition(table))
        .containsOnly(Map.entry("p=a", 1), Map.entry("p=b", 1), Map.entry("p=c", 1));
    // markers and release records stay under the job's user
    assertThat(markerNames()).isEmpty();
    assertThat(releaseNames()).anyMatch(n -> n.startsWith("release-2-"));

    // restored from the later checkpoint: its state names the new user, whose identifiers are
    // not past the restored one, so the run goes on as that user
    FlinkTestSupport.fill(table, 1000, 4, 5, "a");
    try (var harness = committer(ExecutionMode.STREAMING, later, 2)) {
      List<CompactMessage> next = rewritten(splitsOf(table.latestSnapshot().orElseThrow()));
      assertThat(next).hasSize(1);
      harness.processElement(new StreamRecord<>(next.get(0)));
      harness.snapshot(3, 3);
      harness.notifyOfCompletedCheckpoint(3);
    }
    Snapshot last = table.latestSnapshot().orElseThrow();
    assertThat(last.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(last.commitUser()).isEqualTo(rewound);
    assertThat(last.commitIdentifier()).isEqualTo(3);
    assertThat(FlinkTestSupport.filesPerPartition(table)).containsEntry("p=a", 1);
  }

  /**
   * A window that loses to a concurrent compaction of the same files: streaming counts a conflict,
   * not a failed window (the files are planned again), batch fails for good; both delete the
   * outputs and commit nothing.
   */
  @Test
  void aConflictingWindowIsCountedAsAConflictInStreamingAndFailsABatch() throws Exception {
    List<CompactMessage> messages;
    int snapshots;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      messages = rewritten(splits());
      table.newCompactBuilder().execute(); // the same files, compacted by someone else first
      snapshots = FlinkTestSupport.snapshots(table).size();
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "conflicts")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isZero();
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(0);
      assertThat(counter(CompactCommitter.class, "commits")).isZero();
    }
    assertThat(output(messages.get(0))).doesNotExist();
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(snapshots);

    try (var harness = committer(ExecutionMode.BATCH, null)) {
      harness.processElement(new StreamRecord<>(messages.get(1)));
      harness.processElement(new StreamRecord<>(messages.get(2)));
      assertThatThrownBy(harness::endInput)
          .isInstanceOf(UnrecoverableCompactionError.class)
          .hasMessageContaining("outputs were deleted and nothing was committed")
          .hasCauseInstanceOf(CommitConflictException.class);
      assertThat(counter(CompactCommitter.class, "conflicts")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
    }
    assertThat(output(messages.get(1))).doesNotExist();
    assertThat(output(messages.get(2))).doesNotExist();
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(snapshots);
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
    assertThat(markerNames()).isEmpty();
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  /**
   * A batch committer's end of input commits what reached it and deletes the outputs that markers
   * record and no message brought (a rewrite attempt Flink restarted); a streaming committer's end
   * of input commits nothing (the final checkpoint does).
   */
  @Test
  void theEndOfInputCommitsInBatchOnlyAndDeletesOutputsNoMessageBrought() throws Exception {
    List<CompactMessage> messages;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      messages = rewritten(splits());
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.endInput();
      assertThat(FlinkTestSupport.snapshots(table)).hasSize(4);
      assertThat(output(messages.get(2))).exists();
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(FlinkTestSupport.snapshots(table)).hasSize(5);
    }
    try (var harness = committer(ExecutionMode.BATCH, null)) {
      harness.processElement(new StreamRecord<>(messages.get(1)));
      harness.endInput();
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(6);
    assertThat(FlinkTestSupport.filesPerPartition(table))
        .containsOnly(Map.entry("p=a", 1), Map.entry("p=b", 1), Map.entry("p=c", 4));
    assertThat(output(messages.get(2))).as("the lost attempt's output").doesNotExist();
    assertThat(markerNames()).isEmpty();
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  /**
   * After each committed window the committer expires snapshots by the table's retention options
   * (both modes) and, in streaming only, removes orphan files when
   * compaction.remove-orphans.interval says so: options set by ALTER TABLE while the job runs.
   */
  @Test
  void aCommittedWindowExpiresSnapshotsAndOnlyStreamingRemovesOrphans() throws Exception {
    Path orphan = retainTwoSnapshotsAndLeaveAnOrphan();

    try (var harness = committer(ExecutionMode.BATCH, null)) {
      for (CompactMessage m : rewritten(splits())) {
        harness.processElement(new StreamRecord<>(m));
      }
      harness.endInput();
    }
    assertThat(table.snapshotManager().listIds()).containsExactly(4L, 5L);
    assertThat(orphan).as("a batch job removes no orphans").exists();

    FlinkTestSupport.fill(table, 1000, 4, 5, "a");
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> next = rewritten(splitsOf(table.latestSnapshot().orElseThrow()));
      harness.processElement(new StreamRecord<>(next.get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
    }
    assertThat(table.snapshotManager().listIds()).containsExactly(9L, 10L);
    assertThat(orphan).as("removed on the streaming job's schedule").doesNotExist();
    assertThat(FlinkTestSupport.filesPerPartition(table)).containsEntry("p=a", 1);
  }

  /**
   * A failing partition expiry and a failing automatic tag after a window's commit are counted each
   * in its own metric ({@code partitionExpiryFailures}, {@code automaticTagFailures}), not as a
   * snapshot expiry's; the commit stands.
   */
  @Test
  void failingPartitionExpiryAndAutomaticTagsAreCountedApart() throws Exception {
    FlinkTestSupport.fill(table, 1000, 1, 2, "2000-01-01");
    List<CompactTaskSplit> splits = splits();
    alter(
        SchemaChange.setOption("partition.expiration-time", "1 d"),
        SchemaChange.setOption("partition.expiration-check-interval", "0 s"),
        SchemaChange.setOption("tag.automatic-creation", "process-time"));
    targets = onFaultyFileSystem();
    long compactId = table.latestSnapshot().orElseThrow().id() + 1;
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> messages = rewritten(splits);
      // the drop's snapshot (after the COMPACT one) and every tag file cannot be written
      FaultyFileSystem.failCreate(
          p -> p.contains("/snapshot/.snapshot-" + (compactId + 1) + ".") || p.contains("/tag/"));
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "commits")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "partitionExpiryFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "automaticTagFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "snapshotExpiryFailures")).isZero();
    } finally {
      FaultyFileSystem.reset();
    }
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(compactId);
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(new Tags(table).all()).isEmpty();
  }

  /**
   * The compaction committer deletes tags whose time_retained ran out after its commits (a table
   * with {@code tag.default-time-retained}); a deletion that fails is counted in {@code
   * automaticTagFailures}, and the commit stands.
   */
  @Test
  void aFailingTagExpiryIsCountedAsAnAutomaticTagFailure() throws Exception {
    List<CompactTaskSplit> splits = splits();
    alter(SchemaChange.setOption("tag.default-time-retained", "1 d"));
    targets = onFaultyFileSystem();
    Snapshot latest = table.latestSnapshot().orElseThrow();
    // a tag made at the epoch, kept for a minute: long expired
    table
        .store()
        .fileIO()
        .writeNew(
            table.store().paths().tag("old"),
            TagManager.fileContent(latest, 0L, java.time.Duration.ofMinutes(1)));
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      FaultyFileSystem.failDelete(p -> p.contains("/tag/tag-old"));
      harness.processElement(new StreamRecord<>(rewritten(splits).get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "commits")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "automaticTagFailures")).isEqualTo(1);
    } finally {
      FaultyFileSystem.reset();
    }
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(new Tags(table).all()).containsOnlyKeys("old");
    assertThat(new Tags(table).expire(java.util.OptionalLong.empty()))
        .extracting(TagManager.Tag::name)
        .containsExactly("old");
  }

  /**
   * The compaction committer makes automatic tags after its commits ({@code tag.automatic-creation}
   * set by ALTER TABLE while the job runs): a table without one gets the earliest snapshot tagged
   * with the day before its commit.
   */
  @Test
  void aCommittedWindowMakesTheAutomaticTags() throws Exception {
    List<CompactTaskSplit> splits = splits();
    alter(SchemaChange.setOption("tag.automatic-creation", "process-time"));
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      harness.processElement(new StreamRecord<>(rewritten(splits).get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
    }
    Snapshot earliest =
        table.snapshotManager().snapshot(table.snapshotManager().earliestId().orElseThrow());
    String day =
        java.time.LocalDateTime.ofInstant(
                java.time.Instant.ofEpochMilli(earliest.timeMillis()),
                java.time.ZoneId.systemDefault())
            .toLocalDate()
            .minusDays(1)
            .toString();
    Map<String, Long> tags = new HashMap<>();
    new Tags(table).all().forEach((name, tag) -> tags.put(name, tag.snapshot().id()));
    assertThat(tags).containsExactly(Map.entry(day, earliest.id()));
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
  }

  /**
   * After a window's commit the committer drops the partitions {@code partition.expiration-time} no
   * longer keeps, options set by ALTER TABLE while the job runs: a streaming committer when its
   * check interval has passed (0: every commit), a batch one at the end of its input with {@code
   * end-input.check-partition-expire}. The other partitions keep their rows.
   */
  @Test
  void aCommittedWindowDropsThePartitionsTheTableExpires() throws Exception {
    FlinkTestSupport.fill(table, 1000, 1, 2, "2000-01-01");
    List<CompactTaskSplit> splits = splits();
    alter(
        SchemaChange.setOption("partition.expiration-time", "1 d"),
        SchemaChange.setOption("partition.expiration-check-interval", "0 s"));
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      harness.processElement(new StreamRecord<>(rewritten(splits).get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
    }
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(FlinkTestSupport.filesPerPartition(table)).doesNotContainKey("p=2000-01-01");
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);

    alter(SchemaChange.setOption("partition.expiration-check-interval", "1 h"));
    FlinkTestSupport.fill(table, 2000, 1, 2, "2000-01-02"); // a batch writer: not checked
    assertThat(FlinkTestSupport.filesPerPartition(table)).containsKey("p=2000-01-02");
    alter(SchemaChange.setOption("end-input.check-partition-expire", "true"));
    try (var harness = committer(ExecutionMode.BATCH, null)) {
      for (CompactMessage m : rewritten(splitsOf(table.latestSnapshot().orElseThrow()))) {
        harness.processElement(new StreamRecord<>(m));
      }
      harness.endInput();
    }
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(FlinkTestSupport.filesPerPartition(table)).doesNotContainKey("p=2000-01-02");
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  /**
   * A long-running rewrite operator loads its tables again after each barrier: a task after ALTER
   * TABLE writes with the table's new schema.
   */
  @Test
  void aRewriterFollowsAlterTableAfterEachBarrier() throws Exception {
    List<CompactTaskSplit> splits = splits();
    long before = table.store().schema().id();
    List<CompactMessage> messages;
    try (var harness = rewriter(ExecutionMode.STREAMING)) {
      harness.processElement(new StreamRecord<>(splits.get(0)));
      alter(SchemaChange.addColumn("extra", DataTypes.INT().getLogicalType()));
      harness.processElement(new StreamRecord<>(splits.get(1))); // same window: loaded before
      harness.snapshot(1, 1);
      harness.processElement(new StreamRecord<>(splits.get(2)));
      harness.snapshot(2, 2);
      messages = harness.extractOutputValues();
    }
    assertThat(messages).hasSize(3);
    List<Long> schemaIds = new ArrayList<>();
    for (CompactMessage m : messages) {
      schemaIds.add(m.result().message().compactAfter().get(0).schemaId());
    }
    assertThat(schemaIds).containsExactly(before, before, before + 1);
  }

  /** A closed rewrite operator leaves no slot on its thread for a later task's reader to find. */
  @Test
  void aClosedRewriterWithdrawsItsSlot() throws Exception {
    var harness = rewriter(ExecutionMode.STREAMING);
    harness.close();
    assertThat(RewriteSlot.attachToTaskThread()).isNull();
  }

  /** The targets of db.t through the faulty file system (same files), for injected failures. */
  private CompactTargets onFaultyFileSystem() {
    return new CompactTargets(
        FaultyFileSystem.uri(dir), CompactSpec.forTable("db.t", table.store()).build());
  }

  private void alter(SchemaChange... changes) {
    TestTables.catalog(dir).alterTable(new Identifier("db", "t"), List.of(changes));
    table = TestTables.catalog(dir).getTable(new Identifier("db", "t"));
  }

  /**
   * A commit that fails (not a conflict: its outcome may be unknown) fails a batch committer with
   * the error, so that Flink's restart strategy can retry it, and counts as a failed window in
   * streaming; either way nothing is committed and the outputs are deleted or kept with their
   * markers for the restart's clean-up, never left unmarked.
   */
  @Test
  void aFailingCommitIsRetryableInBatchAndAFailedWindowInStreaming() throws Exception {
    targets = onFaultyFileSystem();
    int snapshots = FlinkTestSupport.snapshots(table).size();
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> messages = rewritten(splits());
      FaultyFileSystem.failCreate(p -> p.contains("/snapshot/"));
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isEqualTo(1);
      assertThat(gauge(CompactCommitter.class, "consecutiveFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "commits")).isZero();
      FaultyFileSystem.reset();
    }
    try (var harness = committer(ExecutionMode.BATCH, null)) {
      List<CompactMessage> messages = rewritten(splits());
      FaultyFileSystem.failCreate(p -> p.contains("/snapshot/"));
      for (CompactMessage m : messages) {
        harness.processElement(new StreamRecord<>(m));
      }
      // the commit's own exception, unwrapped, for the restart strategy to judge
      assertThatThrownBy(harness::endInput)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessage("Commit failed")
          .cause()
          .hasMessageContaining("Injected");
      FaultyFileSystem.reset();
    }
    assertThat(FlinkTestSupport.snapshots(table)).hasSize(snapshots);
    // every output left on disk is named by a marker (the restart's clean-up deletes it), and
    // the marker of every output deleted went with it
    assertThat(markerNames()).hasSameSizeAs(FlinkTestSupport.orphanDataFiles(table, tableDir()));
    // a restarted streaming committer deletes what markers name and no snapshot references
    committer(ExecutionMode.STREAMING, null).close();
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir())).isEmpty();
    assertThat(markerNames()).isEmpty();
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  /**
   * Sets retention to two snapshots and orphan removal to every commit (ALTER TABLE), and leaves a
   * two-day-old data file no snapshot references; returns it.
   */
  private Path retainTwoSnapshotsAndLeaveAnOrphan() throws Exception {
    alter(
        SchemaChange.setOption("snapshot.num-retained.min", "1"),
        SchemaChange.setOption("snapshot.num-retained.max", "2"),
        SchemaChange.setOption("compaction.remove-orphans.interval", "1 ms"));
    Path orphan =
        tableDir().resolve("p=a").resolve("bucket-0").resolve("data-left-by-a-crash.parquet");
    Files.writeString(orphan, "an orphan");
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    return orphan;
  }

  /** Expiry or orphan removal after a commit that fails is counted; the commit stands. */
  @Test
  void aFailedExpiryOrOrphanRemovalAfterACommitIsCountedAndTheCommitStands() throws Exception {
    Path orphan = retainTwoSnapshotsAndLeaveAnOrphan();
    targets = onFaultyFileSystem();
    long started = System.currentTimeMillis();
    try (var harness = committer(ExecutionMode.STREAMING, null)) {
      List<CompactMessage> messages = rewritten(splits());
      FaultyFileSystem.failDelete(
          p -> p.contains("/snapshot/snapshot-") || p.endsWith("/data-left-by-a-crash.parquet"));
      harness.processElement(new StreamRecord<>(messages.get(0)));
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(counter(CompactCommitter.class, "commits")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "snapshotExpiryFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "orphanRemovalFailures")).isEqualTo(1);
      assertThat(counter(CompactCommitter.class, "failedWindows")).isZero();
      assertThat(orphan).exists();
      // the last commit's duration, a part of this test's own
      assertThat((Long) gauge(CompactCommitter.class, "lastCommitDurationMs"))
          .isBetween(0L, System.currentTimeMillis() - started);
    } finally {
      FaultyFileSystem.reset();
    }
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(FlinkTestSupport.rows(table)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  // ---- the rewrite operator chained to its task reader (rewrites off the task thread) ----

  /**
   * With a reader attached to its slot the operator rewrites on a thread of its own and emits each
   * result through the task's mailbox; the slot is busy until the result is emitted, and the end of
   * input waits for it.
   */
  @Test
  void aChainedRewriterRewritesOffTheTaskThreadAndEmitsThroughTheMailbox() throws Exception {
    List<CompactTaskSplit> splits = splits();
    try (var harness = chainedRewriter(ExecutionMode.BATCH)) {
      RewriteSlot slot = RewriteSlot.attachToTaskThread();
      assertThat(slot).isNotNull();
      for (CompactTaskSplit split : splits) {
        harness.processElement(new StreamRecord<>(split));
        assertThat(slot.isFree()).isFalse();
        assertThat(harness.extractOutputValues())
            .as("emitted by the mailbox only")
            .hasSize(splits.indexOf(split));
        awaitMail(harness);
        harness.getTaskMailbox().take(TaskMailbox.MIN_PRIORITY).run();
        assertThat(slot.isFree()).isTrue();
      }
      harness.endInput();
      List<CompactMessage> messages = harness.extractOutputValues();
      assertThat(messages).hasSize(3).noneMatch(CompactMessage::failed);
      for (CompactMessage m : messages) {
        assertThat(output(m)).exists();
      }
      assertThat(counter(CompactRewriteOperator.class, "tasksDone")).isEqualTo(3);
      assertThat(gauge(CompactRewriteOperator.class, "tasksRunning")).isEqualTo(0);
    }
    assertThat(markerNames()).hasSize(3);
  }

  /** The end of input waits, running the mailbox, until the rewrite in progress is emitted. */
  @Test
  void theEndOfInputOfAChainedRewriterWaitsForTheRunningRewrite() throws Exception {
    try (var harness = chainedRewriter(ExecutionMode.BATCH)) {
      RewriteSlot slot = RewriteSlot.attachToTaskThread();
      harness.processElement(new StreamRecord<>(splits().get(0)));
      harness.endInput();
      assertThat(slot.isFree()).isTrue();
      assertThat(harness.extractOutputValues()).hasSize(1).noneMatch(CompactMessage::failed);
    }
    assertThat(markerNames()).hasSize(1);
  }

  /**
   * A rewrite that ended but whose result the mailbox has not emitted when the operator closes (a
   * cancel, a failover) is in no window: its outputs and markers are deleted.
   */
  @Test
  void closingAChainedRewriterDeletesTheOutputsOfARewriteNotYetEmitted() throws Exception {
    List<CompactTaskSplit> splits = splits();
    Set<String> filesBefore = dataFileNames();
    try (var harness = chainedRewriter(ExecutionMode.STREAMING)) {
      RewriteSlot.attachToTaskThread();
      harness.processElement(new StreamRecord<>(splits.get(0)));
      awaitMail(harness);
      assertThat(markerNames()).hasSize(1);
      assertThat(dataFileNames()).hasSize(filesBefore.size() + 1);
    }
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(markerNames()).isEmpty();
  }

  /**
   * Waits on the test's thread, the mailbox's own, until a rewrite put its result in the mailbox.
   */
  private static void awaitMail(OneInputStreamOperatorTestHarness<?, ?> harness) {
    Awaitility.await().pollInSameThread().until(() -> harness.getTaskMailbox().hasMail());
  }

  /**
   * Blocks the rewrite of the table's tasks when it creates its data file (after its marker) until
   * {@code release} counts down; counts {@code blocked} down when it does.
   */
  private void blockRewritesUntil(CountDownLatch blocked, CountDownLatch release) {
    targets = onFaultyFileSystem();
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/bucket-") && p.contains("/data-")) {
            blocked.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new InterruptedIOException("stopped while creating " + p);
            }
          }
        });
  }

  /**
   * A streaming barrier waits for the rewrite running when it comes: a rewrite that ends during the
   * wait is emitted before the barrier, so its output is in this checkpoint's window (kept when the
   * operator closes), and the mail it sent emits nothing more. Likewise a rewrite that ended before
   * the barrier but whose mail has not run yet.
   */
  @Test
  void aBarrierWaitsForTheRunningRewriteAndEmitsItBeforeItself() throws Exception {
    for (boolean endsDuringTheWait : new boolean[] {true, false}) {
      List<CompactTaskSplit> splits = splits();
      int markersBefore = markerNames().size();
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      blockRewritesUntil(blocked, release);
      Thread releaser = null;
      CompactMessage message;
      try (var harness =
          chainedRewriter(ExecutionMode.STREAMING, Duration.ofMinutes(1), new Configuration())) {
        RewriteSlot slot = RewriteSlot.attachToTaskThread();
        harness.processElement(new StreamRecord<>(splits.get(0)));
        blocked.await();
        if (endsDuringTheWait) {
          // lets the rewrite go once the barrier waits for it (the task thread in a timed wait)
          Thread taskThread = Thread.currentThread();
          releaser =
              new Thread(
                  () -> {
                    Awaitility.await()
                        .until(
                            () ->
                                taskThread.getState() == Thread.State.TIMED_WAITING
                                    && counter(CompactRewriteOperator.class, "checkpointWaits")
                                        == 1);
                    release.countDown();
                  });
          releaser.start();
        } else {
          release.countDown();
          awaitMail(harness);
        }
        harness.prepareSnapshotPreBarrier(1);
        assertThat(harness.extractOutputValues()).hasSize(1).noneMatch(CompactMessage::failed);
        assertThat(slot.isFree()).isTrue();
        assertThat(counter(CompactRewriteOperator.class, "rewritesEndedInCheckpointWait"))
            .isEqualTo(1);
        harness.snapshot(1, 1);
        // the rewrite's own mail finds it emitted already
        awaitMail(harness);
        harness.getTaskMailbox().take(TaskMailbox.MIN_PRIORITY).run();
        assertThat(harness.extractOutputValues()).hasSize(1);
        message = harness.extractOutputValues().get(0);
      } finally {
        release.countDown();
        if (releaser != null) {
          releaser.join();
        }
      }
      assertThat(output(message)).as("in checkpoint 1's window: kept at close").exists();
      assertThat(markerNames()).hasSize(markersBefore + 1);
      FaultyFileSystem.reset();
    }
  }

  /**
   * A rewrite whose table refuses compaction by the time it runs (here: a deletion-vector table
   * whose local cache was turned off after the task was planned) fails as a task: its failure is
   * emitted and the slot freed, where the rewrite thread ended without a message and the subtask
   * waited for its slot for good.
   */
  @Test
  void aRewriteOfATableThatRefusesCompactionByNowFailsAsATask() throws Exception {
    Identifier id = new Identifier("db", "dv");
    Table dv =
        TestTables.create(
            TestTables.catalog(dir),
            "dv",
            FlinkTestSupport.oneKeyBucket().option("deletion-vectors.enabled", "true").build());
    for (long k = 0; k < 5; k++) {
      TestTables.writeBatch(dv, List.of(GenericRowData.of(k, StringData.fromString("v"))));
    }
    List<CompactTask> tasks =
        new CompactPlanner(dv.store(), "db.dv")
            .plan(dv.latestSnapshot().orElseThrow(), null, Set.of());
    assertThat(tasks).isNotEmpty();
    TestTables.catalog(dir)
        .alterTable(id, List.of(SchemaChange.setOption("local-cache.enabled", "false")));
    targets = new CompactTargets(dir.toString(), CompactSpec.forTable("db.dv", dv.store()).build());
    try (var harness = chainedRewriter(ExecutionMode.STREAMING)) {
      RewriteSlot slot = RewriteSlot.attachToTaskThread();
      harness.processElement(new StreamRecord<>(new CompactTaskSplit("dv-0", tasks.get(0), USER)));
      awaitMail(harness);
      harness.getTaskMailbox().take(TaskMailbox.MIN_PRIORITY).run();
      assertThat(slot.isFree()).isTrue();
      List<CompactMessage> messages = harness.extractOutputValues();
      assertThat(messages).hasSize(1);
      assertThat(messages.get(0).failed()).isTrue();
      assertThat(messages.get(0).failureCause()).hasMessageContaining("local-cache.enabled");
    }
  }

  /**
   * A barrier waits no longer than the wait (or half the checkpoint timeout, if shorter), and for a
   * rewrite once: the rewrite that did not end meanwhile is emitted after the barrier, and the next
   * barrier does not wait for it again, though one after it ended emits it; once it is emitted, a
   * barrier has nothing to wait for. With no wait, or in a batch job, a barrier never waits.
   */
  @Test
  void aBarrierWaitsForARewriteOnceAndNoLongerThanTheWait() throws Exception {
    Configuration shortTimeout = new Configuration();
    shortTimeout.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofSeconds(10));
    shortTimeout.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMillis(40));
    record Case(ExecutionMode mode, Duration checkpointWait, Configuration job, int waits) {}
    List<Case> cases =
        List.of(
            new Case(ExecutionMode.STREAMING, Duration.ofMillis(20), new Configuration(), 1),
            new Case(ExecutionMode.STREAMING, Duration.ofMinutes(1), shortTimeout, 1),
            new Case(ExecutionMode.STREAMING, Duration.ZERO, new Configuration(), 0),
            new Case(ExecutionMode.BATCH, Duration.ofMinutes(1), new Configuration(), 0));
    for (Case c : cases) {
      CountDownLatch blocked = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      blockRewritesUntil(blocked, release);
      try (var harness = chainedRewriter(c.mode(), c.checkpointWait(), c.job())) {
        RewriteSlot slot = RewriteSlot.attachToTaskThread();
        harness.processElement(new StreamRecord<>(splits().get(0)));
        blocked.await();
        harness.prepareSnapshotPreBarrier(1);
        harness.prepareSnapshotPreBarrier(2);
        assertThat(harness.extractOutputValues()).as(c.toString()).isEmpty();
        assertThat(counter(CompactRewriteOperator.class, "checkpointWaits"))
            .as(c.toString())
            .isEqualTo(c.waits());
        assertThat(counter(CompactRewriteOperator.class, "rewritesEndedInCheckpointWait")).isZero();
        release.countDown();
        awaitMail(harness);
        // ended, its mail not run yet: a later barrier with a wait emits it at once
        harness.prepareSnapshotPreBarrier(3);
        assertThat(harness.extractOutputValues()).as(c.toString()).hasSize(c.waits());
        harness.getTaskMailbox().take(TaskMailbox.MIN_PRIORITY).run();
        assertThat(harness.extractOutputValues()).hasSize(1).noneMatch(CompactMessage::failed);
        assertThat(slot.isFree()).isTrue();
        // emitted: no rewrite runs, so the next barrier has nothing to wait for
        long waits = counter(CompactRewriteOperator.class, "checkpointWaits");
        harness.prepareSnapshotPreBarrier(4);
        assertThat(counter(CompactRewriteOperator.class, "checkpointWaits"))
            .as(c.toString())
            .isEqualTo(waits);
        assertThat(harness.extractOutputValues()).hasSize(1);
        harness.endInput();
      } finally {
        release.countDown();
      }
      FaultyFileSystem.reset();
    }
  }

  /**
   * Closing a chained rewriter (a cancel, a failover) while its rewrite runs stops the rewrite and
   * waits for it: the rewrite, blocked creating its output after it wrote the output's marker, is
   * interrupted, and once the operator is closed neither an output nor a marker is left.
   */
  @Test
  void closingAChainedRewriterStopsTheRunningRewriteAndLeavesNoMarker() throws Exception {
    targets = onFaultyFileSystem();
    List<CompactTaskSplit> splits = splits();
    Set<String> filesBefore = dataFileNames();
    CountDownLatch blocked = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/bucket-") && p.contains("/data-")) {
            blocked.countDown();
            try {
              new CountDownLatch(1).await(); // until the operator interrupts the rewrite
            } catch (InterruptedException e) {
              interrupted.set(true);
              throw new InterruptedIOException("stopped while creating " + p);
            }
          }
        });
    try (var harness = chainedRewriter(ExecutionMode.STREAMING)) {
      RewriteSlot.attachToTaskThread();
      harness.processElement(new StreamRecord<>(splits.get(0)));
      blocked.await();
      assertThat(markerNames()).hasSize(1);
    }
    assertThat(interrupted).isTrue();
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(markerNames()).isEmpty();
  }

  /**
   * A rewrite operator with the task's mailbox, as Flink gives it in a job (the harness does not);
   * the test's thread is the task thread.
   */
  private OneInputStreamOperatorTestHarness<CompactTaskSplit, CompactMessage> chainedRewriter(
      ExecutionMode mode) throws Exception {
    return chainedRewriter(mode, DEFAULT_WAIT, new Configuration());
  }

  /** {@code job}: the job's configuration (checkpointing) the operator sees. */
  private OneInputStreamOperatorTestHarness<CompactTaskSplit, CompactMessage> chainedRewriter(
      ExecutionMode mode, Duration checkpointWait, Configuration job) throws Exception {
    CompactRewriteOperator operator =
        new CompactRewriteOperator(targets, listener, mode, checkpointWait);
    MockEnvironment environment = environment(CompactRewriteOperator.class);
    environment.getJobConfiguration().addAll(job);
    var harness = new OneInputStreamOperatorTestHarness<>(operator, environment);
    harness.setup();
    operator.setMailboxExecutor(
        new MailboxExecutorImpl(harness.getTaskMailbox(), 0, StreamTaskActionExecutor.IMMEDIATE));
    harness.open();
    return harness;
  }

  private OneInputStreamOperatorTestHarness<CompactMessage, Void> committer(
      ExecutionMode mode, OperatorSubtaskState restored, long restoredCheckpointId)
      throws Exception {
    var harness =
        new OneInputStreamOperatorTestHarness<>(
            new CompactCommitter(targets, USER, mode, 2, listener),
            environment(CompactCommitter.class));
    harness.setup();
    harness.setRestoredCheckpointId(restoredCheckpointId);
    harness.initializeState(restored);
    harness.open();
    return harness;
  }

  private List<CompactTaskSplit> splitsOf(Snapshot snapshot) {
    List<CompactTaskSplit> out = new ArrayList<>();
    for (CompactTask t : new CompactPlanner(table.store(), "db.t").plan(snapshot, null, Set.of())) {
      out.add(new CompactTaskSplit("next-" + out.size(), t, USER));
    }
    return out;
  }

  // ---- helpers ----

  /** The failure message of {@code split}: one of its inputs cannot be read. */
  private CompactMessage failedMessage(CompactTaskSplit split) throws Exception {
    Path input = dataFile(split.task().inputs().get(0).fileName());
    byte[] content = Files.readAllBytes(input);
    Files.writeString(input, "not a Parquet file");
    try {
      List<CompactMessage> messages = rewritten(List.of(split));
      assertThat(messages.get(0).failed()).isTrue();
      return messages.get(0);
    } finally {
      Files.write(input, content);
    }
  }

  private static List<String> outputNames(CompactMessage m) {
    List<String> names = new ArrayList<>();
    for (DataFileMeta f : m.result().message().compactAfter()) {
      names.add(f.fileName());
    }
    return names;
  }

  private Path tableDir() {
    return dir.resolve("db.db").resolve("t");
  }

  /** An input file of the table (it exists). */
  private Path dataFile(String name) {
    for (Path p : TestTables.dataFiles(tableDir())) {
      if (p.getFileName().toString().equals(name)) {
        return p;
      }
    }
    throw new AssertionError("No data file " + name);
  }

  /** Where the rewrite of {@code m} wrote its one output, whether it is still there or not. */
  private Path output(CompactMessage m) {
    List<String> names = outputNames(m);
    assertThat(names).hasSize(1);
    CompactTask task = m.result().task();
    return tableDir()
        .resolve(task.partitionPath())
        .resolve("bucket-" + task.bucket())
        .resolve(names.get(0));
  }

  private Set<String> dataFileNames() {
    Set<String> names = new HashSet<>();
    for (Path p : TestTables.dataFiles(tableDir())) {
      names.add(p.getFileName().toString());
    }
    return names;
  }

  /** The output markers of the commit user. */
  private List<String> markerNames() throws Exception {
    return markerDirEntries("marker-");
  }

  /** The release records of the commit user: the windows whose tasks the task source may forget. */
  private List<String> releaseNames() throws Exception {
    return markerDirEntries("release-");
  }

  private List<String> markerDirEntries(String prefix) throws Exception {
    List<String> names = new ArrayList<>();
    for (Path p : FlinkTestSupport.markerFiles(tableDir())) {
      String name = p.getFileName().toString();
      if (name.startsWith(prefix)) {
        names.add(name);
      }
    }
    return names;
  }
}
