package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.flink.util.InstantiationUtil;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A batch commit's messages are committed once: a batch commit has no identifier by which a second
 * landing could be recognised, so messages whose commit landed (in part too), or may have (its
 * outcome unknown), are refused by any later batch commit or overwrite in the process, naming why,
 * with nothing committed and no file deleted. A commit that failed with nothing landed gives its
 * messages back: committing them again lands them once.
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
    /**
     * The append's snapshot landed, the writer's compaction's could not be written: the commit
     * returns the append's snapshot.
     */
    APPEND_LANDED_COMPACTION_FAILED,
    OUTCOME_UNKNOWN,
    FAILED_WITH_NOTHING_LANDED
  }

  /** How the messages are committed again. */
  enum Again {
    COMMIT,
    OVERWRITE
  }

  static Stream<Arguments> cases() {
    return Stream.of(FirstCommit.values())
        .flatMap(f -> Stream.of(Again.values()).map(a -> Arguments.of(f, a)));
  }

  /**
   * A primary-key table holding one row; with {@code writerCompacts}, the next batch write compacts
   * the bucket too, and its commit makes two snapshots (an overwrite refuses such messages).
   */
  private Table table(boolean writerCompacts) {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("num-sorted-run.compaction-trigger", writerCompacts ? "2" : "5")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    return t;
  }

  @ParameterizedTest(name = "{0}, then {1}")
  @MethodSource("cases")
  void messagesAreCommittedOnce(FirstCommit first, Again again) throws Throwable {
    Table t =
        table(first == FirstCommit.LANDED || first == FirstCommit.APPEND_LANDED_COMPACTION_FAILED);
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(builder, List.of(row(2L, "b")));
    Predicate<String> snapshot2 = p -> p.endsWith("/snapshot/snapshot-2");
    switch (first) {
      case LANDED ->
          assertThat(builder.newCommit().commit(messages))
              .as("the append and the writer's compaction")
              .containsExactly(2L, 3L);
      case APPEND_LANDED_COMPACTION_FAILED -> {
        FaultyFileSystem.failCreate(p -> p.contains("/snapshot/.snapshot-3."));
        assertThat(builder.newCommit().commit(messages))
            .as("the append, its compaction dropped: a batch commit is not retried")
            .containsExactly(2L);
      }
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
    Set<String> files = dataFiles();
    ThrowingCallable commitAgain = () -> commit(builder, again, messages);

    if (first == FirstCommit.FAILED_WITH_NOTHING_LANDED) {
      assertThat(before).containsExactly(1L);
      commitAgain.call();
      assertThat(rows(t))
          .containsExactlyInAnyOrderElementsOf(
              again == Again.COMMIT ? List.of("(1,a)", "(2,b)") : List.of("(2,b)"));
    } else {
      assertThat(before).as("the first commit landed").contains(2L);
      assertThatThrownBy(commitAgain)
          .isInstanceOf(BatchMessagesCommittedException.class)
          .hasMessageContaining("committed by an earlier batch commit")
          .hasMessageContaining("nothing was committed");
      assertThat(t.snapshotManager().listIds()).isEqualTo(before);
      assertThat(dataFiles()).as("no file deleted").isEqualTo(files);
      assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
    }
  }

  /** An overwrite's messages are not committed again either. */
  @ParameterizedTest
  @EnumSource(Again.class)
  void anOverwritesMessagesAreRefusedLater(Again again) throws Exception {
    Table t = table(false);
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(builder, List.of(row(2L, "b")));
    builder.newCommit().overwrite(messages, null);
    List<Long> before = t.snapshotManager().listIds();

    assertThatThrownBy(() -> commit(builder, again, messages))
        .isInstanceOf(BatchMessagesCommittedException.class);
    assertThat(t.snapshotManager().listIds()).isEqualTo(before);
    assertThat(rows(t)).containsExactly("(2,b)");
  }

  /**
   * An overwrite whose outcome is unknown keeps its files: its snapshot may have landed (here it
   * did), and deleting them would leave it naming files that are gone.
   */
  @Test
  void anOverwriteWhoseOutcomeIsUnknownKeepsItsFiles() throws Exception {
    Table t = table(false);
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(builder, List.of(row(2L, "b")));
    Predicate<String> snapshot2 = p -> p.endsWith("/snapshot/snapshot-2");
    FaultyFileSystem.failAfterRename(snapshot2);
    FaultyFileSystem.failOpen(snapshot2);

    assertThatThrownBy(() -> builder.newCommit().overwrite(messages, null))
        .isInstanceOf(CommitOutcomeUnknownException.class);

    FaultyFileSystem.reset();
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L);
    assertThat(rows(t)).containsExactly("(2,b)");
  }

  /**
   * An overwrite of files the table holds already (messages committed before, here copies that the
   * claim does not recognise) would delete and add each in one snapshot, which drops their rows:
   * refused, naming the file, nothing committed.
   */
  @Test
  void anOverwriteOfFilesTheTableHoldsIsRefused() throws Exception {
    Table t = table(false);
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(builder, List.of(row(2L, "b")));
    builder.newCommit().commit(messages);
    List<CommitMessage> copies = InstantiationUtil.clone(new ArrayList<>(messages));
    List<Long> before = t.snapshotManager().listIds();

    assertThatThrownBy(() -> builder.newCommit().overwrite(copies, null))
        .isInstanceOf(BatchMessagesCommittedException.class)
        .hasMessageContaining(messages.get(0).newFiles().get(0).fileName())
        .hasMessageContaining("which the table holds already");
    assertThat(t.snapshotManager().listIds()).isEqualTo(before);
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  /** One message twice in one commit would add its files twice: refused, nothing committed. */
  @Test
  void aMessageGivenTwiceInOneCommitIsRefused() throws Exception {
    Table t = table(false);
    WriteBuilder builder = t.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(builder, List.of(row(2L, "b")));
    List<CommitMessage> twice = new ArrayList<>(messages);
    twice.addAll(messages);

    assertThatThrownBy(() -> builder.newCommit().commit(twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the same commit message twice");
    assertThat(t.snapshotManager().listIds()).containsExactly(1L);
    builder.newCommit().commit(messages); // not claimed by the refused commit
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  /** Commits or overwrites (the whole table) with a new committer of {@code builder}. */
  private static void commit(WriteBuilder builder, Again how, List<CommitMessage> messages) {
    TableCommit commit = builder.newCommit();
    if (how == Again.COMMIT) {
      commit.commit(messages);
    } else {
      commit.overwrite(messages, null);
    }
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  private Set<String> dataFiles() {
    Set<String> out = new TreeSet<>();
    TestTables.dataFiles(dir.resolve("db.db").resolve("t"))
        .forEach(p -> out.add(p.getFileName().toString()));
    return out;
  }
}
