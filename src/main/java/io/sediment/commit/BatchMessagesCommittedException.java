package io.sediment.commit;

/**
 * A batch commit was given commit messages that an earlier batch commit in this process took and
 * that landed, may have landed (its outcome unknown), or are being committed now; or an overwrite
 * was given files its base snapshot holds already (messages committed before, as copies). Nothing
 * was committed, and the messages' files must not be deleted: a snapshot may reference them. See
 * {@link CommitMessage} and docs/spec.md sections 4.4 and 9.3.
 */
public final class BatchMessagesCommittedException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  BatchMessagesCommittedException(String message) {
    super(message);
  }
}
