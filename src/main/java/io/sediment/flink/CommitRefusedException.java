package io.sediment.flink;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A bounded job's commit was refused and what it wrote was deleted: restarting the job's tasks
 * cannot make it land (their files are gone), so Flink fails the job at once instead of restarting
 * (a non-recoverable error). The cause says why the commit was refused; running the statement again
 * writes everything anew.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class CommitRefusedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public CommitRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
