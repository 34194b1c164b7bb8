package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.ManifestEntry;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.Schema;
import io.sediment.schema.TableOptions;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retention options keep exactly what they promise after commits of writers and in-process
 * compactions, with no commit failing because of the expiry: the newest snapshots within
 * snapshot.num-retained.min/max and snapshot.time-retained, at most snapshot.expire.limit expired
 * per commit, a failed or concurrent expiration finished later, and no file of an expired snapshot
 * left behind.
 */
class AutomaticExpiryTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private Table create(String warehouse, Map<String, String> options) {
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    catalog.createDatabase("db", true);
    Schema.Builder schema =
        TestTables.idPartitionSchema()
            .option("compaction.min.file-num", "2")
            .option("manifest.merge-min-count", "3"); // expired snapshots own manifests
    options.forEach(schema::option);
    return TestTables.create(catalog, "t", schema.build());
  }

  private Table create(Map<String, String> options) {
    return create(dir.toString(), options);
  }

  private static void write(Table t, long id) {
    TestTables.writeBatch(t, List.of(row(id, "a"), row(id + 1000, "b")));
  }

  private static List<Long> ids(Table t) {
    return t.snapshotManager().listIds();
  }

  /**
   * What the expiry after a commit reads does not grow with the snapshots it keeps: it reads the
   * snapshot it retires, the oldest it keeps and the latest, each list and manifest they share
   * checked once, and no other kept snapshot. Counted on the file system (status requests and
   * opens) for the commit that expires one snapshot, keeping 3, 6 or 12.
   */
  @Test
  void anExpiryReadsWhatItExpiresNotWhatItKeeps() {
    Map<Integer, String> byRetained = new java.util.TreeMap<>();
    for (int retained : new int[] {3, 6, 12}) {
      Table t =
          create(
              FaultyFileSystem.uri(dir.resolve("kept-" + retained)),
              Map.of(
                  "snapshot.num-retained.min",
                  String.valueOf(retained),
                  "snapshot.num-retained.max",
                  String.valueOf(retained)));
      for (long id = 1; id <= retained + 2; id++) {
        write(t, id);
      }
      FaultyFileSystem.reset();
      write(t, retained + 3); // expires snapshot 3
      byRetained.put(
          retained,
          "status " + FaultyFileSystem.STATUS_CHECKS.get() + ", opens " + FaultyFileSystem.OPENS);
      assertThat(ids(t)).isEqualTo(range(4, retained + 3));
    }
    assertThat(byRetained.values()).as(byRetained.toString()).containsOnly(byRetained.get(3));
    // at d15716d: status 44 / 56 / 80, opens 14 / 20 / 32 keeping 3 / 6 / 12; 27 before the
    // planning's listing served the retiring step too; 26 before tags (one listing of tag/, once
    // the record is created); 28 since the commit checks that its base snapshot is still there
    assertThat(byRetained.get(3)).isEqualTo("status 28, opens 8");
  }

  private static List<Long> range(long from, long to) {
    return LongStream.rangeClosed(from, to).boxed().toList();
  }

  private Path tableDir() {
    return dir.resolve("db.db").resolve("t");
  }

  private Path record() {
    return tableDir().resolve("snapshot").resolve("EXPIRING");
  }

  private static List<String> rows(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  private static List<String> expectedRows(long n) {
    List<String> out = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      out.add("(" + i + ",a)");
      out.add("(" + (i + 1000) + ",b)");
    }
    return out;
  }

  /** Data files on disk that no listed snapshot references (read through plain scans). */
  private Set<String> unreferencedDataFiles(Table t) {
    Set<String> used = new HashSet<>();
    for (long id : ids(t)) {
      for (ManifestEntry e : t.store().newScan().plan(t.snapshotManager().snapshot(id))) {
        used.add(e.file().fileName());
      }
    }
    Set<String> out = new HashSet<>();
    for (Path p : TestTables.dataFiles(tableDir())) {
      if (!used.contains(p.getFileName().toString())) {
        out.add(p.getFileName().toString());
      }
    }
    return out;
  }

  /** Rewrites the creation time of snapshot {@code id}: a snapshot made {@code age} ago. */
  private void age(Table t, long id, Duration age) throws Exception {
    Path file = tableDir().resolve("snapshot").resolve("snapshot-" + id);
    long time = t.snapshotManager().snapshot(id).timeMillis();
    String json = Files.readString(file, StandardCharsets.UTF_8);
    String aged =
        json.replaceFirst(
            "\"timeMillis\"\\s*:\\s*" + time,
            "\"timeMillis\" : " + (System.currentTimeMillis() - age.toMillis()));
    assertThat(aged).isNotEqualTo(json);
    Files.writeString(file, aged, StandardCharsets.UTF_8);
  }

  @Test
  void numRetainedMaxKeepsExactlyTheNewestAfterEveryCommit() throws Exception {
    Table t = create(Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "3"));
    for (long i = 0; i < 12; i++) {
      write(t, i);
      long latest = i + 1;
      assertThat(ids(t)).isEqualTo(range(Math.max(1, latest - 2), latest));
    }
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(12));
    assertThat(unreferencedDataFiles(t)).isEmpty();
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
    assertThat(record()).doesNotExist();
  }

  @Test
  void timeRetainedExpiresOnlyOldSnapshotsAndNeverBelowTheMinimum() throws Exception {
    // Default snapshot.time-retained (1 h) and snapshot.num-retained.max (no limit).
    Table t = create(Map.of("snapshot.num-retained.min", "2"));
    for (long i = 0; i < 6; i++) {
      write(t, i);
    }
    assertThat(ids(t)).isEqualTo(range(1, 6)); // all young: nothing expires beyond the minimum
    for (long id = 1; id <= 3; id++) {
      age(t, id, Duration.ofHours(2));
    }
    write(t, 6); // snapshot 7
    // The old ones go; the young ones stay although more than the minimum.
    assertThat(ids(t)).isEqualTo(range(4, 7));

    for (long id = 4; id <= 7; id++) {
      age(t, id, Duration.ofHours(2));
    }
    write(t, 7); // snapshot 8
    // All but the newest are old: the minimum (2), the latest among them, stays.
    assertThat(ids(t)).isEqualTo(range(7, 8));
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(8));
    assertThat(unreferencedDataFiles(t)).isEmpty();
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void expireLimitBoundsTheSnapshotsExpiredPerCommit() throws Exception {
    Table t = create(Map.of());
    for (long i = 0; i < 12; i++) {
      write(t, i);
    }
    assertThat(ids(t)).isEqualTo(range(1, 12)); // defaults: all young, no limit by count
    Table tightened =
        t.copy(
            Map.of(
                "snapshot.num-retained.min", "1",
                "snapshot.num-retained.max", "2",
                "snapshot.expire.limit", "4"));
    write(tightened, 12); // snapshot 13: 11 are due, 4 go
    assertThat(ids(t)).isEqualTo(range(5, 13));
    write(tightened, 13); // snapshot 14: 4 more
    assertThat(ids(t)).isEqualTo(range(9, 14));
    write(tightened, 14); // snapshot 15: 5 due, 4 go
    assertThat(ids(t)).isEqualTo(range(13, 15));
    write(tightened, 15); // snapshot 16: the last 2 due
    assertThat(ids(t)).isEqualTo(range(15, 16));
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(16));
    assertThat(unreferencedDataFiles(t)).isEmpty();
  }

  @Test
  void inProcessCompactionExpiresAfterItsCommit() throws Exception {
    Table t = create(Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "2"));
    for (long i = 0; i < 4; i++) {
      write(t, i);
    }
    assertThat(ids(t)).isEqualTo(range(3, 4));
    t.newCompactBuilder().withOptions(Map.of("snapshot.num-retained.max", "1")).execute();
    // The COMPACT snapshot 5 is all that is left; the compacted inputs are deleted.
    assertThat(ids(t)).containsExactly(5L);
    assertThat(t.snapshotManager().snapshot(5).commitKind().name()).isEqualTo("COMPACT");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(4));
    assertThat(unreferencedDataFiles(t)).isEmpty();
  }

  @Test
  void writeOnlyWritersLeaveExpiryToTheCompaction() throws Exception {
    // Paimon's write-only: writers neither compact nor expire; the compaction job does both.
    Table t =
        create(
            Map.of(
                "snapshot.num-retained.min", "1",
                "snapshot.num-retained.max", "2",
                "write-only", "true"));
    for (long i = 0; i < 4; i++) {
      write(t, i);
    }
    assertThat(ids(t)).isEqualTo(range(1, 4));

    t.newCompactBuilder().execute();

    assertThat(ids(t)).isEqualTo(range(4, 5));
    assertThat(t.snapshotManager().snapshot(5).commitKind().name()).isEqualTo("COMPACT");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(4));
    assertThat(unreferencedDataFiles(t)).isEmpty();
  }

  @Test
  void failingDeleteDuringExpiryDoesNotFailTheCommitAndTheNextCommitFinishes() throws Exception {
    Table t =
        create(
            FaultyFileSystem.uri(dir),
            Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "2"));
    for (long i = 0; i < 2; i++) {
      write(t, i);
    }
    FaultyFileSystem.failDelete(p -> p.contains("/manifest/"));

    WriteBuilder builder = t.newBatchWriteBuilder();
    TableCommit commit = builder.newCommit();
    List<Long> made =
        commit.commit(TestTables.prepare(builder, List.of(row(2L, "a"), row(1002L, "b"))));

    assertThat(made).containsExactly(3L); // the commit landed and reported its snapshot
    assertThat(commit.expiryFailures()).as("the failed expiry is counted").isEqualTo(1);
    assertThat(FaultyFileSystem.DELETE_FAILURES.get()).isPositive();
    assertThat(record()).exists(); // the expiration stopped half way, recorded
    assertThat(ids(t)).isEqualTo(range(2, 3)); // its snapshot file went first
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(3));

    FaultyFileSystem.reset();
    TableCommit next = builder.newCommit();
    // snapshot 4: finishes the abandoned expiration of 1, then expires 2
    next.commit(TestTables.prepare(builder, List.of(row(3L, "a"), row(1003L, "b"))));
    assertThat(next.expiryFailures()).as("an expiry that succeeds is not counted").isZero();
    assertThat(record()).doesNotExist();
    assertThat(ids(t)).isEqualTo(range(3, 4));
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(4));
    assertThat(unreferencedDataFiles(t)).isEmpty();
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void expirationInProgressElsewhereIsSkippedAndFinishedOnceItIsStale() throws Exception {
    Table t = create(Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "2"));
    write(t, 0);
    write(t, 1);
    // Another process is expiring snapshot 1: its record exists, fresh and not abandoned.
    ExpiryRecord other =
        ExpiryRecord.of(List.of(TableFiles.Retired.of(t.snapshotManager().snapshot(1))));
    assertThat(other.create(t.store(), t.store().paths().expiryRecord())).isTrue();
    String recorded = Files.readString(record());
    ExpiryRecord second =
        ExpiryRecord.of(List.of(TableFiles.Retired.of(t.snapshotManager().snapshot(2))));
    assertThat(second.create(t.store(), t.store().paths().expiryRecord()))
        .as("one record at a time")
        .isFalse();
    assertThat(record()).hasContent(recorded);

    write(t, 2); // snapshot 3: its expiry skips, the commit succeeds
    assertThat(ids(t)).isEqualTo(range(1, 3));
    assertThat(record()).exists();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(3));

    // The other process died: its record ages past the abandon age.
    Files.setLastModifiedTime(
        record(),
        FileTime.fromMillis(
            System.currentTimeMillis() - RecordedExpiration.ABANDONED_AFTER.toMillis() - 60_000));
    write(t, 3); // snapshot 4: finishes the record (snapshot 1), then expires 2
    assertThat(record()).doesNotExist();
    assertThat(ids(t)).isEqualTo(range(3, 4));
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expectedRows(4));
    assertThat(unreferencedDataFiles(t)).isEmpty();
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void concurrentWritersAndCompactionKeepTheRetainedSnapshotsReadable() throws Exception {
    int retained = 6;
    Table t =
        create(
            Map.of(
                "snapshot.num-retained.min", String.valueOf(retained),
                "snapshot.num-retained.max", String.valueOf(retained),
                "snapshot.expire.limit", "2"));
    write(t, 10_000);
    int commitsPerWriter = 15;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger compactions = new AtomicInteger();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        long base = w * 100L;
        writers.add(
            pool.submit(
                () -> {
                  for (long i = 0; i < commitsPerWriter; i++) {
                    if (i == commitsPerWriter - 1) {
                      // A compaction lands among the writers' commits, however the threads run:
                      // the last commit waits for one (the compactor retries until then).
                      await().atMost(Duration.ofMinutes(5)).until(() -> compactions.get() > 0);
                    }
                    write(t, base + i); // a failing commit fails the test
                  }
                  return null;
                }));
      }
      // A compaction committing alongside; one that planned on a snapshot expired meanwhile
      // fails and is simply run again (documented: re-plan), so only successes are counted.
      Future<?> compactor =
          pool.submit(
              () -> {
                while (!done.get()) {
                  try {
                    if (t.newCompactBuilder().withOptions(Map.of()).execute().snapshotId()
                        != null) {
                      compactions.incrementAndGet();
                    }
                  } catch (Exception e) {
                    // re-plan
                  }
                }
                return null;
              });
      // Never fewer than the minimum listed; a read of a snapshot still listed never fails.
      Future<?> watcher =
          pool.submit(
              () -> {
                while (!done.get()) {
                  List<Long> listed = ids(t);
                  long latest = listed.get(listed.size() - 1);
                  if (listed.size() < Math.min(retained, latest)) {
                    problems.add("only " + listed + " listed");
                  }
                  try {
                    TestTables.readAll(t);
                  } catch (RuntimeException e) {
                    if (ids(t).contains(latest)) {
                      problems.add("reading at snapshot " + latest + " failed: " + e);
                    }
                  }
                }
                return null;
              });
      for (Future<?> f : writers) {
        f.get(10, TimeUnit.MINUTES);
      }
      done.set(true);
      compactor.get(60, TimeUnit.SECONDS);
      watcher.get(60, TimeUnit.SECONDS);
    } finally {
      done.set(true);
      pool.shutdownNow();
    }
    assertThat(problems).isEmpty();
    assertThat(compactions.get()).isPositive();

    // One more commit, unbounded, settles what the last concurrent expiries skipped.
    write(t.copy(Map.of("snapshot.expire.limit", "1000")), 10_001);
    List<Long> listed = ids(t);
    long latest = listed.get(listed.size() - 1);
    assertThat(listed).isEqualTo(range(latest - retained + 1, latest));
    assertThat(record()).doesNotExist();
    List<String> expected = new ArrayList<>();
    for (long w = 0; w < 2; w++) {
      for (long i = 0; i < commitsPerWriter; i++) {
        expected.add("(" + (w * 100 + i) + ",a)");
        expected.add("(" + (w * 100 + i + 1000) + ",b)");
      }
    }
    expected.addAll(List.of("(10000,a)", "(11000,b)", "(10001,a)", "(11001,b)"));
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(unreferencedDataFiles(t)).isEmpty();
    assertThat(TestTables.unreferencedMetadata(t, tableDir())).isEmpty();
  }

  @Test
  void invalidRetentionOptionsAreRejectedNamingTheOption() {
    assertThatThrownBy(() -> TableOptions.of(Map.of("snapshot.num-retained.min", "0")))
        .hasMessageContaining("'snapshot.num-retained.min'")
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> TableOptions.of(Map.of("snapshot.num-retained.max", "-1")))
        .hasMessageContaining("'snapshot.num-retained.max'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("snapshot.expire.limit", "0")))
        .hasMessageContaining("'snapshot.expire.limit'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("snapshot.time-retained", "-1 h")))
        .hasMessageContaining("'snapshot.time-retained'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("snapshot.time-retained", "soon")))
        .hasMessageContaining("'snapshot.time-retained'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("compaction.remove-orphans.interval", "0 s")))
        .hasMessageContaining("'compaction.remove-orphans.interval'");
    assertThatThrownBy(
            () ->
                TableOptions.of(
                    Map.of("snapshot.num-retained.min", "5", "snapshot.num-retained.max", "3")))
        .hasMessageContaining("'snapshot.num-retained.min' (5)")
        .hasMessageContaining("'snapshot.num-retained.max' (3)");
    // A max given alone below the default minimum lowers the minimum with it.
    TableOptions maxOnly = TableOptions.of(Map.of("snapshot.num-retained.max", "3"));
    assertThat(maxOnly.snapshotRetainMin()).isEqualTo(3);
    TableOptions defaults = TableOptions.of(Map.of());
    assertThat(defaults.snapshotRetainMin()).isEqualTo(10);
    assertThat(defaults.get(CommitOptions.SNAPSHOT_NUM_RETAINED_MAX)).isEqualTo(Integer.MAX_VALUE);
    assertThat(defaults.get(CommitOptions.SNAPSHOT_TIME_RETAINED)).isEqualTo(Duration.ofHours(1));
    assertThat(defaults.get(CommitOptions.SNAPSHOT_EXPIRE_LIMIT)).isEqualTo(50);
    assertThat(defaults.get(CompactionOptions.COMPACTION_REMOVE_ORPHANS_INTERVAL)).isNull();
  }
}
