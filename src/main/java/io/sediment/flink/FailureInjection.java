package io.sediment.flink;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test-only fault injection for the compaction operators, effective on an embedded (MiniCluster)
 * run where tests and operators share a JVM. Each hook fires at most once, then resets itself.
 * Never set in production code.
 */
public final class FailureInjection {

  private FailureInjection() {}

  /** When set, the rewrite operator throws after a task wrote its outputs, before emitting. */
  public static volatile boolean failAfterRewriteOnce;

  /** When set, the committer throws in notifyCheckpointComplete before committing a window. */
  public static volatile boolean failBeforeCommitOnce;

  /**
   * When set, one rewrite operator signals this latch after a task wrote its outputs and then
   * blocks until its thread is interrupted, as when its task manager goes away: the outputs stay on
   * disk, never reported.
   */
  public static final AtomicReference<CountDownLatch> parkAfterRewriteOnce =
      new AtomicReference<>();

  static void afterRewrite() {
    CountDownLatch parked = parkAfterRewriteOnce.getAndSet(null);
    if (parked != null) {
      parked.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("Injected failure: parked task interrupted", e);
      }
    }
    if (failAfterRewriteOnce) {
      failAfterRewriteOnce = false;
      throw new IllegalStateException("Injected failure after a rewrite");
    }
  }

  static void beforeCommit() {
    if (failBeforeCommitOnce) {
      failBeforeCommitOnce = false;
      throw new IllegalStateException("Injected failure before a commit");
    }
  }

  public static void reset() {
    failAfterRewriteOnce = false;
    failBeforeCommitOnce = false;
    parkAfterRewriteOnce.set(null);
  }
}
