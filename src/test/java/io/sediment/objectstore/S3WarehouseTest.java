package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.fs.FileIO;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.TestTables;
import java.io.FileNotFoundException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Tables in a warehouse on a real S3 API server (S3Proxy), through Flink's S3 file system. */
class S3WarehouseTest {

  @TempDir static java.nio.file.Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("v", DataTypes.STRING());
  }

  private static Map<String, String> lockOptions(String name) {
    return Map.of(
        "lock.enabled", "true", "lock.jdbc.url", "jdbc:sqlite:" + dir.resolve(name + ".db"));
  }

  @Test
  void aTableWithACommitLockIsWrittenAndReadBack() {
    FileSystemCatalog catalog = new FileSystemCatalog("s3://lake/w1");
    catalog.createDatabase("db", true);
    Table t = TestTables.create(catalog, "t", schema().options(lockOptions("w1")).build());
    TestTables.writeBatch(t, List.of(row(1L, "a"), row(2L, "b")));
    TestTables.writeBatch(t, List.of(row(3L, "c")));
    assertThat(TestTables.readAll(catalog.getTable(new Identifier("db", "t")))).hasSize(3);
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(2);
  }

  /**
   * Committers racing for snapshot ids on S3 lose nothing: every committed row is read back exactly
   * once and every commit has its own snapshot. Without the lock (the code before it, which
   * published with exists-then-rename) two committers took the same id and one commit vanished.
   */
  @Test
  void racingCommittersLoseNoCommitWithTheCommitLock() throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog("s3://lake/race");
    catalog.createDatabase("db", true);
    Table created = TestTables.create(catalog, "t", schema().options(lockOptions("race")).build());
    int committers = 4;
    int commitsEach = 6;
    List<Long> committed = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> failed = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(committers);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int c = 0; c < committers; c++) {
        long first = c * 1000L;
        running.add(
            pool.submit(
                () -> {
                  Table t = catalog.getTable(new Identifier("db", "t"));
                  for (long i = first; i < first + commitsEach; i++) {
                    try {
                      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
                      committed.add(i);
                    } catch (RuntimeException e) {
                      failed.add(e);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    List<Long> ids = new ArrayList<>();
    for (RowData r : TestTables.readAll(created)) {
      ids.add(r.getLong(0));
    }
    // First what users lose: a commit that reported success and whose row is gone.
    assertThat(ids).as("rows of the commits that succeeded").containsAll(committed);
    assertThat(ids).doesNotHaveDuplicates().hasSameSizeAs(committed);
    assertThat(failed).as("failed commits").isEmpty();
    assertThat(committed).hasSize(committers * commitsEach);
    SnapshotManager snapshots = created.snapshotManager();
    assertThat(snapshots.listIds()).hasSize(committers * commitsEach);
    for (long id : snapshots.listIds()) {
      assertThat(snapshots.snapshot(id).id()).isEqualTo(id);
    }
  }

  /**
   * A hint replaced on S3 is never missing for a reader: once it is gone, a commit user's hint may
   * be the only record of its last commit. (Replaced by delete-then-rename before, readers found no
   * hint between the two.)
   */
  @Test
  void aReplacedHintIsNeverMissingForReaders() throws Exception {
    Path hint = new Path("s3://lake/hints/snapshot/user-u");
    FileIO io = FileIO.of(hint);
    io.overwriteHint(hint, "0");
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<List<String>> reader =
          pool.submit(
              () -> {
                List<String> missing = new ArrayList<>();
                int reads = 0;
                while (!done.get() || reads == 0) {
                  try {
                    io.readUtf8(hint);
                  } catch (FileNotFoundException e) {
                    missing.add(e.getMessage());
                  }
                  reads++;
                }
                return missing;
              });
      for (int i = 1; i <= 30; i++) {
        io.overwriteHint(hint, Integer.toString(i));
      }
      done.set(true);
      assertThat(reader.get()).as("reads that found no hint").isEmpty();
    } finally {
      pool.shutdownNow();
    }
    assertThat(io.readUtf8(hint)).isEqualTo("30");
  }

  @Test
  void writingOrCompactingWithoutACommitLockIsRefusedNamingTheOptions() {
    FileSystemCatalog catalog = new FileSystemCatalog("s3://lake/w2");
    catalog.createDatabase("db", true);
    Table t = TestTables.create(catalog, "t", schema().build());
    assertThatThrownBy(t::newBatchWriteBuilder)
        .hasMessageContaining("s3://lake/w2/db.db/t")
        .hasMessageContaining("object store")
        .hasMessageContaining("'lock.enabled' = 'true'")
        .hasMessageContaining("lock.jdbc.url");
    assertThatThrownBy(t::newStreamWriteBuilder).hasMessageContaining("lock.enabled");
    assertThatThrownBy(t::newCompactBuilder).hasMessageContaining("lock.enabled");
    assertThat(t.latestSnapshot()).isEmpty();
  }
}
