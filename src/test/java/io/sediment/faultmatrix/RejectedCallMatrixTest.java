package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sediment.commit.CommitMessage;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.table.Table;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls that are refused or skipped change nothing: snapshot ids and files stay as they were, and
 * the invariants hold.
 */
@ExtendWith(NamedFailures.class)
class RejectedCallMatrixTest {

  @TempDir Path dir;

  private static void assertRejectedChangesNothing(MatrixTable t, String call, Runnable body) {
    TableState before = TableState.of(t);
    Throwable e = catchThrowable(body::run);
    assertThat(e).as("%s is refused", call).isNotNull();
    Invariants.assertUnchanged(before, TableState.of(t), call);
    Invariants.check(t);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void expiryWithContradictoryRetention(TableKind kind) {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 2);
    assertRejectedChangesNothing(
        t,
        "expire_snapshots(retain_min 3 > retain_max 2)",
        () -> new ExpireSnapshots(t.table()).retainMax(2).retainMin(3).execute());
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void compactionCommitWhoseOutputsAreGone(TableKind kind) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 2);
    Compactions.Rewritten r = Compactions.planAndRewrite(t);
    for (Path p : Invariants.dataAndIndexFiles(t.tableDir())) {
      if (r.outputs().contains(p.getFileName().toString())) {
        Files.delete(p); // an earlier abort of this window deleted them
      }
    }
    assertRejectedChangesNothing(
        t, "commit of a window whose outputs are gone", () -> Compactions.commit(t, r, "c", 7));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = TableKind.class, names = "DELETION_VECTORS")
  void deletionVectorCompactionWithoutLocalCache(TableKind kind) {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 2);
    assertRejectedChangesNothing(
        t,
        "compaction of a deletion-vector table without local cache",
        () -> {
          try {
            Compactions.builder(t.table(), Map.of("local-cache.enabled", "false")).execute();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** A restored stream commit of an identifier that landed is skipped: nothing changes. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void repeatedStreamCommitIsSkipped(TableKind kind) {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 2);
    List<Model.Change> changes = t.batch(2);
    Table table = t.table();
    List<CommitMessage> m = t.prepare(table, changes, "w");
    table.newStreamWriteBuilder().withCommitUser("w").newCommit().commit(1, m);
    t.model.apply(changes);
    TableState before = TableState.of(t);

    List<Long> again =
        t.table().newStreamWriteBuilder().withCommitUser("w").newCommit().commit(1, m);

    assertThat(again).isEmpty();
    Invariants.assertUnchanged(before, TableState.of(t), "repeated stream commit");
    Invariants.check(t);
  }
}
