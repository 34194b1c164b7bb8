package io.sediment.commit;

import java.util.List;

/**
 * A commit that deletes files found some of them already gone from the latest snapshot (a
 * concurrent compaction or overwrite removed them), found that the deletion vector of a file it
 * replaces changed after the snapshot its work read, or would make key ranges overlap. Nothing was
 * committed.
 */
public class CommitConflictException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final List<String> conflictingFiles;

  public CommitConflictException(String message, List<String> conflictingFiles) {
    super(message + ": " + conflictingFiles);
    this.conflictingFiles = List.copyOf(conflictingFiles);
  }

  /**
   * Names of the conflicting files: files the commit wanted to delete that another commit already
   * removed or gave a new deletion vector, or the two files whose key ranges would overlap.
   */
  public List<String> conflictingFiles() {
    return conflictingFiles;
  }
}
