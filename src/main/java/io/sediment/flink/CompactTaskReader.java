package io.sediment.flink;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Asks the enumerator for one task at a time and emits it. The rewrite operator is chained to this
 * reader and rewrites synchronously, so the next task is requested only after the previous one was
 * rewritten: pull-based balancing. Keeps no tasks in state: a task not yet emitted at a checkpoint
 * is given up on restore and planned again (the enumerator releases it).
 */
final class CompactTaskReader implements SourceReader<CompactTaskSplit, CompactTaskSplit> {

  private final SourceReaderContext context;
  private final ArrayDeque<CompactTaskSplit> queue = new ArrayDeque<>();
  private boolean noMoreSplits;
  private boolean requested;
  private CompletableFuture<Void> available = new CompletableFuture<>();

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

  @Override
  public InputStatus pollNext(ReaderOutput<CompactTaskSplit> output) {
    CompactTaskSplit split = queue.poll();
    if (split != null) {
      output.collect(split);
      if (!queue.isEmpty()) {
        return InputStatus.MORE_AVAILABLE;
      }
      request();
      return noMoreSplits ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
    }
    if (noMoreSplits) {
      return InputStatus.END_OF_INPUT;
    }
    request();
    return InputStatus.NOTHING_AVAILABLE;
  }

  @Override
  public List<CompactTaskSplit> snapshotState(long checkpointId) {
    return List.of();
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    if (!queue.isEmpty() || noMoreSplits) {
      return CompletableFuture.completedFuture(null);
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
