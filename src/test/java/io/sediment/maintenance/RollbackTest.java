package io.sediment.maintenance;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rollbacks ({@link Rollback}) against a model, over generated histories of a partitioned append
 * table, a primary-key table and a primary-key table with deletion vectors: batch writes (upserts
 * and deletes on primary keys), full compactions, tags, snapshot expirations, and rollbacks to a
 * snapshot, a tag or a point in time, some of them run twice.
 *
 * <p>After every step the latest snapshot reads the model's rows, and after every rollback exactly
 * the target's rows, with no data file or metadata left that nothing references. At the end every
 * snapshot and tag still there reads the rows it had when it was made, and once the tags are
 * deleted and every snapshot but the latest expired, the latest still reads its rows and the table
 * holds exactly the data files it references: no rollback re-referenced a file that a later
 * snapshot removed (expiry would have deleted it), and none lost one.
 */
class RollbackTest {

  private static final int SEEDS = 12;
  private static final int STEPS = 30;

  @TempDir Path dir;

  /** What the histories reached, over the seeds of one run of the class. */
  private static final class Reached {
    int rollbacks;
    int toTags;
    int toTimestamps;
    int filesCopied;
    int filesCopiedWithVectors;
    int rerunsThatDidNothing;
    int expiredRefused;
  }

  private static final Reached TOTAL = new Reached();
  private static int seedsRun;

  static IntStream seeds() {
    return IntStream.range(0, SEEDS);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyRollbackRestoresTheTargetsRowsAndLosesNoFile(int seed) throws Exception {
    Reached reached = runHistory(seed);
    synchronized (TOTAL) {
      TOTAL.rollbacks += reached.rollbacks;
      TOTAL.toTags += reached.toTags;
      TOTAL.toTimestamps += reached.toTimestamps;
      TOTAL.filesCopied += reached.filesCopied;
      TOTAL.filesCopiedWithVectors += reached.filesCopiedWithVectors;
      TOTAL.rerunsThatDidNothing += reached.rerunsThatDidNothing;
      TOTAL.expiredRefused += reached.expiredRefused;
      seedsRun++;
    }
  }

  /** The histories reach every path they claim to (only after every seed ran). */
  @AfterAll
  static void theHistoriesReachEveryPath() {
    if (seedsRun < SEEDS) {
      return;
    }
    System.out.printf(
        "%d seeds: %d rollbacks (%d to tags, %d to points in time), %d files copied (%d with a"
            + " deletion vector), %d reruns that found it done, %d expired targets refused%n",
        seedsRun,
        TOTAL.rollbacks,
        TOTAL.toTags,
        TOTAL.toTimestamps,
        TOTAL.filesCopied,
        TOTAL.filesCopiedWithVectors,
        TOTAL.rerunsThatDidNothing,
        TOTAL.expiredRefused);
    assertThat(TOTAL.rollbacks).as("rollbacks").isGreaterThan(30);
    assertThat(TOTAL.toTags).as("rollbacks to a tag").isGreaterThan(5);
    assertThat(TOTAL.toTimestamps).as("rollbacks to a point in time").isGreaterThan(5);
    assertThat(TOTAL.filesCopied).as("files copied back").isGreaterThan(20);
    assertThat(TOTAL.filesCopiedWithVectors)
        .as("files copied back with a deletion vector")
        .isGreaterThan(3);
    assertThat(TOTAL.rerunsThatDidNothing).as("reruns that found it done").isGreaterThan(3);
    assertThat(TOTAL.expiredRefused).as("rollbacks to an expired snapshot refused").isPositive();
  }

  private enum Kind {
    APPEND,
    PRIMARY_KEY,
    DELETION_VECTORS
  }

  private Table table(Kind kind, FileSystemCatalog catalog) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING().notNull())
            .column("v", DataTypes.STRING())
            .partitionKeys("p")
            .option("compaction.min.file-num", "2")
            .option("snapshot.num-retained.max", "100000")
            .option("snapshot.time-retained", "100000 d");
    if (kind != Kind.APPEND) {
      b.primaryKey("p", "id").option("bucket", kind == Kind.PRIMARY_KEY ? "2" : "1");
    }
    if (kind == Kind.DELETION_VECTORS) {
      b.option("deletion-vectors.enabled", "true")
          .option("local-cache.enabled", "true")
          .option("local-cache.dir", dir.resolve("cache").toString());
    }
    return TestTables.create(catalog, "t", b.build());
  }

  private static List<String> rows(Table t) {
    List<String> out = TestTables.toStrings(t.rowType(), TestTables.readAll(t));
    out.sort(null);
    return out;
  }

  private static List<String> sorted(Map<String, String> model) {
    List<String> out = new ArrayList<>(model.values());
    out.sort(null);
    return out;
  }

  /** What the model knows of the snapshots and tags made. */
  private static final class History {
    // by snapshot id: the rows written up to it (level 0 included), and what a read of it saw
    final Map<Long, Map<String, String>> logical = new HashMap<>();
    final Map<Long, List<String>> visible = new HashMap<>();
    // rollback snapshots: the snapshot each rolled back to
    final Map<Long, Long> targetOf = new HashMap<>();
    final Map<String, Long> tags = new TreeMap<>();
  }

  private static Table at(Table t, long snapshotId) {
    return t.copy(Map.of("scan.snapshot-id", String.valueOf(snapshotId)));
  }

  private Reached runHistory(int seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Kind kind = Kind.values()[seed % 3];
    ManualClock clock = new ManualClock();
    Path warehouse = dir.resolve("wh-" + seed);
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse.toString()).withClock(clock);
    catalog.createDatabase("db", true);
    Table t = table(kind, catalog);
    SnapshotManager sm = t.snapshotManager();
    Reached reached = new Reached();
    Map<String, String> current = new TreeMap<>(); // key p/id -> rendered row
    History h = new History();
    Map<String, Long> tags = h.tags;
    long nextId = 0;
    int tagCount = 0;
    for (int step = 0; step < STEPS; step++) {
      clock.advance(Duration.ofSeconds(1));
      long before = sm.latestId().orElse(0L);
      int what = r.nextInt(100);
      String did;
      if (what < 40 || before == 0) {
        List<GenericRowData> rows = new ArrayList<>();
        int n = 1 + r.nextInt(5);
        for (int i = 0; i < n; i++) {
          String p = r.nextBoolean() ? "a" : "b";
          long id = kind == Kind.APPEND ? nextId++ : r.nextInt(12);
          String key = p + "/" + id;
          boolean delete = kind != Kind.APPEND && current.containsKey(key) && r.nextInt(4) == 0;
          String v = "s" + step;
          GenericRowData row = row(id, p, v);
          if (delete) {
            row.setRowKind(RowKind.DELETE);
            current.remove(key);
          } else {
            current.put(key, "(" + id + "," + p + "," + v + ")");
          }
          rows.add(row);
        }
        TestTables.writeBatch(t, rows);
        did = "write " + rows;
      } else if (what < 55) {
        t.newCompactBuilder().execute();
        did = "compact";
      } else if (what < 65) {
        String name = "tag-" + tagCount++;
        new Tags(t).create(name, OptionalLong.empty());
        tags.put(name, before);
        did = "tag " + name;
      } else if (what < 75) {
        int keep = 1 + r.nextInt(4);
        new ExpireSnapshots(t).retainMax(keep).execute();
        did = "expire to " + keep;
      } else {
        did = rollback(t, warehouse.resolve("db.db").resolve("t"), r, kind, current, h, reached);
      }
      long after = sm.latestId().orElse(0L);
      for (long id = before + 1; id <= after; id++) {
        h.logical.put(id, new TreeMap<>(current));
        List<String> seen = rows(at(t, id));
        h.visible.put(id, seen);
        Long target = h.targetOf.get(id);
        if (target != null) {
          assertThat(seen)
              .as("seed %d step %d (%s): the rollback reads what its target read", seed, step, did)
              .isEqualTo(h.visible.get(target));
        } else if (kind != Kind.DELETION_VECTORS
            || sm.snapshot(id).commitKind() != CommitKind.APPEND) {
          // (a deletion-vector table's readers skip level 0: its APPEND snapshots show less)
          assertThat(seen)
              .as("seed %d step %d (%s): snapshot %d reads the model", seed, step, did, id)
              .isEqualTo(sorted(current));
        }
      }
      assertThat(rows(t))
          .as("seed %d step %d (%s): the latest snapshot", seed, step, did)
          .isEqualTo(h.visible.get(after));
    }

    // every snapshot and tag still there reads what it had
    for (long id : sm.listIds()) {
      assertThat(rows(at(t, id))).as("seed %d: snapshot %d", seed, id).isEqualTo(h.visible.get(id));
    }
    for (Map.Entry<String, Long> tag : tags.entrySet()) {
      assertThat(rows(t.copy(Map.of("scan.tag-name", tag.getKey()))))
          .as("seed %d: tag %s", seed, tag.getKey())
          .isEqualTo(h.visible.get(tag.getValue()));
    }
    // without tags and older snapshots the latest still reads its rows, from exactly its files
    if (!tags.isEmpty()) {
      new Tags(t).delete(new ArrayList<>(tags.keySet()));
    }
    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(rows(t))
        .as("seed %d: after expiring all but the latest", seed)
        .isEqualTo(h.visible.get(sm.latestId().getAsLong()));
    Set<String> onDisk =
        TestTables.dataFiles(warehouse.resolve("db.db").resolve("t")).stream()
            .map(p -> p.getFileName().toString())
            .collect(Collectors.toSet());
    Set<String> referenced =
        t.store().newScan().plan(sm.latest().orElseThrow()).stream()
            .map(e -> e.file().fileName())
            .collect(Collectors.toSet());
    assertThat(onDisk).as("seed %d: the data files on disk", seed).isEqualTo(referenced);
    return reached;
  }

  /** A rollback to a random snapshot, tag or point in time, checked; returns what it did. */
  private String rollback(
      Table t,
      Path tableDir,
      SplittableRandom r,
      Kind kind,
      Map<String, String> current,
      History h,
      Reached reached) {
    Map<String, Long> tags = h.tags;
    SnapshotManager sm = t.snapshotManager();
    List<Long> ids = sm.listIds();
    long earliest = ids.get(0);
    Rollback rollback = new Rollback(t);
    if (earliest > 1 && r.nextInt(6) == 0) {
      long expired = 1 + r.nextInt((int) earliest - 1);
      assertThatThrownBy(() -> rollback.toSnapshot(expired))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Snapshot " + expired);
      assertThat(sm.listIds()).as("a refused rollback changes nothing").isEqualTo(ids);
      reached.expiredRefused++;
      return "rollback to expired " + expired + " refused";
    }
    int how = r.nextInt(3);
    long target;
    Rollback.Result result;
    String did;
    if (how == 0 && !tags.isEmpty()) {
      List<String> names = new ArrayList<>(tags.keySet());
      String tag = names.get(r.nextInt(names.size()));
      target = tags.get(tag);
      result = rollback.toTag(tag);
      reached.toTags++;
      did = "rollback to tag " + tag;
    } else if (how == 1) {
      Snapshot s = sm.snapshot(ids.get(r.nextInt(ids.size())));
      // the newest snapshot committed at or before its time (a step may make several)
      target = s.id();
      for (long id : ids) {
        if (sm.snapshot(id).timeMillis() <= s.timeMillis()) {
          target = Math.max(target, id);
        }
      }
      result = rollback.toTimestamp(s.timeMillis());
      reached.toTimestamps++;
      did = "rollback to time of " + s.id();
    } else {
      target = ids.get(r.nextInt(ids.size()));
      result = rollback.toSnapshot(target);
      did = "rollback to " + target;
    }
    assertThat(result.targetSnapshotId()).as(did).isEqualTo(target);
    current.clear();
    current.putAll(h.logical.get(target));
    assertThat(rows(t)).as("%s reads the target's rows", did).isEqualTo(h.visible.get(target));
    if (result.newSnapshotId().isPresent()) {
      h.targetOf.put(result.newSnapshotId().getAsLong(), target);
      reached.rollbacks++;
      reached.filesCopied += result.filesCopied();
      Snapshot made = sm.snapshot(result.newSnapshotId().getAsLong());
      assertThat(made.commitKind()).isEqualTo(CommitKind.OVERWRITE);
      if (kind == Kind.DELETION_VECTORS && made.indexManifest() != null) {
        reached.filesCopiedWithVectors += copiesWithVectors(t, made, result);
      }
      if (r.nextInt(3) == 0) {
        Rollback.Result again = new Rollback(t).toSnapshot(target);
        assertThat(again.newSnapshotId()).as("a rerun of %s", did).isEmpty();
        reached.rerunsThatDidNothing++;
      }
    }
    // orphan removal two days later (metadata is kept for a day) would find nothing
    Table later =
        new FileSystemCatalog(tableDir.getParent().getParent().toString())
            .withClock(Clock.offset(Clock.systemUTC(), Duration.ofDays(2)))
            .getTable("db.t");
    assertThat(new RemoveOrphanFiles(later).olderThan(Long.MAX_VALUE).dryRun(true).execute())
        .as("%s leaves no file that nothing references", did)
        .isEmpty();
    return did + " (" + result + ")";
  }

  /** How many of the files the rollback added have a deletion vector. */
  private static int copiesWithVectors(Table t, Snapshot made, Rollback.Result result) {
    if (result.filesCopied() == 0) {
      return 0;
    }
    try {
      Set<String> withVectors =
          new io.sediment.manifest.IndexManifest(t.store().fileIO(), t.store().paths())
              .read(made.indexManifest()).stream()
                  .map(e -> e.deletionFile().dataFile())
                  .collect(Collectors.toSet());
      Set<String> before =
          t.store().newScan().plan(t.snapshotManager().snapshot(made.id() - 1)).stream()
              .map(e -> e.file().fileName())
              .collect(Collectors.toSet());
      int n = 0;
      for (ManifestEntry e : t.store().newScan().plan(made)) {
        String name = e.file().fileName();
        if (!before.contains(name) && withVectors.contains(name)) {
          n++;
        }
      }
      return n;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * A rollback's snapshot must directly follow the one it was planned on: a commit that lands in
   * between makes it fail with nothing committed (the rollback then plans again).
   */
  @Test
  void aRollbackPlannedOnAnOlderSnapshotCommitsNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = table(Kind.APPEND, catalog);
    TestTables.writeBatch(t, List.of(row(1L, "a", "x")));
    TestTables.writeBatch(t, List.of(row(2L, "a", "y")));
    List<ManifestEntry> live = t.store().newScan().plan(t.snapshotManager().latest().orElseThrow());
    ManifestEntry second =
        live.stream().filter(e -> e.file().rowCount() == 1).reduce((a, b) -> b).orElseThrow();
    CommitMessage dropSecond =
        new CommitMessage(
            second.partition(),
            second.bucket(),
            second.totalBuckets(),
            List.of(),
            List.of(second.file()),
            List.of(),
            List.of(),
            OptionalLong.of(2));
    TestTables.writeBatch(t, List.of(row(3L, "b", "z")));
    List<Long> ids = t.snapshotManager().listIds();
    FileStoreCommit commit = new FileStoreCommit(t.store(), "rollback-to-1-test");
    assertThatThrownBy(() -> commit.rollback(List.of(dropSecond), 2))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("Snapshot 3 landed after snapshot 2");
    assertThat(t.snapshotManager().listIds()).isEqualTo(ids);
    assertThat(rows(t)).containsExactly("(1,a,x)", "(2,a,y)", "(3,b,z)");
  }

  /**
   * Commits that land while a rollback commits: it plans again on the new latest snapshot, reusing
   * its copies (each target file is copied once), and rolls the new commit back too; when commits
   * keep landing it gives up after its attempts, with its copies deleted and nothing changed.
   */
  @ParameterizedTest(name = "commits landing during {0} attempt(s)")
  @org.junit.jupiter.params.provider.ValueSource(ints = {1, Rollback.ATTEMPTS})
  void commitsLandingMeanwhileMakeItPlanAgainOrGiveUp(int racingAttempts) throws Exception {
    Table t = table(Kind.APPEND, TestTables.faultyCatalog(dir));
    TestTables.writeBatch(t, List.of(row(1L, "a", "x"), row(2L, "b", "x")));
    TestTables.writeBatch(t, List.of(row(3L, "a", "y"), row(4L, "b", "y")));
    List<String> atTwo = rows(t);
    t.newCompactBuilder().execute(); // 3: the files of 1 and 2 compacted, so copied back
    TestTables.writeBatch(t, List.of(row(5L, "a", "z"))); // 4
    int[] raced = {0};
    int[] copiesMade = {0};
    boolean[] inRace = {false};
    FaultyFileSystem.onCreate(
        p -> {
          if (p.contains("/bucket-") && p.endsWith(".parquet") && !inRace[0]) {
            copiesMade[0]++;
          }
          if (p.contains("/manifest/manifest-") && !inRace[0] && raced[0] < racingAttempts) {
            inRace[0] = true; // a writer commits while the rollback writes its manifest
            TestTables.writeBatch(t, List.of(row(10L + raced[0], "b", "late")));
            raced[0]++;
            inRace[0] = false;
          }
        });
    try {
      if (racingAttempts < Rollback.ATTEMPTS) {
        Rollback.Result r = new Rollback(t).toSnapshot(2);
        assertThat(r.previousSnapshotId()).as("planned again on the late commit").isEqualTo(5);
        assertThat(r.newSnapshotId()).hasValue(6);
        assertThat(r.filesCopied()).isEqualTo(4);
        assertThat(copiesMade[0]).as("each file copied once over both attempts").isEqualTo(4);
        assertThat(rows(t)).isEqualTo(atTwo);
      } else {
        List<String> before = new ArrayList<>(atTwo);
        assertThatThrownBy(() -> new Rollback(t).toSnapshot(2))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("other commits kept landing (3 attempts)");
        assertThat(t.snapshotManager().latest().orElseThrow().commitKind())
            .isEqualTo(CommitKind.APPEND);
        assertThat(rows(t)).hasSize(before.size() + 1 + racingAttempts);
      }
    } finally {
      FaultyFileSystem.reset();
    }
    assertThat(raced[0]).isEqualTo(racingAttempts);
    Table later =
        new FileSystemCatalog(dir.toString())
            .withClock(Clock.offset(Clock.systemUTC(), Duration.ofDays(2)))
            .getTable("db.t");
    assertThat(new RemoveOrphanFiles(later).olderThan(Long.MAX_VALUE).dryRun(true).execute())
        .as("no copy made twice or left behind")
        .isEmpty();
  }

  @Test
  void badTargetsAreRefusedNamingWhatThereIs() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = table(Kind.APPEND, catalog);
    Rollback rollback = new Rollback(t);
    assertThatThrownBy(() -> rollback.toSnapshot(1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no snapshot yet");
    TestTables.writeBatch(t, List.of(row(1L, "a", "x")));
    new Tags(t).create("one", OptionalLong.empty());
    assertThatThrownBy(() -> rollback.toSnapshot(7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Snapshot 7 is not there")
        .hasMessageContaining("snapshots 1 to 1");
    assertThatThrownBy(() -> rollback.toTag("two"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has no tag 'two'")
        .hasMessageContaining("[one]");
    long before = t.snapshotManager().snapshot(1).timeMillis() - 1;
    assertThatThrownBy(() -> rollback.toTimestamp(before))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the earliest, 1, was committed");
    assertThat(t.snapshotManager().listIds()).containsExactly(1L);
    Rollback.Result same = rollback.toTag("one");
    assertThat(same.newSnapshotId()).as("the latest holds the tag's files").isEmpty();
  }
}
