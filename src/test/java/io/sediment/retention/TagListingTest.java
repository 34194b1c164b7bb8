package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.maintenance.Tags;
import io.sediment.manifest.TagManager;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readers that decide which files are still referenced see every tag: a tag renamed while they
 * read is found under its new name (one listing could see neither name, and a snapshot expiry or
 * orphan removal then deleted the files it kept), and a tag deleted and made again by another
 * process within the store's time resolution is read again, not taken from this process's cache.
 */
class TagListingTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void aTagRenamedWhileTheTagsAreReadIsFoundUnderItsNewName() throws Exception {
    for (int seed = 1; seed <= 8; seed++) {
      Random rnd = new Random(seed);
      Table t =
          TestTables.create(
              TestTables.faultyCatalog(dir.resolve("s" + seed)),
              "t",
              TestTables.idValueSchema().build());
      int n = 2 + rnd.nextInt(4);
      Map<String, Long> expected = new TreeMap<>(); // tag name to snapshot id
      for (int i = 0; i < n; i++) {
        TestTables.writeBatch(t, List.of(row((long) i, "v")));
        new Tags(t).create("tag" + i, OptionalLong.empty());
        expected.put("tag" + i, (long) i + 1);
      }
      String renamed = "tag" + rnd.nextInt(n);
      // the rename runs when the readers open this tag's file (before or after its own)
      String openedDuring = "tag" + rnd.nextInt(n);
      AtomicBoolean fired = new AtomicBoolean();
      FaultyFileSystem.onOpen(
          path -> {
            if (path.endsWith("/tag/tag-" + openedDuring) && fired.compareAndSet(false, true)) {
              new Tags(t).rename(renamed, "renamed");
            }
          });
      Map<String, TagManager.Tag> read =
          new TagManager(t.store().fileIO(), t.store().paths()).all();
      FaultyFileSystem.reset();

      assertThat(fired).isTrue();
      // under its old name if read before the rename, else under its new one: never neither
      assertThat(read.values().stream().map(tag -> tag.snapshot().id()))
          .as("seed %d: %s renamed while %s was read", seed, renamed, openedDuring)
          .containsExactlyInAnyOrderElementsOf(expected.values());
    }
  }

  /**
   * Another process deleted a tag and made it again on another snapshot within the same second,
   * with a file of the same length: its path, time and size are those of the file this process
   * read. A tag file is cached only once it is older than the store's time resolution and clock
   * skew allow such a re-creation to keep, so the new content is read.
   */
  @Test
  void aTagMadeAgainElsewhereIsReadAgain() throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    for (long i = 1; i <= 2; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v")));
    }
    new Tags(t).create("nightly", OptionalLong.of(1));
    TagManager manager = new TagManager(t.store().fileIO(), t.store().paths());
    TagManager.Tag old = manager.all().get("nightly");
    assertThat(old.snapshot().id()).isEqualTo(1L);

    Path file = dir.resolve("db.db/t/tag/tag-nightly");
    FileTime time = Files.getLastModifiedTime(file);
    byte[] content =
        TagManager.fileContent(
            t.snapshotManager().snapshot(2), old.createdMillis(), old.timeRetained());
    assertThat(content).hasSize((int) Files.size(file));
    Files.write(file, content); // the other process's delete and create
    Files.setLastModifiedTime(file, time);

    assertThat(manager.all().get("nightly").snapshot().id()).isEqualTo(2L);
  }

  /**
   * A settled tag file (older than the margin) is read once per process: a file made again after
   * that has a later modification time, so the cache cannot serve an older content for it.
   */
  @Test
  void aSettledTagIsReadOnce() throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    for (long i = 1; i <= 2; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v")));
    }
    new Tags(t).create("weekly", OptionalLong.of(1));
    Path file = dir.resolve("db.db/t/tag/tag-weekly");
    FileTime hourAgo = FileTime.fromMillis(System.currentTimeMillis() - 3_600_000);
    Files.setLastModifiedTime(file, hourAgo);
    TagManager manager = new TagManager(t.store().fileIO(), t.store().paths());
    TagManager.Tag old = manager.all().get("weekly");
    assertThat(old.snapshot().id()).isEqualTo(1L);

    // changed in place, its time and size kept (no store does this): the cached content shows
    Files.write(
        file,
        TagManager.fileContent(
            t.snapshotManager().snapshot(2), old.createdMillis(), old.timeRetained()));
    Files.setLastModifiedTime(file, hourAgo);
    assertThat(manager.all().get("weekly").snapshot().id()).isEqualTo(1L);
  }
}
