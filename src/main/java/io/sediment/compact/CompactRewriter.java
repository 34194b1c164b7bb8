package io.sediment.compact;

import io.sediment.io.OutputObserver;
import io.sediment.manifest.FileStore;
import java.util.function.BooleanSupplier;

/**
 * Runs compaction tasks of one table: reads the inputs, writes the outputs, returns the commit
 * message. Used both by {@link CompactBuilder} (in-process) and by the Flink rewrite operator. On
 * any failure, the task's own partial output is deleted before the error is thrown, so a failed
 * task leaves nothing behind.
 */
public interface CompactRewriter {

  /**
   * Rewrites one task. {@code cancelled} is polled between input files; when it turns true the task
   * stops, deletes its output and throws {@link java.util.concurrent.CancellationException}.
   */
  CompactTaskResult rewrite(CompactTask task, BooleanSupplier cancelled) throws Exception;

  /** The rewriter of the table's kind: {@link TableKind#rewriter}, with no observer. */
  static CompactRewriter forStore(FileStore store) {
    return forStore(store, OutputObserver.NONE);
  }

  /**
   * A rewriter whose every output file is announced to {@code observer} before it is created, so a
   * caller can record it first (the Flink topology writes a marker file per output, which makes
   * cleanup after a failover exact). Rewriters of every table kind must honour the observer. Same
   * as {@code TableKind.of(store).rewriter(store, observer)}.
   */
  static CompactRewriter forStore(FileStore store, OutputObserver observer) {
    return TableKind.of(store).rewriter(store, observer);
  }
}
