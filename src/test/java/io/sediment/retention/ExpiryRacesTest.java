package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An expiration that another one overtakes while it plans: a snapshot it listed is retired before
 * it reads it, or the other's expiry record is created between its planning and its own record. The
 * automatic expiry after a commit skips (the other run does the work), an explicit one refuses,
 * naming what happened; neither deletes anything.
 */
class ExpiryRacesTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private Path tableDir() {
    return dir.resolve("db.db").resolve("t");
  }

  /** Four snapshots, all kept by the table's options (the test runs the expirations). */
  private Table fourSnapshots() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            TestTables.idPartitionSchema().option("snapshot.num-retained.max", "100").build());
    for (long i = 0; i < 4; i++) {
      TestTables.writeBatch(t, List.of(row(i, "a")));
    }
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L, 4L);
    return t;
  }

  /** Another expiration retires snapshot 1 right before this one reads it. */
  @ParameterizedTest(name = "automatic {0}")
  @CsvSource({"true", "false"})
  void aSnapshotRetiredWhileTheExpirationPlans(boolean automatic) throws Exception {
    Table t = fourSnapshots();
    Path first = tableDir().resolve("snapshot").resolve("snapshot-1");
    AtomicBoolean retired = new AtomicBoolean();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith("/snapshot/snapshot-1") && retired.compareAndSet(false, true)) {
            Files.delete(first);
          }
        });
    List<String> before = listing();
    before.remove("snapshot/snapshot-1");

    skipsOrRefuses(
        t,
        automatic,
        "Snapshot 1 of t vanished while planning the expiration",
        "nothing was expired");
    assertThat(retired).isTrue();
    assertThat(listing()).as("nothing deleted").isEqualTo(before);
  }

  /** Another expiration creates its record after this one planned, before it creates its own. */
  @ParameterizedTest(name = "automatic {0}")
  @CsvSource({"true", "false"})
  void aRecordCreatedBetweenThePlanningAndTheRecord(boolean automatic) throws Exception {
    Table t = fourSnapshots();
    Path record = tableDir().resolve("snapshot").resolve("EXPIRING");
    String other =
        ExpiryRecord.of(List.of(TableFiles.Retired.of(t.snapshotManager().snapshot(1)))).toJson();
    AtomicBoolean created = new AtomicBoolean();
    // as this run writes the file it will publish its record from (FileIO.tryCreateExclusive)
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/snapshot/.EXPIRING.") && created.compareAndSet(false, true)) {
            Files.writeString(record, other);
          }
        });
    List<String> before = listing();

    skipsOrRefuses(
        t,
        automatic,
        "Another expiration of t is in progress",
        "appeared meanwhile; nothing was expired");
    assertThat(created).isTrue();
    assertThat(record).as("the other run's record").hasContent(other);
    List<String> after = listing();
    after.remove("snapshot/EXPIRING");
    assertThat(after).as("nothing deleted").isEqualTo(before);
  }

  /**
   * Expires all but the newest two, after the commit of snapshot 4 ({@code automatic}: it skips) or
   * explicitly (it refuses, its error containing {@code refusal}).
   */
  private static void skipsOrRefuses(Table t, boolean automatic, String... refusal) {
    SnapshotExpiration expiration = new SnapshotExpiration(t.store(), "t").retainMax(2);
    if (automatic) {
      SnapshotExpiration.Result r = expiration.skipLiveExpiration(true).afterCommitOf(4).execute();
      assertThat(r.skipped()).isTrue();
      assertThat(r.expiredSnapshots()).isEmpty();
    } else {
      assertThatThrownBy(expiration::execute)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContainingAll(refusal);
    }
  }

  /** Every file of the table, relative to its directory, sorted. */
  private List<String> listing() {
    try (Stream<Path> files = Files.walk(tableDir())) {
      List<String> out = new ArrayList<>();
      files
          .filter(Files::isRegularFile)
          .map(p -> tableDir().relativize(p).toString())
          .sorted()
          .forEach(out::add);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
