package io.sediment.table;

import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code write-only} writer's wait, when it prepares a commit, for a compaction job to make room
 * under {@code num-sorted-run.stop-trigger} in the buckets it writes to ({@code
 * write-only.stop-trigger-wait}). The writer counts a bucket's runs in the latest snapshot, those
 * of its own windows not seen committed yet, and the window's new level-0 files. It waits while a
 * compaction job's merge would shrink the bucket towards room for the runs coming: universal
 * compaction leaves a bucket of more than {@code num-sorted-run.compaction-trigger} runs with at
 * most that many, and cannot take the runs in flight, so it waits for at most that many committed
 * runs. (A job that plans with this option leaves fewer, room for the writer; the wait does not
 * count on that, since the option may be the writer's own: it never waits for a merge that may not
 * come, and may pass the trigger where such a job would have made room.) It looks at the latest
 * snapshot every {@link #POLL_MILLIS}, for at most the wait; then the window goes anyway, with a
 * warning: the write is never refused.
 */
public final class StopTriggerWait {

  private static final Logger LOG = LoggerFactory.getLogger(StopTriggerWait.class);

  /** How often a waiting writer looks at the latest snapshot. */
  static final long POLL_MILLIS = 100;

  /** A bucket the window writes to, as of the latest snapshot. */
  interface Bucket {
    /** Sorted runs in the latest snapshot: each level-0 file one, each upper level one. */
    int committedRuns();

    /** Level-0 runs still to land: the writer's windows in flight and the window's new files. */
    int runsComing();

    /** The bucket, for the log. */
    String describe();
  }

  private final int stopTrigger;
  private final int compactionTrigger;
  private long waitMillis;
  private final Clock clock;
  private Pause pause = Thread::sleep;

  // read by metric reporters
  private volatile long waitedMillis;
  private volatile long passed;

  /** The wait of a writer that never waits (an append table's). */
  static StopTriggerWait never() {
    return new StopTriggerWait(0, 0, 0, Clock.systemUTC());
  }

  /** The wait {@code options} ask for; {@code enabled}: false for a writer that never waits. */
  StopTriggerWait(TableOptions options, Clock clock, boolean enabled) {
    this(
        options.numSortedRunStopTrigger(),
        options.numSortedRunCompactionTrigger(),
        enabled ? options.get(PrimaryKeyOptions.WRITE_ONLY_STOP_TRIGGER_WAIT).toMillis() : 0,
        clock);
  }

  private StopTriggerWait(int stopTrigger, int compactionTrigger, long waitMillis, Clock clock) {
    this.stopTrigger = stopTrigger;
    this.compactionTrigger = compactionTrigger;
    this.waitMillis = waitMillis;
    this.clock = clock;
  }

  /** Whether the writer waits at all. */
  boolean enabled() {
    return waitMillis > 0;
  }

  /**
   * Waits at most {@code limitMillis} from now on (a Flink writer holds its checkpoint barrier
   * while it waits, so its wait must end well inside the checkpoint timeout); true when that
   * lowered the wait.
   */
  public boolean limitTo(long limitMillis) {
    if (limitMillis < 1) {
      throw new IllegalArgumentException("A wait limit must be at least 1 ms: " + limitMillis);
    }
    if (waitMillis > limitMillis) {
      waitMillis = limitMillis;
      return true;
    }
    return false;
  }

  /** The longest this writer waits at one commit; 0 when it never waits. */
  public long maxWaitMillis() {
    return waitMillis;
  }

  /** How a waiting writer passes the time between two looks at the latest snapshot. */
  @FunctionalInterface
  public interface Pause {
    void pause(long millis) throws InterruptedException;
  }

  /** Tests: a compaction step on a clock they move, instead of a sleep. */
  public void pauseWith(Pause pause) {
    this.pause = Objects.requireNonNull(pause, "pause");
  }

  /**
   * Waits until no bucket {@code latest} returns (each brought to the latest snapshot at every
   * call) holds more committed runs than a merge would leave it room for, or the wait ends.
   */
  void await(Supplier<List<? extends Bucket>> latest) throws IOException {
    if (!enabled()) {
      return;
    }
    List<? extends Bucket> buckets = latest.get();
    List<Bucket> over = waitingFor(buckets);
    if (!over.isEmpty()) {
      long start = clock.millis();
      long deadline = start + waitMillis;
      try {
        long left;
        while (!over.isEmpty() && (left = deadline - clock.millis()) > 0) {
          pause.pause(Math.min(POLL_MILLIS, left));
          buckets = latest.get();
          over = waitingFor(buckets);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        InterruptedIOException error =
            new InterruptedIOException(
                "Interrupted while waiting for a compaction to take a bucket under "
                    + stopTrigger
                    + " sorted runs");
        error.initCause(e);
        throw error;
      } finally {
        waitedMillis += Math.max(0, clock.millis() - start);
      }
      if (!over.isEmpty()) {
        Bucket b = over.get(0);
        LOG.warn(
            "{} will have {} sorted runs, past num-sorted-run.stop-trigger {}: no compaction took"
                + " it under in write-only.stop-trigger-wait ({} ms), so the window is committed"
                + " anyway ({} bucket(s) in all)",
            b.describe(),
            b.committedRuns() + b.runsComing(),
            stopTrigger,
            waitMillis,
            over.size());
      }
    }
    for (Bucket b : buckets) {
      if (b.committedRuns() + b.runsComing() > stopTrigger) {
        passed++;
        return;
      }
    }
  }

  /**
   * The buckets a merge would still shrink towards room for the runs coming: a merge leaves at most
   * {@code num-sorted-run.compaction-trigger} runs (fewer only where the job leaves room for the
   * writer), so the writer waits for at most that.
   */
  private List<Bucket> waitingFor(List<? extends Bucket> buckets) {
    List<Bucket> over = new ArrayList<>();
    for (Bucket b : buckets) {
      if (b.committedRuns() > Math.max(stopTrigger - b.runsComing(), compactionTrigger)) {
        over.add(b);
      }
    }
    return over;
  }

  /** Milliseconds waited in all. */
  public long waitedMillis() {
    return waitedMillis;
  }

  /**
   * Windows sent although a bucket of theirs passes the stop trigger: the wait ended first, or the
   * runs coming pass it even over a bucket a merge left at the compaction trigger.
   */
  public long passed() {
    return passed;
  }
}
