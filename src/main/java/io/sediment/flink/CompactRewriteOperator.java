package io.sediment.flink;

import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.TableKind;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.accumulators.IntCounter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the shared {@link CompactRewriter} on each task, synchronously (chained to the source, so a
 * checkpoint barrier never passes a running task). Before each output file (data file or
 * deletion-vector file) it writes a marker ({@link CompactMarkers}). Emits a {@link CompactMessage}
 * with the result, or with the error after the rewriter deleted its partial output.
 */
public final class CompactRewriteOperator extends AbstractStreamOperator<CompactMessage>
    implements OneInputStreamOperator<CompactTaskSplit, CompactMessage> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(CompactRewriteOperator.class);

  static final String TASKS_DONE_ACCUMULATOR = "sediment.compact.tasks-done";

  private final CompactTargets targets;
  private final CompactListener listener;

  private transient Map<String, Table> tables;
  private transient volatile boolean cancelled;
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
   * listener} is told about each finished rewrite before its result is emitted.
   */
  public CompactRewriteOperator(CompactTargets targets, CompactListener listener) {
    this.targets = targets;
    this.listener = listener;
  }

  @Override
  public void open() throws Exception {
    super.open();
    tables = new HashMap<>();
    running = new AtomicInteger();
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
    Table table = tables.computeIfAbsent(split.task().table(), targets::table);
    List<String> markers = Collections.synchronizedList(new ArrayList<>());
    CompactRewriter rewriter =
        TableKind.of(table.store())
            .rewriter(
                table.store(),
                path -> markers.add(CompactMarkers.write(table.store(), split.commitUser(), path)));
    CompactTaskResult result = null;
    Exception error = null;
    running.incrementAndGet();
    try {
      result = rewriter.rewrite(split.task(), () -> cancelled);
    } catch (Exception e) {
      error = e;
    } finally {
      running.decrementAndGet();
    }
    CompactMessage message;
    if (error != null) {
      message = failed(split, table, error, markers);
    } else {
      // Not part of the task: a listener's exception fails the operator, outputs left on disk.
      listener.rewritten(split.task(), result);
      filesRead.inc(result.filesRead());
      filesWritten.inc(result.filesWritten());
      bytesRead.inc(result.bytesRead());
      bytesWritten.inc(result.bytesWritten());
      tasksDone.inc();
      message = CompactMessage.success(split, result, markers);
    }
    doneAccumulator.add(1);
    output.collect(new StreamRecord<>(message));
  }

  private CompactMessage failed(
      CompactTaskSplit split, Table table, Exception e, List<String> markers) {
    tasksFailed.inc();
    LOG.warn("Compaction task {} failed: {}", split, e.toString());
    // The rewriter deleted its outputs; their markers can go too.
    CompactMarkers.deleteMarkersOfMissingOutputs(table.store().fileIO(), markers);
    return CompactMessage.failure(split, e, markers);
  }

  @Override
  public void close() throws Exception {
    cancelled = true;
    super.close();
  }
}
