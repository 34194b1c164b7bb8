package io.sediment.flink;

/**
 * When a continuous job's planning rounds run, relative to the checkpoints that commit their
 * output.
 *
 * <p>A task's output is committed at the first checkpoint after its rewrite finished, so a round
 * that plans right after a checkpoint (a discovery that falls there, or the release of the tasks
 * that checkpoint committed) waits nearly a whole checkpoint interval for its commit, while the
 * files a writer adds meanwhile wait for the round after. A round therefore waits until the
 * expected next checkpoint less a <em>lead</em>: its output lands at the same checkpoint, and it
 * takes the files that arrived while it waited. Under a streaming writer this shortens every new
 * file's time to compaction by most of an interval, and so the number of files a partition holds.
 *
 * <p>The lead is one polling period (rounds run on a timer) plus twice the longest planning time
 * and the longest rewriting time (from the plan until no task is pending or running) of the last
 * {@value #REMEMBERED} rounds that planned, so a round that takes somewhat longer than those still
 * makes the checkpoint (under a streaming writer every few rounds merge larger files than the
 * rounds between). A round never waits when the checkpoints are not known to be regular yet (fewer
 * than two seen), when the lead is not shorter than the interval (rewrites that long gain nothing
 * by waiting), or once the expected checkpoint is within the lead or overdue. Waiting only moves a
 * round later within the interval: what it excludes does not change. A round {@linkplain
 * #withinLead within the lead} is the last whose output that checkpoint commits: the enumerator
 * lets it take an append partition's group of two small files, and keeps its discovery due when it
 * finds nothing.
 *
 * <p>Written by the enumerator's coordinator thread (checkpoints, plans handed over, readers idle);
 * read by its planning thread.
 */
final class CheckpointAlignment {

  /** How many of the last rounds' times the lead is taken from. */
  static final int REMEMBERED = 5;

  private final long pollMillis;
  private volatile long lastCheckpointMillis = -1;
  private volatile long intervalMillis = -1;
  private volatile long planMillis; // the longest of the last plans
  private volatile long rewriteMillis; // the longest of the last periods of rewriting
  private final long[] plans = new long[REMEMBERED]; // coordinator thread only
  private int nextPlan;
  private final long[] rewrites = new long[REMEMBERED]; // coordinator thread only
  private int nextRewrite;
  private long rewritesSince = -1; // coordinator thread only

  /** {@code pollMillis}: how often the planning rounds run. */
  CheckpointAlignment(long pollMillis) {
    this.pollMillis = pollMillis;
  }

  /** A checkpoint was triggered at {@code millis}. */
  void checkpointTriggered(long millis) {
    long last = lastCheckpointMillis;
    if (last >= 0 && millis > last) {
      intervalMillis = millis - last;
    }
    lastCheckpointMillis = millis;
  }

  /**
   * A round that took {@code tookMillis} to plan handed over tasks at {@code millis}: a period of
   * rewriting starts, unless one runs.
   */
  void roundPlanned(long tookMillis, long millis) {
    plans[nextPlan] = Math.max(0, tookMillis);
    nextPlan = (nextPlan + 1) % REMEMBERED;
    planMillis = max(plans);
    if (rewritesSince < 0) {
      rewritesSince = millis;
    }
  }

  /** No task is pending or running since {@code millis}: the period of rewriting ends. */
  void readersIdle(long millis) {
    if (rewritesSince >= 0) {
      rewrites[nextRewrite] = Math.max(0, millis - rewritesSince);
      nextRewrite = (nextRewrite + 1) % REMEMBERED;
      rewriteMillis = max(rewrites);
      rewritesSince = -1;
    }
  }

  private static long max(long[] values) {
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    return max;
  }

  /** How long before the expected checkpoint a round plans. */
  long leadMillis() {
    return pollMillis + 2 * (planMillis + rewriteMillis);
  }

  /**
   * Whether {@code now} is within the lead before the expected checkpoint, rounds having waited for
   * it: a round that finds nothing to compact then keeps its discovery due, since the files a
   * writer adds before the checkpoint can still make it (a lead that grew since the last round
   * comes before the writer's next files).
   */
  boolean withinLead(long now) {
    long interval = intervalMillis;
    long last = lastCheckpointMillis;
    if (interval <= 0 || last < 0) {
      return false;
    }
    long lead = leadMillis();
    return lead < interval && now >= last + interval - lead && now < last + interval;
  }

  /** Whether a round at {@code now} waits for a time nearer the next checkpoint. */
  boolean waits(long now) {
    long interval = intervalMillis;
    long last = lastCheckpointMillis;
    if (interval <= 0 || last < 0) {
      return false;
    }
    long lead = leadMillis();
    return lead < interval && now >= last && now < last + interval - lead;
  }
}
