package io.sediment.table;

import io.sediment.commit.CommitUsers;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.FileStore;

/**
 * Creates a {@link TableWrite} and the matching {@link TableCommit}. A batch builder makes one
 * commit at the end; a stream builder makes commits with identifiers, deduplicated per commit user.
 * The commit user is validated when set.
 */
public final class WriteBuilder {

  private final FileStore store;
  private final boolean streaming;
  private String commitUser = CommitUsers.random();
  private OutputObserver outputObserver = OutputObserver.NONE;

  WriteBuilder(FileStore store, boolean streaming) {
    this.store = store;
    this.streaming = streaming;
  }

  /** Names this writer in snapshots; validated now (see {@link CommitUsers#validate}). */
  public WriteBuilder withCommitUser(String user) {
    this.commitUser = CommitUsers.validate(user);
    return this;
  }

  public String commitUser() {
    return commitUser;
  }

  /**
   * Tells {@code observer} about every file the writes of this builder create, before creating it
   * (the Flink SQL writer records a marker per file, so the files of a killed writer can be found
   * and deleted). None by default.
   */
  public WriteBuilder withOutputObserver(OutputObserver observer) {
    this.outputObserver = observer == null ? OutputObserver.NONE : observer;
    return this;
  }

  public boolean isStreaming() {
    return streaming;
  }

  public TableWrite newWrite() {
    return new TableWrite(store, outputObserver);
  }

  public TableCommit newCommit() {
    return new TableCommit(store, commitUser, streaming);
  }
}
