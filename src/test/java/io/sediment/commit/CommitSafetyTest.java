package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.compact.CompactCommit;
import io.sediment.manifest.DataFileMeta;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Aborts and retried commits never lose committed data. */
class CommitSafetyTest {

  @TempDir Path dir;

  private Table table() {
    return TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
  }

  private static List<CommitMessage> write(Table t, long id) throws Exception {
    WriteBuilder wb = t.newBatchWriteBuilder();
    try (TableWrite w = wb.newWrite()) {
      w.write(row(id, "v" + id));
      return w.prepareCommit();
    }
  }

  private Path file(DataFileMeta f) {
    return dir.resolve("db.db/t/bucket-0/" + f.fileName());
  }

  @Test
  void abortNeverDeletesFilesTheLatestSnapshotReferences() throws Exception {
    Table t = table();
    List<CommitMessage> messages = write(t, 1);
    t.newStreamWriteBuilder().withCommitUser("job").newCommit().commit(1, messages);
    // A restored committer that does not know the commit landed gives up and aborts.
    new FileStoreCommit(t.store(), "job").abort(messages);
    assertThat(file(messages.get(0).newFiles().get(0))).exists();
    assertThat(TestTables.readAll(t)).hasSize(1);
  }

  @Test
  void aWindowWhoseOutputsWereDeletedIsNotCommitted() throws Exception {
    Table t = table();
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v")));
    }
    List<DataFileMeta> inputs = t.newReadBuilder().newScan().plan().splits().get(0).files();
    CommitMessage out = write(t, 99).get(0);
    CommitMessage compaction =
        CommitMessage.compact(out.partition(), 0, -1, inputs, out.newFiles());
    // An earlier failed commit of this window already deleted its output.
    Files.delete(file(out.newFiles().get(0)));
    long before = t.latestSnapshot().orElseThrow().id();

    assertThatThrownBy(() -> new CompactCommit(t.store(), "c").commit(List.of(compaction), 7, true))
        .isInstanceOf(io.sediment.commit.CommitConflictException.class)
        .hasMessageContaining("outputs of its compaction are missing");
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before);
    assertThat(TestTables.readAll(t)).hasSize(3);
  }

  /**
   * Two compactions in one commit that replace a common file would keep its rows in both outputs:
   * refused as a conflict with itself, whichever files overlap, nothing committed.
   */
  @Test
  void twoCompactionsOfOneCommitReplacingOneFileAreRefused() throws Exception {
    Table t = table();
    for (long i = 0; i < 4; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v")));
    }
    List<DataFileMeta> inputs = t.newReadBuilder().newScan().plan().splits().get(0).files();
    java.util.Random rnd = new java.util.Random(9);
    for (int round = 0; round < 6; round++) {
      DataFileMeta shared = inputs.get(rnd.nextInt(inputs.size()));
      List<DataFileMeta> first = new java.util.ArrayList<>(List.of(shared));
      List<DataFileMeta> second = new java.util.ArrayList<>(List.of(shared));
      for (DataFileMeta f : inputs) {
        if (f != shared && rnd.nextBoolean()) {
          (rnd.nextBoolean() ? first : second).add(f);
        }
      }
      CommitMessage out1 = write(t, 100 + round).get(0);
      CommitMessage out2 = write(t, 200 + round).get(0);
      List<CommitMessage> both =
          List.of(
              CommitMessage.compact(out1.partition(), 0, -1, first, out1.newFiles()),
              CommitMessage.compact(out2.partition(), 0, -1, second, out2.newFiles()));
      long before = t.latestSnapshot().orElseThrow().id();
      long identifier = round + 1;

      assertThatThrownBy(() -> new CompactCommit(t.store(), "c").commit(both, identifier, true))
          .isInstanceOf(io.sediment.commit.CommitConflictException.class)
          .hasMessageContaining("two of its changes replace the same file")
          .hasMessageContaining(shared.fileName());
      assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before);
      assertThat(TestTables.readAll(t)).hasSize(4);
    }
  }

  @Test
  void batchCommitsOfAUserDoNotHideItsStreamCommits() throws Exception {
    Table t = table();
    t.newBatchWriteBuilder().withCommitUser("u").newCommit().commit(write(t, 1));
    List<Long> ids =
        t.newStreamWriteBuilder().withCommitUser("u").newCommit().commit(1, write(t, 2));
    assertThat(ids).hasSize(1);
    assertThat(TestTables.readAll(t)).hasSize(2);
  }

  @Test
  void aSnapshotThatLandedDespiteAnErrorIsRecognised() throws Exception {
    io.sediment.catalog.FileSystemCatalog catalog =
        new io.sediment.catalog.FileSystemCatalog(io.sediment.testutil.FaultyFileSystem.uri(dir));
    catalog.createDatabase("db", true);
    Table t = TestTables.create(catalog, "t", TestTables.idValueSchema().build());
    try {
      io.sediment.testutil.FaultyFileSystem.failAfterRename(p -> p.endsWith("/snapshot-1"));
      List<Long> ids =
          t.newStreamWriteBuilder().withCommitUser("job").newCommit().commit(1, write(t, 1));
      assertThat(ids).containsExactly(1L);
    } finally {
      io.sediment.testutil.FaultyFileSystem.reset();
    }
    // The snapshot's manifests were kept: it reads.
    assertThat(TestTables.readAll(t)).hasSize(1);
  }
}
