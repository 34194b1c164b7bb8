package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshot expiration and orphan removal never delete what a retained snapshot uses. */
class MaintenanceTest {

  @TempDir Path dir;

  Table fill() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("p", DataTypes.STRING())
                .partitionKeys("p")
                .option("compaction.min.file-num", "2")
                .build());
    for (int i = 0; i < 4; i++) {
      TestTables.writeBatch(t, List.of(row((long) i, "a"), row((long) i + 100, "b")));
    }
    t.newCompactBuilder().withOptions(Map.of()).execute(); // snapshot 5, COMPACT
    TestTables.writeBatch(t, List.of(row(7L, "a"))); // snapshot 6
    return t;
  }

  /** Every file the snapshot needs: manifest lists, manifests, data files. */
  static List<org.apache.flink.core.fs.Path> usedFiles(Table t, Snapshot s) throws Exception {
    FileStore store = t.store();
    List<org.apache.flink.core.fs.Path> out = new ArrayList<>();
    out.add(store.paths().manifest(s.baseManifestList()));
    out.add(store.paths().manifest(s.deltaManifestList()));
    for (ManifestFileMeta m : store.newScan().manifests(s)) {
      out.add(store.paths().manifest(m.fileName()));
    }
    store.newScan().plan(s).forEach(e -> out.add(store.dataFilePath(e.partition(), e.bucket(), e.file().fileName())));
    return out;
  }

  static boolean exists(org.apache.flink.core.fs.Path p) {
    return Files.exists(Path.of(p.toUri()));
  }

  @Test
  void expireKeepsEverythingRetainedSnapshotsUse() throws Exception {
    Table t = fill();
    List<String> rows = TestTables.toStrings(t.rowType(), TestTables.readAll(t));
    List<Path> dataBefore = TestTables.dataFiles(dir.resolve("db.db/t"));
    assertThat(dataBefore).hasSize(11); // 8 appended, 2 compacted, 1 appended

    ExpireSnapshots.Result r = new ExpireSnapshots(t).retainMax(2).execute();
    assertThat(r.expiredSnapshots()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(t.snapshotManager().listIds()).containsExactly(5L, 6L);
    for (long id : List.of(5L, 6L)) {
      for (org.apache.flink.core.fs.Path p : usedFiles(t, t.snapshotManager().snapshot(id))) {
        assertThat(exists(p)).as("%s used by snapshot %s", p, id).isTrue();
      }
    }
    assertThat(r.deletedDataFiles()).isEqualTo(8); // the compacted-away small files
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).hasSize(3);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t))).containsExactlyInAnyOrderElementsOf(rows);
    assertThat(Files.readString(dir.resolve("db.db/t/snapshot/EARLIEST")).trim()).isEqualTo("5");

    // retain_min keeps snapshots however old.
    ExpireSnapshots.Result none = new ExpireSnapshots(t).retainMin(2).olderThan(Long.MAX_VALUE).execute();
    assertThat(none.expiredSnapshots()).isEmpty();
  }

  @Test
  void removeOrphanFilesRemovesOnlyOrphans() throws Exception {
    Table t = fill();
    // What a failed job leaves behind: a data file and a manifest no snapshot references.
    Path orphanData = dir.resolve("db.db/t/p=a/bucket-0/data-failed-job-0.parquet");
    Files.write(orphanData, new byte[] {1, 2, 3});
    Path orphanManifest = dir.resolve("db.db/t/manifest/manifest-lost-attempt");
    Files.write(orphanManifest, new byte[] {4});
    Path fresh = dir.resolve("db.db/t/p=b/bucket-0/data-in-progress-0.parquet");
    Files.write(fresh, new byte[] {5});
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000L);
    Files.setLastModifiedTime(orphanData, old);
    Files.setLastModifiedTime(orphanManifest, old);

    long threshold = System.currentTimeMillis() - 60_000L;
    List<org.apache.flink.core.fs.Path> dry = new RemoveOrphanFiles(t).olderThan(threshold).dryRun(true).execute();
    assertThat(dry).hasSize(2);
    assertThat(Files.exists(orphanData)).isTrue();

    List<org.apache.flink.core.fs.Path> removed = new RemoveOrphanFiles(t).olderThan(threshold).execute();
    assertThat(removed).extracting(p -> p.getName()).containsExactlyInAnyOrder(
        orphanData.getFileName().toString(), orphanManifest.getFileName().toString());
    assertThat(Files.exists(orphanData)).isFalse();
    assertThat(Files.exists(fresh)).isTrue(); // too young: may belong to a running write

    // Every snapshot (all retained) still has all its files, with a threshold in the future too.
    new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();
    for (long id : t.snapshotManager().listIds()) {
      for (org.apache.flink.core.fs.Path p : usedFiles(t, t.snapshotManager().snapshot(id))) {
        assertThat(exists(p)).as("%s used by snapshot %s", p, id).isTrue();
      }
    }
    assertThat(TestTables.readAll(t)).hasSize(9);
  }
}
