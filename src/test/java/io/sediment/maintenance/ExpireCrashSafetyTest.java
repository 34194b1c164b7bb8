package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.marker.OutputMarkers;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A failed or interrupted expiration leaves a table that reads the same rows and that expire,
 * remove_orphan_files and the compaction job's marker clean-up still handle; a rerun of the
 * expiration finishes the work.
 */
class ExpireCrashSafetyTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /**
   * Six snapshots: four appends, a compaction of the two partitions, one more append; manifests are
   * merged, so the first four snapshots own data files, manifests and manifest lists.
   */
  private Table fill(String name) throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            name,
            TestTables.idPartitionSchema()
                .option("compaction.min.file-num", "2")
                .option("manifest.merge-min-count", "3") // retired snapshots own manifests
                .build());
    for (int i = 0; i < 4; i++) {
      TestTables.writeBatch(t, List.of(row((long) i, "a"), row((long) i + 100, "b")));
    }
    t.newCompactBuilder().withOptions(Map.of()).execute();
    TestTables.writeBatch(t, List.of(row(7L, "a")));
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    return t;
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  private Path tableDir(Table t) {
    return dir.resolve("db.db").resolve(t.fullName().substring(t.fullName().indexOf('.') + 1));
  }

  /**
   * Files under manifest/ and the data directories that no listed snapshot uses, read the plain way
   * (every manifest of every snapshot), independently of the code under test.
   */
  private List<Path> unreferencedFiles(Table t) throws Exception {
    Set<String> used = new HashSet<>();
    for (long id : t.snapshotManager().listIds()) {
      Snapshot s = t.snapshotManager().snapshot(id);
      for (org.apache.flink.core.fs.Path p : MaintenanceTest.usedFiles(t, s)) {
        used.add(p.toUri().getPath());
      }
    }
    Path root = tableDir(t);
    List<Path> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      files
          .filter(Files::isRegularFile)
          .filter(p -> !root.relativize(p).toString().startsWith("schema/"))
          .filter(p -> !root.relativize(p).toString().startsWith("snapshot/"))
          .filter(p -> !root.relativize(p).toString().startsWith(".markers/"))
          .filter(p -> !root.relativize(p).toString().startsWith("index/")) // checked apart
          .filter(p -> !used.contains(p.toAbsolutePath().toString()))
          .forEach(out::add);
    }
    return out;
  }

  /**
   * What every failure must leave: the same rows; expire (rerun) completes, retires 1..4 and leaves
   * no unreferenced file and no record; remove_orphan_files and the marker clean-up work.
   */
  private void assertRecoverable(Table t, List<String> rowsBefore) throws Exception {
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(rowsBefore);

    new ExpireSnapshots(t).retainMax(2).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(5L, 6L);
    assertThat(tableDir(t).resolve("snapshot/EXPIRING")).doesNotExist();
    assertThat(unreferencedFiles(t)).isEmpty();
    assertThat(TestTables.dataFiles(tableDir(t))).hasSize(3);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(rowsBefore);

    // The compaction job's clean-up at restore: an output of a dead attempt is removed.
    Path lost = tableDir(t).resolve("p=a/bucket-0/data-lost-attempt-0.parquet");
    Files.write(lost, new byte[] {1});
    Path marker = tableDir(t).resolve(".markers/job/marker-" + lost.getFileName());
    Files.createDirectories(marker.getParent());
    Files.writeString(marker, FaultyFileSystem.uri(lost), StandardCharsets.UTF_8);
    assertThat(OutputMarkers.cleanOrphans(t.store(), "job")).isEqualTo(1);
    assertThat(lost).doesNotExist();

    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute())
        .allMatch(p -> p.getParent().getName().equals("snapshot")); // only temporary files
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(rowsBefore);
  }

  @ParameterizedTest
  @ValueSource(strings = {"data file", "manifest", "manifest list", "snapshot file"})
  void aFailingDeleteLeavesAMaintainableTable(String failing) throws Exception {
    Table t = fill("t");
    List<String> before = rows(t);
    FaultyFileSystem.failDelete(
        p ->
            switch (failing) {
              case "data file" -> p.endsWith(".parquet") && p.contains("/data-");
              case "manifest" -> p.contains("/manifest/manifest-") && !p.contains("-list-");
              case "manifest list" -> p.contains("/manifest/manifest-list-");
              default -> p.contains("/snapshot/snapshot-");
            });
    RuntimeException failure = null;
    try {
      new ExpireSnapshots(t).retainMax(2).execute();
    } catch (RuntimeException e) {
      failure = e;
    }
    FaultyFileSystem.reset();
    assertRecoverable(t, before);
    assertThat(failure).hasMessageContaining("run the expiration again");
  }

  /** A crash after every number of deletes the expiration makes; then everything recovers. */
  @Test
  void aCrashBetweenAnyTwoDeletesIsFinishedByTheNextRun() throws Exception {
    Table probe = fill("probe");
    FaultyFileSystem.reset();
    new ExpireSnapshots(probe).retainMax(2).execute();
    int deletes = FaultyFileSystem.DELETES.get();
    assertThat(deletes).isGreaterThan(20);

    for (int n = 0; n < deletes; n++) {
      Table t = fill("t" + n);
      List<String> before = rows(t);
      FaultyFileSystem.failDeletesAfter(n);
      try {
        new ExpireSnapshots(t).retainMax(2).execute();
      } catch (RuntimeException expected) {
        // the "crash"
      }
      FaultyFileSystem.reset();
      assertRecoverable(t, before);
    }
  }

  /**
   * What an interrupted expiration of an older version left: snapshots 1..4 still listed, the data
   * files, manifests and manifest lists only they used deleted.
   */
  private void wedge(Table t) throws Exception {
    Set<String> kept = new HashSet<>();
    for (long id : List.of(5L, 6L)) {
      for (org.apache.flink.core.fs.Path p :
          MaintenanceTest.usedFiles(t, t.snapshotManager().snapshot(id))) {
        kept.add(p.toUri().getPath());
      }
    }
    Set<String> onlyExpired = new HashSet<>();
    for (long id = 1; id <= 4; id++) {
      for (org.apache.flink.core.fs.Path p :
          MaintenanceTest.usedFiles(t, t.snapshotManager().snapshot(id))) {
        onlyExpired.add(p.toUri().getPath());
      }
    }
    onlyExpired.removeAll(kept);
    assertThat(onlyExpired).anyMatch(p -> p.contains("/manifest/manifest-list-"));
    assertThat(onlyExpired)
        .anyMatch(p -> p.contains("/manifest/manifest-") && !p.contains("-list-"));
    assertThat(onlyExpired).anyMatch(p -> p.endsWith(".parquet"));
    for (String p : onlyExpired) {
      Files.delete(Path.of(p));
    }
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  @Test
  void readersSkipListedSnapshotsWhoseManifestsAreGone() throws Exception {
    Table t = fill("t");
    List<String> before = rows(t);
    wedge(t);
    FileStore store = t.store();

    Path lost = tableDir(t).resolve("p=b/bucket-0/data-lost-attempt-0.parquet");
    Files.write(lost, new byte[] {1});
    Path marker = tableDir(t).resolve(".markers/job/marker-" + lost.getFileName());
    Files.createDirectories(marker.getParent());
    Files.writeString(marker, FaultyFileSystem.uri(lost), StandardCharsets.UTF_8);
    assertThat(OutputMarkers.cleanOrphans(store, "job")).isEqualTo(1);
    new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
  }

  @Test
  void expireRepairsATableWedgedByAnInterruptedExpiration() throws Exception {
    Table t = fill("t");
    List<String> before = rows(t);
    wedge(t);

    // Whatever the retention asked, snapshots whose metadata is gone are retired.
    ExpireSnapshots.Result r = new ExpireSnapshots(t).execute();
    assertThat(r.expiredSnapshots()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(t.snapshotManager().listIds()).containsExactly(5L, 6L);
    assertThat(unreferencedFiles(t)).isEmpty();
    assertRecoverable(t, before);
  }

  /**
   * Issue 21, case 3: a manifest the newest snapshot still uses cannot be read (truncated). The
   * expiration fails naming it before it changes anything: every snapshot file, the EARLIEST hint
   * and the files stay, and no expiry record is left for later runs to trip over. Each snapshot,
   * and each run, of a generated set of table sizes and truncations.
   */
  @ParameterizedTest(name = "snapshots {0}")
  @ValueSource(ints = {3, 4, 6})
  void anExpiryThatCannotReadAManifestChangesNothing(int snapshots) throws Exception {
    Table t = tableOfOneRowSnapshots(dir.resolve("n" + snapshots), snapshots);
    Path tableDir = dir.resolve("n" + snapshots).resolve("db.db").resolve("t");
    Snapshot newest = t.latestSnapshot().orElseThrow();
    // The oldest manifest: written by snapshot 1, still in the newest snapshot's base list.
    String oldest = t.store().manifestList().read(newest.baseManifestList()).get(0).fileName();
    Path manifest = tableDir.resolve("manifest").resolve(oldest);
    byte[] bytes = Files.readAllBytes(manifest);
    Files.write(manifest, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    // as a process that has not read it: this one wrote it, and the cached entries of a manifest
    // that exists are what the file held
    ManifestCache.clear();
    List<String> before = listing(tableDir);
    String earliest = Files.readString(tableDir.resolve("snapshot/EARLIEST"));

    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(1).execute())
        .hasMessageContaining(oldest)
        .hasMessageContaining("nothing was expired");

    assertThat(listing(tableDir)).as("no file changed").isEqualTo(before);
    assertThat(Files.readString(tableDir.resolve("snapshot/EARLIEST"))).isEqualTo(earliest);
    assertThat(tableDir.resolve("snapshot/EXPIRING")).doesNotExist();
    assertThat(t.snapshotManager().listIds()).hasSize(snapshots);

    // Once the manifest is whole again, the same expiration goes through.
    Files.write(manifest, bytes);
    assertThat(new ExpireSnapshots(t).retainMax(1).execute().expiredSnapshots())
        .hasSize(snapshots - 1);
    assertThat(rows(t)).hasSize(snapshots);
  }

  /**
   * The same damage seen by the process that wrote the manifest (an expiry after its own commit):
   * it keeps the manifest's entries as it wrote them (the manifest cache), so the expiration goes
   * through on them and deletes only what the retired snapshots alone used; every data file the
   * newest snapshot uses stays.
   */
  @Test
  void anExpiryInTheProcessThatWroteADamagedManifestGoesThroughOnItsEntries() throws Exception {
    Table t = tableOfOneRowSnapshots(dir, 4);
    Snapshot newest = t.latestSnapshot().orElseThrow();
    List<ManifestEntry> live = t.store().newScan().plan(newest);
    String oldest = t.store().manifestList().read(newest.baseManifestList()).get(0).fileName();
    Path manifest = tableDir(t).resolve("manifest").resolve(oldest);
    byte[] bytes = Files.readAllBytes(manifest);
    Files.write(manifest, java.util.Arrays.copyOf(bytes, bytes.length / 2));

    assertThat(new ExpireSnapshots(t).retainMax(1).execute().expiredSnapshots()).hasSize(3);

    assertThat(live).hasSize(4);
    for (ManifestEntry e : live) {
      org.apache.flink.core.fs.Path file =
          t.store().dataFilePath(e.partition(), e.bucket(), e.file().fileName());
      assertThat(Path.of(file.toUri())).exists();
    }
    assertThat(rows(t)).hasSize(4);
  }

  /**
   * A table in a new warehouse at {@code warehouse} with {@code snapshots} one-row commits, whose
   * manifests are never merged (so the first commit's manifest stays in the newest snapshot).
   */
  private static Table tableOfOneRowSnapshots(Path warehouse, int snapshots) {
    Table t =
        TestTables.create(
            TestTables.catalog(warehouse),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .option("manifest.merge-min-count", "1000")
                .build());
    for (int i = 0; i < snapshots; i++) {
      TestTables.writeBatch(t, List.of(row((long) i)));
    }
    return t;
  }

  /** Every file under the table, with its size: what a rejected call must leave as it was. */
  private static List<String> listing(Path tableDir) throws Exception {
    try (Stream<Path> s = Files.walk(tableDir)) {
      List<String> out = new ArrayList<>();
      for (Path p : (Iterable<Path>) s::iterator) {
        if (Files.isRegularFile(p)) {
          out.add(tableDir.relativize(p) + " " + Files.size(p));
        }
      }
      out.sort(null);
      return out;
    }
  }

  @Test
  void theLatestSnapshotMustStayReadable() throws Exception {
    Table t = fill("t");
    Snapshot latest = t.latestSnapshot().orElseThrow();
    Path list = tableDir(t).resolve("manifest").resolve(latest.deltaManifestList());
    Files.delete(list);

    assertThatThrownBy(() -> new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute())
        .hasMessageContaining("latest snapshot 6")
        .hasMessageContaining(latest.deltaManifestList());
    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(2).execute())
        .hasMessageContaining("latest snapshot 6")
        .hasMessageContaining(latest.deltaManifestList());
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  /**
   * An interrupted expiration's record is finished only on a table whose latest snapshot is whole:
   * with a list of the latest gone, the next run refuses, naming it, and deletes nothing; with the
   * list back, it finishes the record and the table recovers.
   */
  @Test
  void anUnfinishedExpirationIsFinishedOnlyWhileTheLatestSnapshotIsReadable() throws Exception {
    Table t = fill("t");
    List<String> before = rows(t);
    FaultyFileSystem.failDeletesAfter(0); // the first delete fails: the record stays
    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(2).execute())
        .hasMessageContaining("run the expiration again");
    FaultyFileSystem.reset();
    Path tableDir = tableDir(t);
    assertThat(tableDir.resolve("snapshot/EXPIRING")).exists();
    Snapshot latest = t.latestSnapshot().orElseThrow();
    Path list = tableDir.resolve("manifest").resolve(latest.deltaManifestList());
    byte[] bytes = Files.readAllBytes(list);
    Files.delete(list);
    List<String> files = listingBesideTheRecord(tableDir);

    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(2).execute())
        .hasMessageContaining("latest snapshot " + latest.id())
        .hasMessageContaining(latest.deltaManifestList());
    assertThat(listingBesideTheRecord(tableDir)).as("nothing deleted").isEqualTo(files);
    assertThat(tableDir.resolve("snapshot/EXPIRING")).exists(); // marked abandoned, so rewritten

    Files.write(list, bytes);
    new ExpireSnapshots(t).retainMax(2).execute();
    assertRecoverable(t, before);
  }

  private static List<String> listingBesideTheRecord(Path tableDir) throws Exception {
    return listing(tableDir).stream().filter(f -> !f.startsWith("snapshot/EXPIRING ")).toList();
  }

  /** Deletion-vector files and index manifests of expired snapshots, with a failing delete. */
  @Test
  void aFailingDeleteOfADeletionVectorFileIsFinishedByTheNextRun() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
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
        Map.of("local-cache.enabled", "true", "local-cache.dir", dir.resolve("cache").toString());
    TestTables.writeBatch(t, List.of(row(1L, "a"), row(2L, "b"), row(3L, "c")));
    t.newCompactBuilder().withOptions(compact).withStrategy("minor").execute();
    TestTables.writeBatch(t, List.of(row(2L, "b2")));
    t.newCompactBuilder()
        .withOptions(compact)
        .withStrategy("minor")
        .execute(); // a vector hides the old 2
    TestTables.writeBatch(t, List.of(row(3L, "c3")));
    t.newCompactBuilder()
        .withOptions(compact)
        .withStrategy("minor")
        .execute(); // a new vector file replaces it
    List<String> before = rows(t);
    Snapshot latest = t.latestSnapshot().orElseThrow();
    Path index = tableDir(t).resolve("index");
    List<String> liveVectors = new ArrayList<>();
    for (IndexManifest.Entry e :
        new IndexManifest(t.store().fileIO(), t.store().paths()).read(latest.indexManifest())) {
      liveVectors.add(e.deletionFile().dvFile());
    }
    try (Stream<Path> files = Files.list(index)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .anyMatch(n -> n.startsWith("dv-") && !liveVectors.contains(n));
    }

    FaultyFileSystem.failDelete(p -> p.contains("/index/"));
    RuntimeException failure = null;
    try {
      new ExpireSnapshots(t).retainMax(1).execute();
    } catch (RuntimeException e) {
      failure = e;
    }
    FaultyFileSystem.reset();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);

    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(failure).hasMessageContaining("run the expiration again");
    assertThat(t.snapshotManager().listIds()).containsExactly(latest.id());
    List<String> expected = new ArrayList<>(liveVectors);
    expected.add(latest.indexManifest());
    try (Stream<Path> files = Files.list(index)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(unreferencedFiles(t)).isEmpty();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
  }

  /**
   * An expiration that stopped among the manifest lists of a snapshot with changelog files, its
   * base list deleted and its changelog list not: the run that finishes it reads the snapshot as
   * far as its metadata goes and deletes the changelog list and its manifests too (they stayed for
   * ever when the snapshot's base list was gone, as ExpirationModelTest found with a kill there).
   */
  @Test
  void aFinishedExpirationDeletesTheChangelogListOfAHalfDeletedSnapshot() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "cl",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("changelog-producer", "input")
                .option("write-only", "true")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Snapshot first = t.snapshotManager().snapshot(1);
    assertThat(first.changelogManifestList()).isNotNull();
    String changelogList = first.changelogManifestList();
    FaultyFileSystem.failDelete(p -> p.endsWith(changelogList));
    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(1).execute())
        .isInstanceOf(RuntimeException.class);
    FaultyFileSystem.reset();
    Path manifests = tableDir(t).resolve("manifest");
    assertThat(manifests.resolve(first.baseManifestList())).doesNotExist();
    assertThat(manifests.resolve(changelogList)).exists();

    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(2L);
    assertThat(manifests.resolve(changelogList)).doesNotExist();
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()).isEmpty();
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }
}
