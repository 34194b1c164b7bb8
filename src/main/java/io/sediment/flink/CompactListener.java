package io.sediment.flink;

import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import java.io.Serializable;

/**
 * Told about the progress of a compaction job at the points where a failure would leave work
 * half-done: after a rewrite wrote its outputs but before they were reported, and before the
 * committer commits. Set with {@link CompactJob.Builder#listener}; carried (serialized) by the
 * operators, so it must be serializable. The default does nothing.
 *
 * <p>An exception thrown by a listener method fails the operator it runs in (the job then fails or
 * restarts as its restart strategy says); it is not turned into a failed task or window. Fault
 * tests use this to lose a rewrite after its outputs were written, or a commit.
 */
public interface CompactListener extends Serializable {

  /** Does nothing. */
  CompactListener NONE = new CompactListener() {};

  /**
   * A rewrite operator finished {@code task}: its outputs (and their markers) are written, its
   * result is not yet emitted to the committer. Runs on the rewrite operator's task thread.
   */
  default void rewritten(CompactTask task, CompactTaskResult result) throws Exception {}

  /**
   * The committer is about to commit the windows up to checkpoint {@code checkpointId} (streaming
   * mode), or the batch window at end of input ({@code checkpointId} is then {@link
   * io.sediment.table.TableCommit#BATCH_IDENTIFIER}).
   */
  default void beforeCommit(long checkpointId) throws Exception {}
}
