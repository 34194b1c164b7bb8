package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code prepareCommit} that fails part way leaves nothing behind once the write is closed: the
 * deletion-vector files the compactions before the failure wrote are deleted with their data files.
 * They were left for orphan removal.
 */
class WriterAbortTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void aFailedPrepareCommitLeavesNoVectorFile() throws Exception {
    Table t =
        TestTables.create(
            TestTables.faultyCatalog(dir),
            "t",
            TestTables.idPartitionSchema()
                .primaryKey("id", "p")
                .option("bucket", "1")
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.dir", dir.resolve("cache").toString())
                .build());
    WriteBuilder wb = t.newStreamWriteBuilder();
    TableCommit commit = wb.newCommit();
    TableWrite write = wb.newWrite();
    for (long id = 1; id <= 3; id++) {
      write.write(row(id, "a"));
      write.write(row(id, "b"));
    }
    commit.commit(1, write.prepareCommit());
    Set<String> before = files();

    // partition a's bucket first: its compaction marks the old rows deleted (a vector file),
    // then writing partition b's level-0 file fails
    for (long id = 1; id <= 3; id++) {
      write.write(row(id, "a"));
    }
    write.write(row(1L, "b"));
    FaultyFileSystem.failCreate(p -> p.contains("/p=b/bucket-0/data-"));
    assertThatThrownBy(write::prepareCommit).hasMessageContaining("Injected");
    FaultyFileSystem.reset();
    assertThat(files()).as("the vector file written").anyMatch(f -> f.startsWith("index/dv-"));
    write.close();

    assertThat(files()).isEqualTo(before);
    assertThat(TestTables.readAll(t)).hasSize(6);
  }

  /**
   * After a flush failed half way (here the input changelog of a level-0 file could not be
   * written), the write refuses to go on: its buffer and files are not to be trusted, and a retried
   * prepareCommit wrote the rows into a second file (with the kinds the changelog writer set),
   * which committed them twice. Closed, it leaves nothing; a new write commits the rows once.
   */
  @Test
  void aWriteWhoseFlushFailedRefusesToGoOn() throws Exception {
    Table t =
        TestTables.create(
            TestTables.faultyCatalog(dir),
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("changelog-producer", "input")
                .build());
    WriteBuilder wb = t.newStreamWriteBuilder();
    TableWrite write = wb.newWrite();
    write.write(row(1L, "a"));
    write.write(row(2L, "b"));
    FaultyFileSystem.failCreate(p -> p.contains("/bucket-0/changelog-"));
    assertThatThrownBy(write::prepareCommit).hasMessageContaining("Injected");
    FaultyFileSystem.reset();

    assertThatThrownBy(write::prepareCommit)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("This write failed earlier");
    assertThatThrownBy(() -> write.write(row(3L, "c")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("This write failed earlier");
    write.close();
    assertThat(files()).isEmpty();

    try (TableWrite again = wb.newWrite()) {
      again.write(row(1L, "a"));
      again.write(row(2L, "b"));
      wb.newCommit().commit(1, again.prepareCommit());
    }
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  /** The table's data and index files, relative to its directory. */
  private Set<String> files() throws Exception {
    Path table = dir.resolve("db.db/t");
    try (Stream<Path> s = Files.walk(table)) {
      return s.filter(Files::isRegularFile)
          .map(p -> table.relativize(p).toString())
          .filter(
              f -> f.startsWith("index/dv-") || f.contains("/data-") || f.contains("/changelog-"))
          .collect(Collectors.toSet());
    }
  }
}
