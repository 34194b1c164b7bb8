package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.marker.MarkerLayout;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Snapshot expiration and orphan removal never delete what a retained snapshot uses. */
class MaintenanceTest {

  @TempDir Path dir;

  Table fill() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            TestTables.idPartitionSchema().option("compaction.min.file-num", "2").build());
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
    store
        .newScan()
        .plan(s)
        .forEach(e -> out.add(store.dataFilePath(e.partition(), e.bucket(), e.file().fileName())));
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
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrderElementsOf(rows);
    assertThat(Files.readString(dir.resolve("db.db/t/snapshot/EARLIEST")).trim()).isEqualTo("5");

    // retain_min keeps snapshots however old.
    ExpireSnapshots.Result none =
        new ExpireSnapshots(t).retainMin(2).olderThan(Long.MAX_VALUE).execute();
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
    // A manifest an hour old may belong to a commit waiting for the lock: kept whatever the
    // threshold; one two days old is an orphan.
    Path pendingManifest = dir.resolve("db.db/t/manifest/manifest-waiting-for-the-lock");
    Files.write(pendingManifest, new byte[] {6});
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000L);
    Files.setLastModifiedTime(orphanData, old);
    Files.setLastModifiedTime(pendingManifest, old);
    Files.setLastModifiedTime(
        orphanManifest, FileTime.fromMillis(System.currentTimeMillis() - 2 * 86_400_000L));

    long threshold = System.currentTimeMillis() - 60_000L;
    List<org.apache.flink.core.fs.Path> dry =
        new RemoveOrphanFiles(t).olderThan(threshold).dryRun(true).execute();
    assertThat(dry).hasSize(2);
    assertThat(Files.exists(orphanData)).isTrue();

    List<org.apache.flink.core.fs.Path> removed =
        new RemoveOrphanFiles(t).olderThan(threshold).execute();
    assertThat(removed)
        .extracting(p -> p.getName())
        .containsExactlyInAnyOrder(
            orphanData.getFileName().toString(), orphanManifest.getFileName().toString());
    assertThat(Files.exists(orphanData)).isFalse();
    assertThat(Files.exists(fresh)).isTrue(); // too young: may belong to a running write
    assertThat(Files.exists(pendingManifest)).isTrue();
    new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis()).execute();
    assertThat(Files.exists(pendingManifest)).as("metadata younger than a day stays").isTrue();

    // Every snapshot (all retained) still has all its files, with a threshold in the future too.
    new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();
    for (long id : t.snapshotManager().listIds()) {
      for (org.apache.flink.core.fs.Path p : usedFiles(t, t.snapshotManager().snapshot(id))) {
        assertThat(exists(p)).as("%s used by snapshot %s", p, id).isTrue();
      }
    }
    assertThat(TestTables.readAll(t)).hasSize(9);
  }

  @Test
  void deletionVectorFilesOfRetainedSnapshotsAreKeptAndOrphansRemoved() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Path cache = dir.resolve("cache");
    Table t =
        TestTables.create(
            catalog,
            "dv",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .option("write-only", "true")
                .option("deletion-vectors.enabled", "true")
                .build());
    Map<String, String> compact =
        Map.of("local-cache.enabled", "true", "local-cache.dir", cache.toString());
    TestTables.writeBatch(t, List.of(row(1L, "a"), row(2L, "b"), row(3L, "c")));
    t.newCompactBuilder().withOptions(compact).withStrategy("minor").execute(); // rows move up
    TestTables.writeBatch(t, List.of(row(2L, "b2")));
    t.newCompactBuilder()
        .withOptions(compact)
        .withStrategy("minor")
        .execute(); // old version of 2 hidden by a vector
    Snapshot latest = t.latestSnapshot().orElseThrow();
    assertThat(latest.indexManifest()).isNotNull();
    Path index = dir.resolve("db.db/dv/index");
    List<String> indexFiles = new ArrayList<>(List.of(index.toFile().list()));
    assertThat(indexFiles).anyMatch(n -> n.startsWith("dv-"));

    new ExpireSnapshots(t).retainMax(1).retainMin(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(latest.id());
    assertThat(index.resolve(latest.indexManifest())).exists();
    for (String dv : index.toFile().list()) {
      assertThat(indexFiles).contains(dv);
    }
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b2)", "(3,c)");

    // An orphan vector file is removed; the used ones stay.
    Path orphan = index.resolve("dv-orphan");
    Files.write(orphan, new byte[] {1, 2, 3});
    Files.setLastModifiedTime(
        orphan, FileTime.fromMillis(System.currentTimeMillis() - 2 * 86_400_000L));
    for (String n : index.toFile().list()) {
      Files.setLastModifiedTime(
          index.resolve(n), FileTime.fromMillis(System.currentTimeMillis() - 2 * 86_400_000L));
    }
    new RemoveOrphanFiles(t).execute();
    assertThat(orphan).doesNotExist();
    assertThat(index.resolve(latest.indexManifest())).exists();
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b2)", "(3,c)");
  }

  /** Writes the marker a compaction job writes before creating {@code output}. */
  private static Path mark(Table t, String commitUser, Path output) throws Exception {
    Path marker =
        Path.of(
            MarkerLayout.of(t.store()).marker(commitUser, output.getFileName().toString()).toUri());
    Files.createDirectories(marker.getParent());
    Files.writeString(marker, output.toUri().toString());
    return marker;
  }

  /** Writes a release record of a compaction job's finished window. */
  private static Path release(Table t, String commitUser) throws Exception {
    Path release = Path.of(MarkerLayout.of(t.store()).release(commitUser, 7, "0a1b2c3d").toUri());
    Files.createDirectories(release.getParent());
    Files.writeString(release, "3\n4");
    return release;
  }

  private static void age(Path file) throws Exception {
    Files.setLastModifiedTime(
        file, FileTime.fromMillis(System.currentTimeMillis() - 2 * 86_400_000L));
  }

  @Test
  void outputsOfAnInFlightCompactionSurviveWhateverTheirAge() throws Exception {
    Table t = fill();
    // A running compaction job (commit user "job-compact-1") has written an output and a
    // deletion-vector file, each after its marker, and not committed them yet; the files are old,
    // and so is a release record of a window it finished long ago.
    Path output = dir.resolve("db.db/t/p=a/bucket-0/data-in-flight-0.parquet");
    Files.write(output, new byte[] {1, 2, 3});
    Path vector = dir.resolve("db.db/t/index/dv-in-flight");
    Files.createDirectories(vector.getParent());
    Files.write(vector, new byte[] {4});
    Path outputMarker = mark(t, "job-compact-1", output);
    Path vectorMarker = mark(t, "job-compact-1", vector);
    Path release = release(t, "job-compact-1");
    age(output);
    age(vector);
    age(vectorMarker);
    age(release);
    // A file of a dead job whose marker is gone: an orphan like any other.
    Path dead = dir.resolve("db.db/t/p=b/bucket-0/data-dead-job-0.parquet");
    Files.write(dead, new byte[] {5});
    age(dead);

    assertThat(new RemoveOrphanFiles(t).dryRun(true).execute())
        .extracting(p -> p.getName())
        .containsExactly(dead.getFileName().toString());
    List<org.apache.flink.core.fs.Path> removed = new RemoveOrphanFiles(t).execute();

    assertThat(removed).extracting(p -> p.getName()).containsExactly(dead.getFileName().toString());
    assertThat(dead).doesNotExist();
    for (Path kept : List.of(output, vector, outputMarker, vectorMarker, release)) {
      assertThat(kept).exists();
    }
    assertThat(TestTables.readAll(t)).hasSize(9);
  }

  @Test
  void filesOfARunningSqlWriterSurviveWhateverTheirAge() throws Exception {
    Table t = fill();
    // A Flink SQL writer (commit user "sql-job-1") past checkpoint 4 has an old open file, marked
    // under write-after-4/ by a marker written recently (the job runs).
    Path output = dir.resolve("db.db/t/p=a/bucket-0/data-open-in-writer-0.parquet");
    Files.write(output, new byte[] {1, 2, 3});
    age(output);
    Path marker =
        Path.of(
            new org.apache.flink.core.fs.Path(
                    MarkerLayout.of(t.store()).writeAfterDir("sql-job-1", 4),
                    "marker-" + output.getFileName())
                .toUri());
    Files.createDirectories(marker.getParent());
    Files.writeString(marker, output.toUri().toString());

    assertThat(new RemoveOrphanFiles(t).execute()).isEmpty();
    assertThat(output).exists();
    assertThat(marker).exists();

    // Once the job is gone for longer than the threshold, its file is an orphan like any other.
    age(marker);
    assertThat(new RemoveOrphanFiles(t).execute())
        .extracting(p -> p.getName())
        .containsExactly(output.getFileName().toString());
    assertThat(output).doesNotExist();
    assertThat(marker).doesNotExist();
    assertThat(TestTables.readAll(t)).hasSize(9);
  }

  @Test
  void markersOfAStaleJobProtectNothingAndAreRemovedWithItsOutputs() throws Exception {
    Table t = fill();
    // A job cancelled for good two days ago: an uncommitted output, the marker of an output that
    // was committed, a release record. Nothing of it is younger than the threshold.
    Path output = dir.resolve("db.db/t/p=a/bucket-0/data-cancelled-job-0.parquet");
    Files.write(output, new byte[] {1});
    io.sediment.manifest.ManifestEntry live =
        t.store().newScan().plan(t.latestSnapshot().orElseThrow()).get(0);
    Path committed =
        Path.of(
            t.store()
                .dataFilePath(live.partition(), live.bucket(), live.file().fileName())
                .toUri());
    List<Path> bookkeeping =
        List.of(
            mark(t, "gone-compact-2", output),
            mark(t, "gone-compact-2", committed),
            release(t, "gone-compact-2"));
    for (Path f : bookkeeping) {
      age(f);
    }
    age(output);
    age(committed);

    List<org.apache.flink.core.fs.Path> removed = new RemoveOrphanFiles(t).execute();

    // Only data is reported as orphan; the stale bookkeeping goes too, the committed file stays.
    assertThat(removed)
        .extracting(p -> p.getName())
        .containsExactly(output.getFileName().toString());
    assertThat(output).doesNotExist();
    for (Path f : bookkeeping) {
      assertThat(f).doesNotExist();
    }
    assertThat(committed).exists();
    assertThat(TestTables.readAll(t)).hasSize(9);
  }

  /** A stream commit of user "u" with identifier 5, then 20 commits of other writers. */
  private Table streamCommitThenOthers(List<io.sediment.commit.CommitMessage> out)
      throws Exception {
    Table t =
        TestTables.create(
            TestTables.catalog(dir),
            "s",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .build());
    io.sediment.table.WriteBuilder wb = t.newBatchWriteBuilder();
    try (io.sediment.table.TableWrite w = wb.newWrite()) {
      w.write(row(5L, "u"));
      out.addAll(w.prepareCommit());
    }
    assertThat(t.newStreamWriteBuilder().withCommitUser("u").newCommit().commit(5, out))
        .containsExactly(1L);
    for (long i = 0; i < 20; i++) {
      TestTables.writeBatch(t, List.of(row(100 + i, "other")));
    }
    return t;
  }

  private static void assertCommittedOnce(Table t, List<io.sediment.commit.CommitMessage> m5) {
    assertThat(new io.sediment.commit.FileStoreCommit(t.store(), "u").isCommitted(5)).isTrue();
    assertThat(new io.sediment.commit.FileStoreCommit(t.store(), "u").isCommitted(6)).isFalse();
    // A restored writer retries identifier 5: it is skipped, nothing is appended twice.
    assertThat(t.newStreamWriteBuilder().withCommitUser("u").newCommit().commit(5, m5)).isEmpty();
    assertThat(TestTables.readAll(t)).hasSize(21);
  }

  @Test
  void expiringAUsersLastSnapshotKeepsItsCommitKnown() throws Exception {
    List<io.sediment.commit.CommitMessage> m5 = new ArrayList<>();
    Table t = streamCommitThenOthers(m5);
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(21L);
    assertCommittedOnce(t, m5);
  }

  @Test
  void expiryRecordsACommitWhoseHintWasNeverWritten() throws Exception {
    List<io.sediment.commit.CommitMessage> m5 = new ArrayList<>();
    Table t = streamCommitThenOthers(m5);
    // The writer died between publishing its snapshot and writing its hint.
    Path hint = dir.resolve("db.db/s/snapshot/user-u");
    Files.deleteIfExists(hint);
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(21L);
    assertThat(hint).exists();
    assertCommittedOnce(t, m5);
  }

  /**
   * Once the user's snapshots have expired, its hint is the only record of its last commit: a
   * damaged hint must make a restored writer refuse, not commit the window a second time.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "not json",
        "{\"commitUser\" : \"u\", \"snapshotId\" : 1",
        "{\"commitUser\":\"u\"}"
      })
  void aDamagedHintOfAnExpiredCommitRefusesTheRestoredCommit(String damaged) throws Exception {
    List<io.sediment.commit.CommitMessage> m5 = new ArrayList<>();
    Table t = streamCommitThenOthers(m5);
    new ExpireSnapshots(t).retainMax(1).execute();
    Path hint = dir.resolve("db.db/s/snapshot/user-u");
    Files.writeString(hint, damaged);

    assertThatThrownBy(
            () -> t.newStreamWriteBuilder().withCommitUser("u").newCommit().commit(5, m5))
        .hasMessageContaining(hint.toString())
        .hasMessageContaining("committing is refused");
    assertThat(t.snapshotManager().listIds()).containsExactly(21L);
    assertThat(TestTables.readAll(t)).hasSize(21); // the window was not committed twice
  }
}
