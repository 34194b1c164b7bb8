package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sort compaction (order, zorder, hilbert) through {@link CompactBuilder}: rows unchanged, every
 * output file sorted by the order's key and the files of a partition covering disjoint key ranges
 * (globally sorted across the parallel range tasks), inputs replaced in one COMPACT snapshot, and
 * the file statistics pruning a filtered scan. Tables are generated from seeds, with every column
 * type a sort key can be made of, nulls, spills and several ranges per partition.
 */
class SortCompactionTest {

  @TempDir Path dir;

  private static final String[] COLUMNS = {
    "user_id", "amount", "name", "ts", "price", "big", "flag", "day", "bin"
  };

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("p", DataTypes.STRING())
        .column("user_id", DataTypes.BIGINT())
        .column("amount", DataTypes.DOUBLE())
        .column("name", DataTypes.STRING())
        .column("ts", DataTypes.TIMESTAMP(6))
        .column("price", DataTypes.DECIMAL(10, 2))
        .column("big", DataTypes.DECIMAL(30, 4))
        .column("flag", DataTypes.BOOLEAN())
        .column("day", DataTypes.INT())
        .column("bin", DataTypes.BYTES())
        .partitionKeys("p");
  }

  private static GenericRowData randomRow(SplittableRandom r, String p) {
    boolean nulls = r.nextInt(10) == 0;
    String name = nulls ? null : (r.nextBoolean() ? "n" : "name-\0") + r.nextInt(1000);
    return GenericRowData.of(
        StringData.fromString(p),
        nulls && r.nextBoolean() ? null : (long) r.nextInt(-50_000, 50_000),
        r.nextInt(20) == 0 ? null : r.nextDouble(-100, 100),
        name == null ? null : StringData.fromString(name),
        TimestampData.fromLocalDateTime(
            LocalDateTime.of(2026, 1, 1, 0, 0).plusNanos(r.nextLong(1L << 40) * 1000)),
        DecimalData.fromBigDecimal(BigDecimal.valueOf(r.nextLong(-1_000_000, 1_000_000), 2), 10, 2),
        r.nextInt(15) == 0
            ? null
            : DecimalData.fromBigDecimal(
                new BigDecimal(r.nextLong() + "" + Math.abs(r.nextInt())).movePointLeft(4), 30, 4),
        r.nextInt(7) == 0 ? null : r.nextBoolean(),
        r.nextInt(-400, 400),
        new byte[] {(byte) r.nextInt(3), 0, (byte) r.nextInt(256)});
  }

  static Stream<Object[]> seeds() {
    List<Object[]> cases = new ArrayList<>();
    String[] strategies = {"order", "zorder", "hilbert"};
    for (int seed = 1; seed <= 6; seed++) {
      cases.add(new Object[] {seed, strategies[seed % 3]});
    }
    return cases.stream();
  }

  /**
   * Generated: per seed a strategy, one to three order columns of any type, 2 partitions of many
   * small files, a small target size (several ranges and output files per range) and a small sort
   * buffer (spills).
   */
  @ParameterizedTest(name = "seed {0}: {1}")
  @MethodSource("seeds")
  void aSortCompactionKeepsTheRowsAndSortsEachPartitionAcrossItsFiles(int seed, String strategy)
      throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    List<String> order = new ArrayList<>();
    int columns = 1 + r.nextInt(3);
    while (order.size() < columns) {
      String c = COLUMNS[r.nextInt(COLUMNS.length)];
      if (!order.contains(c)) {
        order.add(c);
      }
    }
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            schema()
                .option("target-file-size", "48 kb")
                .option("parquet.row-group-size", "16 kb")
                .option("write-buffer-size", (64 + r.nextInt(200)) + " kb")
                .build());
    List<String> expected = new ArrayList<>();
    int commits = 6 + r.nextInt(6);
    for (int c = 0; c < commits; c++) {
      List<RowData> batch = new ArrayList<>();
      for (String p : List.of("a", "b")) {
        for (int i = 0, n = 200 + r.nextInt(600); i < n; i++) {
          batch.add(randomRow(r, p));
        }
      }
      TestTables.writeBatch(table, batch);
      expected.addAll(TestTables.toStrings(table.rowType(), batch));
    }
    List<DataFileMeta> before = liveFiles(table);
    Collections.sort(expected);
    assertThat(sortedRows(table)).as("written").isEqualTo(expected);

    CompactBuilder builder =
        table
            .newCompactBuilder()
            .withSortOrder(strategy, String.join(",", order))
            .withOptions(Map.of("compaction.parallelism", "3"));
    List<CompactTask> plan = builder.plan();
    assertThat(plan).allMatch(t -> t.kind() == CompactTask.Kind.SORT_REWRITE);
    assertThat(plan.size()).as("ranges over both partitions").isGreaterThan(2);
    CompactResult result = builder.execute();

    table = catalog.getTable(table.fullName());
    Snapshot latest = table.latestSnapshot().orElseThrow();
    assertThat(latest.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(latest.id()).isEqualTo(commits + 1);
    assertThat(result.filesBefore()).isEqualTo(before.size());
    assertThat(result.rowsWritten()).isEqualTo(expected.size());
    List<DataFileMeta> after = liveFiles(table);
    Set<String> beforeNames = new HashSet<>();
    before.forEach(f -> beforeNames.add(f.fileName()));
    assertThat(after).noneMatch(f -> beforeNames.contains(f.fileName()));
    assertThat(sortedRows(table)).as("compacted").isEqualTo(expected);

    SortKeys keys = SortKeys.of(SortOrder.of(strategy, String.join(",", order)), table.rowType());
    for (DataSplit split : table.newReadBuilder().newScan().plan().splits()) {
      assertGloballySorted(table, split, keys);
    }
  }

  /**
   * The ranges a sort plans split the bucket's rows evenly (within the error of a sample of
   * SAMPLES_PER_RANGE keys per range), also when the input files are in key order and hold many
   * more rows than the sample, so that a sample of the first rows read would put every bound into
   * the first files: 4 ranges over 40,000 rows of 10 files, each range within 15% of a quarter.
   */
  @Test
  void aSortSplitsABucketIntoRangesOfEvenShares() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "even",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("pad", DataTypes.STRING())
                .build());
    int files = 10;
    int rowsPerFile = 4_000;
    List<RowData> rows = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      List<RowData> batch = new ArrayList<>();
      for (int i = 0; i < rowsPerFile; i++) {
        long id = (long) f * rowsPerFile + i;
        batch.add(GenericRowData.of(id, StringData.fromString("row-" + id)));
      }
      TestTables.writeBatch(table, batch);
      rows.addAll(batch);
    }
    long bytes = liveFiles(table).stream().mapToLong(DataFileMeta::fileSize).sum();
    // four target sizes of input: four ranges
    long target = (bytes + 3) / 4;
    List<CompactTask> plan =
        table
            .newCompactBuilder()
            .withSortOrder("order", "id")
            .withOptions(Map.of("target-file-size", target + " b", "compaction.parallelism", "4"))
            .plan();

    assertThat(plan).hasSize(4);
    SortKeys keys = SortKeys.of(SortOrder.of("order", "id"), table.rowType());
    int[] perRange = new int[plan.size()];
    for (RowData row : rows) {
      byte[] key = keys.key(row);
      for (int i = 0; i < plan.size(); i++) {
        if (plan.get(i).sortRange().orElseThrow().contains(key)) {
          perRange[i]++;
        }
      }
    }
    assertThat(Arrays.stream(perRange).sum()).as("each row in one range").isEqualTo(rows.size());
    int share = rows.size() / plan.size();
    for (int i = 0; i < perRange.length; i++) {
      assertThat(perRange[i])
          .as("rows of range %d of %s", i, Arrays.toString(perRange))
          .isBetween(share * 85 / 100, share * 115 / 100);
    }
  }

  /**
   * The table's rows as strings, sorted: compared with the sorted expected rows as lists, in n log
   * n (AssertJ's any-order comparison of some 10,000 rows is quadratic and took seconds).
   */
  private static List<String> sortedRows(Table table) {
    List<String> rows = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
    Collections.sort(rows);
    return rows;
  }

  /**
   * Each file of the split sorted by key, and the files' key ranges disjoint: in the order of their
   * first keys, each file starts at or after the previous one's last key.
   */
  private static void assertGloballySorted(Table table, DataSplit split, SortKeys keys)
      throws IOException {
    List<byte[][]> ranges = new ArrayList<>();
    for (DataFileMeta f : split.files()) {
      byte[] first = null;
      byte[] previous = null;
      try (EvolvingFileReader reader =
          EvolvingFileReader.open(
              table.store(), split.partition(), split.bucket(), f, table.rowType(), null)) {
        RowData row;
        while ((row = reader.next()) != null) {
          byte[] key = keys.key(row);
          if (previous != null) {
            assertThat(SortKeys.compare(previous, key))
                .as("rows of %s in key order", f.fileName())
                .isLessThanOrEqualTo(0);
          }
          if (first == null) {
            first = key;
          }
          previous = key;
        }
      }
      ranges.add(new byte[][] {first, previous});
    }
    ranges.sort((x, y) -> SortKeys.compare(x[0], y[0]));
    for (int i = 1; i < ranges.size(); i++) {
      assertThat(SortKeys.compare(ranges.get(i - 1)[1], ranges.get(i)[0]))
          .as("file %s of %s starts after the previous file's last key", i, split.files().size())
          .isLessThanOrEqualTo(0);
    }
  }

  @Test
  void aZOrderedTableReadsFewerFilesForAFilterOnBothColumns() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("user_id", DataTypes.BIGINT())
                .column("amount", DataTypes.DOUBLE())
                .option("target-file-size", "32 kb")
                .build());
    SplittableRandom r = new SplittableRandom(7);
    for (int c = 0; c < 8; c++) {
      List<RowData> batch = new ArrayList<>();
      for (int i = 0; i < 4000; i++) {
        batch.add(row((long) r.nextInt(100_000), r.nextDouble(0, 1000)));
      }
      TestTables.writeBatch(table, batch);
    }
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    Predicate filter =
        PredicateBuilder.and(pb.lessThan("user_id", 10_000L), pb.lessThan("amount", 100.0));
    int unsortedTotal = liveFiles(table).size();
    int unsortedFiles = filesRead(table, filter);
    long matching = countMatching(table, filter);

    table.newCompactBuilder().withSortOrder("zorder", "user_id,amount").execute();
    table = catalog.getTable(table.fullName());
    int total = liveFiles(table).size();
    int sortedFiles = filesRead(table, filter);

    assertThat(total).as("the rewrite wrote several files").isGreaterThan(4);
    assertThat(unsortedFiles)
        .as("before: every file spans both columns' ranges")
        .isEqualTo(unsortedTotal);
    assertThat(sortedFiles).as("after z-order, files read of %s", total).isLessThan(total / 2);
    assertThat(countMatching(table, filter)).isEqualTo(matching).isPositive();
  }

  private static int filesRead(Table table, Predicate filter) {
    int n = 0;
    for (DataSplit s : table.newReadBuilder().withFilter(filter).newScan().plan().splits()) {
      n += s.files().size();
    }
    return n;
  }

  private static long countMatching(Table table, Predicate filter) throws IOException {
    var rb = table.newReadBuilder().withFilter(filter);
    return rb.newRead().readAll(rb.newScan().plan().splits()).size();
  }

  /** Table db.t of 8 kb files: {@code commits} commits of 300 random rows per partition. */
  private static Table smallFilesTable(
      FileSystemCatalog catalog, long seed, int commits, String... partitions) {
    Table table =
        TestTables.create(catalog, "t", schema().option("target-file-size", "8 kb").build());
    SplittableRandom r = new SplittableRandom(seed);
    for (int c = 0; c < commits; c++) {
      List<RowData> batch = new ArrayList<>();
      for (String p : partitions) {
        for (int i = 0; i < 300; i++) {
          batch.add(randomRow(r, p));
        }
      }
      TestTables.writeBatch(table, batch);
    }
    return table;
  }

  /**
   * The ranges of a bucket switch over together also when an output of one is gone at commit time
   * (deleted from outside): the compaction commit conflicts as a whole, nothing of it lands, and no
   * row is lost or doubled (only the first range replaces the inputs, so committing the other
   * ranges alone would lose the lost range's rows, or keep rows twice).
   */
  @Test
  void aLostOutputOfOneRangeConflictsTheWholeCompaction() throws Exception {
    for (int lostRange = 0; lostRange < 3; lostRange++) {
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve("lost-" + lostRange));
      Table table = smallFilesTable(catalog, 11 + lostRange, 4, "a", "b");
      long rows = TestTables.readAll(table).size();
      List<CompactTask> plan = threeRangesPerPartition(table);
      CompactRewriter rewriter = TableKind.of(table.store()).rewriter(table.store(), p -> {});
      List<CommitMessage> messages = new ArrayList<>();
      List<CommitMessage> ofA = new ArrayList<>();
      for (CompactTask task : plan) {
        CommitMessage m = rewriter.rewrite(task, () -> false).message();
        messages.add(m);
        if (task.partitionPath().equals("p=a")) {
          ofA.add(m);
        }
      }
      assertThat(ofA).hasSize(3);
      String lost = ofA.get(lostRange).compactAfter().get(0).fileName();
      try (var files = Files.walk(dir.resolve("lost-" + lostRange))) {
        for (Path f : files.filter(f -> f.getFileName().toString().equals(lost)).toList()) {
          Files.delete(f);
        }
      }
      assertThatThrownBy(
              () ->
                  new CompactCommit(table.store(), "sorter")
                      .commit(messages, FileStoreCommit.BATCH_IDENTIFIER, false))
          .isInstanceOf(io.sediment.commit.CommitConflictException.class)
          .hasMessageContaining(lost);

      assertThat(TestTables.readAll(table)).as("range %s lost", lostRange).hasSize((int) rows);
      Set<String> live = new HashSet<>();
      for (var e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
        live.add(e.file().fileName());
      }
      assertThat(ofA)
          .as("partition a's ranges, range %s lost", lostRange)
          .allSatisfy(m -> assertThat(live).doesNotContain(m.compactAfter().get(0).fileName()));
      assertThat(messages)
          .as("no range's output")
          .allSatisfy(m -> assertThat(live).doesNotContain(m.compactAfter().get(0).fileName()));
    }
  }

  /** A sort compaction by user_id planned in three ranges per partition. */
  private static List<CompactTask> threeRangesPerPartition(Table table) {
    return table
        .newCompactBuilder()
        .withSortOrder("order", "user_id")
        .withOptions(Map.of("compaction.parallelism", "3"))
        .plan();
  }

  /** A budget never splits the ranges of a bucket: they replace its files together. */
  @Test
  void aBudgetTakesTheRangesOfABucketTogether() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = smallFilesTable(catalog, 5, 4, "a", "b");
    List<CompactTask> plan = threeRangesPerPartition(table);
    assertThat(plan).hasSize(6);
    for (long budget : new long[] {1, CompactBudget.replacedBytes(plan.subList(0, 3)) + 1}) {
      List<CompactTask> capped = CompactBudget.cap(plan, budget);
      assertThat(capped).as("budget %s", budget).hasSize(3);
      assertThat(capped).allMatch(t -> t.partitionPath().equals(plan.get(0).partitionPath()));
    }
    assertThat(CompactBudget.cap(plan, Long.MAX_VALUE)).hasSize(6);
  }

  /**
   * A range planned before a sort column's type changed is refused (its keys would be encoded
   * unlike the other ranges'): nothing written, the error says why; a change to another column is
   * fine.
   */
  @Test
  void aRangePlannedBeforeItsSortColumnChangedTypeIsRefused() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = smallFilesTable(catalog, 9, 3, "a");
    int files = TestTables.dataFiles(dir.resolve("db.db/t")).size();
    List<CompactTask> plan = table.newCompactBuilder().withSortOrder("order", "price").plan();
    catalog.alterTable(
        Identifier.parse("db.t"),
        List.of(SchemaChange.updateColumnType("price", new DecimalType(20, 2))));
    Table altered = catalog.getTable("db.t");
    CompactRewriter rewriter = TableKind.of(altered.store()).rewriter(altered.store(), p -> {});
    assertThatThrownBy(() -> rewriter.rewrite(plan.get(0), () -> false))
        .hasMessageContaining(
            "Sort column 'price' of db.t changed since the sort compaction was planned")
        .hasMessageContaining("run the compaction again");
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).hasSize(files);

    List<CompactTask> byDay = table.newCompactBuilder().withSortOrder("order", "day").plan();
    catalog.alterTable(
        Identifier.parse("db.t"),
        List.of(SchemaChange.updateColumnType("price", new DecimalType(22, 2))));
    Table again = catalog.getTable("db.t");
    assertThat(
            TableKind.of(again.store())
                .rewriter(again.store(), p -> {})
                .rewrite(byDay.get(0), () -> false)
                .rowsWritten())
        .isPositive();
  }

  /**
   * A sort column is its field id: a range planned before the column under that name became another
   * one (dropped and added again, two columns swapping names, renamed away) is refused with nothing
   * written, while a change to another column is fine. Before, a check by name and type let such a
   * range build null keys (or another column's) and keep rows of no range.
   */
  @Test
  void aRangePlannedBeforeItsSortColumnBecameAnotherColumnIsRefused() throws Exception {
    LogicalType string = DataTypes.STRING().getLogicalType();
    List<List<SchemaChange>> refused =
        List.of(
            List.of(SchemaChange.dropColumn("name"), SchemaChange.addColumn("name", string)),
            List.of(
                SchemaChange.renameColumn("name", "tmp"),
                SchemaChange.renameColumn("alias", "name"),
                SchemaChange.renameColumn("tmp", "alias")),
            List.of(SchemaChange.renameColumn("name", "label")));
    List<List<SchemaChange>> fine =
        List.of(
            List.of(SchemaChange.renameColumn("flag", "flag2")),
            List.of(SchemaChange.addColumn("extra", string)));
    int c = 0;
    for (List<List<SchemaChange>> cases : List.of(refused, fine)) {
      for (List<SchemaChange> changes : cases) {
        FileSystemCatalog catalog = TestTables.catalog(dir.resolve("c" + c++));
        Table table = smallFilesTable(catalog, c, 3, "a");
        catalog.alterTable(
            Identifier.parse("db.t"), List.of(SchemaChange.addColumn("alias", string)));
        table = catalog.getTable("db.t");
        List<CompactTask> plan = table.newCompactBuilder().withSortOrder("order", "name").plan();
        catalog.alterTable(Identifier.parse("db.t"), changes);
        Table altered = catalog.getTable("db.t");
        CompactRewriter rewriter = TableKind.of(altered.store()).rewriter(altered.store(), p -> {});
        if (cases == refused) {
          assertThatThrownBy(() -> rewriter.rewrite(plan.get(0), () -> false))
              .as("%s", changes)
              .hasMessageContaining(
                  "Sort column 'name' of db.t changed since the sort compaction was planned");
        } else {
          assertThat(rewriter.rewrite(plan.get(0), () -> false).rowsWritten())
              .as("%s", changes)
              .isPositive();
        }
      }
    }
  }

  @Test
  void wrongSortArgumentsAreRefusedNamingWhatIsAllowed() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema().build());
    TestTables.writeBatch(table, List.of(randomRow(new SplittableRandom(1), "a")));
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("lexical", "user_id"))
        .hasMessageContaining("Unknown order_strategy 'lexical'")
        .hasMessageContaining("'order', 'zorder', 'hilbert'");
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("zorder", "nope"))
        .hasMessageContaining("order_by column 'nope' is not a column of db.t");
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("order", "p"))
        .hasMessageContaining("'p' is a partition column");
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("order", "user_id,user_id"))
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("order", " "))
        .hasMessageContaining("empty column name");
    assertThatThrownBy(() -> table.newCompactBuilder().withSortOrder("order", null))
        .hasMessageContaining("order_strategy and order_by go together");
    assertThatThrownBy(
            () ->
                table
                    .newCompactBuilder()
                    .withStrategy("minor")
                    .withSortOrder("order", "user_id")
                    .execute())
        .hasMessageContaining("compact_strategy 'minor' does not go with it");
    assertThatThrownBy(
            () ->
                table
                    .newCompactBuilder()
                    .withSortOrder("order", "user_id")
                    .spec()
                    .checkMode(ExecutionMode.STREAMING))
        .hasMessageContaining("batch mode only");

    Table pk =
        TestTables.create(
            catalog,
            "pk",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .build());
    assertThatThrownBy(() -> pk.newCompactBuilder().withSortOrder("zorder", "v"))
        .hasMessageContaining("append tables only")
        .hasMessageContaining("primary-key table");
    Table bucketed =
        TestTables.create(
            catalog,
            "bucketed",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .option("bucket", "2")
                .option("bucket-key", "id")
                .build());
    assertThatThrownBy(() -> bucketed.newCompactBuilder().withSortOrder("order", "id"))
        .hasMessageContaining("without fixed buckets");
    Table nested =
        TestTables.create(
            catalog,
            "nested",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("tags", DataTypes.ARRAY(DataTypes.STRING()))
                .build());
    assertThatThrownBy(() -> nested.newCompactBuilder().withSortOrder("order", "tags"))
        .hasMessageContaining("cannot be sorted by")
        .hasMessageContaining("allowed are BOOLEAN");
    // nothing was compacted by any of these
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(f -> f.toString().contains("sediment-sort"))).isEmpty();
    }
  }

  private static List<DataFileMeta> liveFiles(Table table) {
    List<DataFileMeta> files = new ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      files.addAll(s.files());
    }
    return files;
  }
}
