package io.sediment.flink;

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

  static void afterRewrite() {
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
  }
}
