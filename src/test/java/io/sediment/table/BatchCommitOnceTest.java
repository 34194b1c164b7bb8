package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitOutcomeUnknownException;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch commit's messages are committed once: a batch commit has no identifier by which a second
 * landing could be recognised, so messages whose commit landed, or may have (its outcome unknown),
 * are refused by any later batch commit in the process, naming why, with nothing committed. A
 * commit that failed with nothing landed gives its messages back: committing them again lands them
 * once.
 */
class BatchCommitOnceTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** How the first commit of the messages ended. */
  enum FirstCommit {
    LANDED,
    OUTCOME_UNKNOWN,
    FAILED_WITH_NOTHING_LANDED
  }

  @ParameterizedTest
  @EnumSource(FirstCommit.class)
  void messagesAreCommittedOnce(FirstCommit first) throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog(FaultyFileSystem.uri(dir));
    catalog.createDatabase("db", true);
    // a primary-key table, whose batch commit of a writer's own compaction makes two snapshots
    Table t =
        TestTables.create(
            catalog,
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("num-sorted-run.compaction-trigger", "2")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = prepare(builder, List.of(row(2L, "b")));
    Predicate<String> snapshot2 = p -> p.endsWith("/snapshot/snapshot-2");
    switch (first) {
      case LANDED ->
          assertThat(builder.newCommit().commit(messages))
              .as("the append and the writer's compaction")
              .containsExactly(2L, 3L);
      case OUTCOME_UNKNOWN -> {
        // published, but the reply was lost and the snapshot cannot be read back
        FaultyFileSystem.failAfterRename(snapshot2);
        FaultyFileSystem.failOpen(snapshot2);
        assertThatThrownBy(() -> builder.newCommit().commit(messages))
            .isInstanceOf(CommitOutcomeUnknownException.class);
      }
      case FAILED_WITH_NOTHING_LANDED -> {
        FaultyFileSystem.failCreate(p -> p.contains("/manifest/"));
        assertThatThrownBy(() -> builder.newCommit().commit(messages))
            .hasMessageContaining("Commit failed");
      }
    }
    FaultyFileSystem.reset();
    List<Long> before = t.snapshotManager().listIds();

    if (first == FirstCommit.FAILED_WITH_NOTHING_LANDED) {
      assertThat(before).containsExactly(1L);
      builder.newCommit().commit(messages);
    } else {
      assertThat(before).as("the first commit landed").contains(2L);
      assertThatThrownBy(() -> builder.newCommit().commit(messages))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("committed before by a batch commit")
          .hasMessageContaining("nothing was committed");
      assertThat(t.snapshotManager().listIds()).isEqualTo(before);
    }
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .as("every row once")
        .containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  private static List<CommitMessage> prepare(WriteBuilder builder, List<RowData> rows)
      throws Exception {
    try (TableWrite write = builder.newWrite()) {
      for (RowData r : rows) {
        write.write(r);
      }
      return write.prepareCommit();
    }
  }
}
