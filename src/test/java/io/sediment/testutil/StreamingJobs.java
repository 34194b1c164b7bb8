package io.sediment.testutil;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the streaming SQL tests share: an environment on the test's MiniCluster that checkpoints and
 * restarts a failed job, and a map that fails the job once, after a checkpoint completed.
 */
public final class StreamingJobs {

  private StreamingJobs() {}

  /**
   * A streaming environment: {@code parallelism}, a checkpoint every {@code checkpointMillis}, up
   * to 3 restarts 10 ms apart.
   */
  public static StreamExecutionEnvironment restarting(int parallelism, long checkpointMillis) {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    env.setParallelism(parallelism);
    env.enableCheckpointing(checkpointMillis);
    return env;
  }

  /**
   * Cancels {@code job} and waits until it ended: a cancel is acknowledged before the job's tasks
   * stopped, and what the test checks next (files on disk, snapshots) must not race with the
   * clean-up of the operators closing.
   */
  public static void cancelAndWait(JobClient job) throws Exception {
    job.cancel().get();
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> job.getJobStatus().get().isGloballyTerminalState());
  }

  /**
   * Passes values through and throws once, on the first value after a checkpoint completed. One job
   * at a time uses it (the flags are static: the operator is serialized into the job); {@link
   * #reset} before the job.
   */
  public static final class FailOnce<T> implements MapFunction<T, T>, CheckpointListener {
    public static final AtomicBoolean FAILED = new AtomicBoolean();
    public static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();

    /** Arms the failure (or, with {@code fail} false, disarms it) for the next job. */
    public static void reset(boolean fail) {
      FAILED.set(!fail);
      CHECKPOINTED.set(false);
    }

    @Override
    public T map(T value) {
      if (CHECKPOINTED.get() && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure");
      }
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTED.set(true);
    }
  }
}
