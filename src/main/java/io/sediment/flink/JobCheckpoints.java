package io.sediment.flink;

import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.streaming.api.environment.CheckpointConfig;

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
   * A streaming job's: its checkpoint interval and timeout, and its rewrite operator's barrier wait
   * ({@link BarrierHold}: at most half the timeout).
   */
  static JobCheckpoints of(CheckpointConfig config, Duration checkpointWait) {
    long interval = config.getCheckpointInterval();
    long halfTimeout = Math.max(1, config.getCheckpointTimeout() / 2);
    return new JobCheckpoints(interval, Math.min(checkpointWait.toMillis(), halfTimeout));
  }
}
