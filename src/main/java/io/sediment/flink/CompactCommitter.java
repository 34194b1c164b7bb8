package io.sediment.flink;

import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitUsers;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.marker.OutputMarkers;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.api.common.accumulators.ListAccumulator;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits compaction results, parallelism 1. Messages arriving between two checkpoint barriers form
 * the window of the later checkpoint; at {@code notifyCheckpointComplete(n)} every window up to n
 * becomes one COMPACT snapshot per table (commit identifier = checkpoint id) through the shared
 * {@link CompactCommit}. In batch mode everything is one window, committed at end of input with the
 * batch identifier.
 *
 * <p>A window with a failed task is aborted whole (every output deleted); batch mode then fails the
 * job with the task's error, streaming mode logs and counts it and fails the job after {@code
 * compaction.max-consecutive-failures} failed windows in a row.
 *
 * <p>State: the commit user and the windows not yet committed (per checkpoint id, their messages),
 * kept by the {@link CommitWindows} shared with the SQL write committer, the count of consecutive
 * failed windows, and the user snapshots are committed as ({@code snapshot-commit-user}: the job's
 * user, or a new one after a restore from a checkpoint older than the job's commits). A window is
 * committed or aborted by {@link CompactWindowCommit}, which deletes the markers of its outputs by
 * output name (committed outputs are known from the messages); only the restart cleanup reads the
 * retained snapshots. On restore the restored windows are committed, skipping those the commit user
 * already committed ({@link CompactCommit#isCommitted}), then outputs recorded by markers that no
 * snapshot references are deleted (outputs of tasks that ran after the restored checkpoint).
 *
 * <p>Batch mode: at end of input every rewrite has ended, so after the commit (or the abort) the
 * committer deletes the outputs that markers record and no snapshot references: outputs of rewrite
 * attempts that Flink restarted after a failure it recovered from. A restarted committer commits
 * with {@code checkCommitted}, so a window an earlier attempt committed is not committed twice.
 */
public final class CompactCommitter extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<CompactMessage, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CompactCommitter.class);

  static final String RESULTS_ACCUMULATOR = "sediment.compact.results";

  /** The table of each entry of {@link #RESULTS_ACCUMULATOR}, in the same order. */
  static final String RESULT_TABLES_ACCUMULATOR = "sediment.compact.result-tables";

  private final CompactTargets targets;
  private final ExecutionMode mode;
  private final int maxConsecutiveFailures;
  private final CompactListener listener;
  private final String initialCommitUser;

  private transient CommitWindows<CompactMessage> windows;
  private transient String commitUser;
  private transient ListState<Integer> failuresState;
  private transient ListState<String> snapshotUserState;
  private transient int consecutiveFailures;
  private transient Map<String, Table> tables;
  private transient CompactWindowCommit windowCommit;
  private transient Outcomes outcomes;
  private transient Counter commits;
  private transient Counter failedWindows;
  private transient Counter conflicts;
  private transient Counter expiryFailures;
  private transient Counter partitionExpiryFailures;
  private transient Counter automaticTagFailures;
  private transient Counter orphanRemovalFailures;
  private transient volatile long lastCommitMillis;
  private transient ListAccumulator<CompactResult> results;
  private transient ListAccumulator<String> resultTables;

  public CompactCommitter(
      CompactTargets targets,
      String commitUser,
      ExecutionMode mode,
      int maxConsecutiveFailures,
      CompactListener listener) {
    this.targets = targets;
    this.initialCommitUser = commitUser;
    this.mode = mode;
    this.maxConsecutiveFailures = maxConsecutiveFailures;
    this.listener = listener;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    tables = new HashMap<>();
    commits = getMetricGroup().counter("commits");
    failedWindows = getMetricGroup().counter("failedWindows");
    conflicts = getMetricGroup().counter("conflicts");
    expiryFailures = getMetricGroup().counter("snapshotExpiryFailures");
    partitionExpiryFailures = getMetricGroup().counter("partitionExpiryFailures");
    automaticTagFailures = getMetricGroup().counter("automaticTagFailures");
    orphanRemovalFailures = getMetricGroup().counter("orphanRemovalFailures");
    getMetricGroup().gauge("lastCommitDurationMs", () -> lastCommitMillis);
    getMetricGroup().gauge("consecutiveFailures", () -> consecutiveFailures);
    results = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(RESULTS_ACCUMULATOR, results);
    resultTables = new ListAccumulator<>();
    getRuntimeContext().addAccumulator(RESULT_TABLES_ACCUMULATOR, resultTables);

    var backend = context.getOperatorStateStore();
    windows = new CommitWindows<>(CompactMessageCodec.INSTANCE);
    windows.initializeState(
        backend, context.isRestored(), () -> initialCommitUser, getUserCodeClassloader());
    commitUser = windows.commitUser();
    windowCommit = new CompactWindowCommit(this::table, commitUser, mode);
    outcomes = new Outcomes();
    failuresState =
        backend.getListState(
            new ListStateDescriptor<>("consecutive-failures", IntSerializer.INSTANCE));
    snapshotUserState =
        backend.getListState(
            new ListStateDescriptor<>("snapshot-commit-user", StringSerializer.INSTANCE));
    if (context.isRestored()) {
      for (Integer f : failuresState.get()) {
        consecutiveFailures = f;
      }
    }
    if (mode.isBounded()) {
      return;
    }
    for (String u : snapshotUserState.get()) {
      windowCommit.commitAs(u);
    }
    if (windows.size() > 0) {
      LOG.info("Committing {} restored compaction window(s) of {}", windows.size(), commitUser);
      replaying = true;
      try {
        windows.commitUpTo(Long.MAX_VALUE, true, this::finishWindow); // every restored window
      } finally {
        replaying = false;
      }
    }
    switchUserAfterRewind(context.getRestoredCheckpointId().orElse(0L));
    // No task of this job runs now (the source hands out tasks only after a checkpoint of this
    // attempt completes): every marker left belongs to an attempt that died.
    deleteOutputsOfDeadAttempts();
  }

  /**
   * After a restore from checkpoint {@code restored}: when the job's commits reached a later
   * identifier in a table (a savepoint restored after later checkpoints committed), the new run's
   * checkpoint ids repeat landed ones, and its windows commit as a new user (kept in state) so that
   * a later restore tells its commits apart. Markers and release records stay under the job's user.
   */
  private void switchUserAfterRewind(long restored) {
    if (restored <= 0) {
      return;
    }
    for (String name : targets.tableNames()) {
      Optional<Table> table = loadable(name);
      if (table.isEmpty()) {
        continue;
      }
      OptionalLong last =
          new CompactCommit(table.get().store(), windowCommit.snapshotUser())
              .latestCommitIdentifier();
      if (last.isPresent() && last.getAsLong() > restored) {
        String next = CommitUsers.afterRewind(windowCommit.snapshotUser(), restored);
        LOG.info(
            "Restored from checkpoint {}, but {} committed up to identifier {} in {}: committing"
                + " as {} from now on",
            restored,
            windowCommit.snapshotUser(),
            last.getAsLong(),
            name,
            next);
        windowCommit.commitAs(next);
        return;
      }
    }
  }

  /**
   * Deletes the outputs recorded by markers of the commit user that no retained snapshot
   * references, and their markers. Only while no rewrite of this job runs.
   */
  private void deleteOutputsOfDeadAttempts() {
    for (String name : targets.tableNames()) {
      Optional<Table> table = loadable(name);
      if (table.isEmpty()) {
        continue;
      }
      int n = OutputMarkers.cleanOrphans(table.get().store(), commitUser);
      if (n > 0) {
        LOG.info("Deleted {} uncommitted compaction output(s) of {} in {}", n, commitUser, name);
      }
    }
  }

  private Table table(String name) {
    return tables.computeIfAbsent(name, targets::table);
  }

  /**
   * The table, or empty (with a warning) when it is not there: a followed table dropped while the
   * job ran must not fail every restore of the job. Any other failure to load it is thrown.
   */
  private Optional<Table> loadable(String name) {
    try {
      return Optional.of(table(name));
    } catch (RuntimeException e) {
      if (targets.catalog().tableExists(Identifier.parse(name))) {
        throw e;
      }
      LOG.warn("{} is not there any more: {}", name, e.toString());
      return Optional.empty();
    }
  }

  /**
   * Forgets the tables loaded earlier that were dropped, or dropped and created again under their
   * name, since: a window would be committed through the old table's store, schema and options (its
   * partition expiry dropping the new table's partitions). A table that is still the one loaded is
   * kept, ALTERed or not: the job keeps the options it loaded (docs/configuration.md).
   */
  private void forgetReplacedTables() {
    tables
        .entrySet()
        .removeIf(
            e -> {
              if (e.getValue().store().stillThisTable()) {
                return false;
              }
              LOG.info("{} was dropped or replaced since this job loaded it", e.getKey());
              windowCommit.forget(e.getKey());
              return true;
            });
  }

  @Override
  public void processElement(StreamRecord<CompactMessage> element) {
    windows.addToNext(element.getValue());
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    windows.snapshotState(context.getCheckpointId());
    failuresState.update(List.of(consecutiveFailures));
    snapshotUserState.update(List.of(windowCommit.snapshotUser()));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    if (!windows.hasWindowsUpTo(checkpointId)) {
      return;
    }
    listener.beforeCommit(checkpointId);
    forgetReplacedTables();
    windows.commitUpTo(checkpointId, false, this::finishWindow);
  }

  @Override
  public void endInput() throws Exception {
    if (!mode.isBounded()) {
      return;
    }
    List<CompactMessage> all = windows.takeAll();
    // A restarted committer may find its window committed by an earlier attempt: skip it then.
    boolean retried = getRuntimeContext().getTaskInfo().getAttemptNumber() > 0;
    // On a failure here nothing more is deleted: a restarted committer reads the same messages
    // again and commits their outputs; when the job fails for good, runBatch deletes them.
    listener.beforeCommit(TableCommit.BATCH_IDENTIFIER);
    finishWindow(TableCommit.BATCH_IDENTIFIER, all, retried);
    // End of input: every rewrite of the job has ended. Outputs no snapshot references are those
    // of attempts Flink restarted (a lost task manager, a failed task), which never reached here.
    try {
      deleteOutputsOfDeadAttempts();
    } catch (RuntimeException e) {
      // The commit landed: do not fail the job. The outputs stay with their markers, which
      // remove_orphan_files honours until they are stale (docs/operations.md).
      LOG.warn(
          "Could not delete outputs of restarted attempts of {}: {}", commitUser, e.toString());
    }
  }

  /** Commits (or aborts) one window: one COMPACT snapshot per table it touched. */
  private void finishWindow(long window, List<CompactMessage> messages, boolean restored)
      throws Exception {
    if (windowCommit.finish(window, messages, restored, outcomes)) {
      consecutiveFailures = 0;
    }
  }

  /** Metrics, batch results and the failure limit. */
  private final class Outcomes implements CompactWindowCommit.Outcomes {
    @Override
    public void committed(
        String table, List<CompactMessage> messages, Long snapshotId, long millis) {
      lastCommitMillis = millis;
      commits.inc();
      if (mode.isBounded()) {
        List<CompactTaskResult> rs = new ArrayList<>();
        for (CompactMessage m : messages) {
          rs.add(m.result());
        }
        results.add(CompactResult.of(rs, snapshotId, 0));
        resultTables.add(table);
      }
    }

    @Override
    public void conflicted(String table, long window, CommitConflictException conflict)
        throws Exception {
      conflicts.inc();
      if (mode.isBounded()) {
        // A batch run (CALL, the batch job) reports that it committed nothing, as CompactBuilder;
        // a restart would find the same inputs gone
        windowFailed(window, conflict, false);
      }
    }

    @Override
    public void failed(long window, Throwable failure) throws Exception {
      // a commit error may be transient, or its outcome unknown: a restart may land it
      windowFailed(window, failure, true);
    }

    @Override
    public void taskFailed(long window, Throwable failure) throws Exception {
      windowFailed(window, failure, false);
    }

    @Override
    public void expiryFailed(String table, Throwable failure) {
      expiryFailures.inc();
    }

    @Override
    public void partitionExpiryFailed(String table, Throwable failure) {
      partitionExpiryFailures.inc();
    }

    @Override
    public void automaticTagFailed(String table, Throwable failure) {
      automaticTagFailures.inc();
    }

    @Override
    public void orphanRemovalFailed(String table, Throwable failure) {
      orphanRemovalFailures.inc();
    }
  }

  /** Restored windows are being committed (or aborted) in initializeState. */
  private boolean replaying;

  /**
   * A window failed. A batch run fails: at once when a restart cannot help ({@code retryable}
   * false: a task failed or the commit conflicted, and a restarted committer would read the same
   * results again, the rewrites not being run again), else through the restart strategy.
   */
  private void windowFailed(long window, Throwable failure, boolean retryable) throws Exception {
    failedWindows.inc();
    if (mode.isBounded()) {
      if (!retryable) {
        throw new UnrecoverableCompactionError(
            "The batch compaction failed; its outputs were deleted and nothing was committed",
            failure);
      }
      if (failure instanceof Exception) {
        throw (Exception) failure;
      }
      throw new RuntimeException(failure);
    }
    consecutiveFailures++;
    LOG.warn(
        "Compaction window {} of {} aborted ({} in a row): {}",
        window,
        commitUser,
        consecutiveFailures,
        failure.toString());
    if (consecutiveFailures >= maxConsecutiveFailures && replaying) {
      // Failing here would fail every restore of this checkpoint the same way, before any new
      // rewrite could show whether the cause is gone: the next window that fails fails the job.
      LOG.warn(
          "A restored window reached compaction.max-consecutive-failures={}; the job goes on,"
              + " and fails at the next window that fails",
          maxConsecutiveFailures);
    } else if (consecutiveFailures >= maxConsecutiveFailures) {
      throw new IllegalStateException(
          "Compaction failed in "
              + consecutiveFailures
              + " windows in a row (compaction.max-consecutive-failures="
              + maxConsecutiveFailures
              + "); last error: "
              + failure,
          failure);
    }
  }
}
