package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An expiration that fails leaves the expiry record to whoever owns it by then: a run that finished
 * this expiration meanwhile (a manual run finishes any record, live ones too) may have started the
 * next one, whose record a failed run must neither mark abandoned nor delete, or tags of the next
 * expiration's snapshots would be accepted while their files are deleted.
 */
class ExpiryRecordOwnershipTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void aFailedRunLeavesTheNextExpirationsRecordAlone() throws Exception {
    List<String> failingDeletes =
        List.of("/snapshot/snapshot-1", "/snapshot/snapshot-2", "/manifest/manifest-list-");
    for (int c = 0; c < failingDeletes.size(); c++) {
      String failing = failingDeletes.get(c);
      Path root = dir.resolve("case" + c);
      Table t =
          TestTables.create(
              TestTables.faultyCatalog(root),
              "t",
              TestTables.idValueSchema()
                  .option("snapshot.num-retained.max", "1000")
                  .option("snapshot.num-retained.min", "1")
                  .build());
      for (long i = 0; i < 6; i++) {
        TestTables.writeBatch(t, List.of(row(i, "v" + i)));
      }
      Path record = root.resolve("db.db/t/snapshot/EXPIRING");
      String next =
          ExpiryRecord.of(List.of(TableFiles.Retired.of(t.snapshotManager().snapshot(3)))).toJson();
      // While this run deletes, another finishes its record and starts the next expiration.
      FaultyFileSystem.failDelete(
          p -> {
            if (!p.contains(failing) || !Files.exists(record)) {
              return false;
            }
            try {
              Files.writeString(record, next);
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
            return true;
          });
      assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(4).execute())
          .as("failing at %s", failing)
          .isNotNull();
      FaultyFileSystem.reset();
      var path = new org.apache.flink.core.fs.Path(record.toUri());
      ExpiryRecord now = ExpiryRecord.read(io.sediment.fs.FileIO.of(path), path).orElseThrow();
      assertThat(now.toJson()).as("failing at %s", failing).isEqualTo(next);
      assertThat(now.isAbandoned()).isFalse();
    }
  }
}
