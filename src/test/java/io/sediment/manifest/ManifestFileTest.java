package io.sediment.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.format.DataFileReader;
import io.sediment.format.FileFormatOptions;
import io.sediment.fs.FileIO;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.testutil.FaultyFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Manifest files on a real local file system: entries round-trip, each manifest records the
 * partition range it holds so a partition filter skips it unopened, damaged files are reported by
 * name, and a failed write leaves no manifest behind. The manifests and lists of these tests have
 * the cache off ({@link #NO_CACHE}), so every read decodes the file; {@link ManifestCacheTest}
 * covers the cache.
 */
class ManifestFileTest {

  private static final RowType PARTITION_TYPE =
      RowType.of(new LogicalType[] {new IntType(true)}, new String[] {"p"});
  private static final RowType KEY_TYPE = RowType.of(new BigIntType(false));
  private static final RowType VALUE_TYPE =
      RowType.of(new BigIntType(false), new VarCharType(true, VarCharType.MAX_LENGTH));
  private static final long SCHEMA_ID = 7;

  /** A cache that keeps nothing: the tests below read the files themselves. */
  private static final ManifestCache NO_CACHE = new ManifestCache(0);

  @TempDir java.nio.file.Path dir;

  private int nextName;

  @AfterEach
  void resetFaults() {
    FaultyFileSystem.reset();
  }

  // ---- round trip -----------------------------------------------------------------------------

  @Test
  void addAndDeleteEntriesRoundTripWithPartitionsAndStats() throws Exception {
    ManifestFile mf = manifestFile(root());
    DataFileMeta added = file(0, 1, 3, FileSource.APPEND, 0);
    DataFileMeta deleted = file(3, 100, 199, FileSource.COMPACT, 4);
    List<ManifestEntry> entries =
        List.of(
            new ManifestEntry(FileKind.ADD, partition(1), 0, 2, added),
            new ManifestEntry(FileKind.DELETE, partition(2), 1, 2, deleted),
            new ManifestEntry(
                FileKind.ADD, partition(null), 1, 2, file(1, 5, 5, FileSource.APPEND, 0)));

    List<ManifestFileMeta> metas = mf.write(entries);

    assertThat(metas).hasSize(1);
    ManifestFileMeta meta = metas.get(0);
    assertThat(meta.numAddedFiles()).isEqualTo(2);
    assertThat(meta.numDeletedFiles()).isEqualTo(1);
    assertThat(meta.schemaId()).isEqualTo(SCHEMA_ID);
    assertThat(meta.fileSize()).isEqualTo(Files.size(localManifest(meta)));
    assertThat(meta.minPartition().getInt(0)).isEqualTo(1);
    assertThat(meta.maxPartition().getInt(0)).isEqualTo(2);
    assertThat(meta.partitionNullCounts()).containsExactly(1L);

    List<ManifestEntry> read = mf.read(meta);
    assertThat(read).hasSize(3);
    for (int i = 0; i < entries.size(); i++) {
      assertSameEntry(read.get(i), entries.get(i));
    }
    assertThat(read.get(1).file().deleteRowCount()).isEqualTo(4);
    assertThat(read.get(0).file().maxValues().getString(1).toString()).isEqualTo("v3");
    assertThat(read.get(0).file().nullCounts()).containsExactly(0L, 1L);
    assertThat(read.get(2).partition().isNullAt(0)).isTrue();
  }

  @Test
  void entriesOfAnUnpartitionedTableRoundTrip() throws Exception {
    Path root = root();
    ManifestFile mf =
        new ManifestFile(
            FileIO.of(root), new TablePaths(root), RowType.of(), 1, SCHEMA_ID, 8L << 20, NO_CACHE);
    DataFileMeta a = file(0, 1, 3, FileSource.APPEND, 0);
    DataFileMeta b = file(2, 4, 9, FileSource.COMPACT, 0);
    List<ManifestEntry> entries =
        List.of(
            new ManifestEntry(FileKind.ADD, BinaryRows.EMPTY, 0, 1, a),
            new ManifestEntry(FileKind.DELETE, BinaryRows.EMPTY, 0, 1, b));

    ManifestFileMeta meta = single(mf.write(entries));
    assertThat(meta.minPartition().getArity()).isZero();
    assertThat(meta.partitionNullCounts()).isEmpty();
    List<ManifestEntry> read = mf.read(meta);
    assertThat(read).hasSize(2);
    assertSameEntry(read.get(0), entries.get(0));
    assertSameEntry(read.get(1), entries.get(1));
  }

  private static ManifestFileMeta single(List<ManifestFileMeta> metas) {
    assertThat(metas).hasSize(1);
    return metas.get(0);
  }

  @Test
  void writingRollsAtTheTargetSizeAndKeepsEntryOrder() throws Exception {
    ManifestFile mf = manifestFile(root(), 1);
    List<ManifestEntry> entries = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      entries.add(
          new ManifestEntry(FileKind.ADD, partition(i), 0, 1, file(0, i, i, FileSource.APPEND, 0)));
    }
    List<ManifestFileMeta> metas = mf.write(entries);

    assertThat(metas).hasSizeGreaterThan(1);
    assertThat(metas.stream().mapToLong(ManifestFileMeta::numEntries).sum()).isEqualTo(5);
    List<String> names = new ArrayList<>();
    for (ManifestFileMeta m : metas) {
      mf.read(m).forEach(e -> names.add(e.file().fileName()));
    }
    assertThat(names)
        .containsExactlyElementsOf(entries.stream().map(e -> e.file().fileName()).toList());
  }

  @Test
  void writingNothingWritesNoManifest() throws Exception {
    assertThat(manifestFile(root()).write(List.of())).isEmpty();
    assertThat(localManifestDir()).doesNotExist();
  }

  /**
   * The columns of manifests and manifest lists that differ in every entry (file names, sizes,
   * keys, statistics) are written plain: a dictionary there only cost time (its id list, then a
   * fall-back once the dictionary page filled) for no smaller file.
   */
  @Test
  void theColumnsThatDifferPerEntryHaveNoDictionary() throws Exception {
    ManifestFile mf = manifestFile(root());
    List<ManifestFileMeta> metas = mf.write(entriesOfPartitions(1, 1, 1, 2, 2, 2));
    String list =
        new ManifestList(FileIO.of(root()), new TablePaths(root()), 1, NO_CACHE).write(metas);

    assertThat(ManifestFile.FORMAT.plainColumns())
        .contains("file_name", "min_key", "max_key", "min_values", "max_values");
    assertPlain(localManifest(metas.get(0)), ManifestFile.ENTRY_TYPE, ManifestFile.FORMAT);
    // the columns that repeat keep their dictionary, which reads faster
    assertThat(hasDictionary(localManifest(metas.get(0)), ManifestFile.ENTRY_TYPE, "bucket"))
        .isTrue();
    assertThat(ManifestList.FORMAT.plainColumns()).contains("file_name");
    assertPlain(localManifestDir().resolve(list), ManifestList.META_TYPE, ManifestList.FORMAT);
  }

  /** The columns {@code format} names plain have no dictionary page. */
  private static void assertPlain(java.nio.file.Path file, RowType type, FileFormatOptions format)
      throws IOException {
    try (DataFileReader reader =
        DataFileReader.open(new Path(file.toUri()), type, null, Files.size(file))) {
      List<ColumnChunkMetaData> chunks = reader.footer().getBlocks().get(0).getColumns();
      assertThat(chunks).hasSize(type.getFieldCount());
      for (ColumnChunkMetaData chunk : chunks) {
        if (format.plainColumns().contains(chunk.getPath().toDotString())) {
          assertThat(chunk.getEncodings())
              .as("%s of %s", chunk.getPath(), file.getFileName())
              .doesNotContain(Encoding.PLAIN_DICTIONARY);
        }
      }
    }
  }

  private static boolean hasDictionary(java.nio.file.Path file, RowType type, String column)
      throws IOException {
    try (DataFileReader reader =
        DataFileReader.open(new Path(file.toUri()), type, null, Files.size(file))) {
      return reader.footer().getBlocks().get(0).getColumns().stream()
          .filter(c -> c.getPath().toDotString().equals(column))
          .anyMatch(c -> c.getEncodings().contains(Encoding.PLAIN_DICTIONARY));
    }
  }

  // ---- partition statistics and pruning -------------------------------------------------------

  @Test
  void eachManifestRecordsThePartitionRangeItHolds() throws Exception {
    ManifestFile mf = manifestFile(root());
    List<ManifestFileMeta> metas = mf.write(entriesOfPartitions(1, 1, 2, 2, 3, 3), 2);

    assertThat(metas).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(metas.get(i).minPartition().getInt(0)).isEqualTo(i + 1);
      assertThat(metas.get(i).maxPartition().getInt(0)).isEqualTo(i + 1);
      assertThat(metas.get(i).partitionNullCounts()).containsExactly(0L);
      assertThat(metas.get(i).numAddedFiles()).isEqualTo(2);
    }

    // Fewer entries than the split count: the partition change does not split.
    assertThat(mf.write(entriesOfPartitions(1, 2, 3), 2)).hasSize(2);
  }

  /**
   * A manifest is one small row group of many columns: it is read with two opens of its file on any
   * file system (the footer, then every column chunk at once), not one per column, which made
   * opening files the largest cost of planning on a local disk.
   */
  @Test
  void aManifestIsReadWithTwoOpensNotOnePerColumn() throws Exception {
    Path root = new Path(FaultyFileSystem.uri(dir));
    ManifestFile mf = manifestFile(root);
    List<ManifestFileMeta> metas = mf.write(entriesOfPartitions(1, 2, 3, 3));
    List<String> opened = new CopyOnWriteArrayList<>();
    FaultyFileSystem.onOpen(opened::add);

    assertThat(mf.read(metas.get(0))).hasSize(4);
    assertThat(opened).hasSize(2).allSatisfy(p -> assertThat(p).endsWith(metas.get(0).fileName()));
  }

  @Test
  void aPartitionFilterSkipsManifestsOfOtherPartitionsWithoutOpeningThem() throws Exception {
    Path root = new Path(FaultyFileSystem.uri(dir));
    ManifestFile mf = manifestFile(root);
    List<ManifestFileMeta> metas =
        new ArrayList<>(mf.write(entriesOfPartitions(1, 1, 2, 2, 3, 3), 2));
    // One more manifest that holds partitions 1 and 3, so partition 2 lies inside its range.
    metas.addAll(mf.write(entriesOfPartitions(1, 3)));
    ManifestList list = new ManifestList(FileIO.of(root), new TablePaths(root), 1, NO_CACHE);
    String base = list.write(metas);
    String delta = list.write(List.of());
    Snapshot snapshot =
        new Snapshot(
            1, 1, SCHEMA_ID, base, delta, null, "u", Long.MAX_VALUE, CommitKind.APPEND, 0, 8, 8, 8);

    List<String> opened = new CopyOnWriteArrayList<>();
    FaultyFileSystem.onOpen(opened::add);
    FileStoreScan scan =
        new FileStoreScan(list, mf)
            .withPartitionFilter(new PredicateBuilder(PARTITION_TYPE).equal("p", 1));
    List<ManifestEntry> live = scan.plan(snapshot);

    assertThat(live).hasSize(3).allSatisfy(e -> assertThat(e.partition().getInt(0)).isEqualTo(1));
    assertThat(scan.manifestsRead()).isEqualTo(2);
    assertThat(scan.manifestsSkipped()).isEqualTo(2);
    assertThat(opened)
        .anySatisfy(p -> assertThat(p).endsWith(metas.get(0).fileName()))
        .anySatisfy(p -> assertThat(p).endsWith(metas.get(3).fileName()))
        .noneSatisfy(p -> assertThat(p).endsWith(metas.get(1).fileName()))
        .noneSatisfy(p -> assertThat(p).endsWith(metas.get(2).fileName()));

    // Partition 2 lies in the range of the mixed manifest, which is opened, but none of its
    // entries is handed out.
    opened.clear();
    FileStoreScan two =
        new FileStoreScan(list, mf)
            .withPartitionFilter(new PredicateBuilder(PARTITION_TYPE).equal("p", 2));
    assertThat(two.plan(snapshot))
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.partition().getInt(0)).isEqualTo(2));
    assertThat(two.manifestsRead()).isEqualTo(2);
  }

  /**
   * A plan reads its manifests in parallel and merges them in their order: over generated snapshots
   * of many manifests (files added, some deleted by later manifests), the live files are exactly
   * those a one-by-one reading gives, in the order they were added, with or without a partition
   * filter; a manifest that cannot be read fails the plan naming the snapshot.
   */
  @Test
  void plansOfManyManifestsAreTheLiveFilesInTheOrderTheyWereAdded() throws Exception {
    ManifestFile mf = manifestFile(root());
    ManifestList list = new ManifestList(FileIO.of(root()), new TablePaths(root()), 1, NO_CACHE);
    for (long seed = 0; seed < 10; seed++) {
      java.util.Random random = new java.util.Random(seed);
      List<ManifestFileMeta> metas = new ArrayList<>();
      List<ManifestEntry> added = new ArrayList<>();
      java.util.Set<String> deleted = new java.util.HashSet<>();
      for (int m = seed < 2 ? 30 : 3 + random.nextInt(30); m > 0; m--) {
        List<ManifestEntry> entries = new ArrayList<>();
        // the first seeds are large enough to be read in parallel, the others on the caller
        for (int f = seed < 2 ? 800 : 1 + random.nextInt(5); f > 0; f--) {
          if (!added.isEmpty() && random.nextInt(4) == 0) {
            ManifestEntry victim = added.get(random.nextInt(added.size()));
            entries.add(
                new ManifestEntry(
                    FileKind.DELETE, victim.partition(), victim.bucket(), 1, victim.file()));
            deleted.add(victim.file().fileName());
          } else {
            ManifestEntry e =
                new ManifestEntry(
                    FileKind.ADD,
                    partition(random.nextInt(3)),
                    0,
                    1,
                    file(0, 1, 9, FileSource.APPEND, 0));
            entries.add(e);
            added.add(e);
          }
        }
        metas.addAll(mf.write(entries));
      }
      Snapshot snapshot =
          new Snapshot(
              1,
              1,
              SCHEMA_ID,
              list.write(metas),
              list.write(List.of()),
              null,
              "u",
              Long.MAX_VALUE,
              CommitKind.APPEND,
              0,
              8,
              8,
              8);
      if (seed < 2) {
        assertThat(added.size()).isGreaterThan((int) FileStoreScan.PARALLEL_MIN_ENTRIES);
      }
      for (Integer p : new Integer[] {null, 1}) {
        List<String> expected = new ArrayList<>();
        for (ManifestEntry e : added) {
          if (!deleted.contains(e.file().fileName())
              && (p == null || e.partition().getInt(0) == p)) {
            expected.add(e.file().fileName());
          }
        }
        FileStoreScan scan = new FileStoreScan(list, mf);
        if (p != null) {
          scan.withPartitionFilter(new PredicateBuilder(PARTITION_TYPE).equal("p", p));
        }
        assertThat(scan.plan(snapshot).stream().map(e -> e.file().fileName()).toList())
            .as("seed %d, partition %s", seed, p)
            .isEqualTo(expected);
      }
      if (seed == 0) {
        Files.delete(localManifest(metas.get(metas.size() / 2)));
        ManifestCache.clear(); // else the plan above had it cached
        assertThatThrownBy(() -> new FileStoreScan(list, mf).plan(snapshot))
            .hasMessageContaining("Cannot read the manifests of snapshot 1");
      }
    }
  }

  @Test
  void readingWithAFilterHandsOutOnlyEntriesOfMatchingPartitions() throws Exception {
    ManifestFile mf = manifestFile(root());
    ManifestFileMeta meta = mf.write(entriesOfPartitions(1, 2, null, 2, 3)).get(0);
    PredicateBuilder pb = new PredicateBuilder(PARTITION_TYPE);

    assertThat(partitionsRead(mf, meta, pb.equal("p", 2))).containsExactly(2, 2);
    assertThat(partitionsRead(mf, meta, pb.isNull("p"))).containsExactly((Integer) null);
    assertThat(partitionsRead(mf, meta, pb.greaterThan("p", 1))).containsExactly(2, 2, 3);
    assertThat(partitionsRead(mf, meta, null)).containsExactly(1, 2, null, 2, 3);
  }

  /**
   * Filtered reads hand out the same entries whether the manifest is cached, larger than the cache
   * keeps, or the cache is off; only a manifest within the bound is kept.
   */
  @ParameterizedTest
  @ValueSource(longs = {0, 8 * 1000, 64L << 20})
  void filteredReadsAreTheSameWhateverTheCacheKeeps(long cacheBytes) throws Exception {
    ManifestCache cache = new ManifestCache(cacheBytes);
    Path root = root();
    ManifestFile mf =
        new ManifestFile(
            FileIO.of(root), new TablePaths(root), PARTITION_TYPE, 1, SCHEMA_ID, 8L << 20, cache);
    Integer[] partitions = new Integer[60];
    for (int i = 0; i < partitions.length; i++) {
      partitions[i] = i % 7 == 0 ? null : i / 10;
    }
    ManifestFileMeta large = mf.write(entriesOfPartitions(partitions)).get(0);
    ManifestFileMeta small = mf.write(entriesOfPartitions(2)).get(0);
    PredicateBuilder pb = new PredicateBuilder(PARTITION_TYPE);
    List<Integer> expected = new ArrayList<>();
    for (Integer p : partitions) {
      if (p != null && p == 2) {
        expected.add(p);
      }
    }
    for (int pass = 0; pass < 2; pass++) {
      assertThat(partitionsRead(mf, large, pb.equal("p", 2))).isEqualTo(expected);
      assertThat(partitionsRead(mf, large, null)).containsExactly(partitions);
      assertThat(partitionsRead(mf, small, pb.equal("p", 2))).containsExactly(2);
    }
    // about 500 bytes an entry: 60 of them are past an eighth of 8,000 bytes, one is not
    assertThat(cache.size()).isEqualTo(cacheBytes == 0 ? 0 : cacheBytes < 1 << 20 ? 1 : 2);
  }

  private static List<Integer> partitionsRead(ManifestFile mf, ManifestFileMeta meta, Predicate f)
      throws IOException {
    List<Integer> out = new ArrayList<>();
    mf.read(meta, f, e -> out.add(e.partition().isNullAt(0) ? null : e.partition().getInt(0)));
    return out;
  }

  // ---- damaged and missing files --------------------------------------------------------------

  @Test
  void aTruncatedManifestIsAnErrorNamingTheFile() throws Exception {
    ManifestFile mf = manifestFile(root());
    List<ManifestEntry> entries = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      entries.add(
          new ManifestEntry(
              FileKind.ADD, partition(i % 3), 0, 1, file(0, i, i, FileSource.APPEND, 0)));
    }
    ManifestFileMeta meta = mf.write(entries).get(0);
    java.nio.file.Path file = localManifest(meta);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(() -> mf.read(meta))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(meta.fileName());
  }

  @Test
  void aGarbageOrEmptyManifestIsAnErrorNamingTheFile() throws Exception {
    ManifestFile mf = manifestFile(root());
    Files.createDirectories(localManifestDir());
    Files.writeString(localManifestDir().resolve("manifest-garbage"), "this is not parquet at all");
    Files.write(localManifestDir().resolve("manifest-empty"), new byte[0]);

    assertThatThrownBy(() -> mf.readUncached("manifest-garbage"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("manifest-garbage");
    assertThatThrownBy(() -> mf.readUncached("manifest-empty"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("manifest-empty");
  }

  @Test
  void aMissingManifestIsAnErrorNamingTheFile() {
    ManifestFile mf = manifestFile(root());
    assertThatThrownBy(() -> mf.readUncached("manifest-missing"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("manifest-missing");
  }

  // ---- deleting and failed writes -------------------------------------------------------------

  @Test
  void deleteRemovesTheManifestsAndIgnoresOnesAlreadyGone() throws Exception {
    ManifestFile mf = manifestFile(root());
    List<ManifestFileMeta> metas = mf.write(entriesOfPartitions(1, 2, 3), 1);
    assertThat(metas).hasSize(3);

    mf.delete(metas.subList(0, 1));
    assertThat(localManifest(metas.get(0))).doesNotExist();
    assertThat(localManifest(metas.get(1))).exists();

    mf.delete(metas); // the first is gone already: no error
    assertThat(localManifestDir()).isEmptyDirectory();
  }

  /** Also with the cache on: the finished manifests it kept are forgotten with their files. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aFailedWriteDeletesTheManifestsItAlreadyFinished(boolean cached) throws Exception {
    Path root = new Path(FaultyFileSystem.uri(dir));
    ManifestCache cache = cached ? new ManifestCache(64L << 20) : NO_CACHE;
    ManifestFile mf =
        new ManifestFile(
            FileIO.of(root), new TablePaths(root), PARTITION_TYPE, 1, SCHEMA_ID, 8L << 20, cache);
    AtomicInteger creates = new AtomicInteger();
    // Two manifests are written whole; creating the third one fails.
    FaultyFileSystem.failCreate(
        p -> p.contains("/manifest/manifest-") && creates.incrementAndGet() == 3);

    assertThatThrownBy(() -> mf.write(entriesOfPartitions(1, 2, 3, 4), 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Injected failure");
    assertThat(creates.get()).isGreaterThanOrEqualTo(3);
    try (var files = Files.list(localManifestDir())) {
      assertThat(files.toList()).isEmpty();
    }
    assertThat(cache.size()).isZero();
    assertThat(cache.bytes()).isZero();
  }

  // ---- helpers --------------------------------------------------------------------------------

  /**
   * What a plan holds per file is kept small (a plan of a table holds every file): generated
   * manifests of append files (no key) over random runs of partitions read back equal to what was
   * written, the entries of one partition share one partition row, and key bounds are the one
   * shared empty row; value statistics decode to the rows written. The same for the entries the
   * cache keeps as they are written ({@code cached}): what the next plan of the writing process
   * reads has the same shape as a read of the file.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void readEntriesShareTheirPartitionRowAndTheEmptyKeyAndKeepTheirStats(boolean cached)
      throws Exception {
    for (long seed = 0; seed < 20; seed++) {
      java.util.Random random = new java.util.Random(seed);
      ManifestCache cache = cached ? new ManifestCache(64L << 20) : NO_CACHE;
      ManifestFile mf =
          new ManifestFile(
              FileIO.of(root()),
              new TablePaths(root()),
              PARTITION_TYPE,
              0,
              SCHEMA_ID,
              8L << 20,
              cache);
      List<ManifestEntry> written = new ArrayList<>();
      int partitions = 1 + random.nextInt(6);
      for (int p = 0; p < partitions; p++) {
        Integer value = random.nextInt(10) == 0 ? null : random.nextInt(1000);
        for (int f = 1 + random.nextInt(20); f > 0; f--) {
          long min = random.nextLong();
          written.add(
              new ManifestEntry(
                  random.nextInt(5) == 0 ? FileKind.DELETE : FileKind.ADD,
                  partition(value),
                  random.nextInt(4),
                  4,
                  new DataFileMeta(
                      "data-" + seed + "-" + written.size() + ".parquet",
                      random.nextInt(1 << 20),
                      1 + random.nextInt(1000),
                      BinaryRows.EMPTY,
                      BinaryRows.EMPTY,
                      BinaryRows.toBinary(
                          VALUE_TYPE, GenericRowData.of(min, StringData.fromString("a" + min))),
                      BinaryRows.toBinary(
                          VALUE_TYPE, GenericRowData.of(min + 1, StringData.fromString("z"))),
                      new long[] {0, random.nextInt(3)},
                      0,
                      0,
                      SCHEMA_ID,
                      0,
                      random.nextLong(),
                      FileSource.APPEND,
                      0)));
        }
      }
      List<ManifestEntry> read = new ArrayList<>();
      List<ManifestEntry> decoded = new ArrayList<>();
      List<ManifestFileMeta> metas = mf.write(written);
      for (ManifestFileMeta meta : metas) {
        read.addAll(mf.read(meta));
        decoded.addAll(mf.readUncached(meta.fileName()));
      }
      assertThat(cache.hits()).as("reads from the cache").isEqualTo(cached ? metas.size() : 0);
      assertThat(read).as("seed %d", seed).hasSameSizeAs(decoded);
      for (int i = 0; i < read.size(); i++) {
        assertSameEntry(read.get(i), decoded.get(i));
      }
      assertThat(read).as("seed %d", seed).hasSameSizeAs(written);
      for (int i = 0; i < read.size(); i++) {
        ManifestEntry e = read.get(i);
        ManifestEntry w = written.get(i);
        assertThat(List.of(e.kind(), e.partition(), e.bucket(), e.totalBuckets(), e.file()))
            .as("seed %d entry %d", seed, i)
            .isEqualTo(List.of(w.kind(), w.partition(), w.bucket(), w.totalBuckets(), w.file()));
        assertThat(e.file().minKey()).isSameAs(BinaryRows.EMPTY);
        assertThat(e.file().maxKey()).isSameAs(BinaryRows.EMPTY);
        assertThat(e.file().minValues()).isEqualTo(written.get(i).file().minValues());
        assertThat(e.file().maxValues().getString(1).toString()).isEqualTo("z");
        if (i > 0 && e.partition().equals(read.get(i - 1).partition())) {
          assertThat(e.partition()).isSameAs(read.get(i - 1).partition());
        }
      }
    }
  }

  private Path root() {
    return new Path(dir.toUri());
  }

  private ManifestFile manifestFile(Path root) {
    return manifestFile(root, 8L << 20);
  }

  private ManifestFile manifestFile(Path root, long targetSize) {
    return new ManifestFile(
        FileIO.of(root), new TablePaths(root), PARTITION_TYPE, 1, SCHEMA_ID, targetSize, NO_CACHE);
  }

  private java.nio.file.Path localManifestDir() {
    return dir.resolve("manifest");
  }

  private java.nio.file.Path localManifest(ManifestFileMeta meta) {
    return localManifestDir().resolve(meta.fileName());
  }

  private List<ManifestEntry> entriesOfPartitions(Integer... partitions) {
    List<ManifestEntry> out = new ArrayList<>();
    for (Integer p : partitions) {
      out.add(
          new ManifestEntry(FileKind.ADD, partition(p), 0, 1, file(0, 1, 9, FileSource.APPEND, 0)));
    }
    return out;
  }

  private static BinaryRowData partition(Integer p) {
    return BinaryRows.toBinary(PARTITION_TYPE, GenericRowData.of(p));
  }

  private DataFileMeta file(int level, long minKey, long maxKey, FileSource source, long deletes) {
    int n = nextName++;
    return new DataFileMeta(
        "data-" + n + ".parquet",
        1_000 + n,
        10 + n,
        BinaryRows.toBinary(KEY_TYPE, GenericRowData.of(minKey)),
        BinaryRows.toBinary(KEY_TYPE, GenericRowData.of(maxKey)),
        BinaryRows.toBinary(VALUE_TYPE, GenericRowData.of(minKey, StringData.fromString("v1"))),
        BinaryRows.toBinary(VALUE_TYPE, GenericRowData.of(maxKey, StringData.fromString("v3"))),
        new long[] {0, 1},
        100L * n,
        100L * n + 9,
        SCHEMA_ID,
        level,
        1_700_000_000_000L + n,
        source,
        deletes);
  }

  private static void assertSameEntry(ManifestEntry actual, ManifestEntry expected) {
    assertThat(actual.kind()).isEqualTo(expected.kind());
    assertThat(BinaryRows.equals(actual.partition(), expected.partition())).isTrue();
    assertThat(actual.bucket()).isEqualTo(expected.bucket());
    assertThat(actual.totalBuckets()).isEqualTo(expected.totalBuckets());
    assertThat(actual.file()).isEqualTo(expected.file());
    assertThat(actual.identifier()).isEqualTo(expected.identifier());
  }
}
