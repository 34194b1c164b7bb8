package io.sediment.flink;

/**
 * When a continuous job's planning rounds hand their tasks over, relative to the checkpoints that
 * commit their output.
 *
 * <p>A task's output is committed at the first checkpoint after its rewrite finished, so a round
 * that plans right after a checkpoint (a discovery that falls there, or the release of the tasks
 * that checkpoint committed) waits nearly a whole checkpoint interval for its commit, while the
 * files a writer adds meanwhile wait for the round after. A round therefore hands its tasks over
 * only shortly before the expected next checkpoint, its <em>lead</em> before it: its output lands
 * at the same checkpoint, and it takes the files that arrived while it waited.
 *
 * <p>The lead is the round's own: one polling period (rounds run on a timer) plus twice its
 * <em>work</em>, its planning time (or the longest of the last {@value #REMEMBERED}, if longer) and
 * its estimated rewriting time, the bytes its tasks read at the rewriting throughput of the last
 * {@value #REMEMBERED} periods of rewriting (the bytes handed over, over the time from a plan until
 * no task was pending or running); less the job's barrier wait ({@code
 * compaction.checkpoint-wait}), up to the work: a rewrite that runs late by less than the wait
 * still makes the checkpoint, so the margin the second half of the lead gives need not cover that
 * much again (a shorter lead: fewer of a writer's runs arrive between a merge's plan and its
 * commit, on top of the room the merge leaves; W5-PK-DV in docs/performance.md). With several tasks
 * of a round on fewer slots, the wait covers only the rewrite running at the barrier. The bytes a
 * task reads are its inputs and the bucket's other levels its merge looks its keys up in, on a
 * deletion-vector table or with the lookup changelog producer ({@code CompactTask#readBytes}): a
 * small merge under a large level reads the whole level. So a round that merges several times the
 * bytes of the rounds before it (under a streaming writer, size tiers filling up together, larger
 * every time they do) hands over early enough to make the checkpoint, and the rounds between keep a
 * short lead. Before the first period of rewriting ended the estimate is at a cold JVM's throughput
 * (a job's), or zero.
 *
 * <p>Rounds before the last half of the interval (or before the lead of a plan as long as the
 * longest of the last ones, if earlier) wait without planning. The window opens earlier still, up
 * to a poll after the last checkpoint, at the longest lead of the last {@value #REMEMBERED} rounds
 * that merged primary-key buckets: such a bucket is left out of planning until its merge is
 * committed, so a merge that misses its checkpoint keeps it out for another interval while a
 * writer's level-0 runs pile up in it (under a streaming writer with deletion vectors, a round of
 * several times the bytes every few intervals). A round as large as one of those then finds the
 * window open in time to hand over at its lead. The widening lapses when no round merged buckets
 * for {@value #REMEMBERED} intervals; full rounds (handed over at once) do not count. Append
 * partitions are not held that way (their files outside a task stay plannable), so rounds that
 * merge only append files leave the window as it was. Every round {@linkplain #inWindow in the
 * window} after that plans, and {@linkplain #handsOver hands over} once its lead is as long as the
 * time left; until then the next round plans again, with what arrived meanwhile. A round in the
 * {@linkplain #inLastStretch last stretch} (the window as it would be without the widening) may be
 * the last whose output that checkpoint commits: the enumerator lets it take an append partition's
 * group of two small files; a round in the window keeps its discovery due when it finds nothing.
 * Nothing waits when the checkpoints are not known to be regular yet (fewer than two seen, or none
 * with the job's interval configured: {@link #intervalKnown}, until which the enumerator discovers
 * every round), once the expected checkpoint is overdue, or when a plan's lead alone is as long as
 * the interval; with the interval configured, rounds before the first checkpoint wait. A rewrite
 * that ends while its barrier waits for it ({@code compaction.checkpoint-wait}) makes the
 * checkpoint, but the readers go idle after it: its margin reads negative.
 *
 * <p>What happened is kept for the job's metrics: the {@linkplain #lastLeadMillis lead} of the last
 * round handed over, the {@linkplain #lastMarginMillis margin} by which the last period of
 * rewriting made (or missed) the checkpoint after its start, and the {@linkplain #bytesPerSecond
 * throughput} the leads are estimated from.
 *
 * <p>Written by the enumerator's coordinator thread (checkpoints, plans handed over, readers idle);
 * read by its planning thread and by metric reporters.
 */
final class CheckpointAlignment {

  /** How many of the last rounds' times the lead is taken from. */
  static final int REMEMBERED = 5;

  private final long pollMillis;
  private final long configuredIntervalMillis; // the job's checkpoint interval; -1: not known
  private final double coldBytesPerMilli; // assumed before a period of rewriting was measured
  private final long barrierWaitMillis; // how long a barrier waits for a running rewrite; 0: never
  private volatile long lastCheckpointMillis = -1;
  private volatile long intervalMillis = -1;
  private volatile long planMillis; // the longest of the last plans
  private volatile double bytesPerMilli; // rewriting throughput of the last periods; 0: unknown
  private final long[] plans = new long[REMEMBERED]; // coordinator thread only
  private int nextPlan;
  private final long[] periodBytes = new long[REMEMBERED]; // coordinator thread only
  private final long[] periodMillis = new long[REMEMBERED];
  private int nextPeriod;
  private long rewritesSince = -1; // coordinator thread only
  private long bytesSince;
  private long checkpointInPeriod = -1; // the first checkpoint since the open period started
  private long expectedInPeriod = -1; // the checkpoint expected when it started; -1: unknown
  private final long[] bucketLeads = new long[REMEMBERED]; // coordinator thread only
  private int nextBucketLead;
  private volatile long bucketLeadMillis; // the longest lead of the last rounds merging buckets
  private volatile long lastBucketRoundMillis = -1; // when the last of them was planned
  private volatile long lastLeadMillis = -1;
  private volatile Long lastMarginMillis;

  /** {@code pollMillis}: how often the planning rounds run. */
  CheckpointAlignment(long pollMillis) {
    this(pollMillis, JobCheckpoints.UNKNOWN, 0);
  }

  /**
   * A job's alignment. {@code job}: its checkpoint interval as configured (-1: not known), taken as
   * the interval from the first checkpoint on until two were seen, and before which rounds wait
   * (what they hand over then is committed only at the second checkpoint, an interval after its
   * plan); and its barrier wait, a lateness the leads need not leave room for. {@code
   * coldBytesPerSecond}: the rewriting throughput assumed until a period of rewriting was measured
   * (0: the estimate is zero), so that the first rounds of a job, in a cold JVM, hand over early
   * rather than late.
   */
  CheckpointAlignment(long pollMillis, JobCheckpoints job, long coldBytesPerSecond) {
    this.pollMillis = pollMillis;
    this.configuredIntervalMillis = job.intervalMillis();
    this.intervalMillis = this.configuredIntervalMillis;
    this.barrierWaitMillis = job.barrierWaitMillis();
    this.coldBytesPerMilli = Math.max(0, coldBytesPerSecond) / 1000.0;
  }

  /**
   * Whether the checkpoints are known to be regular: two seen (or one, with the interval
   * configured).
   */
  boolean intervalKnown() {
    return intervalMillis > 0 && lastCheckpointMillis >= 0;
  }

  /** A checkpoint was triggered at {@code millis}. */
  void checkpointTriggered(long millis) {
    long last = lastCheckpointMillis;
    if (last >= 0 && millis > last) {
      intervalMillis = millis - last;
    }
    lastCheckpointMillis = millis;
    if (rewritesSince >= 0 && checkpointInPeriod < 0) {
      checkpointInPeriod = millis;
    }
  }

  /**
   * A round that took {@code tookMillis} to plan handed over tasks reading {@code bytes} bytes at
   * {@code millis}, merging primary-key buckets or not ({@code mergesBuckets}): a period of
   * rewriting starts, unless one runs.
   */
  void roundPlanned(long tookMillis, long bytes, long millis, boolean mergesBuckets) {
    lastLeadMillis = leadMillis(tookMillis, bytes);
    if (mergesBuckets) {
      bucketLeads[nextBucketLead] = lastLeadMillis;
      nextBucketLead = (nextBucketLead + 1) % REMEMBERED;
      bucketLeadMillis = max(bucketLeads);
      lastBucketRoundMillis = millis;
    }
    plans[nextPlan] = Math.max(0, tookMillis);
    nextPlan = (nextPlan + 1) % REMEMBERED;
    planMillis = max(plans);
    if (rewritesSince < 0) {
      rewritesSince = millis;
      bytesSince = 0;
      checkpointInPeriod = -1;
      expectedInPeriod = nextExpectedCheckpoint(millis);
    }
    bytesSince += Math.max(0, bytes);
  }

  /** No task is pending or running since {@code millis}: the period of rewriting ends. */
  void readersIdle(long millis) {
    if (rewritesSince >= 0) {
      periodBytes[nextPeriod] = bytesSince;
      periodMillis[nextPeriod] = Math.max(1, millis - rewritesSince);
      nextPeriod = (nextPeriod + 1) % REMEMBERED;
      long bytes = 0;
      long time = 0;
      for (int i = 0; i < REMEMBERED; i++) {
        bytes += periodBytes[i];
        time += periodMillis[i];
      }
      bytesPerMilli = bytes > 0 ? (double) bytes / time : 0;
      rewritesSince = -1;
      if (checkpointInPeriod >= 0) {
        lastMarginMillis = checkpointInPeriod - millis; // missed it: its output waits for the next
      } else if (expectedInPeriod >= 0) {
        lastMarginMillis = expectedInPeriod - millis;
      }
    }
  }

  /**
   * The first checkpoint expected after {@code millis}; -1 when checkpoints are not regular yet.
   */
  private long nextExpectedCheckpoint(long millis) {
    long interval = intervalMillis;
    long last = lastCheckpointMillis;
    if (interval <= 0 || last < 0) {
      return -1;
    }
    long expected = last + interval;
    if (expected <= millis) {
      expected += ((millis - expected) / interval + 1) * interval;
    }
    return expected;
  }

  /** The lead of the last round handed over (ms before the expected checkpoint); -1 before one. */
  long lastLeadMillis() {
    return lastLeadMillis;
  }

  /**
   * For the last period of rewriting (from a hand-over until no task was pending or running), the
   * time from its end to the first checkpoint after its start: positive when its output made that
   * checkpoint with so much to spare, negative when it finished so much after it (the output waited
   * for the next). Null before a period ended with the checkpoints known.
   */
  Long lastMarginMillis() {
    return lastMarginMillis;
  }

  /** The rewriting throughput the leads are estimated from (bytes per second); 0: not known. */
  long bytesPerSecond() {
    return Math.round(bytesPerMilli * 1000);
  }

  private static long max(long[] values) {
    long max = 0;
    for (long v : values) {
      max = Math.max(max, v);
    }
    return max;
  }

  /**
   * How long before the expected checkpoint a round that took {@code tookMillis} to plan {@code
   * bytes} bytes to read hands them over: a poll, and its work (plan and rewrite) with as much
   * again to spare, less what the barrier's wait for a rewrite about to end covers of that.
   */
  long leadMillis(long tookMillis, long bytes) {
    double throughput = bytesPerMilli > 0 ? bytesPerMilli : coldBytesPerMilli;
    long rewrite = throughput > 0 ? (long) Math.ceil(bytes / throughput) : 0;
    long work = Math.max(planMillis, tookMillis) + rewrite;
    return pollMillis + 2 * work - Math.min(barrierWaitMillis, work);
  }

  /**
   * How long before the expected checkpoint rounds start to plan: the {@linkplain
   * #lastStretchMillis last stretch}, or the longest lead of the last rounds that merged
   * primary-key buckets (at most a poll short of the interval) if longer, unless no round merged
   * buckets in the last {@value #REMEMBERED} intervals. -1 when rounds never wait (no regular
   * checkpoints known, or an empty plan's lead as long as the interval).
   */
  long windowMillis() {
    long window = lastStretchMillis();
    if (window < 0) {
      return -1;
    }
    long interval = intervalMillis;
    long lastBucketRound = lastBucketRoundMillis;
    boolean recent =
        lastBucketRound >= 0 && lastBucketRound >= lastCheckpointMillis - REMEMBERED * interval;
    return recent ? Math.max(window, Math.min(bucketLeadMillis, interval - pollMillis)) : window;
  }

  /**
   * The last stretch before the expected checkpoint, in which a round may be the last whose output
   * that checkpoint commits: half the interval, or the lead of an empty plan as long as the longest
   * of the last ones, if longer. -1 when rounds never wait.
   */
  private long lastStretchMillis() {
    long interval = intervalMillis;
    if (interval <= 0 || lastCheckpointMillis < 0) {
      return -1;
    }
    long stretch = Math.max(interval / 2, leadMillis(0, 0));
    return stretch < interval ? stretch : -1;
  }

  /**
   * Whether a round at {@code now} waits without planning: before the window, or with the interval
   * configured, before the first checkpoint.
   */
  boolean waits(long now) {
    if (configuredIntervalMillis > 0 && lastCheckpointMillis < 0) {
      return true;
    }
    long window = windowMillis();
    long last = lastCheckpointMillis;
    return window >= 0 && now >= last && now < last + intervalMillis - window;
  }

  /**
   * Whether {@code now} is in the window before the expected checkpoint, in which every round plans
   * and hands over once its lead is as long as the time left.
   */
  boolean inWindow(long now) {
    return within(windowMillis(), now);
  }

  /**
   * Whether {@code now} is in the {@linkplain #lastStretchMillis last stretch} before the expected
   * checkpoint (the window without what recent long leads added in front of it).
   */
  boolean inLastStretch(long now) {
    return within(lastStretchMillis(), now);
  }

  private boolean within(long window, long now) {
    long expected = lastCheckpointMillis + intervalMillis;
    return window >= 0 && now >= expected - window && now < expected;
  }

  /**
   * Whether a round that finished planning tasks reading {@code bytes} bytes at {@code now}, taking
   * {@code tookMillis}, hands them over now: outside the window, or once its lead is as long as the
   * time left before the expected checkpoint. If not, a later round plans again.
   */
  boolean handsOver(long now, long tookMillis, long bytes) {
    if (!inWindow(now)) {
      return true;
    }
    long left = lastCheckpointMillis + intervalMillis - now;
    return leadMillis(tookMillis, bytes) >= left;
  }
}
