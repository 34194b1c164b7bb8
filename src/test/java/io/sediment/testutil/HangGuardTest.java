package io.sediment.testutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The hang guard as the build wires it (junit-platform.properties, auto-detection): a test that
 * hangs fails with every thread's stack in its message; other failures pass through unchanged. The
 * tests of {@link Hanging} run in a launcher of their own (surefire skips nested classes).
 */
class HangGuardTest {

  /** What a hung test and a failing one look like; run only through {@link #run}. */
  static class Hanging {
    static final CountDownLatch NEVER = new CountDownLatch(1);

    @Test
    @Timeout(value = 200, unit = TimeUnit.MILLISECONDS)
    void waitsForever() throws InterruptedException {
      NEVER.await();
    }

    @Test
    void failsAtOnce() {
      throw new IllegalStateException("an ordinary failure");
    }
  }

  private static List<TestExecutionSummary.Failure> run() {
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    launcher.execute(
        LauncherDiscoveryRequestBuilder.request().selectors(selectClass(Hanging.class)).build(),
        summary);
    return summary.getSummary().getFailures();
  }

  private static Throwable failureOf(List<TestExecutionSummary.Failure> failures, String method) {
    return failures.stream()
        .filter(f -> f.getTestIdentifier().getDisplayName().startsWith(method))
        .findFirst()
        .orElseThrow()
        .getException();
  }

  @Test
  void aHungTestFailsWithTheStacksOfEveryThreadFromBeforeTheInterrupt() {
    Throwable hung = failureOf(run(), "waitsForever");
    assertThat(hung)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("waitsForever() timed out after 200 milliseconds")
        .hasMessageContaining("Threads when it timed out:")
        // the test's own thread, caught waiting: recorded before JUnit interrupted it
        .hasMessageContaining("java.util.concurrent.CountDownLatch.await(")
        .hasMessageContaining("HangGuardTest$Hanging.waitsForever");
  }

  @Test
  void otherFailuresPassThroughUnchanged() {
    assertThat(failureOf(run(), "failsAtOnce"))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("an ordinary failure");
  }
}
