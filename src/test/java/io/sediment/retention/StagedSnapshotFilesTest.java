package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A staged snapshot ({@code snapshot/.snapshot-<id>.<uuid>.tmp}: claimed under the commit lock by a
 * committer that stopped before moving it into place, and published by the lock's next holder)
 * references files as a retained snapshot does, so orphan removal keeps them; a staged file that
 * cannot be read references nothing. The lock itself is not needed to make one: the test stages a
 * published snapshot by renaming its file, as the committer left it.
 */
class StagedSnapshotFilesTest {

  @TempDir Path dir;

  private Table table() {
    return TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
  }

  private Path snapshotDir() {
    return dir.resolve("db.db/t/snapshot");
  }

  /** Turns published snapshot {@code id} (the latest) back into a staged one; returns its file. */
  private Path stage(long id) throws Exception {
    Path staged = snapshotDir().resolve(".snapshot-" + id + "." + UUID.randomUUID() + ".tmp");
    Files.move(snapshotDir().resolve("snapshot-" + id), staged);
    Files.writeString(snapshotDir().resolve("LATEST"), String.valueOf(id - 1));
    return staged;
  }

  /**
   * Makes every manifest and manifest list three days old: orphan removal takes metadata only once
   * it is a day older than the threshold, and only being referenced may protect it then.
   */
  private void ageMetadata() throws Exception {
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - Duration.ofDays(3).toMillis());
    try (Stream<Path> files = Files.list(dir.resolve("db.db/t/manifest"))) {
      for (Path f : files.toList()) {
        Files.setLastModifiedTime(f, old);
      }
    }
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  @Test
  void orphanRemovalKeepsWhatAStagedSnapshotReferences() throws Exception {
    Table t = table();
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    TestTables.writeBatch(t, List.of(row(3L, "c")));
    Path staged = stage(3);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L);
    ageMetadata();

    // Every file counts as old enough: only being referenced protects one.
    List<org.apache.flink.core.fs.Path> removed =
        new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis() + 60_000).execute();

    assertThat(removed).isEmpty();
    // The next lock holder rolls it forward: the snapshot reads every row.
    Files.move(staged, snapshotDir().resolve("snapshot-3"));
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");
  }

  /**
   * The lock's next holder rolls a staged snapshot forward (writes the snapshot, then deletes the
   * staged file) while orphan removal runs, right as it comes to read the staged file: the snapshot
   * is then listed, or the staged file read, never neither. Orphan removal read the staged files
   * after listing the snapshots, so it saw neither and deleted the files the snapshot publishes.
   */
  @Test
  void aStagedSnapshotRolledForwardDuringOrphanRemovalKeepsItsFiles() throws Exception {
    Table t =
        TestTables.create(TestTables.faultyCatalog(dir), "t", TestTables.idValueSchema().build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Path staged = stage(2);
    ageMetadata();
    java.util.concurrent.atomic.AtomicBoolean rolled =
        new java.util.concurrent.atomic.AtomicBoolean();
    FaultyFileSystem.onOpen(
        path -> {
          if (path.contains("/snapshot/.snapshot-2.") && rolled.compareAndSet(false, true)) {
            Files.copy(staged, snapshotDir().resolve("snapshot-2"));
            Files.delete(staged);
          }
        });
    try {
      new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis() + 60_000).execute();
    } finally {
      FaultyFileSystem.reset();
    }

    assertThat(rolled).isTrue();
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  /**
   * A staged snapshot or tag claimed under the commit lock is published by the lock's next holder
   * however long that takes: orphan removal keeps it, of any age, until a snapshot of its id or a
   * later one (the holder rolls the claim forward first) or its tag exists, and then removes it. A
   * staged tag is kept so only on a table with the lock in its options: elsewhere it is a tag
   * creation that stopped, which nothing publishes.
   */
  @Test
  void aStagedSnapshotOrTagOfAnyAgeStaysUntilItIsPublished() throws Exception {
    Table t = table();
    Table locked = t.copy(Map.of("lock.enabled", "true"));
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    TestTables.writeBatch(t, List.of(row(3L, "c")));
    Path staged = stage(3);
    Path tagDir = dir.resolve("db.db/t/tag");
    Files.createDirectories(tagDir);
    Path stagedTag = tagDir.resolve(".tag-t1." + UUID.randomUUID() + ".tmp");
    Files.copy(snapshotDir().resolve("snapshot-1"), stagedTag);
    ageMetadata();
    age(staged, stagedTag);

    for (int run = 0; run < 2; run++) {
      List<org.apache.flink.core.fs.Path> removed =
          new RemoveOrphanFiles(locked).olderThan(System.currentTimeMillis() + 60_000).execute();
      assertThat(removed).as("run %s", run).isEmpty();
    }
    assertThat(staged).exists();
    assertThat(stagedTag).exists();

    // The next lock holder rolls the snapshot forward, and another creates the tag: left over.
    Path leftOver = snapshotDir().resolve(".snapshot-3." + UUID.randomUUID() + ".tmp");
    Files.copy(staged, leftOver);
    Files.move(staged, snapshotDir().resolve("snapshot-3"));
    Files.writeString(snapshotDir().resolve("LATEST"), "3");
    new io.sediment.maintenance.Tags(t).create("t1", java.util.OptionalLong.of(1));
    age(leftOver, stagedTag);
    List<org.apache.flink.core.fs.Path> removed =
        new RemoveOrphanFiles(locked).olderThan(System.currentTimeMillis() + 60_000).execute();
    assertThat(removed)
        .extracting(org.apache.flink.core.fs.Path::getName)
        .containsExactlyInAnyOrder(
            leftOver.getFileName().toString(), stagedTag.getFileName().toString());
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");

    // Without the lock a staged tag is a stopped creation: it goes once old, tag or not.
    Path stopped = tagDir.resolve(".tag-t2." + UUID.randomUUID() + ".tmp");
    Files.copy(snapshotDir().resolve("snapshot-3"), stopped);
    age(stopped);
    assertThat(new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis() + 60_000).execute())
        .extracting(org.apache.flink.core.fs.Path::getName)
        .containsExactly(stopped.getFileName().toString());
  }

  private static void age(Path... files) throws Exception {
    FileTime old = FileTime.fromMillis(System.currentTimeMillis() - Duration.ofDays(3).toMillis());
    for (Path f : files) {
      Files.setLastModifiedTime(f, old);
    }
  }

  @Test
  void aStagedFileThatCannotBeReadProtectsNothing() throws Exception {
    Table t = table();
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Path staged = stage(2);
    // Torn: the committer stopped while writing it. Snapshot 2's files are orphans now.
    Files.writeString(staged, "{\"version\" : 2, \"id\" : 2, \"baseMani", StandardCharsets.UTF_8);
    List<Path> before = TestTables.dataFiles(dir.resolve("db.db/t"));
    assertThat(before).hasSize(2);
    ageMetadata();

    List<org.apache.flink.core.fs.Path> removed =
        new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis() + 60_000).execute();

    assertThat(removed)
        .extracting(p -> p.getName())
        .anyMatch(n -> n.startsWith("data-"))
        .anyMatch(n -> n.startsWith("manifest-list-"));
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).hasSize(1);
    assertThat(rows(t)).containsExactly("(1,a)");
  }
}
