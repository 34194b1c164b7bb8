package io.sediment.commit;

/**
 * Publishing a snapshot failed in a way that leaves open whether it landed (the file system
 * reported an error and the snapshot could not be read back). Nothing of the attempt was cleaned
 * up; the caller must not delete the commit's files. Retrying the commit with the same identifier
 * is safe: a landed commit is recognised and skipped.
 */
public class CommitOutcomeUnknownException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public CommitOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
