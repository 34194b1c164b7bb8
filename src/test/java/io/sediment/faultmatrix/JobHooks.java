package io.sediment.faultmatrix;

import io.sediment.flink.CompactListener;
import io.sediment.flink.InjectedFaults;
import java.util.concurrent.CountDownLatch;

/**
 * The one place this package reaches the compaction operators' fault hooks: the faults of the
 * current test, injected into every job the matrix builds through {@link #listener()}.
 */
final class JobHooks {

  private static InjectedFaults faults = InjectedFaults.create();

  private JobHooks() {}

  /** The listener to build jobs with; carries the faults armed below. */
  static CompactListener listener() {
    return faults;
  }

  /** The next rewrite throws out of the operator after writing its outputs: the job fails over. */
  static void failAfterRewriteOnce() {
    faults.failAfterRewriteOnce();
  }

  static boolean failAfterRewriteFired() {
    return faults.allFired();
  }

  /**
   * The next rewrite, after writing its outputs, counts {@code parked} down and blocks until its
   * thread is interrupted (its task manager goes away): outputs on disk, never reported.
   */
  static void parkAfterRewriteOnce(CountDownLatch parked) {
    faults.parkAfterRewriteOnce(parked);
  }

  static void reset() {
    faults.close();
    faults = InjectedFaults.create();
  }
}
