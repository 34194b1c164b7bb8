package io.sediment.flink;

import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.TableKind;
import io.sediment.fs.FileIO;
import io.sediment.marker.OutputMarkers;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.accumulators.IntCounter;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the shared {@link CompactRewriter} on each task, on a rewrite thread of its own, so that a
 * checkpoint barrier does not wait for a whole rewrite: the task thread stays free for barriers,
 * and a finished rewrite's {@link CompactMessage} is emitted through the task's mailbox (before the
 * next barrier, once it finished). Before each output file (data file or deletion-vector file) the
 * rewrite writes a marker ({@link OutputMarkers}). The message carries the result, or the error
 * after the rewriter deleted its partial output.
 *
 * <p>A streaming job's barrier may wait a little ({@code compaction.checkpoint-wait}, at most half
 * the checkpoint timeout) for the rewrite running when it arrives: one that ends meanwhile is
 * emitted before the barrier, so its output is committed at this checkpoint rather than a whole
 * interval later, while writers' runs pile up in its buckets. The job's rounds hand their tasks
 * over shortly before the checkpoint (CheckpointAlignment), so a round that misses it mostly misses
 * it by a little. Each rewrite is waited for at one barrier at most: a long one (a full compaction)
 * delays one checkpoint by the wait, not every checkpoint it spans.
 *
 * <p>One rewrite runs at a time: the chained {@link CompactTaskReader} asks for the next task only
 * when this operator's {@link RewriteSlot} is free. A task still rewriting at a checkpoint is in no
 * state: after a restore it is given up (the committer deletes its marked outputs, the enumerator
 * releases its files and plans them again), like a task not yet emitted. When the operator closes
 * (cancel, failover) it stops the running rewrite and deletes what finished but was not emitted.
 * Without a chained reader (operator chaining disabled) it rewrites on the task thread.
 */
public final class CompactRewriteOperator extends AbstractStreamOperator<CompactMessage>
    implements OneInputStreamOperator<CompactTaskSplit, CompactMessage>, BoundedOneInput {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CompactRewriteOperator.class);

  static final String TASKS_DONE_ACCUMULATOR = "sediment.compact.tasks-done";

  private final CompactTargets targets;
  private final CompactListener listener;
  private final ExecutionMode mode;
  private final Duration checkpointWait;

  private transient Map<String, Table> tables;
  private transient volatile boolean cancelled;
  private transient MailboxExecutor mailbox;
  private transient RewriteSlot slot;
  private transient ExecutorService rewriteThread;
  // Which rewrites run, ended, were emitted since the last barrier.
  private transient RewriteLedger<Rewrite> ledger;
  // The rewrite running on the rewrite thread, until it is emitted; task thread only.
  private transient Rewrite inFlight;
  private transient long checkpointWaitMillis; // the option, bounded by the checkpoint timeout
  private transient Counter tasksFailed;
  private transient Counter tasksDone;
  private transient Counter filesRead;
  private transient Counter filesWritten;
  private transient Counter bytesRead;
  private transient Counter bytesWritten;
  private transient Counter checkpointWaits;
  private transient Counter rewritesEndedInWait;
  private transient IntCounter doneAccumulator;

  /**
   * Output markers go under each task's commit user ({@link CompactTaskSplit#commitUser()}); {@code
   * listener} is told about each finished rewrite before its result is emitted. {@code mode} batch:
   * the batch job, whose committer commits every message at the end of input. {@code
   * checkpointWait}: how long a streaming job's barrier waits for the rewrite running when it comes
   * ({@code compaction.checkpoint-wait}; zero: it never waits).
   */
  public CompactRewriteOperator(
      CompactTargets targets,
      CompactListener listener,
      ExecutionMode mode,
      Duration checkpointWait) {
    if (checkpointWait == null || checkpointWait.isNegative()) {
      throw new IllegalArgumentException(
          "The checkpoint wait must be zero or positive, got " + checkpointWait);
    }
    this.targets = targets;
    this.listener = listener;
    this.mode = mode;
    this.checkpointWait = checkpointWait;
  }

  @Override
  public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
    super.setMailboxExecutor(mailboxExecutor);
    this.mailbox = mailboxExecutor;
  }

  @Override
  public void open() throws Exception {
    super.open();
    tables = new HashMap<>();
    ledger = new RewriteLedger<>(mode.isBounded());
    slot = new RewriteSlot();
    RewriteSlot.publish(slot);
    var g = getMetricGroup();
    g.gauge("tasksRunning", () -> ledger.running());
    tasksFailed = g.counter("tasksFailed");
    tasksDone = g.counter("tasksDone");
    filesRead = g.counter("filesRead");
    filesWritten = g.counter("filesWritten");
    bytesRead = g.counter("bytesRead");
    bytesWritten = g.counter("bytesWritten");
    checkpointWaits = g.counter("checkpointWaits");
    rewritesEndedInWait = g.counter("rewritesEndedInCheckpointWait");
    doneAccumulator = new IntCounter();
    getRuntimeContext().addAccumulator(TASKS_DONE_ACCUMULATOR, doneAccumulator);
    checkpointWaitMillis = checkpointWait.toMillis();
    var limit = BarrierHold.limit(getContainingTask().getEnvironment().getJobConfiguration());
    if (limit.isPresent() && limit.get().toMillis() < checkpointWaitMillis) {
      LOG.warn(
          "compaction.checkpoint-wait ({} ms) is more than half the checkpoint timeout: a barrier"
              + " waits at most {} ms for a rewrite",
          checkpointWaitMillis,
          limit.get().toMillis());
      checkpointWaitMillis = limit.get().toMillis();
    }
  }

  @Override
  public void processElement(StreamRecord<CompactTaskSplit> element) throws Exception {
    CompactTaskSplit split = element.getValue();
    Table table;
    RuntimeException unloadable = null;
    try {
      table = tables.computeIfAbsent(split.task().table(), targets::table);
    } catch (RuntimeException e) {
      // dropped since it was planned, say: the task fails as a task (its window aborts), where an
      // exception here would fail the operator again at every restore that hands it out
      table = null;
      unloadable = e;
    }
    Rewrite rewrite = new Rewrite(split, table, unloadable);
    if (mailbox == null || !slot.readerAttached()) {
      rewrite.run();
      if (ledger.takeEnded(rewrite)) {
        emit(rewrite);
      }
      return;
    }
    if (rewriteThread == null) {
      String name =
          "sediment-rewrite " + getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks();
      rewriteThread = Executors.newSingleThreadExecutor(r -> new Thread(r, name));
    }
    slot.started();
    inFlight = rewrite;
    rewriteThread.execute(
        () -> {
          rewrite.run();
          try {
            mailbox.execute(() -> emitEnded(rewrite), "emit compaction task %s", split.splitId());
          } catch (RejectedExecutionException e) {
            // The task is closing: close() deletes the rewrite's outputs.
          } catch (Throwable t) {
            // The result cannot reach the task thread: fail the task rather than leave the
            // reader waiting for a slot that never frees. The restart deletes the outputs.
            getContainingTask().getEnvironment().failExternally(t);
          }
        });
  }

  /** Task thread: emits a rewrite that ended, unless close() already discarded it. */
  private void emitEnded(Rewrite rewrite) throws Exception {
    if (!ledger.takeEnded(rewrite)) {
      return;
    }
    if (inFlight == rewrite) {
      inFlight = null;
    }
    try {
      emit(rewrite);
    } finally {
      slot.ended();
    }
  }

  private void emit(Rewrite rewrite) throws Exception {
    CompactTaskSplit split = rewrite.split;
    CompactMessage message;
    if (rewrite.error instanceof Error) {
      throw (Error) rewrite.error;
    } else if (rewrite.error != null) {
      tasksFailed.inc();
      LOG.warn("Compaction task {} failed: {}", split, rewrite.error.toString());
      // The rewriter deleted its outputs; their markers can go too.
      OutputMarkers.deleteMarkersOfMissingOutputs(rewrite.fileIO(), rewrite.markers);
      message = CompactMessage.failure(split, rewrite.error, rewrite.markers);
      ledger.emitted(rewrite, false);
    } else {
      CompactTaskResult result = rewrite.result;
      // Not part of the task: a listener's exception fails the operator, outputs left on disk.
      listener.rewritten(split.task(), result);
      filesRead.inc(result.filesRead());
      filesWritten.inc(result.filesWritten());
      bytesRead.inc(result.bytesRead());
      bytesWritten.inc(result.bytesWritten());
      tasksDone.inc();
      message = CompactMessage.success(split, result, rewrite.markers);
      ledger.emitted(rewrite, true);
    }
    doneAccumulator.add(1);
    output.collect(new StreamRecord<>(message));
  }

  /**
   * Before a streaming barrier: waits up to the checkpoint wait for the rewrite running now, unless
   * an earlier barrier waited for it already, and emits it if it ended (its message then goes
   * before the barrier). A rewrite that ended but whose mail has not run yet is emitted at once.
   * The task thread blocks meanwhile, as a writer's flush would; a cancel interrupts it.
   */
  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    Rewrite running = inFlight;
    if (mode.isBounded() || checkpointWaitMillis == 0 || running == null) {
      return;
    }
    if (running.waitedFor && !running.ended.isDone()) {
      return;
    }
    running.waitedFor = true;
    checkpointWaits.inc();
    long start = System.nanoTime();
    try {
      running.ended.get(checkpointWaitMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      LOG.info(
          "Compaction task {} still rewriting after a wait of {} ms at checkpoint {}: its output"
              + " goes to the next checkpoint",
          running.split,
          checkpointWaitMillis,
          checkpointId);
      return;
    }
    rewritesEndedInWait.inc();
    LOG.info(
        "Checkpoint {} waited {} ms for compaction task {} to end: its output is in this checkpoint",
        checkpointId,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
        running.split);
    emitEnded(running); // the mail the rewrite sent then finds nothing to emit
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    // Emitted before this barrier: the committer holds them in this checkpoint's window.
    ledger.barrier();
    // Load the tables again for the next window's tasks: a long-running job follows ALTER TABLE
    // (its outputs carry the table's latest schema, its rewrites the latest options).
    tables.clear();
  }

  @Override
  public void endInput() throws Exception {
    // The results of the last rewrites belong to the end of input.
    while (slot != null && !slot.isFree()) {
      mailbox.yield();
    }
  }

  @Override
  public void close() throws Exception {
    cancelled = true;
    try {
      if (slot != null) {
        RewriteSlot.withdraw(slot);
      }
      if (rewriteThread != null) {
        stopRewriteThread();
      }
      if (ledger != null) {
        discard(ledger.close());
      }
    } finally {
      super.close();
    }
  }

  /** Stops the running rewrite (it deletes its partial output) and waits until it ended. */
  private void stopRewriteThread() {
    boolean interrupted = false;
    while (true) {
      // Interrupted again on every pass, as Flink does with a task thread that does not stop.
      rewriteThread.shutdownNow();
      try {
        if (rewriteThread.awaitTermination(10, TimeUnit.SECONDS)) {
          break;
        }
        LOG.warn("Waiting for a cancelled compaction rewrite to stop");
      } catch (InterruptedException e) {
        // Flink interrupts a cancelled task repeatedly; the rewrite must still end first, or
        // it could write outputs after the job restarted.
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Deletes the outputs no commit will take: of rewrites that ended but were never emitted, and
   * (streaming) of rewrites emitted after the last barrier this operator passed: no checkpoint that
   * can still complete holds them (a later one needs this operator's barrier), so the job is
   * cancelled, failing over, or stopped with a savepoint without draining (Flink then takes the
   * savepoint and closes the operators without ending their input, so a rewrite that ends in
   * between is emitted after the final barrier).
   */
  private void discard(RewriteLedger.Discarded<Rewrite> discarded) {
    for (Rewrite r : discarded.notEmitted()) {
      if (r.error == null) {
        LOG.info("Deleting the outputs of compaction task {}: the operator closed", r.split);
        OutputMarkers.deleteOutputsAndMarkers(r.fileIO(), r.markers);
      } else {
        OutputMarkers.deleteMarkersOfMissingOutputs(r.fileIO(), r.markers);
      }
    }
    for (Rewrite r : discarded.emittedAfterBarrier()) {
      LOG.info(
          "Deleting the outputs of compaction task {}: emitted after the last checkpoint", r.split);
      OutputMarkers.deleteOutputsAndMarkers(r.fileIO(), r.markers);
    }
  }

  /** One task's rewrite: runs on the rewrite thread (or the task thread), read after it ended. */
  private final class Rewrite {
    final CompactTaskSplit split;
    final Table table; // null: it could not be loaded (unloadable)
    final RuntimeException unloadable;
    final List<String> markers = Collections.synchronizedList(new ArrayList<>());
    // completed once result or error is set (and the ledger knows it ended)
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    CompactTaskResult result;
    Throwable error;
    boolean waitedFor; // a barrier waited for it; task thread only

    Rewrite(CompactTaskSplit split, Table table, RuntimeException unloadable) {
      this.split = split;
      this.table = table;
      this.unloadable = unloadable;
    }

    /** The table's; null when it could not be loaded (then it has no markers). */
    FileIO fileIO() {
      return table == null ? null : table.store().fileIO();
    }

    void run() {
      ledger.started();
      try {
        // in the try: a table that refuses compaction (ALTER TABLE since the task was planned)
        // fails the task, where an exception out of run() would leave the slot busy for good
        if (unloadable != null) {
          throw unloadable;
        }
        CompactRewriter rewriter =
            TableKind.of(table.store())
                .rewriter(
                    table.store(),
                    path ->
                        markers.add(OutputMarkers.write(table.store(), split.commitUser(), path)));
        result = rewriter.rewrite(split.task(), () -> cancelled);
      } catch (Throwable e) {
        error = e;
      } finally {
        ledger.ended(this);
        ended.complete(null);
      }
    }
  }
}
