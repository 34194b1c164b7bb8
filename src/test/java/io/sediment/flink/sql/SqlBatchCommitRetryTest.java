package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.table.Table;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch INSERT's committer that Flink restarts after its commit landed (its TaskManager lost
 * before the task finished) commits nothing again: with the writers' results reused, or with the
 * writers run again (new files of the same rows). Its commit user is the job's alone, so a batch
 * commit of that user among the snapshots is this job's.
 */
class SqlBatchCommitRetryTest {

  @TempDir Path dir;

  /**
   * A retried committer commits nothing again: a task Flink restarted, and one of a job the
   * JobManager recovered after a failover, whose attempts are numbered from 0 again (so the attempt
   * number cannot tell it; the planned job's own commit user does).
   */
  @ParameterizedTest(name = "attempt number above 0: {0}")
  @ValueSource(booleans = {true, false})
  void aRetriedBatchCommitterCommitsNothingAgain(boolean numberedAsRetry) throws Exception {
    for (boolean writersRanAgain : new boolean[] {false, true}) {
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("again-" + numberedAsRetry + writersRanAgain)),
              "t",
              TestTables.idValueSchema().build());
      WriteBuilder wb = t.newBatchWriteBuilder();
      String user = CommitUsers.random();
      List<CommitMessage> first = written(wb);
      SinkCommitter attempt0 = committer(t, user, false);
      attempt0.add(SedimentWriteOperator.END_OF_INPUT, first);
      attempt0.endInput(null, false);
      assertThat(t.snapshotManager().listIds()).hasSize(1);

      retry(t, user, writersRanAgain ? written(wb) : reused(first), numberedAsRetry);

      assertThat(t.snapshotManager().listIds())
          .as("writers ran again: %s", writersRanAgain)
          .hasSize(1);
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .containsExactlyInAnyOrder("(1,a)", "(2,b)");
    }
  }

  /**
   * Under the commit lock, the earlier attempt claimed its snapshot and failed to move it into
   * place (an object store's copy failing): its outcome was unknown, and the retried committer
   * found no batch commit among the snapshots and committed again (the rows twice when the writers
   * ran again). It now publishes the claimed snapshot first, and finds it.
   */
  @Test
  void aRetriedBatchCommitterFindsItsClaimedSnapshotThatWasNotMoved() throws Exception {
    for (boolean writersRanAgain : new boolean[] {false, true}) {
      Map<String, String> lock =
          Map.of(
              "lock.enabled",
              "true",
              "lock.jdbc.url",
              "jdbc:sqlite:" + dir.resolve("locks-" + writersRanAgain + ".db"));
      FileSystemCatalog catalog =
          new FileSystemCatalog(FaultyFileSystem.uri(dir.resolve("lock-" + writersRanAgain)));
      catalog.createDatabase("db", true);
      Table t = TestTables.create(catalog, "t", TestTables.idValueSchema().options(lock).build());
      TestTables.writeBatch(t, List.of(row(9L, "before")));
      WriteBuilder wb = t.newBatchWriteBuilder();
      String user = CommitUsers.random();
      List<CommitMessage> first = written(wb);
      AtomicBoolean failed = new AtomicBoolean();
      FaultyFileSystem.onRename(
          target -> {
            if (target.endsWith("/snapshot/snapshot-2") && failed.compareAndSet(false, true)) {
              throw new IOException("Injected failure moving the claimed snapshot");
            }
          });
      try {
        SinkCommitter attempt0 = committer(t, user, false);
        attempt0.add(SedimentWriteOperator.END_OF_INPUT, first);
        assertThatThrownBy(() -> attempt0.endInput(null, false))
            .hasStackTraceContaining("after claiming it");
      } finally {
        FaultyFileSystem.reset();
      }
      assertThat(t.snapshotManager().listIds()).containsExactly(1L);

      retry(t, user, writersRanAgain ? written(wb) : reused(first));

      assertThat(t.snapshotManager().listIds())
          .as("writers ran again: %s", writersRanAgain)
          .containsExactly(1L, 2L);
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as("writers ran again: %s", writersRanAgain)
          .containsExactlyInAnyOrder("(9,before)", "(1,a)", "(2,b)");
    }
  }

  /** A retried committer of a job whose earlier attempt did not commit commits. */
  @Test
  void aRetriedBatchCommitterWhoseEarlierAttemptFailedBeforeItsCommitCommits() throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    TestTables.writeBatch(t, List.of(row(9L, "other job")));
    SinkCommitter attempt1 = committer(t, CommitUsers.random(), true);
    attempt1.add(
        SedimentWriteOperator.END_OF_INPUT,
        TestTables.prepare(t.newBatchWriteBuilder(), List.of(row(1L, "a"))));
    attempt1.endInput(null, false);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(9,other job)", "(1,a)");
  }

  /** What the writers write: rows 1 and 2, in new files each time. */
  private static List<CommitMessage> written(WriteBuilder wb) {
    return TestTables.prepare(wb, List.of(row(1L, "a"), row(2L, "b")));
  }

  /** The writers' results as a restarted task receives them when they are reused. */
  private List<CommitMessage> reused(List<CommitMessage> first) throws Exception {
    return CommitMessageListCodec.fromBytes(
        CommitMessageListCodec.toBytes(first), getClass().getClassLoader());
  }

  /** A retried committer's attempt, ending its input with {@code again}. */
  private static void retry(Table t, String user, List<CommitMessage> again) throws Exception {
    retry(t, user, again, true);
  }

  private static void retry(Table t, String user, List<CommitMessage> again, boolean numbered)
      throws Exception {
    SinkCommitter attempt1 = committer(t, user, numbered);
    attempt1.add(SedimentWriteOperator.END_OF_INPUT, again);
    attempt1.endInput(null, false);
  }

  private static SinkCommitter committer(Table t, String user, boolean retried) throws Exception {
    CommitWindows<CommitMessage> windows = new CommitWindows<>(CommitMessageCodec.INSTANCE);
    windows.restore(user, new TreeMap<>());
    SinkCommitter c = new SinkCommitter(t, false, false, null, windows);
    c.retriedAttempt(retried);
    c.start(0, user);
    return c;
  }
}
