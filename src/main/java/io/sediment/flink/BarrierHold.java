package io.sediment.flink;

import java.time.Duration;
import java.util.Optional;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;

/**
 * How long an operator may hold a checkpoint barrier (a writer waiting for a compaction job, the
 * compaction job waiting for a rewrite about to end): at most half the checkpoint timeout, so that
 * the checkpoint it holds still completes.
 */
public final class BarrierHold {

  private BarrierHold() {}

  /**
   * The longest an operator may hold a barrier in a job of this configuration: half the checkpoint
   * timeout when periodic checkpoints are on; empty (no limit) in batch or without checkpoints.
   */
  public static Optional<Duration> limit(ReadableConfig job) {
    if (job.get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH) {
      return Optional.empty();
    }
    Optional<Duration> interval = job.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL);
    if (interval.isEmpty() || interval.get().isZero() || interval.get().isNegative()) {
      return Optional.empty();
    }
    long timeout = job.get(CheckpointingOptions.CHECKPOINTING_TIMEOUT).toMillis();
    return Optional.of(Duration.ofMillis(Math.max(1, timeout / 2)));
  }
}
