package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.table.Table;
import java.util.TreeMap;

/** The SQL sink's committer as its operator starts it, for tests that run it without Flink. */
final class SinkCommitters {

  private SinkCommitters() {}

  /** A committer of a new job (a random commit user, no restored windows), started. */
  static SinkCommitter started(Table t, boolean streaming) throws Exception {
    CommitWindows<CommitMessage> windows = new CommitWindows<>(CommitMessageCodec.INSTANCE);
    String user = CommitUsers.random();
    windows.restore(user, new TreeMap<>());
    SinkCommitter committer = new SinkCommitter(t, streaming, false, null, windows);
    committer.start(0, user);
    return committer;
  }
}
