package io.sediment.commit;

import java.io.IOException;

/**
 * A committer lost its commit lock before publishing (its lease ran out, or the lock database could
 * not confirm it): nothing was published.
 */
public final class CommitLockLostException extends IOException {

  private static final long serialVersionUID = 1L;

  CommitLockLostException(String message, Throwable cause) {
    super(message, cause);
  }
}
