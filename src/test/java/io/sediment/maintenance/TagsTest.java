package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.TagManager;
import io.sediment.retention.SnapshotExpiration;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tags as an operator uses them: a tag keeps its snapshot readable ({@code scan.tag-name}) and its
 * files on disk after expiry and orphan removal, deleting it deletes the files only it kept, bad
 * input changes nothing, and a tag made while an expiration runs is either refused or kept.
 * Generated histories of commits, compactions, expirations and tags: {@code
 * retention.ExpirationModelTest}.
 */
class TagsTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /**
   * db.name: an append table, or a primary-key table with deletion vectors; no automatic expiry.
   */
  private Table table(String name, boolean primaryKey) {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Schema.Builder schema =
        TestTables.idValueSchema()
            .option("snapshot.num-retained.max", "100000")
            .option("compaction.min.file-num", "2");
    if (primaryKey) {
      schema.primaryKey("id").option("bucket", "1").option("deletion-vectors.enabled", "true");
    }
    return TestTables.create(catalog, name, schema.build());
  }

  private Path tableDir(String name) {
    return dir.resolve("db.db").resolve(name);
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  private static List<String> rowsOfTag(Table t, String tag) {
    return rows(t.copy(Map.of("scan.tag-name", tag)));
  }

  private Set<String> dataFiles(String name) throws Exception {
    try (Stream<Path> files = Files.walk(tableDir(name))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("data-"))
          .collect(Collectors.toSet());
    }
  }

  @ParameterizedTest(name = "primary key {0}")
  @ValueSource(booleans = {false, true})
  void aTagKeepsItsSnapshotAfterExpiryAndOrphanRemovalAndItsDeletionFreesItsFiles(
      boolean primaryKey) throws Exception {
    Table t = table("t", primaryKey);
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    List<String> atThree = rows(t);
    Tags tags = new Tags(t);
    long tagged = t.snapshotManager().latestId().getAsLong();
    TagManager.Tag tag = tags.create("before-compaction", OptionalLong.empty());
    assertThat(tag.snapshot().id()).as("the latest").isEqualTo(tagged);
    Set<String> filesAtThree =
        t.store().newScan().plan(tag.snapshot()).stream()
            .map(e -> e.file().fileName())
            .collect(Collectors.toSet());

    TestTables.writeBatch(t, List.of(row(0L, "changed")));
    t.newCompactBuilder().execute();
    long latest = t.snapshotManager().latestId().getAsLong();
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(latest);
    new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();

    assertThat(rowsOfTag(t, "before-compaction")).containsExactlyInAnyOrderElementsOf(atThree);
    assertThat(dataFiles("t")).containsAll(filesAtThree);
    List<String> now = rows(t);
    assertThat(now).hasSize(primaryKey ? 3 : 4);

    Tags.Deleted deleted = tags.delete(List.of("before-compaction"));
    assertThat(deleted.tags())
        .extracting(TagManager.Tag::name)
        .containsExactly("before-compaction");
    assertThat(deleted.dataFiles()).isEqualTo(filesAtThree.size());
    assertThat(dataFiles("t")).doesNotContainAnyElementsOf(filesAtThree);
    assertThat(deleted.metadataFiles()).isPositive();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(now);
    // nothing is left that orphan removal would take: the deletion took what only the tag kept
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()).isEmpty();
  }

  @Test
  void deletingATagOfASnapshotStillThereDeletesNoFileAndExpiryLaterDoes() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Tags tags = new Tags(t);
    tags.create("one", OptionalLong.of(1));
    tags.create("two", OptionalLong.of(1));
    t.newCompactBuilder().execute();
    Set<String> before = dataFiles("t");

    Tags.Deleted deleted = tags.delete(List.of("one"));
    assertThat(deleted.dataFiles()).isZero();
    assertThat(dataFiles("t")).isEqualTo(before);
    // tag two still keeps snapshot 1's file
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(rowsOfTag(t, "two")).containsExactly("(1,a)");
    tags.delete(List.of("two"));
    assertThat(dataFiles("t")).hasSize(1);
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  @Test
  void badInputIsRefusedAndChangesNothing() throws Exception {
    Table empty = table("empty", false);
    assertThatThrownBy(() -> new Tags(empty).create("t1", OptionalLong.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("db.empty has no snapshot yet: there is nothing to tag");

    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Tags tags = new Tags(t);
    tags.create("kept", OptionalLong.of(1));
    for (String bad : new String[] {"", " ", "a/b", "../x", "a  b", " a", "a ", "12", null}) {
      assertThatThrownBy(() -> tags.create(bad, OptionalLong.empty()))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageMatching("(Invalid tag name '.*': .*|A tag name must not be empty)");
      assertThatThrownBy(() -> tags.delete(java.util.Arrays.asList(bad)))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> tags.create("kept", OptionalLong.of(2)))
        .hasMessage("Tag 'kept' of db.t exists already; delete it first");
    for (long id : new long[] {0, 3, -1, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> tags.create("x", OptionalLong.of(id)))
          .hasMessage("Snapshot " + id + " is not there; db.t has snapshots 1 to 2");
    }
    assertThatThrownBy(() -> tags.delete(List.of("kept", "nope")))
        .hasMessage("db.t has no tag 'nope'; its tags are [kept]");
    assertThatThrownBy(() -> tags.delete(List.of())).hasMessage("Give the name of a tag to delete");
    assertThat(tags.all()).containsOnlyKeys("kept");
    assertThat(tags.all().get("kept").snapshot().id()).isEqualTo(1);

    // reads: a tag that is not there, and a tag with another start
    assertThatThrownBy(() -> rowsOfTag(t, "nope"))
        .hasMessageContaining("Tag 'nope' (scan.tag-name) of table ")
        .hasMessageEndingWith("is not there; its tags are [kept]");
    assertThatThrownBy(
            () -> t.copy(Map.of("scan.tag-name", "kept", "scan.snapshot-id", "1")).options())
        .hasMessageContaining(
            "give one of 'scan.snapshot-id', 'scan.timestamp-millis', 'scan.tag-name' and"
                + " 'scan.watermark'");
    assertThatThrownBy(() -> t.copy(Map.of("scan.tag-name", "kept", "scan.mode", "latest")))
        .hasMessageContaining("'scan.tag-name' goes with scan.mode 'from-snapshot'");
    // a stream starts with the tag's snapshot in full (StreamScanTest follows one)
    assertThat(
            t.copy(Map.of("scan.tag-name", "kept")).newReadBuilder().newStreamScan().resolveStart())
        .isEqualTo(new io.sediment.table.StreamScan.StartPoint(1L, 2L, false, "kept"));
    assertThat(rows(t.copy(Map.of("scan.tag-name", "kept", "scan.mode", "from-snapshot"))))
        .containsExactly("(1,a)");
  }

  /**
   * An expiration in progress retires the snapshot: its record is there (a run killed part way left
   * it), so the tag is refused and not left behind; the next run finishes the expiration.
   */
  @Test
  void aTagOfASnapshotAnExpirationInProgressRetiresIsRefused() throws Exception {
    Table t = table("t", false);
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    FaultyFileSystem.failDeletesAfter(0); // killed at its first delete, after its record
    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(1).execute())
        .isInstanceOf(RuntimeException.class);
    FaultyFileSystem.reset();
    assertThat(SnapshotExpiration.isRetiring(t.store(), 1)).isTrue();

    assertThatThrownBy(() -> new Tags(t).create("late", OptionalLong.of(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Tag 'late' of db.t was not made: an expiration in progress retires snapshot 1; tag a"
                + " later snapshot");
    assertThat(new Tags(t).all()).isEmpty();
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(3L);
    assertThat(rows(t)).hasSize(3);
  }

  /**
   * The other order: the tag is made after the expiration planned (without it) and before it
   * creates its record, so the tag's check finds no record. The expiration reads the tags again
   * once it holds the record and keeps the tag's files. Fails without that second read: the tagged
   * snapshot's files are deleted under the tag.
   */
  @Test
  void aTagMadeBetweenAnExpirationsPlanningAndItsRecordIsKept() throws Exception {
    Table t = table("t", false);
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    t.newCompactBuilder().execute(); // snapshot 4 replaces the three files
    AtomicBoolean tagged = new AtomicBoolean();
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/snapshot/.EXPIRING.") && tagged.compareAndSet(false, true)) {
            new Tags(t).create("racing", OptionalLong.of(3));
          }
        });
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(tagged).isTrue();
    assertThat(t.snapshotManager().listIds()).containsExactly(4L);
    assertThat(rowsOfTag(t, "racing")).containsExactlyInAnyOrder("(0,v0)", "(1,v1)", "(2,v2)");
  }

  /**
   * A tag whose metadata is gone (its creation was killed while an expiration retired its snapshot,
   * or a file was deleted by hand) cannot be read whatever is kept: it keeps nothing and blocks
   * neither expiry nor orphan removal, its read names the missing file, and it can be deleted. A
   * tag file that is no snapshot is no tag.
   */
  @Test
  void aTagThatCannotBeReadKeepsNothingAndBlocksNothing() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    new Tags(t).create("broken", OptionalLong.of(1));
    String list = new Tags(t).all().get("broken").snapshot().baseManifestList();
    TestTables.writeBatch(t, List.of(row(3L, "c")));
    Path tagFile = tableDir("t").resolve("tag").resolve("tag-broken");
    Files.writeString(tagFile, Files.readString(tagFile).replace(list, "manifest-list-gone"));
    Files.writeString(tableDir("t").resolve("tag").resolve("tag-garbage"), "{not json");

    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(3L);
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute()).isEmpty();
    assertThat(rows(t)).containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");
    assertThatThrownBy(() -> rowsOfTag(t, "broken")).hasStackTraceContaining("manifest-list-gone");
    assertThatThrownBy(() -> rowsOfTag(t, "garbage"))
        .hasStackTraceContaining("tag-garbage is not a valid snapshot");
    assertThat(new Tags(t).all()).containsOnlyKeys("broken");

    new Tags(t).delete(List.of("broken", "garbage"));
    assertThat(new TagManager(t.store().fileIO(), t.store().paths()).names()).isEmpty();
  }

  /**
   * The check after the tag file is written fails (the expiry record cannot be read): the tag is
   * deleted again, since an expiration may retire its snapshot unseen.
   */
  @Test
  void aTagWhoseCheckFailsIsNotLeftBehind() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    Files.writeString(tableDir("t").resolve("snapshot").resolve("EXPIRING"), "{damaged");
    assertThatThrownBy(() -> new Tags(t).create("v1", OptionalLong.empty()))
        .hasMessageContaining("EXPIRING");
    assertThat(new TagManager(t.store().fileIO(), t.store().paths()).names()).isEmpty();
  }

  /** What an interrupted tag creation leaves in tag/ goes with orphan removal; tags stay. */
  @Test
  void orphanRemovalTakesTemporaryTagFilesOnly() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    new Tags(t).create("v1", OptionalLong.empty());
    Path tmp = tableDir("t").resolve("tag").resolve(".tag-v2.1234.tmp");
    Files.writeString(tmp, "{");
    // metadata is an orphan only once older than a day (a creation may be in progress)
    Files.setLastModifiedTime(
        tmp,
        java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 172_800_000L));
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute())
        .extracting(p -> p.getName())
        .containsExactly(".tag-v2.1234.tmp");
    assertThat(tmp).doesNotExist();
    assertThat(new Tags(t).all()).containsOnlyKeys("v1");
  }

  /**
   * create_tag_from_timestamp's snapshot: the oldest still there committed at or after the time,
   * for times just before, at and after every commit (and before the oldest kept one once older
   * ones expired); none after the latest.
   */
  @Test
  void theSnapshotAtOrAfterATimeIsTheOldestCommittedThen() throws Exception {
    ManualClock clock = new ManualClock(java.time.Instant.parse("2026-06-01T00:00:00Z"));
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    Table t =
        TestTables.create(
            catalog,
            "timed",
            TestTables.idValueSchema().option("snapshot.num-retained.max", "100000").build());
    java.util.Random r = new java.util.Random(7);
    Map<Long, Long> committed = new java.util.TreeMap<>();
    for (long i = 1; i <= 12; i++) {
      clock.advance(java.time.Duration.ofMillis(1 + r.nextInt(3000)));
      TestTables.writeBatch(t, List.of(row(i, "v")));
      committed.put(i, t.snapshotManager().snapshot(i).timeMillis());
    }
    Tags tags = new Tags(t);
    for (int expired = 0; expired <= 6; expired += 6) {
      if (expired > 0) {
        new ExpireSnapshots(t).retainMax(12 - expired).execute();
      }
      long oldest = t.snapshotManager().earliestId().getAsLong();
      for (Map.Entry<Long, Long> c : committed.entrySet()) {
        for (long delta = -1; delta <= 1; delta++) {
          long time = c.getValue() + delta;
          long expected =
              committed.entrySet().stream()
                  .filter(e -> e.getKey() >= oldest && e.getValue() >= time)
                  .mapToLong(Map.Entry::getKey)
                  .min()
                  .orElse(-1);
          if (expected < 0) {
            assertThatThrownBy(() -> tags.snapshotAtOrAfter(time))
                .hasMessageStartingWith("No snapshot of db.timed was committed at or after ")
                .hasMessageContaining("the latest, 12, was committed ");
          } else {
            assertThat(tags.snapshotAtOrAfter(time)).as("at %d", time).isEqualTo(expected);
          }
        }
      }
    }
  }

  /**
   * Paimon's {@code time_retained}: over generated histories (tags with a retention of their own,
   * the table's {@code tag.default-time-retained} or none; commits; clock moves; {@code
   * expire_tags}), a batch commit, whose committer lists the tags, deletes exactly the tags whose
   * time ran out when the table has {@code tag.default-time-retained} (and none without it), and
   * {@code expire_tags} deletes them, with {@code older_than} every tag made before it too; the
   * rows each remaining tag reads never change, and the files only deleted tags kept go.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {0, 1, 2, 3, 4, 5})
  void tagsAreDeletedWhenTheirTimeRetainedRunsOutNeitherEarlierNorLater(int seed) throws Exception {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    ManualClock clock = new ManualClock(java.time.Instant.now());
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed)).withClock(clock);
    Schema.Builder schema =
        TestTables.idValueSchema()
            .option("snapshot.num-retained.max", "2")
            .option("snapshot.num-retained.min", "1");
    boolean withDefault = seed % 2 == 0;
    if (withDefault) {
      schema.option("tag.default-time-retained", "3 h");
    }
    Table t = TestTables.create(catalog, "t", schema.build());
    Tags tags = new Tags(t);
    Map<String, List<String>> rowsOfTags = new java.util.TreeMap<>();
    Map<String, TagManager.Tag> made = new java.util.HashMap<>();
    int expiredSeen = 0;
    for (int step = 0; step < 30; step++) {
      clock.advance(java.time.Duration.ofMinutes(r.nextInt(90)));
      int what = r.nextInt(10);
      if (what < 5) {
        TestTables.writeBatch(t, List.of(row((long) step, "v" + step)));
      } else if (what < 8 && t.snapshotManager().latestId().isPresent()) {
        String name = "t" + step;
        java.time.Duration retained =
            r.nextInt(3) == 0 ? null : java.time.Duration.ofMinutes(10 + r.nextInt(240));
        TagManager.Tag tag = tags.create(name, tags.checkSnapshot(OptionalLong.empty()), retained);
        made.put(name, tag);
        assertThat(tag.timeRetained())
            .as("its own retention, else the table's default")
            .isEqualTo(
                retained != null ? retained : withDefault ? java.time.Duration.ofHours(3) : null);
        rowsOfTags.put(name, rowsOfTag(t, name));
      } else {
        boolean olderThan = r.nextBoolean();
        long before = clock.millis() - java.time.Duration.ofMinutes(r.nextInt(300)).toMillis();
        List<String> expired =
            tags.expire(olderThan ? OptionalLong.of(before) : OptionalLong.empty()).stream()
                .map(TagManager.Tag::name)
                .toList();
        for (String name : expired) {
          assertThat(made.get(name).expiredAt(clock.millis()) || olderThan)
              .as("%s expired by expire_tags", name)
              .isTrue();
          rowsOfTags.remove(name);
        }
        expiredSeen += expired.size();
        for (TagManager.Tag left : tags.all().values()) {
          assertThat(left.expiredAt(clock.millis())).as("left by expire_tags").isFalse();
          if (olderThan) {
            assertThat(left.createdMillis()).isGreaterThanOrEqualTo(before);
          }
        }
        continue;
      }
      if (what < 5 && !withDefault) {
        // a table without tag.default-time-retained (nor automatic tags): commits list nothing
        // for tags, and expire_tags deletes them
        assertThat(tags.all().keySet()).isEqualTo(rowsOfTags.keySet());
      } else if (what < 5) {
        // the commit's committer deleted exactly the tags whose time ran out
        Set<String> kept = new java.util.TreeSet<>();
        for (Map.Entry<String, List<String>> e : rowsOfTags.entrySet()) {
          TagManager.Tag tag =
              new TagManager(t.store().fileIO(), t.store().paths()).get(e.getKey()).orElse(null);
          if (tag != null) {
            assertThat(tag.expiredAt(clock.millis()))
                .as("%s kept after its time", e.getKey())
                .isFalse();
            kept.add(e.getKey());
          }
        }
        for (String name : rowsOfTags.keySet()) {
          if (!kept.contains(name)) {
            assertThat(made.get(name).expiredAt(clock.millis()))
                .as("%s deleted only once its time ran out", name)
                .isTrue();
            expiredSeen++;
          }
        }
        rowsOfTags.keySet().retainAll(kept);
      }
      for (Map.Entry<String, List<String>> e : rowsOfTags.entrySet()) {
        assertThat(rowsOfTag(t, e.getKey())).as("tag %s", e.getKey()).isEqualTo(e.getValue());
      }
    }
    assertThat(expiredSeen).as("tags expired over the history").isPositive();
    // the files only deleted tags kept are gone: nothing is left for orphan removal
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()).isEmpty();
  }

  /**
   * A committer that runs many commits lists the tags when one it knows of is due, and otherwise at
   * most once per {@code TagExpiry.RECHECK}: a tag made elsewhere is deleted within that after its
   * time, never before.
   */
  @Test
  void aLongRunningCommitterDeletesATagMadeElsewhereWithinAnHourOfItsTime() throws Exception {
    ManualClock clock = new ManualClock(java.time.Instant.now());
    long start = clock.millis();
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    Table t =
        TestTables.create(
            catalog,
            "t",
            TestTables.idValueSchema().option("tag.default-time-retained", "1 d").build());
    io.sediment.table.WriteBuilder stream = t.newStreamWriteBuilder();
    io.sediment.table.TableCommit commit = stream.newCommit();
    long[] id = {0};
    Tags tags = new Tags(t);
    java.util.function.BiConsumer<String, Integer> tag =
        (name, minutes) ->
            tags.create(
                name,
                tags.checkSnapshot(OptionalLong.empty()),
                java.time.Duration.ofMinutes(minutes));
    java.util.function.IntConsumer at = // minutes since the start, then a commit
        minutes -> {
          clock.set(start + java.time.Duration.ofMinutes(minutes).toMillis());
          commit.commit(++id[0], TestTables.prepare(stream, List.of(row(id[0], "v"))));
        };
    at.accept(0); // lists: no tag
    tag.accept("a", 30); // made elsewhere: due at 30
    at.accept(31);
    assertThat(tags.all().keySet()).as("not listed since 0").containsExactly("a");
    at.accept(61); // an hour since it listed
    assertThat(tags.all()).isEmpty();
    tag.accept("b", 40); // due at 101, seen at the listing at 122 at the latest
    clock.set(start + java.time.Duration.ofMinutes(100).toMillis());
    tag.accept("c", 50); // due at 150
    at.accept(120);
    assertThat(tags.all().keySet()).containsExactly("b", "c");
    at.accept(122); // an hour since it listed: 'b' goes; it knows 'c' is due at 150
    assertThat(tags.all().keySet()).containsExactly("c");
    at.accept(150);
    assertThat(tags.all().keySet()).as("not before its time").containsExactly("c");
    at.accept(151); // the first commit after its time
    assertThat(tags.all()).isEmpty();
  }

  /**
   * A tag file whose retention is not a positive number of seconds (written by another tool) is
   * still a tag, kept until deleted; one beyond what a Duration holds is kept too.
   */
  @Test
  void aTagWithAnUnreadableRetentionIsKept() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    String snapshot = t.snapshotManager().latest().orElseThrow().toJson();
    java.nio.file.Path tagDir = Files.createDirectories(tableDir("t").resolve("tag"));
    for (String[] tag :
        new String[][] {{"iso", "\"PT1H\""}, {"negative", "-5"}, {"huge", "1e30"}}) {
      Files.writeString(
          tagDir.resolve("tag-" + tag[0]),
          snapshot.substring(0, snapshot.lastIndexOf('}'))
              + ", \"tagCreatedMillis\": 0, \"tagTimeRetained\": "
              + tag[1]
              + "}");
    }
    Map<String, TagManager.Tag> all = new Tags(t).all();
    assertThat(all).containsOnlyKeys("huge", "iso", "negative");
    assertThat(all.get("iso").timeRetained()).isNull();
    assertThat(all.get("negative").timeRetained()).isNull();
    assertThat(all.get("huge").expiredAt(Long.MAX_VALUE - 1)).isFalse();
    assertThat(new Tags(t).expire(OptionalLong.empty())).as("none ran out").isEmpty();
    assertThat(rowsOfTag(t, "iso")).containsExactly("(1,a)");
  }

  /**
   * rename_tag: the same snapshot, creation time and retention under the new name; the tag keeps
   * its files through expiry and orphan removal, the old name is gone; bad input changes nothing.
   */
  @Test
  void aRenamedTagIsTheSameTagUnderANewName() throws Exception {
    Table t = table("t", false);
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Tags tags = new Tags(t);
    TagManager.Tag a =
        tags.create("a", tags.checkSnapshot(OptionalLong.of(1)), java.time.Duration.ofDays(3));
    List<String> rowsOfA = rowsOfTag(t, "a");
    t.newCompactBuilder().execute();
    new ExpireSnapshots(t).retainMax(1).execute(); // snapshot 1 expires; the tag keeps its file

    TagManager.Tag b = tags.rename("a", "b");
    assertThat(b.snapshot().id()).isEqualTo(1);
    assertThat(b.createdMillis()).isEqualTo(a.createdMillis());
    assertThat(b.timeRetained()).isEqualTo(java.time.Duration.ofDays(3));
    assertThat(tags.all()).containsOnlyKeys("b");
    new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();
    assertThat(rowsOfTag(t, "b")).isEqualTo(rowsOfA);

    tags.create("c", OptionalLong.empty());
    assertThatThrownBy(() -> tags.rename("b", "c"))
        .hasMessageContaining("Tag 'c' of db.t exists already");
    assertThatThrownBy(() -> tags.rename("a", "d"))
        .hasMessageContaining("db.t has no tag 'a'; its tags are [b, c]");
    assertThatThrownBy(() -> tags.rename("b", "12")).hasMessageContaining("Invalid tag name '12'");
    assertThat(tags.all()).containsOnlyKeys("b", "c");
    assertThat(tags.delete(List.of("b")).dataFiles()).as("the files only it kept").isPositive();

    // The tag deleted (its retention, a delete_tag, with the files only it kept) while the new
    // name is created: the new name would point at deleted files, so nothing is renamed.
    tags.create("d", OptionalLong.empty());
    java.util.concurrent.atomic.AtomicBoolean deleted =
        new java.util.concurrent.atomic.AtomicBoolean();
    io.sediment.testutil.FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("tag-e") && deleted.compareAndSet(false, true)) {
            tags.delete(List.of("d"));
          }
        });
    try {
      assertThatThrownBy(() -> tags.rename("d", "e"))
          .hasMessageContaining(
              "Tag 'd' of db.t was deleted while being renamed to 'e': nothing was renamed");
    } finally {
      io.sediment.testutil.FaultyFileSystem.onCreate(p -> {});
    }
    assertThat(deleted).isTrue();
    assertThat(tags.all()).containsOnlyKeys("c");
  }

  /**
   * Paimon's {@code replace_tag}: the tag keeps another snapshot from now on, made now with the
   * given retention, and the files only the old tag kept are deleted (nothing else is); a tag that
   * is not there, or a snapshot that is not, is refused and changes nothing. An expiration that
   * retires the new snapshot meanwhile leaves no tag (it may have seen either one).
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aReplacedTagKeepsTheNewSnapshotAndFreesWhatOnlyTheOldOneKept(boolean primaryKey)
      throws Exception {
    // two days ahead: orphan removal then sees every file as old enough to delete
    ManualClock clock = new ManualClock(java.time.Instant.now().plus(java.time.Duration.ofDays(2)));
    Table t =
        TestTables.create(
            TestTables.faultyCatalog(dir).withClock(clock),
            "t",
            (primaryKey
                    ? TestTables.idValueSchema()
                        .primaryKey("id")
                        .option("bucket", "1")
                        .option("deletion-vectors.enabled", "true")
                    : TestTables.idValueSchema())
                .option("compaction.min.file-num", "2")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    Tags tags = new Tags(t);
    tags.create("t", tags.checkSnapshot(OptionalLong.of(1)), null);
    List<String> rowsOfOne = rowsOfTag(t, "t");
    t.newCompactBuilder().withStrategy(io.sediment.compact.CompactStrategy.FULL).execute();
    new ExpireSnapshots(t).retainMax(1).execute(); // snapshot 1 expires; the tag keeps its file
    Set<String> before = dataFiles("t");
    clock.advance(java.time.Duration.ofHours(1));

    long latest = t.snapshotManager().latestId().orElseThrow();
    TagManager.Tag replaced =
        tags.replace("t", tags.checkSnapshot(OptionalLong.empty()), java.time.Duration.ofDays(2));
    assertThat(replaced.snapshot().id()).isEqualTo(latest);
    assertThat(replaced.createdMillis()).isEqualTo(clock.millis());
    assertThat(replaced.timeRetained()).isEqualTo(java.time.Duration.ofDays(2));
    assertThat(rowsOfTag(t, "t")).containsExactlyInAnyOrderElementsOf(rows(t));
    assertThat(rowsOfTag(t, "t")).isNotEqualTo(rowsOfOne);
    Set<String> freed = new java.util.HashSet<>(before);
    freed.removeAll(dataFiles("t"));
    assertThat(freed).as("the old tag's files, which nothing else kept").isNotEmpty();
    Set<String> live = new java.util.HashSet<>();
    t.store()
        .newScan()
        .plan(t.snapshotManager().latest().orElseThrow())
        .forEach(e -> live.add(e.file().fileName()));
    assertThat(dataFiles("t")).as("what the table reads, and nothing else").isEqualTo(live);
    // nothing the replacement left behind for orphan removal
    assertThat(new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute()).isEmpty();

    assertThatThrownBy(() -> tags.replace("nope", tags.checkSnapshot(OptionalLong.empty()), null))
        .hasMessage("db.t has no tag 'nope'; its tags are [t]");
    assertThatThrownBy(() -> tags.checkSnapshot(OptionalLong.of(1)))
        .hasMessageContaining("Snapshot 1 is not there");
    assertThat(tags.all().get("t").snapshot().id()).as("nothing changed").isEqualTo(latest);
    assertThat(tags.replace("t", tags.checkSnapshot(OptionalLong.empty()), null).timeRetained())
        .as("as in Paimon, no retention unless given")
        .isNull();
  }

  /**
   * A replacement whose new snapshot an expiration in progress retires leaves no tag: the
   * expiration may have read the old tag or the new one, so neither can stay.
   */
  @Test
  void aReplacementOfASnapshotAnExpirationInProgressRetiresLeavesNoTag() throws Exception {
    Table t = table("t", false);
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    Tags tags = new Tags(t);
    tags.create("r", OptionalLong.of(3));
    FaultyFileSystem.failDeletesAfter(0); // killed at its first delete, after its record
    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(1).execute())
        .isInstanceOf(RuntimeException.class);
    FaultyFileSystem.reset();
    assertThatThrownBy(() -> tags.replace("r", tags.checkSnapshot(OptionalLong.of(1)), null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Tag 'r' of db.t was not replaced: an expiration in progress retires snapshot 1; it is"
                + " deleted, create it of a later snapshot");
    assertThat(tags.all()).isEmpty();
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(rows(t)).hasSize(3);
  }
}
