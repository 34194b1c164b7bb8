package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch compaction's committer that Flink restarts after its commit landed (its TaskManager lost
 * before the task finished) commits with {@code checkCommitted}: it finds the job's batch commit
 * among the snapshots (the job's commit user is its own) and returns it, committing and deleting
 * nothing, whether the rewrites' results were reused or the rewrites ran again.
 */
class CompactBatchRetryTest {

  @TempDir Path dir;

  @Test
  void aRetriedBatchCompactionCommitFindsTheCommitThatLanded() throws Exception {
    for (boolean rewrittenAgain : new boolean[] {false, true}) {
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("again-" + rewrittenAgain)),
              "t",
              TestTables.idValueSchema().option("compaction.min.file-num", "2").build());
      for (long i = 0; i < 4; i++) {
        TestTables.writeBatch(t, List.of(TestTables.row(i, "v" + i)));
      }
      String user = CompactBuilder.compactCommitUser("job");
      List<CompactTask> plan = t.newCompactBuilder().plan();
      List<CommitMessage> first = rewrite(t, plan);
      Long landed =
          new CompactCommit(t.store(), user).commit(first, FileStoreCommit.BATCH_IDENTIFIER, false);
      assertThat(landed).isNotNull();

      List<CommitMessage> again =
          rewrittenAgain
              ? rewrite(t, plan)
              : CommitMessageListCodec.fromBytes(
                  CommitMessageListCodec.toBytes(first), getClass().getClassLoader());
      Long retried =
          new CompactCommit(t.store(), user).commit(again, FileStoreCommit.BATCH_IDENTIFIER, true);

      assertThat(retried).as("rewritten again: %s", rewrittenAgain).isEqualTo(landed);
      assertThat(t.snapshotManager().latestId()).hasValue(landed);
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .containsExactlyInAnyOrder("(0,v0)", "(1,v1)", "(2,v2)", "(3,v3)");
    }
  }

  private static List<CommitMessage> rewrite(Table t, List<CompactTask> plan) throws Exception {
    CompactRewriter rewriter = TableKind.of(t.store()).rewriter(t.store(), p -> {});
    List<CommitMessage> out = new ArrayList<>();
    for (CompactTask task : plan) {
      out.add(rewriter.rewrite(task, () -> false).message());
    }
    return out;
  }
}
