package io.sediment.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.marker.ReleaseRecords;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a long-running job relies on to tell a table from one created again under its name, and to
 * take finished tasks' release records without losing one.
 */
class TableIdentityTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /**
   * A loaded table's store is still that table while its schema file is there unchanged, also when
   * the file cannot be read for a while; not after a drop, nor after a table of the very same
   * definition was created again under its name (never altered, so its schema file has the same
   * name: only its content tells).
   */
  @Test
  void aTableCreatedAgainWithTheSameDefinitionIsAnotherTable() {
    ManualClock clock = new ManualClock();
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir).withClock(clock);
    Identifier id = new Identifier("db", "t");
    Table first = TestTables.create(catalog, "t", TestTables.idValueSchema().build());
    FileStore store = first.store();
    assertThat(store.stillThisTable()).isTrue();

    FaultyFileSystem.failOpen(p -> p.endsWith("/schema/schema-0"));
    assertThat(store.stillThisTable()).as("a read error is no change").isTrue();
    FaultyFileSystem.reset();

    catalog.dropTable(id, false);
    assertThat(store.stillThisTable()).as("dropped").isFalse();

    clock.advance(Duration.ofMillis(1));
    TestTables.create(catalog, "t", TestTables.idValueSchema().build());
    assertThat(store.stillThisTable()).as("created again").isFalse();
  }

  /**
   * Taking release records reads every one before deleting any: a read that fails leaves them all
   * for the next take, none lost (a record deleted before the failure lost its tasks' release).
   */
  @Test
  void aTakeThatFailsLosesNoReleaseRecord() throws Exception {
    Table t =
        TestTables.create(TestTables.faultyCatalog(dir), "t", TestTables.idValueSchema().build());
    ReleaseRecords.write(t.store(), "job", 1, List.of("a", "b"));
    ReleaseRecords.write(t.store(), "job", 2, List.of("c"));
    boolean[] failed = {false};
    FaultyFileSystem.onOpen(
        p -> {
          if (p.contains("release") && failed[0]) {
            throw new java.io.IOException("Injected failure reading " + p);
          }
          if (p.contains("release")) {
            failed[0] = true; // the first record reads, the second fails
          }
        });
    assertThatThrownBy(() -> ReleaseRecords.take(t.store(), "job"))
        .hasStackTraceContaining("Injected failure");
    FaultyFileSystem.reset();

    assertThat(ReleaseRecords.take(t.store(), "job")).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(ReleaseRecords.take(t.store(), "job")).isEmpty();
  }
}
