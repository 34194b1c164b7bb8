package io.sediment.flink;

import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.TableKind;
import io.sediment.fs.FileIO;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * checkpoint barrier never waits for a rewrite: the task thread stays free for barriers, and a
 * finished rewrite's {@link CompactMessage} is emitted through the task's mailbox (before the next
 * barrier, once it finished). Before each output file (data file or deletion-vector file) the
 * rewrite writes a marker ({@link CompactMarkers}). The message carries the result, or the error
 * after the rewriter deleted its partial output.
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

  private transient Map<String, Table> tables;
  private transient volatile boolean cancelled;
  private transient MailboxExecutor mailbox;
  private transient RewriteSlot slot;
  private transient ExecutorService rewriteThread;
  // Rewrites that ended on the rewrite thread and whose message was not emitted yet.
  private transient Set<Rewrite> unemitted;
  // Rewrites emitted after the last checkpoint barrier (task thread only).
  private transient List<Rewrite> emittedSinceBarrier;
  private transient AtomicInteger running;
  private transient Counter tasksFailed;
  private transient Counter tasksDone;
  private transient Counter filesRead;
  private transient Counter filesWritten;
  private transient Counter bytesRead;
  private transient Counter bytesWritten;
  private transient IntCounter doneAccumulator;

  /**
   * Output markers go under each task's commit user ({@link CompactTaskSplit#commitUser()}); {@code
   * listener} is told about each finished rewrite before its result is emitted. {@code mode} batch:
   * the batch job, whose committer commits every message at the end of input.
   */
  public CompactRewriteOperator(
      CompactTargets targets, CompactListener listener, ExecutionMode mode) {
    this.targets = targets;
    this.listener = listener;
    this.mode = mode;
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
    unemitted = Collections.synchronizedSet(new LinkedHashSet<>());
    emittedSinceBarrier = new ArrayList<>();
    running = new AtomicInteger();
    slot = new RewriteSlot();
    RewriteSlot.publish(slot);
    var g = getMetricGroup();
    g.gauge("tasksRunning", () -> running.get());
    tasksFailed = g.counter("tasksFailed");
    tasksDone = g.counter("tasksDone");
    filesRead = g.counter("filesRead");
    filesWritten = g.counter("filesWritten");
    bytesRead = g.counter("bytesRead");
    bytesWritten = g.counter("bytesWritten");
    doneAccumulator = new IntCounter();
    getRuntimeContext().addAccumulator(TASKS_DONE_ACCUMULATOR, doneAccumulator);
  }

  @Override
  public void processElement(StreamRecord<CompactTaskSplit> element) throws Exception {
    CompactTaskSplit split = element.getValue();
    Rewrite rewrite =
        new Rewrite(split, tables.computeIfAbsent(split.task().table(), targets::table));
    if (mailbox == null || !slot.readerAttached()) {
      rewrite.run();
      emit(rewrite);
      return;
    }
    if (rewriteThread == null) {
      String name =
          "sediment-rewrite " + getRuntimeContext().getTaskInfo().getTaskNameWithSubtasks();
      rewriteThread = Executors.newSingleThreadExecutor(r -> new Thread(r, name));
    }
    slot.started();
    rewriteThread.execute(
        () -> {
          rewrite.run();
          try {
            unemitted.add(rewrite);
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
    if (!unemitted.remove(rewrite)) {
      return;
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
      CompactMarkers.deleteMarkersOfMissingOutputs(rewrite.fileIO(), rewrite.markers);
      message = CompactMessage.failure(split, rewrite.error, rewrite.markers);
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
      emittedSinceBarrier.add(rewrite);
    }
    doneAccumulator.add(1);
    output.collect(new StreamRecord<>(message));
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    // Emitted before this barrier: the committer holds them in this checkpoint's window.
    emittedSinceBarrier.clear();
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
        discardUnemitted();
      }
      if (!mode.isBounded() && emittedSinceBarrier != null) {
        discardEmittedSinceBarrier();
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

  /** Deletes the outputs of rewrites that ended but whose message was never emitted. */
  private void discardUnemitted() {
    List<Rewrite> left;
    synchronized (unemitted) {
      left = new ArrayList<>(unemitted);
      unemitted.clear();
    }
    for (Rewrite r : left) {
      if (r.error == null) {
        LOG.info("Deleting the outputs of compaction task {}: the operator closed", r.split);
        CompactMarkers.deleteOutputsAndMarkers(r.fileIO(), r.markers);
      } else {
        CompactMarkers.deleteMarkersOfMissingOutputs(r.fileIO(), r.markers);
      }
    }
  }

  /**
   * Streaming: results emitted after the last barrier this operator passed are in no checkpoint
   * that can still complete (a later one needs this operator's barrier), so no commit will take
   * them: the job is cancelled, failing over, or stopped with a savepoint without draining (Flink
   * then takes the savepoint and closes the operators without ending their input, so a rewrite that
   * ends in between is emitted after the final barrier). Their outputs are deleted here.
   */
  private void discardEmittedSinceBarrier() {
    for (Rewrite r : emittedSinceBarrier) {
      LOG.info(
          "Deleting the outputs of compaction task {}: emitted after the last checkpoint", r.split);
      CompactMarkers.deleteOutputsAndMarkers(r.fileIO(), r.markers);
    }
    emittedSinceBarrier.clear();
  }

  /** One task's rewrite: runs on the rewrite thread (or the task thread), read after it ended. */
  private final class Rewrite {
    final CompactTaskSplit split;
    final Table table;
    final List<String> markers = Collections.synchronizedList(new ArrayList<>());
    CompactTaskResult result;
    Throwable error;

    Rewrite(CompactTaskSplit split, Table table) {
      this.split = split;
      this.table = table;
    }

    FileIO fileIO() {
      return table.store().fileIO();
    }

    void run() {
      CompactRewriter rewriter =
          TableKind.of(table.store())
              .rewriter(
                  table.store(),
                  path ->
                      markers.add(CompactMarkers.write(table.store(), split.commitUser(), path)));
      running.incrementAndGet();
      try {
        result = rewriter.rewrite(split.task(), () -> cancelled);
      } catch (Throwable e) {
        error = e;
      } finally {
        running.decrementAndGet();
      }
    }
  }
}
