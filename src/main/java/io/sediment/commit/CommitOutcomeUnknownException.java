package io.sediment.commit;

/**
 * Publishing a snapshot failed in a way that leaves open whether it landed (the file system
 * reported an error and the snapshot could not be read back). Nothing of the attempt was cleaned
 * up; the caller must not delete the commit's files. Retrying a stream commit with the same
 * identifier is safe: a landed commit is recognised and skipped. A batch commit carries no
 * identifier and is not recognised: do not commit its messages again (the next commit to the table
 * publishes a snapshot that landed half-way); a file committed twice would be referenced again
 * after a compaction dropped it, which snapshot expiry does not expect (docs/spec.md section 4.4).
 * A later batch commit of the same message objects in this process is refused ({@link
 * BatchMessagesCommittedException}).
 */
public class CommitOutcomeUnknownException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
