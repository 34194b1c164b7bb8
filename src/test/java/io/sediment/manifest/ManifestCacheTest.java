package io.sediment.manifest;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.data.BinaryRows;
import io.sediment.fs.FileIO;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The process's cache of parsed manifests and manifest lists: what a process writes it plans
 * without reading back, a table planned again (by the same or another table object) opens no
 * manifest it read before and plans the same files, partition filters apply to cached entries,
 * reads that must see a file gone check that it exists, and the cache keeps the most recently read
 * within its bound.
 */
class ManifestCacheTest {

  @TempDir java.nio.file.Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void aTablePlannedAgainOpensNoManifestItReadBeforeAndPlansTheSameFiles() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table = partitionedTable(catalog);
    for (int i = 0; i < 4; i++) {
      TestTables.writeBatch(table, List.of(row((long) i, "a"), row(100L + i, "b")));
    }
    List<String> opened = manifestsOpened();
    Snapshot latest = table.latestSnapshot().orElseThrow();
    List<String> written = fileNames(table.store().newScan().plan(latest));
    assertThat(written).hasSize(8);
    assertThat(opened).as("what this process wrote is planned without reading it back").isEmpty();

    ManifestCache.clear(); // as another process
    List<String> first = fileNames(table.store().newScan().plan(latest));
    assertThat(opened).as("the first plan reads the lists and manifests").isNotEmpty();
    assertThat(first).isEqualTo(written);

    opened.clear();
    Table again = catalog.getTable(new Identifier("db", "t"));
    assertThat(fileNames(again.store().newScan().plan(latest))).isEqualTo(first);
    assertThat(TestTables.readAll(again)).hasSize(8);
    assertThat(opened).as("manifests and lists opened by the second plan").isEmpty();

    // a partition filter is applied to the cached entries
    List<ManifestEntry> onlyB =
        again
            .store()
            .newScan()
            .withPartitionFilter(
                new PredicateBuilder(again.store().partitionType()).equalText("p", "b"))
            .plan(latest);
    assertThat(onlyB).hasSize(4);
    assertThat(onlyB)
        .allSatisfy(e -> assertThat(e.partition().getString(0).toString()).isEqualTo("b"));
    assertThat(opened).isEmpty();

    // what reads around the cache opens the files themselves
    ManifestFileMeta someManifest =
        again.store().manifestList().readUncached(latest.deltaManifestList()).get(0);
    again.store().manifestFile().readUncached(someManifest.fileName());
    assertThat(opened.stream().distinct().map(p -> p.substring(p.lastIndexOf('/') + 1)))
        .containsExactly(latest.deltaManifestList(), someManifest.fileName());
  }

  /**
   * Expiry and orphan removal tell an expired snapshot by a list or manifest that is gone: they use
   * a cached copy only while its file exists (one existence check, no read), read a file the cache
   * does not hold (and keep it), and get a {@link FileNotFoundException} for a file that is gone,
   * while a plan still gets the cached entries.
   */
  @Test
  void readsThatMustSeeAFileGoneUseTheCacheOnlyWhileTheFileExists() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table = partitionedTable(catalog);
    TestTables.writeBatch(table, List.of(row(1L, "a"), row(2L, "b")));
    Snapshot latest = table.latestSnapshot().orElseThrow();
    ManifestList lists = table.store().manifestList();
    ManifestFile manifests = table.store().manifestFile();
    List<String> opened = manifestsOpened();

    List<ManifestFileMeta> metas = lists.readExisting(latest.deltaManifestList());
    assertThat(metas).hasSize(1);
    ManifestFileMeta manifest = metas.get(0);
    assertThat(manifests.readExisting(manifest)).hasSize(2);
    assertThat(opened).as("cached, and the files exist").isEmpty();
    assertThatThrownBy(() -> metas.clear()).isInstanceOf(UnsupportedOperationException.class);

    ManifestCache.clear();
    assertThat(fileNames(manifests.readExisting(manifest))).hasSize(2);
    assertThat(opened).as("not cached: read from the file").hasSize(2);
    opened.clear();
    assertThat(manifests.readExisting(manifest)).hasSize(2);
    assertThat(opened).as("and kept").isEmpty();

    java.nio.file.Path tableDir = dir.resolve("db.db").resolve("t").resolve("manifest");
    Files.delete(tableDir.resolve(manifest.fileName()));
    Files.delete(tableDir.resolve(latest.deltaManifestList()));
    assertThatThrownBy(() -> manifests.readExisting(manifest))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining(manifest.fileName());
    assertThatThrownBy(() -> lists.readExisting(latest.deltaManifestList()))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining(latest.deltaManifestList());
    assertThat(manifests.read(manifest)).as("a plan reads the cached entries").hasSize(2);
    assertThat(opened)
        .as("only the list, which the cache no longer held, was looked for")
        .allSatisfy(p -> assertThat(p).endsWith(latest.deltaManifestList()));
  }

  /**
   * An expiration forgets the lists and manifests it deletes: entries of files that are gone would
   * push out the ones plans still read. Those of the snapshots it keeps stay.
   */
  @Test
  void anExpirationForgetsTheListsAndManifestsItDeletes() throws Exception {
    Schema unmerged =
        TestTables.idPartitionSchema().option("manifest.merge-min-count", "1000").build();
    Table table = TestTables.create(TestTables.catalog(dir), "t", unmerged);
    List<Snapshot> snapshots = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      TestTables.writeBatch(table, List.of(row((long) i, "a")));
      snapshots.add(table.latestSnapshot().orElseThrow());
    }
    TablePaths paths = table.store().paths();
    Snapshot oldest = snapshots.get(0);
    String oldestList = paths.manifest(oldest.deltaManifestList()).toString();
    String latestList = paths.manifest(snapshots.get(3).deltaManifestList()).toString();
    assertThat((Object) ManifestCache.shared().get(oldestList)).isNotNull();

    new io.sediment.maintenance.ExpireSnapshots(table).retainMax(1).execute();

    assertThat(Files.exists(java.nio.file.Path.of(java.net.URI.create(oldestList)))).isFalse();
    assertThat((Object) ManifestCache.shared().get(oldestList)).as("deleted: forgotten").isNull();
    assertThat((Object) ManifestCache.shared().get(latestList)).as("kept").isNotNull();
    assertThat(TestTables.readAll(table)).hasSize(4);
  }

  /**
   * Generated manifest lists, written by a process with the cache on, read back from the cache
   * equal to a read of the file (names, sizes, counts, partition bounds and null counts, schema):
   * the cached list is made from the rows written, as a read makes it from the rows in the file. A
   * list deleted by the process (an abandoned commit) is forgotten.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void aManifestListIsCachedAsAReadOfItsFileMakesIt(long seed) throws Exception {
    Random random = new Random(seed);
    org.apache.flink.core.fs.Path root = new org.apache.flink.core.fs.Path(dir.toUri());
    ManifestCache cache = new ManifestCache(64L << 20);
    int arity = random.nextInt(3);
    ManifestList lists = new ManifestList(FileIO.of(root), new TablePaths(root), arity, cache);
    List<ManifestFileMeta> metas = new ArrayList<>();
    for (int i = random.nextInt(12); i > 0; i--) {
      long[] nullCounts = new long[arity];
      Object[] min = new Object[arity];
      Object[] max = new Object[arity];
      for (int f = 0; f < arity; f++) {
        nullCounts[f] = random.nextInt(3);
        min[f] = random.nextInt(5) == 0 ? null : random.nextInt(100);
        max[f] = random.nextInt(5) == 0 ? null : 100 + random.nextInt(100);
      }
      metas.add(
          new ManifestFileMeta(
              "manifest-" + seed + "-" + i,
              random.nextInt(1 << 20),
              random.nextInt(50),
              random.nextInt(50),
              intRow(min),
              intRow(max),
              nullCounts,
              random.nextInt(4)));
    }
    String name = lists.write(metas);
    assertThat(cache.size()).isEqualTo(1);
    List<ManifestFileMeta> cached = lists.read(name);
    List<ManifestFileMeta> decoded = lists.readUncached(name);
    assertThat(cache.hits()).isEqualTo(1);
    assertThat(cached).hasSameSizeAs(metas).hasSameSizeAs(decoded);
    for (int i = 0; i < cached.size(); i++) {
      ManifestFileMeta c = cached.get(i);
      ManifestFileMeta d = decoded.get(i);
      assertThat(List.of(c.fileName(), c.fileSize(), c.numAddedFiles(), c.numDeletedFiles()))
          .isEqualTo(List.of(d.fileName(), d.fileSize(), d.numAddedFiles(), d.numDeletedFiles()));
      assertThat(c.minPartition()).isEqualTo(d.minPartition());
      assertThat(c.maxPartition()).isEqualTo(d.maxPartition());
      assertThat(c.partitionNullCounts()).isEqualTo(d.partitionNullCounts());
      assertThat(c.schemaId()).isEqualTo(d.schemaId());
      assertThat(c.minPartition())
          .as("not the writer's row")
          .isNotSameAs(metas.get(i).minPartition());
    }
    lists.delete(name);
    assertThat(cache.size()).isZero();
    assertThat(cache.bytes()).isZero();
  }

  @Test
  void aReaderGetsAListOfItsOwn() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog, "t", Schema.newBuilder().column("id", DataTypes.BIGINT()).build());
    TestTables.writeBatch(table, List.of(row(1L), row(2L)));
    Snapshot latest = table.latestSnapshot().orElseThrow();
    List<ManifestFileMeta> metas = table.store().manifestList().read(latest.deltaManifestList());
    metas.clear();
    List<ManifestFileMeta> again = table.store().manifestList().read(latest.deltaManifestList());
    assertThat(again).hasSize(1);
    List<ManifestEntry> entries = table.store().manifestFile().read(again.get(0));
    entries.clear();
    assertThat(table.store().manifestFile().read(again.get(0))).hasSize(1);
  }

  /** Random reads and puts against a model of a least-recently-read cache bounded by bytes. */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void keepsTheMostRecentlyReadWithinItsBound(long seed) {
    Random random = new Random(seed);
    long max = 1_000 + random.nextInt(4_000);
    ManifestCache cache = new ManifestCache(max);
    LinkedHashMap<String, Long> model = new LinkedHashMap<>(16, 0.75f, true);
    long hits = 0;
    long misses = 0;
    for (int step = 0; step < 2_000; step++) {
      String path = "m-" + random.nextInt(40);
      if (random.nextBoolean()) {
        List<ManifestEntry> got = cache.get(path);
        Long expected = model.get(path); // refreshes the model's order as a hit does
        assertThat(got != null).as("cached %s at step %d", path, step).isEqualTo(expected != null);
        if (expected != null) {
          hits++;
        } else {
          misses++;
        }
      } else {
        long bytes = 1 + random.nextInt((int) max / 6);
        cache.put(path, List.of(), bytes);
        if (bytes <= max / 8) {
          model.remove(path);
          model.put(path, bytes);
          long total = model.values().stream().mapToLong(Long::longValue).sum();
          var eldest = model.entrySet().iterator();
          while (total > max) {
            total -= eldest.next().getValue();
            eldest.remove();
          }
        }
      }
      assertThat(cache.size()).isEqualTo(model.size());
      assertThat(cache.bytes())
          .isEqualTo(model.values().stream().mapToLong(Long::longValue).sum())
          .isLessThanOrEqualTo(max);
    }
    assertThat(cache.hits()).isEqualTo(hits).isPositive();
    assertThat(cache.misses()).isEqualTo(misses).isPositive();
  }

  @Test
  void aBoundOfZeroKeepsNothingAndANegativeOneIsRefused() {
    ManifestCache off = new ManifestCache(0);
    off.put("m", List.of(), 0);
    off.put("n", List.of(), 1);
    assertThat(off.get("m")).isNull();
    assertThat(off.get("n")).isNull();
    assertThat(off.size()).isZero();
    assertThatThrownBy(() -> new ManifestCache(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 (no cache) or more bytes, got -1");
  }

  @Test
  void theBoundPropertyIsAMemorySizeOrAClearError() {
    Map<String, Long> valid =
        Map.of("0", 0L, "1048576", 1L << 20, " 42 ", 42L, "64m", 64L << 20, "1 gb", 1L << 30);
    valid.forEach(
        (value, bytes) -> assertThat(ManifestCache.parseMaxBytes(value)).isEqualTo(bytes));
    assertThat(ManifestCache.parseMaxBytes(null))
        .isEqualTo(
            Math.min(ManifestCache.DEFAULT_MAX_BYTES_CAP, Runtime.getRuntime().maxMemory() / 16));
    for (String bad : List.of("-1", "64 apples", "")) {
      assertThatThrownBy(() -> ManifestCache.parseMaxBytes(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "System property sediment.manifest-cache.max-bytes must be a memory size of 0 or"
                  + " more (bytes, or a number with a unit: 64 mb, 1g; 0 turns the manifest cache"
                  + " off), got '"
                  + bad
                  + "'");
    }
  }

  private static Table partitionedTable(FileSystemCatalog catalog) {
    return TestTables.create(catalog, "t", TestTables.idPartitionSchema().build());
  }

  /** The manifests and lists opened on the table's file system from now on. */
  private static List<String> manifestsOpened() {
    List<String> opened = new CopyOnWriteArrayList<>();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.contains("/manifest/")) {
            opened.add(p);
          }
        });
    return opened;
  }

  private static org.apache.flink.table.data.binary.BinaryRowData intRow(Object[] values) {
    RowType type =
        RowType.of(
            true,
            java.util.stream.Stream.of(values)
                .map(v -> new IntType(true))
                .toArray(LogicalType[]::new));
    return BinaryRows.toBinary(type, GenericRowData.of(values));
  }

  private static List<String> fileNames(List<ManifestEntry> entries) {
    List<String> out = new ArrayList<>();
    entries.forEach(e -> out.add(e.file().fileName()));
    return out;
  }
}
