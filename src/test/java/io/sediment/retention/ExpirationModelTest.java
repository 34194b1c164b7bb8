package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.io.DataFileFactory;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TagManager;
import io.sediment.manifest.UserCommit;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Expirations against a model, over generated histories of a partitioned append table and a
 * primary-key table with deletion vectors and changelog files: stream commits of two users (now and
 * then without the hint written after the commit, as a writer that died before writing it: the hint
 * still names the user's previous commit, or is missing after its first), batch commits,
 * compactions that replace files, clock moves, a consumer holding a snapshot, snapshots whose
 * metadata an older version's interrupted expiration deleted, and expirations with settings drawn
 * at and around their boundaries, a third of them after a commit (the automatic expiry's shortcut,
 * which must not list the snapshots when the hint shows it keeps them all) and a quarter killed
 * part way.
 *
 * <p>After every step the model checks what a user relies on: an expiration expires exactly the
 * snapshots the rules name (an unfinished one's first, within the limit), never a file a kept
 * snapshot needs; once finished, no file that no kept snapshot needs is left (data files, manifest
 * lists, manifests), the counts it reports are the files it deleted, the {@code EARLIEST} hint
 * names the oldest kept snapshot, each user whose last stream commit expired finds it in its hint,
 * and the latest snapshot reads every row written. A killed run leaves its record, and the next run
 * finishes it.
 */
class ExpirationModelTest {

  private static final int SEEDS = 20;
  private static final int STEPS = 40;
  private static final List<String> USERS = List.of("u0", "u1");
  private static final String CONSUMER = "reader";

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** What the model knows of one snapshot from when it was made. */
  private record Made(
      long time,
      String user,
      boolean stream,
      Set<String> data,
      Set<String> metadata,
      Set<String> index) {

    /** Every file it references under {@code manifest/} and {@code index/}. */
    Set<String> allMetadata() {
      Set<String> all = new HashSet<>(metadata);
      all.addAll(index);
      return all;
    }
  }

  private static final class Model {
    final Map<Long, Made> snapshots = new TreeMap<>();
    // snapshots whose metadata (and the data only they used) an older version's run deleted
    final Set<Long> gone = new HashSet<>();
    final Map<String, Long> nextIdentifier = new HashMap<>();
    // the rows of the latest snapshot by key (an append table's keys never repeat)
    final Map<String, String> rows = new HashMap<>();
    // tags by name: the snapshot each keeps, and that snapshot's rows
    final Map<String, Long> tags = new TreeMap<>();
    final Map<String, List<String>> tagRows = new HashMap<>();
    // the snapshots of the record a killed run left
    List<Long> pending = List.of();
    long lastSeen = -1;
    int expired;
    int killed;
    int finishedRecords;
    int goneSwept;
    int staleHints;
    int olderRunsOfSeveral;
    int olderRunsWithSnapshotFiles;
    int hintsRecorded;
    int shortcuts;
    int tagsOfExpired;
    int tagFilesDeleted;
  }

  // what the histories reached, over the seeds of one run of the class
  private static final Model TOTAL = new Model();
  private static int seedsRun;

  static IntStream seeds() {
    return IntStream.range(0, SEEDS);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyExpirationKeepsWhatTheRulesKeepAndDeletesTheRest(int seed) throws Exception {
    Model m = runHistory(seed);
    synchronized (TOTAL) {
      TOTAL.expired += m.expired;
      TOTAL.killed += m.killed;
      TOTAL.finishedRecords += m.finishedRecords;
      TOTAL.goneSwept += m.goneSwept;
      TOTAL.staleHints += m.staleHints;
      TOTAL.olderRunsOfSeveral += m.olderRunsOfSeveral;
      TOTAL.olderRunsWithSnapshotFiles += m.olderRunsWithSnapshotFiles;
      TOTAL.hintsRecorded += m.hintsRecorded;
      TOTAL.shortcuts += m.shortcuts;
      TOTAL.tagsOfExpired += m.tagsOfExpired;
      TOTAL.tagFilesDeleted += m.tagFilesDeleted;
      seedsRun++;
    }
  }

  /**
   * The histories reach every path they claim to. Only after every seed ran (a run of some seeds,
   * as a mutation-testing tool makes, reaches fewer).
   */
  @AfterAll
  static void theHistoriesReachEveryPath() {
    if (seedsRun < SEEDS) {
      return;
    }
    System.out.printf(
        "%d seeds: %d snapshots expired, %d runs killed, %d records finished, %d gone snapshots"
            + " swept, %d hints written by an expiry, %d runs decided without a listing, %d stale"
            + " hints, %d older runs over several snapshots (%d with snapshot files), %d tags of"
            + " expired snapshots, %d files deleted with a tag%n",
        seedsRun,
        TOTAL.expired,
        TOTAL.killed,
        TOTAL.finishedRecords,
        TOTAL.goneSwept,
        TOTAL.hintsRecorded,
        TOTAL.shortcuts,
        TOTAL.staleHints,
        TOTAL.olderRunsOfSeveral,
        TOTAL.olderRunsWithSnapshotFiles,
        TOTAL.tagsOfExpired,
        TOTAL.tagFilesDeleted);
    assertThat(TOTAL.expired).as("snapshots expired").isGreaterThan(100);
    assertThat(TOTAL.killed).as("runs killed part way").isGreaterThan(5);
    assertThat(TOTAL.finishedRecords).as("records finished by a later run").isGreaterThan(5);
    assertThat(TOTAL.goneSwept).as("gone snapshots swept").isGreaterThan(3);
    assertThat(TOTAL.staleHints).as("hints left naming an older commit").isGreaterThan(3);
    assertThat(TOTAL.olderRunsOfSeveral).as("older runs over several snapshots").isGreaterThan(3);
    assertThat(TOTAL.olderRunsWithSnapshotFiles)
        .as("older runs that deleted snapshot files")
        .isGreaterThan(0);
    assertThat(TOTAL.hintsRecorded).as("hints the expiry wrote").isGreaterThan(3);
    assertThat(TOTAL.shortcuts).as("runs decided without a listing").isGreaterThan(3);
    assertThat(TOTAL.tagsOfExpired).as("tags whose snapshot expired").isGreaterThan(3);
    assertThat(TOTAL.tagFilesDeleted).as("files only a deleted tag kept").isGreaterThan(0);
  }

  /**
   * A record naming the latest snapshot (written by a faulty tool or edited by hand) is refused
   * before anything is deleted: the latest snapshot is never expired.
   */
  @Test
  void aRecordNamingTheLatestSnapshotIsRefusedAndNothingIsDeleted() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("wh"));
    Table t =
        TestTables.create(
            catalog, "t", Schema.newBuilder().column("id", DataTypes.BIGINT()).build());
    TestTables.writeBatch(t, List.of(row(1L)));
    TestTables.writeBatch(t, List.of(row(2L)));
    SnapshotManager sm = t.snapshotManager();
    ExpiryRecord record =
        ExpiryRecord.of(
            List.of(TableFiles.Retired.of(sm.snapshot(1)), TableFiles.Retired.of(sm.snapshot(2))));
    assertThat(record.create(t.store(), t.store().paths().expiryRecord())).isTrue();
    Path tableDir = dir.resolve("wh").resolve("db.db").resolve("t");
    Set<String> data = dataOnDisk(tableDir);
    Set<String> metadata = metadataOnDisk(tableDir);

    assertThatThrownBy(() -> new SnapshotExpiration(t.store(), "t").retainMax(1).execute())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "names snapshot 2, but the latest snapshot is 2 and is never expired");

    assertThat(sm.listIds()).containsExactly(1L, 2L);
    assertThat(dataOnDisk(tableDir)).isEqualTo(data);
    assertThat(metadataOnDisk(tableDir)).isEqualTo(metadata);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1)", "(2)");
  }

  /**
   * A listed snapshot is expired when a file it is read by is gone, a base manifest too: snapshots
   * 2 and 3 name in their base lists the manifest snapshot 1 wrote, which is gone with snapshot 1's
   * files (snapshot 4 merged it away), while their own lists and delta manifests are there. An
   * expiration whose settings keep every snapshot expires those two, deletes what only they
   * referenced, and keeps the rows.
   */
  @Test
  void aSnapshotMissingOnlyABaseManifestIsExpired() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir.resolve("wh"));
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .option("manifest.merge-min-count", "3")
                .build());
    for (long i = 1; i <= 5; i++) {
      TestTables.writeBatch(t, List.of(row(i)));
    }
    SnapshotManager sm = t.snapshotManager();
    String written = manifests(t, sm.snapshot(1).deltaManifestList()).get(0);
    assertThat(manifests(t, sm.snapshot(2).baseManifestList())).containsExactly(written);
    assertThat(manifests(t, sm.snapshot(3).baseManifestList())).contains(written);
    assertThat(manifests(t, sm.snapshot(4).baseManifestList())).doesNotContain(written);
    Path tableDir = dir.resolve("wh").resolve("db.db").resolve("t");
    Snapshot first = sm.snapshot(1);
    for (String name : List.of(first.baseManifestList(), first.deltaManifestList(), written)) {
      Files.delete(tableDir.resolve("manifest").resolve(name));
    }
    Files.delete(tableDir.resolve("snapshot").resolve("snapshot-1"));

    SnapshotExpiration.Result result = new SnapshotExpiration(t.store(), "t").execute();

    assertThat(result.expiredSnapshots()).containsExactly(2L, 3L);
    assertThat(sm.listIds()).containsExactly(4L, 5L);
    assertThat(metadataOnDisk(tableDir))
        .as("only what snapshots 4 and 5 reference")
        .isEqualTo(TableFiles.ofRetainedSnapshots(t.store()).metadataNames());
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1)", "(2)", "(3)", "(4)", "(5)");
  }

  private static List<String> manifests(Table t, String list) throws IOException {
    return t.store().manifestList().read(list).stream().map(m -> m.fileName()).toList();
  }

  private Model runHistory(int seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Path warehouse = dir.resolve("wh-" + seed);
    FileSystemCatalog catalog =
        new FileSystemCatalog(FaultyFileSystem.uri(warehouse)).withClock(clock);
    catalog.createDatabase("db", true);
    // odd seeds: a primary-key table with deletion vectors and changelog files, whose snapshots
    // also reference index manifests, vector files and changelog manifest lists
    boolean primaryKey = seed % 2 == 1;
    Schema.Builder schema =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING().notNull())
            .column("v", DataTypes.INT())
            .partitionKeys("p")
            .option("compaction.min.file-num", "2")
            // expired snapshots own manifests
            .option("manifest.merge-min-count", "3")
            // no automatic expiry: the test runs every expiration
            .option("snapshot.num-retained.max", "100000")
            .option("snapshot.time-retained", "100000 d");
    if (primaryKey) {
      schema
          .primaryKey("id", "p")
          .option("bucket", "1")
          .option("deletion-vectors.enabled", "true")
          .option("changelog-producer", "input");
    }
    Table t = TestTables.create(catalog, "t", schema.build());
    Path tableDir = warehouse.resolve("db.db").resolve("t");
    Model m = new Model();
    long nextRow = 0;
    for (int step = 0; step < STEPS; step++) {
      int op = r.nextInt(100);
      String what;
      if (op < 30) {
        String user = USERS.get(r.nextInt(USERS.size()));
        long id = m.nextIdentifier.merge(user, 1L, Long::sum);
        List<String> written = rowsToWrite(r, m, primaryKey, nextRow);
        nextRow += written.size();
        Path hint = localPath(t.snapshotManager().userHintPath(user));
        byte[] hintBefore = Files.exists(hint) ? Files.readAllBytes(hint) : null;
        streamCommit(t, user, id, written);
        remember(m, written);
        recordNew(t, m);
        what = "stream commit of " + user;
        if (r.nextInt(4) == 0) {
          // the writer died before writing the hint that follows the commit: the hint still
          // names its previous commit (or does not exist before its first)
          if (hintBefore == null) {
            Files.deleteIfExists(hint);
          } else {
            Files.write(hint, hintBefore);
          }
          what += hintBefore == null ? ", hint lost" : ", hint stale";
          m.staleHints += hintBefore == null ? 0 : 1;
        }
      } else if (op < 40) {
        List<String> written = rowsToWrite(r, m, primaryKey, nextRow);
        nextRow += written.size();
        TestTables.writeBatch(t, written.stream().map(ExpirationModelTest::toRow).toList());
        remember(m, written);
        recordNew(t, m);
        what = "batch commit";
      } else if (op < 50) {
        t.newCompactBuilder().execute();
        recordNew(t, m);
        what = "compaction";
      } else if (op < 62) {
        clock.advance(Duration.ofSeconds(r.nextInt(4)));
        what = "clock";
      } else if (op < 67) {
        List<Long> ids = t.snapshotManager().listIds();
        if (ids.isEmpty() || r.nextInt(3) == 0) {
          Files.deleteIfExists(localPath(t.store().paths().consumer(CONSUMER)));
        } else {
          new ConsumerManager(t.store().fileIO(), t.store().paths())
              .record(CONSUMER, ids.get(r.nextInt(ids.size())) + r.nextInt(2));
        }
        what = "consumer";
      } else if (op < 71) {
        what = "older version's interrupted expiration " + olderVersionRun(r, t, m, tableDir);
      } else if (op < 79) {
        what = tag(r, t, m, tableDir);
      } else {
        what = expire(r, t, m, tableDir);
      }
      // the rows only where they could be lost (writes are checked by other tests)
      check(
          t,
          m,
          tableDir,
          op >= 67 || step == STEPS - 1 || !m.tags.isEmpty() && r.nextInt(4) == 0,
          "seed " + seed + " step " + step + " (" + what + ")");
    }
    return m;
  }

  /** New rows, and on a primary-key table now and then a new value of a written key. */
  private static List<String> rowsToWrite(
      SplittableRandom r, Model m, boolean primaryKey, long first) {
    List<String> rows = new ArrayList<>();
    int n = 1 + r.nextInt(2);
    for (int i = 0; i < n; i++) {
      int v = r.nextInt(1000);
      if (primaryKey && !m.rows.isEmpty() && r.nextBoolean()) {
        List<String> keys = new ArrayList<>(new TreeMap<>(m.rows).keySet());
        String key = keys.get(r.nextInt(keys.size()));
        if (rows.stream().noneMatch(row -> row.startsWith("(" + key + ","))) {
          rows.add("(" + key + "," + v + ")");
        }
      } else {
        rows.add("(" + (first + i) + "," + (r.nextBoolean() ? "a" : "b") + "," + v + ")");
      }
    }
    return rows;
  }

  private static void remember(Model m, List<String> written) {
    for (String row : written) {
      String[] parts = row.substring(1, row.length() - 1).split(",");
      m.rows.put(parts[0] + "," + parts[1], row);
    }
  }

  private static org.apache.flink.table.data.GenericRowData toRow(String rendered) {
    String[] parts = rendered.substring(1, rendered.length() - 1).split(",");
    return row(Long.parseLong(parts[0]), parts[1], Integer.parseInt(parts[2]));
  }

  private static void streamCommit(Table t, String user, long identifier, List<String> rows)
      throws IOException {
    WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(user);
    List<CommitMessage> messages;
    try (TableWrite write = wb.newWrite()) {
      for (String row : rows) {
        write.write(toRow(row));
      }
      messages = write.prepareCommit();
    }
    // a primary-key writer may commit its own compaction too: two snapshots
    assertThat(wb.newCommit().commit(identifier, messages)).isNotEmpty();
  }

  /** Takes note of the snapshots made since the last look: time, user, data and metadata files. */
  private static void recordNew(Table t, Model m) throws IOException {
    SnapshotManager sm = t.snapshotManager();
    for (long id : sm.listIds()) {
      if (id > m.lastSeen) {
        Snapshot s = sm.snapshot(id);
        m.snapshots.put(
            id,
            new Made(
                s.timeMillis(),
                s.commitUser(),
                SnapshotManager.isStreamCommit(s),
                liveData(t, s),
                metadata(t, s),
                index(t, s)));
        m.lastSeen = id;
      }
    }
  }

  /** The snapshot's live data files and the changelog files it added. */
  private static Set<String> liveData(Table t, Snapshot s) throws IOException {
    Set<String> names = new HashSet<>();
    for (ManifestEntry e : t.store().newScan().plan(s)) {
      names.add(e.file().fileName());
    }
    if (s.changelogManifestList() != null) {
      for (var m : t.store().manifestList().read(s.changelogManifestList())) {
        t.store().manifestFile().read(m).forEach(e -> names.add(e.file().fileName()));
      }
    }
    return names;
  }

  /** Its manifest lists and manifests. */
  private static Set<String> metadata(Table t, Snapshot s) throws IOException {
    Set<String> names = new HashSet<>();
    List<String> lists = new ArrayList<>(List.of(s.baseManifestList(), s.deltaManifestList()));
    if (s.changelogManifestList() != null) {
      lists.add(s.changelogManifestList());
    }
    for (String list : lists) {
      names.add(list);
      t.store().manifestList().read(list).forEach(f -> names.add(f.fileName()));
    }
    return names;
  }

  /** Its index manifest and the vector files it lists. */
  private static Set<String> index(Table t, Snapshot s) throws IOException {
    Set<String> names = new HashSet<>();
    if (s.indexManifest() != null) {
      names.add(s.indexManifest());
      for (IndexManifest.Entry e :
          new IndexManifest(t.store().fileIO(), t.store().paths()).read(s.indexManifest())) {
        names.add(e.deletionFile().dvFile());
      }
    }
    return names;
  }

  /**
   * Tags a snapshot that is there (now and then one that an older version's run half expired, which
   * is refused) with the rows a read of it finds, or deletes a tag; a deletion deletes the files
   * only that tag referenced, which {@link #check} sees (nothing no kept snapshot or tag needs is
   * left).
   */
  private static String tag(SplittableRandom r, Table t, Model m, Path tableDir)
      throws IOException {
    Tags tags = new Tags(t);
    List<Long> ids = t.snapshotManager().listIds();
    if (!m.tags.isEmpty() && (ids.isEmpty() || r.nextBoolean())) {
      List<String> names = new ArrayList<>(m.tags.keySet());
      String name = names.get(r.nextInt(names.size()));
      long id = m.tags.get(name);
      boolean ofExpired = !ids.contains(id);
      Set<String> before = dataOnDisk(tableDir);
      Tags.Deleted deleted = tags.delete(List.of(name));
      assertThat(deleted.tags()).extracting(TagManager.Tag::name).containsExactly(name);
      m.tags.remove(name);
      m.tagRows.remove(name);
      before.removeAll(dataOnDisk(tableDir));
      assertThat(deleted.dataFiles())
          .as("data files the deletion of " + name + " deleted")
          .isEqualTo(before.size());
      m.tagFilesDeleted += deleted.dataFiles();
      return "delete tag " + name + " of snapshot " + id + (ofExpired ? " (expired)" : "");
    }
    if (ids.isEmpty()) {
      return "tag (no snapshot yet)";
    }
    long id = ids.get(r.nextInt(ids.size()));
    String name = "tag" + m.tags.size() + "-" + id;
    if (m.gone.contains(id) || !m.pending.isEmpty() && m.pending.contains(id)) {
      assertThatThrownBy(() -> tags.create(name, OptionalLong.of(id)))
          .as("a tag of snapshot " + id + ", which is half expired")
          .isInstanceOfAny(IllegalArgumentException.class, IllegalStateException.class);
      assertThat(new TagManager(t.store().fileIO(), t.store().paths()).names())
          .doesNotContain(name);
      return "tag of half-expired snapshot " + id + " refused";
    }
    List<String> rows =
        TestTables.toStrings(
            t.rowType(), TestTables.readAll(t.copy(Map.of("scan.snapshot-id", Long.toString(id)))));
    TagManager.Tag made = tags.create(name, OptionalLong.of(id));
    assertThat(made.snapshot().id()).isEqualTo(id);
    m.tags.put(name, id);
    m.tagRows.put(name, rows);
    return "tag " + name;
  }

  /**
   * What a run of an older version left when it was killed expiring the oldest one to three
   * snapshots: it deleted the data files only they used, then the manifests only they used, now and
   * then their manifest lists too, and then (with the lists) the snapshot files of some of them,
   * oldest first, but not all. The snapshots left listed that lost a list, manifest or index
   * manifest are expired for the new code; a snapshot of the range whose base list names a manifest
   * an older one of the range wrote is then missing a base manifest only.
   */
  private static String olderVersionRun(SplittableRandom r, Table t, Model m, Path tableDir)
      throws IOException {
    List<Long> ids = t.snapshotManager().listIds();
    if (ids.size() < 2 || m.gone.contains(ids.get(0)) || !m.pending.isEmpty()) {
      return "(none)";
    }
    if (!m.tags.isEmpty()) {
      return "(none: the table has tags, which an older version does not know)";
    }
    boolean lists = r.nextBoolean();
    // the oldest snapshots of the range that lose a file an expiration's planning opens (it does
    // not open deletion vectors), as many as stay so once only the files of those are deleted
    List<Long> gone = new ArrayList<>(ids.subList(0, 1 + r.nextInt(Math.min(3, ids.size() - 1))));
    Set<String> deleted;
    while (true) {
      deleted = onlyUsedBy(m, ids, gone, lists);
      int lose = 0;
      while (lose < gone.size() && losesARead(m.snapshots.get(gone.get(lose)), deleted)) {
        lose++;
      }
      if (lose == gone.size()) {
        break;
      }
      gone = new ArrayList<>(gone.subList(0, lose));
    }
    if (gone.isEmpty()) {
      return "(no metadata of its own)"; // nothing to delete: it stays readable
    }
    Set<String> dataElsewhere = new HashSet<>();
    for (long id : ids) {
      if (!gone.contains(id)) {
        dataElsewhere.addAll(m.snapshots.get(id).data());
      }
    }
    Set<String> goneData = new HashSet<>();
    gone.forEach(id -> goneData.addAll(m.snapshots.get(id).data()));
    goneData.removeAll(dataElsewhere);
    try (Stream<Path> files = Files.walk(tableDir)) {
      for (Path p : files.filter(p -> goneData.contains(p.getFileName().toString())).toList()) {
        Files.delete(p);
      }
    }
    // manifests before lists, as the older version deleted them
    List<Path> metadata = new ArrayList<>();
    for (String name : deleted) {
      for (String sub : List.of("manifest", "index")) {
        if (Files.exists(tableDir.resolve(sub).resolve(name))) {
          metadata.add(tableDir.resolve(sub).resolve(name));
        }
      }
    }
    metadata.sort(
        (a, b) ->
            Boolean.compare(
                a.getFileName().toString().startsWith("manifest-list-"),
                b.getFileName().toString().startsWith("manifest-list-")));
    for (Path p : metadata) {
      Files.deleteIfExists(p);
    }
    int snapshotFiles = lists && gone.size() > 1 ? r.nextInt(gone.size()) : 0;
    for (long id : gone.subList(0, snapshotFiles)) {
      Files.delete(tableDir.resolve("snapshot").resolve("snapshot-" + id));
    }
    m.gone.addAll(gone.subList(snapshotFiles, gone.size()));
    m.olderRunsOfSeveral += gone.size() > 1 ? 1 : 0;
    m.olderRunsWithSnapshotFiles += snapshotFiles > 0 ? 1 : 0;
    return "of snapshots "
        + gone
        + (lists ? " (lists too)" : "")
        + (snapshotFiles > 0 ? ", the first " + snapshotFiles + " snapshot file(s) too" : "");
  }

  /** The metadata that the snapshots {@code range} reference and no other listed one does. */
  private static Set<String> onlyUsedBy(Model m, List<Long> ids, List<Long> range, boolean lists) {
    Set<String> out = new LinkedHashSet<>();
    range.forEach(id -> out.addAll(m.snapshots.get(id).allMetadata()));
    for (long id : ids) {
      if (!range.contains(id)) {
        out.removeAll(m.snapshots.get(id).allMetadata());
      }
    }
    if (!lists) {
      out.removeIf(name -> name.startsWith("manifest-list-"));
    }
    return out;
  }

  /** Whether a file a read of the snapshot opens (not a deletion vector) is among {@code gone}. */
  private static boolean losesARead(Made made, Set<String> gone) {
    return made.allMetadata().stream()
        .anyMatch(name -> gone.contains(name) && !name.startsWith("dv-"));
  }

  private String expire(SplittableRandom r, Table t, Model m, Path tableDir) throws IOException {
    SnapshotManager sm = t.snapshotManager();
    List<Long> listed = sm.listIds();
    int n0 = listed.size();
    if (n0 == 0) {
      return "expire (no snapshot yet)";
    }
    int retainMin = 1 + r.nextInt(n0 + 1);
    int retainMax = retainMin + r.nextInt(3) * r.nextInt(n0 + 1);
    long someTime = m.snapshots.get(listed.get(r.nextInt(n0))).time();
    long olderThan = someTime + r.nextInt(3) - 1;
    int limit = 1 + r.nextInt(n0 + 1);
    boolean afterCommit = r.nextInt(3) == 0;
    boolean pendingAbandoned =
        m.pending.isEmpty()
            || ExpiryRecord.read(t.store().fileIO(), t.store().paths().expiryRecord())
                .orElseThrow()
                .isAbandoned();
    // a fresh record not marked abandoned is left alone by a skipping run: tested elsewhere
    boolean skipLive = afterCommit && pendingAbandoned;
    boolean kill = m.pending.isEmpty() && r.nextInt(4) == 0;
    String settings =
        String.format(
            "expire %s: min %d, max %d, older than %+d ms of a snapshot, limit %d, after commit %s,"
                + " pending %s, gone %s%s",
            listed,
            retainMin,
            retainMax,
            olderThan - someTime,
            limit,
            skipLive,
            m.pending,
            m.gone,
            kill ? ", killed" : "");

    // the rules: an unfinished record's snapshots first, then by the settings from what is left
    List<Long> expected = new ArrayList<>(m.pending);
    List<Long> ids = new ArrayList<>(listed);
    ids.removeAll(m.pending);
    int budget = Math.max(0, limit - m.pending.size());
    int n = ids.size();
    int k = Math.min(budget, Math.max(0, n - retainMax));
    while (k < budget && k < n - retainMin && m.snapshots.get(ids.get(k)).time() < olderThan) {
      k++;
    }
    Optional<Long> held = heldFrom(t);
    if (held.isPresent()) {
      int below = 0;
      while (below < n && ids.get(below) < held.get()) {
        below++;
      }
      k = Math.min(k, below);
    }
    boolean lookForGone = !skipLive || k > 0;
    while (lookForGone && k < budget && k < n - 1 && m.gone.contains(ids.get(k))) {
      k++;
    }
    expected.addAll(ids.subList(0, k));

    Set<String> dataBefore = dataOnDisk(tableDir);
    Set<String> metadataBefore = metadataOnDisk(tableDir);
    SnapshotExpiration expiration =
        new SnapshotExpiration(t.store(), "t")
            .retainMin(retainMin)
            .retainMax(retainMax)
            .olderThan(olderThan)
            .limit(limit);
    if (skipLive) {
      expiration.skipLiveExpiration(true).afterCommitOf(listed.get(n0 - 1));
    }
    if (kill) {
      // early (among the snapshot files) or late (among data files, manifests and lists)
      FaultyFileSystem.failDeletesAfter(r.nextBoolean() ? r.nextInt(6) : r.nextInt(40));
    }
    boolean shortcut =
        skipLive
            && m.pending.isEmpty()
            && retainsAllUpToCommitted(m, tableDir, listed, retainMin, retainMax, olderThan);
    FaultyFileSystem.recordListings();
    SnapshotExpiration.Result result;
    try {
      result = expiration.execute();
    } catch (IllegalStateException | UncheckedIOException e) {
      assertThat(kill).as(settings + ": " + e).isTrue();
      FaultyFileSystem.reset();
      Optional<ExpiryRecord> left =
          ExpiryRecord.read(t.store().fileIO(), t.store().paths().expiryRecord());
      if (left.isEmpty()) {
        // killed before its record: nothing was expired
        assertThat(sm.listIds()).as(settings).isEqualTo(listed);
        return settings + ", killed before its record";
      }
      assertThat(left.get().retired().stream().map(TableFiles.Retired::id).toList())
          .as(settings + ": the record names what the rules expire")
          .isEqualTo(expected);
      if (e.getCause() != null && e.getCause().getMessage().startsWith("Could not delete ")) {
        // the error says which files could not go
        assertThat(e.getCause().getSuppressed()).as(settings + ": " + e).isNotEmpty();
      }
      m.pending = expected;
      m.killed++;
      return settings + ", killed after its record";
    }
    List<String> listings = List.copyOf(FaultyFileSystem.LISTED);
    FaultyFileSystem.reset();
    if (shortcut) {
      // the automatic expiry after every commit: no LIST of the snapshots on an object store
      assertThat(expected).as(settings).isEmpty();
      assertThat(listings)
          .as(settings + ": the snapshot directory is not listed")
          .doesNotContain(tableDir.resolve("snapshot").toString());
      m.shortcuts++;
    }
    assertThat(result.skipped()).as(settings).isFalse();
    assertThat(result.expiredSnapshots()).as(settings).isEqualTo(expected);
    assertThat(sm.listIds()).as(settings).isEqualTo(without(listed, expected));
    assertThat(ExpiryRecord.read(t.store().fileIO(), t.store().paths().expiryRecord()))
        .as(settings + ": no record left")
        .isEmpty();
    if (!m.pending.isEmpty()) {
      m.finishedRecords++;
    }
    boolean sweptGone = expected.stream().anyMatch(m.gone::contains);
    if (sweptGone) {
      m.goneSwept++;
    }
    if (m.pending.isEmpty() && !sweptGone) {
      // what it says it deleted is what it deleted (a finished record's files a killed run
      // already deleted are counted again, and a gone snapshot's were deleted by the older run)
      Set<String> dataGone = new HashSet<>(dataBefore);
      dataGone.removeAll(dataOnDisk(tableDir));
      Set<String> metadataGone = new HashSet<>(metadataBefore);
      metadataGone.removeAll(metadataOnDisk(tableDir));
      assertThat(result.deletedDataFiles()).as(settings).isEqualTo(dataGone.size());
      assertThat(result.deletedMetadataFiles()).as(settings).isEqualTo(metadataGone.size());
    }
    if (!expected.isEmpty()) {
      String earliest = Files.readString(tableDir.resolve("snapshot").resolve("EARLIEST")).trim();
      assertThat(earliest).as(settings).isEqualTo(Long.toString(sm.listIds().get(0)));
    }
    for (String user : USERS) {
      Optional<Long> last =
          m.snapshots.entrySet().stream()
              .filter(e -> e.getValue().stream() && user.equals(e.getValue().user()))
              .map(Map.Entry::getKey)
              .reduce((a, b) -> b);
      if (last.isPresent() && expected.contains(last.get())) {
        Optional<UserCommit> hint = sm.readUserHint(user);
        assertThat(hint.map(UserCommit::snapshotId))
            .as(settings + ": the hint of " + user + ", whose last commit expired")
            .contains(last.get());
        m.hintsRecorded++;
      }
    }
    m.expired += expected.size();
    m.tagsOfExpired += (int) m.tags.values().stream().filter(expected::contains).count();
    m.gone.removeAll(expected);
    m.pending = List.of();
    return settings;
  }

  /**
   * docs/operations.md's shortcut of an expiry that follows a commit: from the {@code EARLIEST}
   * hint to the committed (latest) snapshot, at most {@code retainMin} snapshots, or at most {@code
   * retainMax} with the oldest not older than {@code olderThan}.
   */
  private static boolean retainsAllUpToCommitted(
      Model m, Path tableDir, List<Long> listed, int retainMin, int retainMax, long olderThan)
      throws IOException {
    Path hint = tableDir.resolve("snapshot").resolve("EARLIEST");
    if (!Files.exists(hint)) {
      return false;
    }
    long earliest = Long.parseLong(Files.readString(hint).trim());
    long committed = listed.get(listed.size() - 1);
    if (earliest > committed) {
      return false;
    }
    long count = committed - earliest + 1;
    return count <= retainMin
        || (count <= retainMax
            && listed.contains(earliest)
            && m.snapshots.get(earliest).time() >= olderThan);
  }

  private static Optional<Long> heldFrom(Table t) {
    var needed =
        new ConsumerManager(t.store().fileIO(), t.store().paths())
            .smallestNeeded(null, Long.MAX_VALUE);
    return needed.isPresent() ? Optional.of(needed.getAsLong()) : Optional.empty();
  }

  private static List<Long> without(List<Long> ids, List<Long> removed) {
    List<Long> out = new ArrayList<>(ids);
    out.removeAll(removed);
    return out;
  }

  /**
   * After every step: what the kept snapshots need is there, and, when no run is unfinished, only
   * that.
   */
  private static void check(Table t, Model m, Path tableDir, boolean rows, String at)
      throws IOException {
    List<Long> listed = t.snapshotManager().listIds();
    Set<String> needed = new HashSet<>();
    Set<String> neededMetadata = new HashSet<>();
    Set<String> neededIndex = new HashSet<>();
    Set<String> mayStay = new HashSet<>();
    Set<String> mayStayMetadata = new HashSet<>();
    for (long id : listed) {
      Made made = m.snapshots.get(id);
      mayStay.addAll(made.data());
      mayStayMetadata.addAll(made.allMetadata());
      if (!m.gone.contains(id)) {
        needed.addAll(made.data());
        neededMetadata.addAll(made.metadata());
        neededIndex.addAll(made.index());
      }
    }
    for (long id : m.tags.values()) {
      // a tag keeps what its snapshot referenced, after the snapshot expired too
      Made made = m.snapshots.get(id);
      needed.addAll(made.data());
      neededMetadata.addAll(made.metadata());
      neededIndex.addAll(made.index());
      mayStay.addAll(made.data());
      mayStayMetadata.addAll(made.allMetadata());
    }
    Set<String> data = dataOnDisk(tableDir);
    Set<String> metadata = metadataOnDisk(tableDir);
    assertThat(data).as(at + ": data files the kept snapshots need").containsAll(needed);
    assertThat(metadata).as(at + ": metadata the kept snapshots need").containsAll(neededMetadata);
    assertThat(metadata).as(at + ": index files the kept snapshots need").containsAll(neededIndex);
    // what expiry, orphan removal and the marker clean-up take for referenced: the same files
    TableFiles referenced = TableFiles.ofRetainedSnapshots(t.store());
    assertThat(referenced.dataFileNames()).as(at).isEqualTo(needed);
    assertThat(referenced.metadataNames()).as(at).isEqualTo(neededMetadata);
    assertThat(referenced.indexFileNames()).as(at).isEqualTo(neededIndex);
    try (Stream<Path> files = Files.walk(tableDir)) {
      for (Path p : files.filter(p -> needed.contains(p.getFileName().toString())).toList()) {
        assertThat(referenced.containsDataFile(new org.apache.flink.core.fs.Path(p.toUri())))
            .as(at + ": " + p)
            .isTrue();
      }
    }
    if (m.pending.isEmpty()) {
      assertThat(mayStay).as(at + ": data files no kept snapshot needs").containsAll(data);
      assertThat(mayStayMetadata)
          .as(at + ": metadata no kept snapshot needs")
          .containsAll(metadata);
    }
    assertEachFileReferencedByOneRange(m, at);
    if (rows) {
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as(at + ": the rows of the latest snapshot")
          .containsExactlyInAnyOrderElementsOf(m.rows.values());
      m.tagRows.forEach(
          (name, tagged) ->
              assertThat(
                      TestTables.toStrings(
                          t.rowType(), TestTables.readAll(t.copy(Map.of("scan.tag-name", name)))))
                  .as(at + ": the rows of tag " + name)
                  .containsExactlyInAnyOrderElementsOf(tagged));
    }
  }

  /**
   * The rule an expiration's reading of only the oldest kept snapshot relies on (docs/spec.md
   * section 4.4): every data file, manifest list, manifest, index manifest and deletion vector is
   * referenced by one unbroken range of the snapshots made, so a file that an expired snapshot and
   * a later one reference, every snapshot between them references too.
   */
  private static void assertEachFileReferencedByOneRange(Model m, String at) {
    Map<String, List<Long>> referencedBy = new HashMap<>();
    for (Map.Entry<Long, Made> e : m.snapshots.entrySet()) {
      Set<String> files = new HashSet<>(e.getValue().data());
      files.addAll(e.getValue().allMetadata());
      for (String f : files) {
        referencedBy.computeIfAbsent(f, k -> new ArrayList<>()).add(e.getKey());
      }
    }
    List<Long> made = new ArrayList<>(m.snapshots.keySet());
    referencedBy.forEach(
        (file, ids) -> {
          int first = made.indexOf(ids.get(0));
          assertThat(ids)
              .as(at + ": the snapshots referencing " + file)
              .isEqualTo(made.subList(first, first + ids.size()));
        });
  }

  /** Data and changelog files under the table's partition directories. */
  private static Set<String> dataOnDisk(Path tableDir) throws IOException {
    try (Stream<Path> files = Files.walk(tableDir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("data-") || n.startsWith(DataFileFactory.CHANGELOG_PREFIX))
          .collect(Collectors.toSet());
    }
  }

  private static Set<String> metadataOnDisk(Path tableDir) throws IOException {
    Set<String> names = new HashSet<>();
    for (String sub : List.of("manifest", "index")) {
      Path d = tableDir.resolve(sub);
      if (Files.isDirectory(d)) {
        try (Stream<Path> files = Files.list(d)) {
          files.map(p -> p.getFileName().toString()).forEach(names::add);
        }
      }
    }
    return names;
  }

  private static Path localPath(org.apache.flink.core.fs.Path p) {
    return Path.of(p.toUri().getPath());
  }
}
