package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary-key writer's commit makes an APPEND and a COMPACT snapshot with one identifier. When
 * the APPEND landed and the COMPACT did not, a retry of that identifier completes the compaction or
 * drops it, deleting its outputs: no output is left that no snapshot references.
 */
class WriterCompactionRetryTest {

  @TempDir Path dir;

  Table table;
  List<CommitMessage> window2;

  @BeforeEach
  void writeTwoWindowsAndFailTheSecondCompaction() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    table =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema().option("num-sorted-run.compaction-trigger", "2").build());
    WriteBuilder wb = table.newStreamWriteBuilder().withCommitUser("writer");
    TableCommit commit = wb.newCommit();
    try (TableWrite write = wb.newWrite()) {
      write.write(row(1L, "a", 1));
      write.write(row(2L, "b", 2));
      assertThat(commit.commit(1, write.prepareCommit())).containsExactly(1L);
      write.write(row(2L, "b2", 20));
      write.write(row(3L, "c", 3));
      window2 = write.prepareCommit(); // a new level-0 file, and the writer's own compaction
    }
    assertThat(window2.get(0).newFiles()).hasSize(1);
    assertThat(window2.get(0).compactAfter()).isNotEmpty();

    // The APPEND (snapshot 2) lands; publishing the COMPACT (snapshot 3) fails with an I/O error.
    FaultyFileSystem.failCreate(p -> p.contains("/snapshot/.snapshot-3."));
    try {
      assertThatThrownBy(() -> commit.commit(2, window2)).hasMessageContaining("Commit failed");
    } finally {
      FaultyFileSystem.reset();
    }
    Snapshot latest = table.latestSnapshot().orElseThrow();
    assertThat(latest.id()).isEqualTo(2L);
    assertThat(latest.commitKind()).isEqualTo(CommitKind.APPEND);
  }

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** A restored committer: a new commit object of the same commit user. */
  private List<Long> retry() {
    return table.newStreamWriteBuilder().withCommitUser("writer").newCommit().commit(2, window2);
  }

  private List<String> unreferencedDataFiles() {
    List<String> out = new ArrayList<>();
    for (org.apache.flink.core.fs.Path p :
        new RemoveOrphanFiles(table).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      if (p.getName().startsWith("data-")) {
        out.add(p.getName());
      }
    }
    return out;
  }

  private Path file(DataFileMeta f) {
    return dir.resolve("db.db/t/bucket-0/" + f.fileName());
  }

  @Test
  void retryCommitsTheCompactionThatDidNotLand() {
    assertThat(unreferencedDataFiles()).isNotEmpty(); // the compaction's outputs, for now

    assertThat(retry()).containsExactly(3L);
    Snapshot latest = table.latestSnapshot().orElseThrow();
    assertThat(latest.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(latest.commitIdentifier()).isEqualTo(2L);
    assertThat(PrimaryKeyTableTest.files(table)).hasSize(1);
    assertThat(PrimaryKeyTableTest.read(table)).containsExactly("(1,a,1)", "(2,b2,20)", "(3,c,3)");
    assertThat(unreferencedDataFiles()).isEmpty();

    // Both halves landed: a further retry is skipped.
    assertThat(retry()).isEmpty();
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(3L);
  }

  @Test
  void retryDropsTheCompactionWhenItsInputsAreGone() throws Exception {
    // Another job compacted the writer's inputs meanwhile.
    table.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    long compacted = table.latestSnapshot().orElseThrow().id();

    assertThat(retry()).isEmpty();
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(compacted);
    for (DataFileMeta f : window2.get(0).compactAfter()) {
      assertThat(file(f)).doesNotExist();
    }
    assertThat(unreferencedDataFiles()).isEmpty();
    assertThat(PrimaryKeyTableTest.read(table)).containsExactly("(1,a,1)", "(2,b2,20)", "(3,c,3)");
  }

  @Test
  void retryDropsTheCompactionWhenItsOutputsAreGone() throws Exception {
    // An earlier attempt dropped the compaction (for example on a conflict) and deleted them.
    for (DataFileMeta f : window2.get(0).compactAfter()) {
      Files.delete(file(f));
    }
    assertThat(retry()).isEmpty();
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(2L);
    assertThat(unreferencedDataFiles()).isEmpty();
    assertThat(PrimaryKeyTableTest.read(table)).containsExactly("(1,a,1)", "(2,b2,20)", "(3,c,3)");
  }
}
