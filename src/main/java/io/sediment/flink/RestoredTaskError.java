package io.sediment.flink;

/**
 * A compaction task's error read back from state whose exception class could not be restored
 * (changed or removed by an upgrade): the original class name, message and stack trace as text.
 */
public final class RestoredTaskError extends Exception {

  private static final long serialVersionUID = 1L;

  private final String originalClassName;

  RestoredTaskError(String originalClassName, String message, String stackTrace) {
    super(
        originalClassName
            + (message == null ? "" : ": " + message)
            + " (restored as text; original stack trace:\n"
            + stackTrace
            + ")");
    this.originalClassName = originalClassName;
  }

  /** The class name of the error the task threw. */
  public String originalClassName() {
    return originalClassName;
  }
}
