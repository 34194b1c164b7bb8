package io.sediment.compact;

import io.sediment.commit.CommitMessage;
import java.io.Serializable;

/** What one finished task produced: its commit message and what it read and wrote. */
public record CompactTaskResult(
    CompactTask task,
    CommitMessage message,
    long rowsRead,
    long rowsWritten,
    long bytesRead,
    long bytesWritten,
    long durationMillis)
    implements Serializable {

  public int filesRead() {
    return message.compactBefore().size();
  }

  public int filesWritten() {
    return message.compactAfter().size();
  }
}
