package io.sediment.flink;

import io.sediment.catalog.CatalogException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A compaction job error that no restart can fix, so Flink fails the job at once instead of going
 * through its restart strategy (a non-recoverable error, as {@link CommitRefusedException}): a
 * batch run whose task failed (its outputs are deleted and the same failed results would be
 * committed again), or a plan refused for its configuration or the table's state. {@link
 * CompactJob} hands its cause to the caller.
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class UnrecoverableCompactionError extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UnrecoverableCompactionError(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Whether {@code error} is one a retry cannot fix: a bad argument or option, an unsupported
   * operation, a refused state or a missing table, and no I/O error on the way (an I/O error may be
   * transient).
   */
  static boolean unfixable(Throwable error) {
    boolean refused = false;
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Throwable t = error; t != null && seen.add(t); t = t.getCause()) {
      if (t instanceof IOException || t instanceof UncheckedIOException) {
        return false;
      }
      refused |=
          t instanceof IllegalArgumentException
              || t instanceof UnsupportedOperationException
              || t instanceof IllegalStateException
              || t instanceof CatalogException;
    }
    return refused;
  }
}
