package io.sediment.testutil;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Turns a hung test into a failure that says where every thread was. Every test runs under JUnit's
 * default timeout (src/test/resources/junit-platform.properties): a guard against a hang, not a
 * check of speed. When it fires, this records the stacks of all threads before JUnit interrupts the
 * test (the Flink tasks, the committer, the readers: the state that hung), and puts them in the
 * failure's message, which the build prints where CI shows it (test output goes to files).
 *
 * <p>Registered for every test by JUnit's extension auto-detection (META-INF/services).
 */
public final class HangGuard
    implements PreInterruptCallback,
        TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(HangGuard.class);

  /** At most this many frames of each thread: where it waits shows in the top ones. */
  private static final int MAX_FRAMES = 48;

  @Override
  public void beforeThreadInterrupt(PreInterruptContext interrupt, ExtensionContext context) {
    context.getStore(NAMESPACE).put("threads", threadDump());
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    throw withThreads(context, thrown);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    throw withThreads(context, thrown);
  }

  @Override
  public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    throw withThreads(context, thrown);
  }

  @Override
  public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    throw withThreads(context, thrown);
  }

  @Override
  public void handleAfterAllMethodExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    throw withThreads(context, thrown);
  }

  /** {@code thrown} as it is, unless it is a timeout with the threads recorded before it. */
  private static Throwable withThreads(ExtensionContext context, Throwable thrown) {
    String threads = context.getStore(NAMESPACE).remove("threads", String.class);
    if (!(thrown instanceof TimeoutException) || threads == null) {
      return thrown;
    }
    return new AssertionError(
        thrown.getMessage()
            + " (a hang: the limit guards the build)\nThreads when it timed out:\n"
            + threads,
        thrown);
  }

  /** Every live thread: name, state, the lock it waits for and who holds it, its top frames. */
  static String threadDump() {
    ThreadInfo[] threads = ManagementFactory.getThreadMXBean().dumpAllThreads(true, true);
    Arrays.sort(threads, Comparator.comparing(ThreadInfo::getThreadName));
    StringBuilder out = new StringBuilder();
    for (ThreadInfo t : threads) {
      out.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
      if (t.getLockName() != null) {
        out.append(" on ").append(t.getLockName());
      }
      if (t.getLockOwnerName() != null) {
        out.append(" held by \"").append(t.getLockOwnerName()).append('"');
      }
      out.append('\n');
      StackTraceElement[] frames = t.getStackTrace();
      for (int i = 0; i < Math.min(frames.length, MAX_FRAMES); i++) {
        out.append("    at ").append(frames[i]).append('\n');
      }
      if (frames.length > MAX_FRAMES) {
        out.append("    ... ").append(frames.length - MAX_FRAMES).append(" more\n");
      }
    }
    return out.toString();
  }
}
