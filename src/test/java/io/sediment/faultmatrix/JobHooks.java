package io.sediment.faultmatrix;

import io.sediment.flink.FailureInjection;
import java.util.concurrent.CountDownLatch;

/**
 * The one place this package reaches the compaction operators' test hooks ({@link
 * FailureInjection}, static flags in production code that issue 12 replaces with an injected hook):
 * re-point these methods at the new hook and the matrix follows.
 */
final class JobHooks {

  private JobHooks() {}

  /** The next rewrite throws out of the operator after writing its outputs: the job fails over. */
  static void failAfterRewriteOnce() {
    FailureInjection.failAfterRewriteOnce = true;
  }

  static boolean failAfterRewriteFired() {
    return !FailureInjection.failAfterRewriteOnce;
  }

  /**
   * The next rewrite, after writing its outputs, counts {@code parked} down and blocks until its
   * thread is interrupted (its task manager goes away): outputs on disk, never reported.
   */
  static void parkAfterRewriteOnce(CountDownLatch parked) {
    FailureInjection.parkAfterRewriteOnce.set(parked);
  }

  static void reset() {
    FailureInjection.reset();
  }
}
