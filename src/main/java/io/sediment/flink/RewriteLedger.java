package io.sediment.flink;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rewrite operator's bookkeeping of its rewrites, free of Flink, as {@link TaskLedger} is the
 * enumerator's. A rewrite is <em>running</em>, then <em>ended</em> (its result or error known, on
 * the rewrite thread), then <em>emitted</em> (its message sent downstream, on the task thread). In
 * streaming mode an emitted rewrite whose outputs the committer may commit stays <em>emitted since
 * the barrier</em> until the operator passes the next checkpoint barrier: from then on its message
 * is in the committer's window of that checkpoint.
 *
 * <pre>
 * running -> ended -> emitted -> (barrier) in a commit window
 *              |          '-----> discarded at close (streaming, no barrier since)
 *              '----------------> discarded at close (never emitted)
 * </pre>
 *
 * <p>When the operator closes (cancel, failover, a stop without drain) {@link #close} names every
 * rewrite whose outputs no commit will ever take, each exactly once: those that ended and were not
 * emitted, and in streaming mode those emitted after the last barrier (no checkpoint that can still
 * complete holds them: a later one needs this operator's barrier). A rewrite emitted by a bounded
 * (batch) operator is never discarded: the batch committer commits at the end of input.
 *
 * <p>Thread safety: {@link #started}, {@link #ended} and {@link #running} on any thread (the
 * rewrite thread and metric gauges); everything else on the task thread.
 */
final class RewriteLedger<R> {

  /** What a closing operator must delete: outputs of rewrites no commit will take. */
  record Discarded<R>(List<R> notEmitted, List<R> emittedAfterBarrier) {}

  private final boolean bounded;
  private final AtomicInteger running = new AtomicInteger();
  // Ended, not emitted yet; guarded by itself (the rewrite thread adds, the task thread takes).
  private final Set<R> ended = new LinkedHashSet<>();
  private final List<R> emittedSinceBarrier = new ArrayList<>();

  /**
   * @param bounded whether the operator runs a batch job (its committer commits at the end)
   */
  RewriteLedger(boolean bounded) {
    this.bounded = bounded;
  }

  /** A rewrite starts running. */
  void started() {
    running.incrementAndGet();
  }

  /** A rewrite ended (successfully or not); its message is still to be emitted. */
  void ended(R rewrite) {
    synchronized (ended) {
      ended.add(rewrite);
    }
    running.decrementAndGet();
  }

  /** Rewrites running now. */
  int running() {
    return running.get();
  }

  /**
   * Takes an ended rewrite for emitting; false when it is not there to emit (never ended, already
   * emitted, or discarded by {@link #close}).
   */
  boolean takeEnded(R rewrite) {
    synchronized (ended) {
      return ended.remove(rewrite);
    }
  }

  /**
   * A taken rewrite was emitted. {@code committable}: its message carries outputs a commit may take
   * (a failed rewrite's carries none: the rewriter deleted them).
   */
  void emitted(R rewrite, boolean committable) {
    if (committable && !bounded) {
      emittedSinceBarrier.add(rewrite);
    }
  }

  /** The operator passed a checkpoint barrier: what it emitted before is in that window. */
  void barrier() {
    emittedSinceBarrier.clear();
  }

  /**
   * The operator closes: returns the rewrites whose outputs must be deleted and forgets them. Call
   * only once no rewrite runs any more (the rewrite thread stopped).
   */
  Discarded<R> close() {
    List<R> notEmitted;
    synchronized (ended) {
      notEmitted = new ArrayList<>(ended);
      ended.clear();
    }
    List<R> afterBarrier = new ArrayList<>(emittedSinceBarrier);
    emittedSinceBarrier.clear();
    return new Discarded<>(notEmitted, afterBarrier);
  }
}
