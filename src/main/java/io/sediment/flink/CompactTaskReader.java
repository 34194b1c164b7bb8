package io.sediment.flink;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Asks the enumerator for one task at a time and emits it to the chained rewrite operator, which
 * rewrites off the task thread. The next task is requested only when the operator's {@link
 * RewriteSlot} is free again, so a reader holds one task at a time: pull-based balancing. (Without
 * a slot, chaining disabled, it asks right after emitting.) Keeps no tasks in state: a task not yet
 * emitted, or still rewriting, at a checkpoint is given up on restore and planned again (the
 * enumerator releases it).
 */
final class CompactTaskReader implements SourceReader<CompactTaskSplit, CompactTaskSplit> {

  private static final CompletableFuture<Void> AVAILABLE = CompletableFuture.completedFuture(null);

  private final SourceReaderContext context;
  private final ArrayDeque<CompactTaskSplit> queue = new ArrayDeque<>();
  private boolean noMoreSplits;
  private boolean requested;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private RewriteSlot slot;
  private boolean slotLookedUp;

  CompactTaskReader(SourceReaderContext context) {
    this.context = context;
  }

  @Override
  public void start() {
    request();
  }

  private void request() {
    if (!requested && !noMoreSplits) {
      requested = true;
      context.sendSplitRequest();
    }
  }

  /** Whether the chained rewrite operator can take a task (looked up on the task thread). */
  private boolean rewriteFree() {
    if (!slotLookedUp) {
      slotLookedUp = true;
      slot = RewriteSlot.attachToTaskThread();
    }
    return slot == null || slot.isFree();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<CompactTaskSplit> output) {
    // Looked up before the first emit: the operator rewrites off the task thread only for a reader
    // that waits for its slot.
    if (rewriteFree()) {
      CompactTaskSplit split = queue.poll();
      if (split != null) {
        output.collect(split);
      }
    }
    if (!queue.isEmpty()) {
      return rewriteFree() ? InputStatus.MORE_AVAILABLE : InputStatus.NOTHING_AVAILABLE;
    }
    if (noMoreSplits) {
      return InputStatus.END_OF_INPUT;
    }
    if (rewriteFree()) {
      request();
    }
    return InputStatus.NOTHING_AVAILABLE;
  }

  @Override
  public List<CompactTaskSplit> snapshotState(long checkpointId) {
    return List.of();
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    if (queue.isEmpty() && noMoreSplits) {
      return AVAILABLE;
    }
    if (!rewriteFree()) {
      // Poll again when the rewrite ended: to emit the next task or ask for one.
      return slot.whenFree();
    }
    if (!queue.isEmpty() || !requested) {
      return AVAILABLE;
    }
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    return available;
  }

  @Override
  public void addSplits(List<CompactTaskSplit> splits) {
    queue.addAll(splits);
    requested = false;
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() {}
}
