package io.sediment.retention;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.fs.FileIO;
import io.sediment.manifest.ConsumerManager;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer's record is rewritten at every checkpoint of its streaming read. Where a file system
 * replaces a file by deleting it and renaming the new one into place (HDFS; the faulty file system
 * here behaves so), a snapshot expiry that read the consumers in between saw no record of it and
 * retired snapshots the read still needed. It now counts the consumer at its new record's position.
 */
class ConsumerRewriteTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** A temporary file of a rewrite of {@code file}, as FileIO names it. */
  private static Path temporaryFileOf(Path file) {
    return Path.of(
        FileIO.temporaryPathFor(new org.apache.flink.core.fs.Path(file.toUri())).toUri());
  }

  private static ConsumerManager consumers(Table t) {
    return new ConsumerManager(t.store().fileIO(), t.store().paths());
  }

  @Test
  void anExpiryBetweenTheDeleteAndTheRenameCountsTheConsumer() throws Exception {
    for (int seed = 1; seed <= 8; seed++) {
      Random rnd = new Random(seed);
      Table t =
          TestTables.create(
              TestTables.faultyCatalog(dir.resolve("s" + seed)),
              "t",
              TestTables.idValueSchema().build());
      int n = 1 + rnd.nextInt(4);
      long smallest = 10 + rnd.nextInt(10);
      String lagging = "reader.lagging-" + seed; // ids may hold dots
      consumers(t).record(lagging, smallest);
      for (int i = 0; i < n; i++) {
        consumers(t).record("reader-" + i, smallest + 1 + rnd.nextInt(20));
      }
      AtomicReference<OptionalLong> seen = new AtomicReference<>();
      FaultyFileSystem.onRename(
          target -> {
            if (target.endsWith("/consumer/consumer-" + lagging) && seen.get() == null) {
              seen.set(consumers(t).smallestNeeded(null, System.currentTimeMillis()));
            }
          });
      consumers(t).record(lagging, smallest + 1); // its read moved on by one snapshot
      FaultyFileSystem.reset();

      assertThat(seen.get()).as("seed %d", seed).isEqualTo(OptionalLong.of(smallest + 1));
      assertThat(consumers(t).smallestNeeded(null, System.currentTimeMillis()))
          .isEqualTo(OptionalLong.of(smallest + 1));
    }
  }

  /**
   * The consumers were listed before the rewrite began, and its file was gone when read: they are
   * listed again, and the rewrite's new file counts.
   */
  @Test
  void aRecordGoneWhenReadIsListedAgain() throws Exception {
    Table t =
        TestTables.create(TestTables.faultyCatalog(dir), "t", TestTables.idValueSchema().build());
    consumers(t).record("a", 5);
    consumers(t).record("b", 9);
    Path file = dir.resolve("db.db/t/consumer/consumer-a");
    Path tmp = temporaryFileOf(file);
    AtomicBoolean fired = new AtomicBoolean();
    FaultyFileSystem.onOpen(
        path -> {
          if (path.endsWith("/consumer/consumer-a") && fired.compareAndSet(false, true)) {
            // the rewrite's first two steps, after the listing: its new file, the old one deleted
            Files.write(tmp, "{\"nextSnapshot\":6}".getBytes(StandardCharsets.UTF_8));
            Files.delete(file);
          }
        });

    OptionalLong needed = consumers(t).smallestNeeded(null, System.currentTimeMillis());

    assertThat(fired).isTrue();
    assertThat(needed).isEqualTo(OptionalLong.of(6));
  }

  /**
   * The listing saw only the rewrite's temporary file, and the rename finished before it was read:
   * the consumers are listed again and the renamed record counts.
   */
  @Test
  void aTemporaryFileRenamedWhenReadIsListedAgain() throws Exception {
    Table t =
        TestTables.create(TestTables.faultyCatalog(dir), "t", TestTables.idValueSchema().build());
    consumers(t).record("b", 9);
    Path file = dir.resolve("db.db/t/consumer/consumer-a");
    Path tmp = temporaryFileOf(file);
    Files.write(tmp, "{\"nextSnapshot\":6}".getBytes(StandardCharsets.UTF_8)); // old one deleted
    AtomicBoolean fired = new AtomicBoolean();
    FaultyFileSystem.onOpen(
        path -> {
          if (path.endsWith(tmp.getFileName().toString()) && fired.compareAndSet(false, true)) {
            Files.move(tmp, file); // the rename completes
          }
        });

    OptionalLong needed = consumers(t).smallestNeeded(null, System.currentTimeMillis());

    assertThat(fired).isTrue();
    assertThat(needed).isEqualTo(OptionalLong.of(6));
  }

  /**
   * A rewrite's temporary file left by a crash counts as the record only until the consumer is
   * deleted ({@code reset_consumer}) or expires: both delete it too.
   */
  @Test
  void aDeletedConsumerTakesItsTemporaryFilesWithIt() throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    consumers(t).record("a", 5);
    Path file = dir.resolve("db.db/t/consumer/consumer-a");
    for (int i = 0; i < 2; i++) { // a crash after the delete of the old record, twice
      Path tmp = temporaryFileOf(file);
      Files.write(tmp, ("{\"nextSnapshot\":" + (3 + i) + "}").getBytes(StandardCharsets.UTF_8));
    }
    Files.delete(file);
    assertThat(consumers(t).smallestNeeded(null, System.currentTimeMillis()))
        .isEqualTo(OptionalLong.of(3));

    assertThat(consumers(t).delete("a")).isTrue();

    assertThat(consumers(t).smallestNeeded(null, System.currentTimeMillis())).isEmpty();
    try (var files = Files.list(file.getParent())) {
      assertThat(files).isEmpty();
    }
  }

  /**
   * On HDFS a rewrite that failed after the old record was deleted (the rename refused) left no
   * record at all: its temporary file was deleted too. The new record now stays in it, and counts.
   */
  @Test
  void aRewriteWhoseRenameFailedLeavesItsRecord() throws Exception {
    Table t =
        TestTables.create(TestTables.faultyCatalog(dir), "t", TestTables.idValueSchema().build());
    consumers(t).record("a", 5);
    consumers(t).record("b", 9);
    FaultyFileSystem.onRename(
        target -> {
          if (target.endsWith("/consumer/consumer-a")) {
            throw new java.io.IOException("Injected failure of the rename");
          }
        });
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> consumers(t).record("a", 6))
          .hasMessageContaining("Injected failure of the rename");
    } finally {
      FaultyFileSystem.reset();
    }

    assertThat(consumers(t).smallestNeeded(null, System.currentTimeMillis()))
        .isEqualTo(OptionalLong.of(6));
    consumers(t).record("a", 7); // the next checkpoint's rewrite
    assertThat(consumers(t).smallestNeeded(null, System.currentTimeMillis()))
        .isEqualTo(OptionalLong.of(7));
  }
}
