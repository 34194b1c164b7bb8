package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.data.BinaryRows;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * What {@link FileStoreCommit} leaves behind in the cases a model of live files does not see: a
 * commit whose files vanished before the publish, a failed metadata write, a commit an earlier
 * attempt already published, changelog files, truncating an unpartitioned table, and an abort that
 * cannot delete. Tables are on {@link FaultyFileSystem}; after every failure the table's snapshots,
 * rows and metadata directories are as before (no manifest, list, index or temporary snapshot file
 * a failed attempt wrote is left).
 */
class FileStoreCommitTest {

  private static final long BATCH = FileStoreCommit.BATCH_IDENTIFIER;

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private FileSystemCatalog catalog() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    return catalog;
  }

  /** Unpartitioned append-only table {@code (id, v)}. */
  private Table appendTable() {
    return appendTableNamed("t");
  }

  private Table appendTableNamed(String name) {
    return TestTables.create(catalog(), name, TestTables.idValueSchema().build());
  }

  /** One-bucket primary-key table {@code (id, v)} with one more option. */
  private Table keyedTable(String option, String value) {
    return TestTables.create(
        catalog(),
        "t",
        TestTables.idValueSchema()
            .primaryKey("id")
            .option("bucket", "1")
            .option(option, value)
            .build());
  }

  /** A primary-key table whose writers keep their input as changelog. */
  private Table changelogTable() {
    return keyedTable("changelog-producer", "input");
  }

  private Path tableDir() {
    return dir.resolve("db.db/t");
  }

  /** New files of rows {@code ids}, written and not committed. */
  private static List<CommitMessage> write(Table t, long... ids) throws IOException {
    try (TableWrite w = t.newStreamWriteBuilder().newWrite()) {
      for (long id : ids) {
        w.write(row(id, "v" + id));
      }
      return w.prepareCommit();
    }
  }

  private Path dataFile(DataFileMeta f) {
    return tableDir().resolve("bucket-0").resolve(f.fileName());
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  private static long latestId(Table t) {
    return t.latestSnapshot().map(Snapshot::id).orElse(0L);
  }

  /** Every file under the table's directory, for "the failure changed nothing". */
  private Set<String> files() throws IOException {
    try (Stream<Path> s = Files.walk(tableDir())) {
      Set<String> out = new TreeSet<>();
      s.filter(Files::isRegularFile).forEach(p -> out.add(tableDir().relativize(p).toString()));
      return out;
    }
  }

  /** An append table with three committed files, and a writer's message that compacts them. */
  private record WriterCompaction(
      Table table, List<DataFileMeta> inputs, CommitMessage message, List<String> rowsBefore) {}

  /**
   * A writer's own compaction on top of its new files, as a primary-key writer commits them: new
   * files (row 10), and the three live files replaced by one output (rows 0-2 again).
   */
  private WriterCompaction writerCompaction() throws IOException {
    Table t = appendTable();
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    List<DataFileMeta> inputs = t.newReadBuilder().newScan().plan().splits().get(0).files();
    CommitMessage added = write(t, 10).get(0);
    CommitMessage output = write(t, 0, 1, 2).get(0);
    CommitMessage m =
        new CommitMessage(
            added.partition(),
            0,
            added.totalBuckets(),
            added.newFiles(),
            inputs,
            output.newFiles());
    return new WriterCompaction(t, inputs, m, rows(t));
  }

  @Test
  void aWriterCompactionWhoseOutputVanishedIsDroppedAndItsNewFilesLand() throws Exception {
    WriterCompaction w = writerCompaction();
    Files.delete(dataFile(w.message().compactAfter().get(0)));

    List<Long> ids =
        new FileStoreCommit(w.table().store(), "writer").commit(List.of(w.message()), 1, false);

    assertThat(ids).containsExactly(4L);
    Snapshot s = w.table().latestSnapshot().orElseThrow();
    assertThat(s.commitKind()).isEqualTo(CommitKind.APPEND);
    assertThat(rows(w.table())).hasSize(4).contains("(10,v10)");
    assertThat(w.table().newReadBuilder().newScan().plan().splits().get(0).files())
        .containsAll(w.inputs());
    assertThat(TestTables.unreferencedMetadata(w.table(), tableDir())).isEmpty();
  }

  @Test
  void aWriterCompactionWhoseOutputsAreThereLandsAfterItsNewFiles() throws Exception {
    WriterCompaction w = writerCompaction();

    List<Long> ids =
        new FileStoreCommit(w.table().store(), "writer").commit(List.of(w.message()), 1, false);

    assertThat(ids).containsExactly(4L, 5L);
    assertThat(w.table().snapshotManager().snapshot(4).commitKind()).isEqualTo(CommitKind.APPEND);
    assertThat(w.table().snapshotManager().snapshot(5).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(w.table().newReadBuilder().newScan().plan().splits().get(0).files())
        .doesNotContainAnyElementsOf(w.inputs())
        .hasSize(2);
    assertThat(rows(w.table())).containsExactlyInAnyOrderElementsOf(withRow10(w.rowsBefore()));
  }

  private static List<String> withRow10(List<String> rows) {
    List<String> out = new ArrayList<>(rows);
    out.add("(10,v10)");
    return out;
  }

  static Stream<Arguments> lostAppends() {
    return Stream.of(
        Arguments.of("a new file", false), Arguments.of("a new file, on a restored window", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("lostAppends")
  void aMessageWhoseNewFileVanishedIsRefusedWhateverItsCompaction(
      String what, boolean checkCommitted) throws Exception {
    WriterCompaction w = writerCompaction();
    DataFileMeta lost = w.message().newFiles().get(0);
    Files.delete(dataFile(lost));
    Set<String> before = files();

    assertThatThrownBy(
            () ->
                new FileStoreCommit(w.table().store(), "writer")
                    .commit(List.of(w.message()), 1, checkCommitted))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(lost.fileName());

    assertThat(latestId(w.table())).isEqualTo(3);
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void anAppendWhoseFileVanishedBeforeThePublishIsRefusedAndLeavesNoMetadata() throws Exception {
    Table t = appendTable();
    TestTables.writeBatch(t, List.of(row(0L, "v0")));
    List<CommitMessage> messages = write(t, 1);
    DataFileMeta f = messages.get(0).newFiles().get(0);
    Files.delete(dataFile(f));
    Set<String> before = files();

    assertThatThrownBy(() -> new FileStoreCommit(t.store(), "writer").commit(messages, 1, false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(f.fileName());

    assertThat(latestId(t)).isEqualTo(1);
    assertThat(files()).isEqualTo(before);
    assertThat(rows(t)).containsExactly("(0,v0)");
  }

  @ParameterizedTest(name = "restored window: {0}")
  @ValueSource(booleans = {false, true})
  void aChangelogFileThatVanishedBeforeThePublishFailsTheCommit(boolean checkCommitted)
      throws Exception {
    Table t = changelogTable();
    List<CommitMessage> messages = new ArrayList<>(write(t, 1, 2));
    messages.addAll(write(t, 3)); // a second writer's message, whose changelog is there
    DataFileMeta changelog = messages.get(0).inputChangelog().get(0);
    DataFileMeta kept = messages.get(1).inputChangelog().get(0);
    Files.delete(dataFile(changelog));
    Set<String> before = files();

    assertThatThrownBy(
            () -> new FileStoreCommit(t.store(), "writer").commit(messages, 1, checkCommitted))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(changelog.fileName())
        .hasMessageNotContaining(kept.fileName());

    assertThat(t.latestSnapshot()).isEmpty();
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void aCommitWithInputChangelogListsItInTheSnapshotsOwnChangelogList() throws Exception {
    Table t = changelogTable();
    List<CommitMessage> messages = write(t, 1, 2);
    List<DataFileMeta> changelog = messages.get(0).inputChangelog();
    assertThat(changelog).isNotEmpty();

    new FileStoreCommit(t.store(), "writer").commit(messages, 1, false);

    Snapshot s = t.latestSnapshot().orElseThrow();
    assertThat(s.version()).isEqualTo(Snapshot.CHANGELOG_VERSION);
    assertThat(s.changelogManifestList()).isNotNull();
    List<String> listed = new ArrayList<>();
    for (var m : t.store().manifestList().read(s.changelogManifestList())) {
      for (ManifestEntry e : t.store().manifestFile().read(m)) {
        listed.add(e.file().fileName());
      }
    }
    assertThat(listed)
        .containsExactlyInAnyOrderElementsOf(
            changelog.stream().map(DataFileMeta::fileName).toList());
    assertThat(t.store().newScan().plan(s))
        .extracting(e -> e.file().fileName())
        .doesNotContainAnyElementsOf(listed);

    // A commit without changelog files makes a snapshot of the first version, with no list.
    Table plain = appendTableNamed("plain");
    TestTables.writeBatch(plain, List.of(row(1L, "a")));
    Snapshot p = plain.latestSnapshot().orElseThrow();
    assertThat(p.version()).isEqualTo(Snapshot.VERSION_1);
    assertThat(p.changelogManifestList()).isNull();
  }

  /** Which metadata file of a commit fails to be created. */
  static Stream<Arguments> failedMetadataWrites() {
    Predicate<String> manifest = p -> p.contains("/manifest/manifest-") && !p.contains("-list-");
    Predicate<String> list = p -> p.contains("/manifest/manifest-list-");
    return Stream.of(
        Arguments.of("the delta manifest", manifest),
        Arguments.of("a manifest list", list),
        Arguments.of("the snapshot", (Predicate<String>) p -> p.contains("/snapshot/.snapshot-")));
  }

  @ParameterizedTest(name = "an append with changelog, failing at {0}")
  @MethodSource("failedMetadataWrites")
  void aCommitWhoseMetadataCannotBeWrittenLeavesNothing(String what, Predicate<String> failing)
      throws Exception {
    Table t = changelogTable();
    new FileStoreCommit(t.store(), "writer").commit(write(t, 0), 1, false);
    List<CommitMessage> messages = write(t, 1, 2);
    Set<String> before = files();
    FaultyFileSystem.failCreate(failing);

    assertThatThrownBy(() -> new FileStoreCommit(t.store(), "writer").commit(messages, 2, false))
        .hasStackTraceContaining("Injected failure creating");

    FaultyFileSystem.reset();
    assertThat(latestId(t)).isEqualTo(1);
    assertThat(files()).isEqualTo(before);
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
    assertThat(rows(t)).containsExactly("(0,v0)");
  }

  @ParameterizedTest(name = "an overwrite, failing at {0}")
  @MethodSource("failedMetadataWrites")
  void anOverwriteWhoseMetadataCannotBeWrittenLeavesNothing(String what, Predicate<String> failing)
      throws Exception {
    Table t = appendTable();
    TestTables.writeBatch(t, List.of(row(0L, "v0")));
    List<CommitMessage> messages = write(t, 1);
    Set<String> before = files();
    FaultyFileSystem.failCreate(failing);

    FileStoreCommit committer = new FileStoreCommit(t.store(), "writer");
    assertThatThrownBy(() -> committer.overwrite(messages, null, BATCH, false))
        .hasStackTraceContaining("Injected failure creating");

    FaultyFileSystem.reset();
    assertThat(latestId(t)).isEqualTo(1);
    assertThat(files()).isEqualTo(before);
    // The same committer overwrites once the file system works again.
    assertThat(committer.overwrite(messages, null, BATCH, false)).containsExactly(2L);
    assertThat(rows(t)).containsExactly("(1,v1)");
  }

  @Test
  void anOverwriteDeletesTheInputChangelogItWasGiven() throws Exception {
    Table t = changelogTable();
    new FileStoreCommit(t.store(), "writer").commit(write(t, 0), 1, false);
    List<CommitMessage> messages = write(t, 1, 2);
    List<DataFileMeta> changelog = messages.get(0).inputChangelog();
    assertThat(changelog).isNotEmpty();

    List<Long> ids = new FileStoreCommit(t.store(), "writer").overwrite(messages, null, 2, false);

    assertThat(ids).containsExactly(2L);
    Snapshot s = t.latestSnapshot().orElseThrow();
    assertThat(s.commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(s.changelogManifestList()).isNull();
    for (DataFileMeta f : changelog) {
      assertThat(dataFile(f)).doesNotExist();
    }
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,v1)", "(2,v2)");
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void truncatingAnUnpartitionedTableRemovesEveryFileOnce() throws Exception {
    Table t = appendTable();
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    FileStoreCommit committer = new FileStoreCommit(t.store(), "admin");

    assertThat(committer.truncate(BATCH)).containsExactly(4L);

    Snapshot s = t.latestSnapshot().orElseThrow();
    assertThat(s.commitKind()).isEqualTo(CommitKind.OVERWRITE);
    assertThat(s.totalFileCount()).isZero();
    assertThat(s.totalRecordCount()).isZero();
    assertThat(rows(t)).isEmpty();
    // An empty table: nothing to truncate, no snapshot.
    assertThat(committer.truncate(BATCH)).isEmpty();
    assertThat(latestId(t)).isEqualTo(4);
  }

  @Test
  void aCommitAnEarlierAttemptPublishedReturnsThatSnapshotAndDeletesItsOwnManifests()
      throws Exception {
    Table t = appendTable();
    TestTables.writeBatch(t, List.of(row(0L, "v0")));
    List<CommitMessage> messages = write(t, 1);
    // The earlier attempt of the same commit (same user and identifier): a snapshot claimed under
    // the commit lock and published by the lock's next holder while this attempt was under way.
    FileStoreCommit earlier = new FileStoreCommit(t.store(), "job");
    AtomicBoolean published = new AtomicBoolean();
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/manifest/manifest-") && published.compareAndSet(false, true)) {
            earlier.commit(messages, 7, false);
          }
        });

    List<Long> ids = new FileStoreCommit(t.store(), "job").commit(messages, 7, false);

    assertThat(published).isTrue();
    assertThat(ids).containsExactly(2L);
    assertThat(latestId(t)).isEqualTo(2);
    Snapshot s = t.snapshotManager().snapshot(2);
    assertThat(s.commitUser()).isEqualTo("job");
    assertThat(s.commitIdentifier()).isEqualTo(7);
    assertThat(rows(t)).containsExactlyInAnyOrder("(0,v0)", "(1,v1)");
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void anAbortReturnsTheDeletesThatFailedAndDeletesTheRest() throws Exception {
    Table t = appendTable();
    List<CommitMessage> messages = new ArrayList<>(write(t, 1));
    messages.addAll(write(t, 2));
    DataFileMeta kept = messages.get(0).newFiles().get(0);
    DataFileMeta deleted = messages.get(1).newFiles().get(0);
    FaultyFileSystem.failDelete(p -> p.endsWith(kept.fileName()));

    List<IOException> failures = new FileStoreCommit(t.store(), "writer").abort(messages);

    assertThat(failures).hasSize(1);
    assertThat(failures.get(0)).hasMessageContaining(kept.fileName());
    assertThat(dataFile(kept)).exists();
    assertThat(dataFile(deleted)).doesNotExist();
  }

  @ParameterizedTest(name = "the landed message first: {0}")
  @ValueSource(booleans = {true, false})
  void anAbortKeepsTheChangelogALandedSnapshotListsAndDeletesChangelogNothingLists(
      boolean landedFirst) throws Exception {
    Table t = changelogTable();
    List<CommitMessage> landed = write(t, 1);
    new FileStoreCommit(t.store(), "writer").commit(landed, 1, false);
    TestTables.writeBatch(t, List.of(row(5L, "v5"))); // the landed commit is no longer the latest
    List<CommitMessage> lost = write(t, 2);
    List<DataFileMeta> landedChangelog = landed.get(0).inputChangelog();
    List<DataFileMeta> lostChangelog = lost.get(0).inputChangelog();
    assertThat(landedChangelog).isNotEmpty();
    assertThat(lostChangelog).isNotEmpty();

    // A restored committer that does not know what landed gives up on both and aborts them.
    List<CommitMessage> both = new ArrayList<>(landedFirst ? landed : lost);
    both.addAll(landedFirst ? lost : landed);
    assertThat(new FileStoreCommit(t.store(), "writer").abort(both)).isEmpty();

    for (DataFileMeta f : landedChangelog) {
      assertThat(dataFile(f)).as("changelog snapshot 1 lists").exists();
    }
    assertThat(dataFile(landed.get(0).newFiles().get(0))).as("a live data file").exists();
    for (DataFileMeta f : lostChangelog) {
      assertThat(dataFile(f)).as("changelog no snapshot lists").doesNotExist();
    }
    assertThat(dataFile(lost.get(0).newFiles().get(0))).doesNotExist();
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,v1)", "(5,v5)");
  }

  /**
   * An abort that cannot read the snapshots' changelog lists cannot tell which changelog files a
   * snapshot lists: it keeps them all (orphan removal takes those nothing lists) and still deletes
   * the data files no snapshot references.
   */
  @Test
  void anAbortThatCannotReadTheSnapshotsChangelogKeepsEveryChangelogFile() throws Exception {
    Table t = changelogTable();
    List<CommitMessage> landed = write(t, 1);
    new FileStoreCommit(t.store(), "writer").commit(landed, 1, false);
    List<CommitMessage> lost = write(t, 2);
    String list = t.latestSnapshot().orElseThrow().changelogManifestList();
    assertThat(list).isNotNull();
    List<CommitMessage> both = new ArrayList<>(landed);
    both.addAll(lost);

    ManifestCache.clear();
    FaultyFileSystem.failOpen(p -> p.endsWith("/" + list));
    assertThat(new FileStoreCommit(t.store(), "writer").abort(both)).isEmpty();
    FaultyFileSystem.reset();

    for (CommitMessage m : both) {
      for (DataFileMeta f : m.inputChangelog()) {
        assertThat(dataFile(f)).as("a changelog file").exists();
      }
    }
    assertThat(dataFile(landed.get(0).newFiles().get(0))).as("a live data file").exists();
    assertThat(dataFile(lost.get(0).newFiles().get(0))).doesNotExist();
    assertThat(rows(t)).containsExactly("(1,v1)");
  }

  /**
   * An abort must not delete a deletion-vector file the latest snapshot references; when it cannot
   * read the snapshot's index manifest to tell, it deletes nothing and says why.
   */
  @Test
  void anAbortThatCannotReadTheIndexManifestDeletesNothing() throws Exception {
    Table t = keyedTable("deletion-vectors.enabled", "true");
    new FileStoreCommit(t.store(), "writer").commit(write(t, 1, 2), 1, false);
    CommitMessage deletes = deletesFirstRowOfFirstFile(t, latestId(t));
    new FileStoreCommit(t.store(), "w2").commit(List.of(deletes), 1, false);
    String index = t.latestSnapshot().orElseThrow().indexManifest();
    assertThat(index).isNotNull();
    List<CommitMessage> lost = write(t, 3);
    Set<String> before = files();

    FaultyFileSystem.failOpen(p -> p.endsWith("/" + index));
    List<IOException> failures = new FileStoreCommit(t.store(), "writer").abort(lost);
    FaultyFileSystem.reset();

    assertThat(failures)
        .singleElement()
        .satisfies(e -> assertThat(e).hasMessageContaining("nothing was deleted"));
    assertThat(files()).isEqualTo(before);
  }

  /**
   * A deletion vector whose file vanished (orphan removal with a short threshold, or an earlier
   * attempt that dropped it): before the commit, the commit drops it as a lost compaction; while
   * the commit runs (after it checked its files), it is refused right before the publish. Nothing
   * is committed either way.
   */
  @ParameterizedTest(name = "vanished during the commit: {0}")
  @ValueSource(booleans = {false, true})
  void aDeletionVectorWhoseFileVanishedIsNotCommitted(boolean duringTheCommit) throws Exception {
    Table t = keyedTable("deletion-vectors.enabled", "true");
    new FileStoreCommit(t.store(), "writer").commit(write(t, 1, 2), 1, false);
    long base = latestId(t);
    CommitMessage m = deletesFirstRowOfFirstFile(t, base);
    List<DeletionFile> vectors = m.deletionFiles();
    Path dv = tableDir().resolve("index").resolve(vectors.get(0).dvFile());
    if (duringTheCommit) {
      FaultyFileSystem.onCreate(
          p -> {
            if (p.contains("/manifest/")) {
              Files.deleteIfExists(dv);
            }
          });
    } else {
      Files.delete(dv);
    }

    Throwable error =
        catchThrowable(() -> new FileStoreCommit(t.store(), "w2").commit(List.of(m), 2, false));

    FaultyFileSystem.reset();
    if (duringTheCommit) {
      assertThat(error)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("files it references are missing")
          .hasMessageContaining(vectors.get(0).dvFile());
    } else {
      assertThat(error)
          .isInstanceOf(CommitConflictException.class)
          .hasMessageContaining("outputs of its compaction are missing");
    }
    assertThat(latestId(t)).isEqualTo(base);
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,v1)", "(2,v2)");
  }

  /**
   * A message of a new deletion vector (written now) deleting the first row of the table's first
   * data file, against snapshot {@code base}.
   */
  private static CommitMessage deletesFirstRowOfFirstFile(Table t, long base) throws IOException {
    DataFileMeta target = t.newReadBuilder().newScan().plan().splits().get(0).files().get(0);
    List<DeletionFile> vectors =
        DeletionVectors.write(t.store(), Map.of(target.fileName(), RoaringBitmap.bitmapOf(0)));
    return new CommitMessage(
        BinaryRows.EMPTY, 0, 1, List.of(), List.of(), List.of(), vectors, OptionalLong.of(base));
  }

  @Test
  void anExclusiveCreateMakesAFileOnceAndNeverReplacesIt() throws Exception {
    Table t = appendTable();
    org.apache.flink.core.fs.Path file =
        new org.apache.flink.core.fs.Path(t.store().paths().root(), "exclusive");

    assertThat(SnapshotCommits.tryCreateExclusive(t.store(), file, "first".getBytes())).isTrue();
    assertThat(SnapshotCommits.tryCreateExclusive(t.store(), file, "second".getBytes())).isFalse();

    assertThat(Files.readString(tableDir().resolve("exclusive"))).isEqualTo("first");
  }

  @Test
  void describesIdentifiersForLogs() {
    assertThat(CommitCleanup.describeIdentifier(BATCH)).isEqualTo("batch commit");
    assertThat(CommitCleanup.describeIdentifier(3)).isEqualTo("identifier 3");
  }
}
