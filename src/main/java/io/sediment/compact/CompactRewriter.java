package io.sediment.compact;

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
}
