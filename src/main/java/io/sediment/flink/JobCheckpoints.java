package io.sediment.flink;

import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ReadableConfig;

/**
 * What a continuous compaction job's planning rounds know of its checkpoints from its
 * configuration, before they see one: the interval ({@code -1}: not known; the rounds learn it from
 * two checkpoints) and how long a barrier waits for the rewrite running when it comes ({@code
 * compaction.checkpoint-wait}, capped at half the checkpoint timeout as the rewrite operator caps
 * it; 0: a barrier never waits), a lateness a round's lead need not leave room for.
 */
public record JobCheckpoints(long intervalMillis, long barrierWaitMillis) implements Serializable {

  /** Nothing known: a batch job, or a source built without its job's settings. */
  public static final JobCheckpoints UNKNOWN = new JobCheckpoints(-1, 0);

  public JobCheckpoints {
    intervalMillis = intervalMillis > 0 ? intervalMillis : -1;
    barrierWaitMillis = intervalMillis > 0 ? Math.max(0, barrierWaitMillis) : 0;
  }

  /**
   * A streaming job's, from its configuration: the checkpoint interval, and the rewrite operator's
   * barrier wait as that operator caps it ({@link BarrierHold#limit}, the same configuration).
   */
  static JobCheckpoints of(ReadableConfig job, Duration checkpointWait) {
    long interval =
        job.getOptional(CheckpointingOptions.CHECKPOINTING_INTERVAL)
            .map(Duration::toMillis)
            .orElse(-1L);
    long wait =
        BarrierHold.limit(job)
            .map(limit -> Math.min(limit.toMillis(), checkpointWait.toMillis()))
            .orElse(0L);
    return new JobCheckpoints(interval, wait);
  }
}
