package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A commit's attempts keep the live files of its partitions up to date from the deltas of the
 * snapshots committed since the previous attempt ({@link LiveFiles}). For generated histories
 * (appends to random partitions, compactions, snapshot expiry) the view, advanced from random
 * points, always equals a full scan of the latest snapshot.
 */
class LiveFilesTest {

  @TempDir Path dir;

  static Stream<Long> seeds() {
    return LongStream.range(0, 12).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aViewAdvancedByDeltasEqualsAFullScan(long seed) throws Exception {
    Random random = new Random(seed);
    Table t =
        table(
            TestTables.catalog(dir),
            Map.of(
                "compaction.min.file-num", "2",
                // expiry now and then removes snapshots a view has not seen yet
                "snapshot.num-retained.min", "1",
                "snapshot.num-retained.max", random.nextBoolean() ? "3" : "1000"));
    FileStore store = t.store();
    String[] names = {"a", "b", "c"};
    long id = 0;
    List<View> views = new ArrayList<>();
    for (int step = 0; step < 24; step++) {
      int op = random.nextInt(10);
      if (op < 7) {
        List<RowData> rows = new ArrayList<>();
        for (String p : names) {
          if (random.nextBoolean()) {
            rows.add(row(id++, p));
          }
        }
        if (!rows.isEmpty()) {
          TestTables.writeBatch(t, rows);
        }
      } else {
        t.newCompactBuilder().execute();
      }
      Optional<Snapshot> latest = store.snapshotManager().latest();
      if (latest.isEmpty()) {
        continue;
      }
      if (random.nextInt(3) == 0) {
        views.add(new View(store, randomPartitions(store, latest.get(), random)));
      }
      for (View v : views) {
        if (random.nextInt(3) > 0) { // some views skip snapshots
          assertThat(names(v.live.at(latest)))
              .as("seed %d, step %d, snapshot %d", seed, step, latest.get().id())
              .isEqualTo(names(fullScan(store, latest.get(), v.partitions)));
        }
      }
    }
  }

  /**
   * A compaction that loses the race for the snapshot id to another compaction of the same inputs
   * conflicts on its next attempt, which reads only the winner's delta: the rows are never doubled.
   */
  @ParameterizedTest
  @MethodSource("seeds")
  void aCompactionThatLostTheRaceToACompactionOfItsInputsConflicts(long seed) throws Exception {
    Random random = new Random(seed);
    Table t = faultyTable();
    List<String> expected = new ArrayList<>();
    int batches = 2 + random.nextInt(4);
    for (int b = 0; b < batches; b++) {
      List<RowData> rows = new ArrayList<>();
      for (String p : new String[] {"a", "b"}) {
        rows.add(row((long) rows.size() + 10L * b, p));
        expected.add("(" + (rows.size() - 1 + 10L * b) + "," + p + ")");
      }
      TestTables.writeBatch(t, rows);
    }
    long base = t.snapshotManager().latestId().orElseThrow();
    AtomicBoolean rewriting = new AtomicBoolean();
    AtomicBoolean raced = new AtomicBoolean();
    try {
      FaultyFileSystem.failCreate(
          path -> {
            rewriting.compareAndSet(false, path.contains("/data-"));
            return false;
          });
      FaultyFileSystem.onOpen(
          path -> {
            // The first compaction reads the snapshot it builds on: another one lands first.
            if (rewriting.get()
                && path.endsWith("/snapshot/snapshot-" + base)
                && raced.compareAndSet(false, true)) {
              try {
                assertThat(t.newCompactBuilder().withCommitUser("other").execute().snapshotId())
                    .isEqualTo(base + 1);
              } catch (Exception e) {
                throw new IOException(e);
              }
            }
          });
      assertThatThrownBy(() -> t.newCompactBuilder().execute())
          .isInstanceOf(CommitConflictException.class);
    } finally {
      FaultyFileSystem.reset();
    }

    assertThat(raced).isTrue();
    assertThat(t.snapshotManager().latestId().orElseThrow()).isEqualTo(base + 1);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * A view that has seen a snapshot reads only the delta lists of the snapshots committed since:
   * every other manifest list (the latest's base list, which a full scan starts from, and the
   * deltas the view applied before) fails to open, and the view still equals a full scan. Asked
   * again for the snapshot it is at, it reads no list at all. This is what keeps a commit that lost
   * races cheap; a full scan would give the same files at the cost of the whole table.
   */
  @ParameterizedTest
  @MethodSource("seeds")
  void aViewReadsOnlyTheDeltasOfTheSnapshotsItHasNotSeen(long seed) throws Exception {
    Random random = new Random(seed);
    Table t = faultyTable();
    FileStore store = t.store();
    String[] names = {"a", "b", "c"};
    long id = 0;
    TestTables.writeBatch(t, List.of(row(id++, "a"), row(id++, "b"), row(id++, "c")));
    Set<BinaryRowData> partitions =
        randomPartitions(store, store.snapshotManager().latest().orElseThrow(), random);
    LiveFiles live = new LiveFiles(store, partitions, new HashMap<>());
    for (int step = 0; step < 6; step++) {
      Optional<Snapshot> seen = store.snapshotManager().latest();
      live.at(seen);
      int commits = 1 + random.nextInt(3);
      for (int c = 0; c < commits; c++) {
        if (random.nextInt(4) == 0) {
          t.newCompactBuilder().execute();
        } else {
          TestTables.writeBatch(t, List.of(row(id++, names[random.nextInt(names.length)])));
        }
      }
      Optional<Snapshot> latest = store.snapshotManager().latest();
      Set<String> deltaLists = new HashSet<>();
      for (long s = seen.orElseThrow().id() + 1; s <= latest.orElseThrow().id(); s++) {
        deltaLists.add(store.snapshotManager().snapshot(s).deltaManifestList());
      }
      List<ManifestEntry> expected = fullScan(store, latest.get(), partitions);
      try {
        ManifestCache.clear(); // every list read below opens its file
        FaultyFileSystem.failOpen(
            path ->
                path.contains("/manifest/manifest-list-")
                    && !deltaLists.contains(path.substring(path.lastIndexOf('/') + 1)));
        assertThat(names(live.at(latest)))
            .as("seed %d, step %d", seed, step)
            .isEqualTo(names(expected));
        FaultyFileSystem.failOpen(path -> path.contains("/manifest/manifest-list-"));
        assertThat(names(live.at(latest))).isEqualTo(names(expected));
      } finally {
        FaultyFileSystem.reset();
      }
    }
  }

  /** An append table partitioned by {@code p}. */
  /** The test's table on the fault-injecting file system, compacting from two files. */
  private Table faultyTable() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    return table(catalog, Map.of("compaction.min.file-num", "2"));
  }

  private static Table table(FileSystemCatalog catalog, Map<String, String> options) {
    return TestTables.create(
        catalog,
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING())
            .partitionKeys("p")
            .options(options)
            .build());
  }

  private record View(LiveFiles live, Set<BinaryRowData> partitions) {
    View(FileStore store, Set<BinaryRowData> partitions) {
      this(new LiveFiles(store, partitions, new HashMap<>()), partitions);
    }
  }

  private static Set<BinaryRowData> randomPartitions(
      FileStore store, Snapshot latest, Random random) {
    Set<BinaryRowData> out = new HashSet<>();
    for (ManifestEntry e : store.newScan().plan(latest)) {
      if (random.nextBoolean()) {
        out.add(e.partition());
      }
    }
    return out;
  }

  private static List<ManifestEntry> fullScan(
      FileStore store, Snapshot s, Set<BinaryRowData> partitions) {
    return store.newScan().plan(s).stream()
        .filter(e -> partitions.contains(e.partition()))
        .toList();
  }

  private static Set<String> names(Collection<ManifestEntry> entries) {
    return entries.stream()
        .map(e -> e.identifier().toString())
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
