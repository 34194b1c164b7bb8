package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.format.DataFileReader;
import io.sediment.format.ParquetPages;
import io.sediment.manifest.DataFileMeta;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.parquet.format.PageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction never commits corrupt input: real data files are corrupted on disk (flipped page
 * bytes, truncation, a bad footer, a footer disagreeing with the manifest), and the rewrite, by
 * byte copy (append tables) or by merge (primary-key tables), fails naming the file, commits
 * nothing and leaves no output file, while the table's healthy files stay readable.
 */
class CompactCorruptInputTest {

  @TempDir Path dir;

  private Table appendTable(String compression) {
    return TestTables.create(
        TestTables.catalog(dir),
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING())
            .column("note", DataTypes.STRING())
            .partitionKeys("p")
            .option("file.compression", compression)
            .build());
  }

  private Table primaryKeyTable(String compression) {
    return TestTables.create(
        TestTables.catalog(dir),
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING().notNull())
            .column("note", DataTypes.STRING())
            .primaryKey("p", "id")
            .partitionKeys("p")
            .option("bucket", "1")
            .option("write-only", "true")
            .option("file.compression", compression)
            .build());
  }

  /** Six commits, each a file of 50 rows in partitions a and b; keys repeat across commits. */
  private static void fill(Table table) {
    for (int c = 0; c < 6; c++) {
      List<RowData> batch = new ArrayList<>();
      for (String p : List.of("a", "b")) {
        for (long i = 0; i < 50; i++) {
          long id = c * 30 + i;
          batch.add(row(id, p, id % 5 == 0 ? null : "n" + c + "-" + id));
        }
      }
      TestTables.writeBatch(table, batch);
    }
  }

  private List<String> partition(Table table, String p) throws IOException {
    List<DataSplit> splits =
        table
            .newReadBuilder()
            .withFilter(new PredicateBuilder(table.rowType()).equal("p", p))
            .newScan()
            .plan()
            .splits();
    return TestTables.toStrings(table.rowType(), table.newReadBuilder().newRead().readAll(splits));
  }

  private static List<DataFileMeta> files(Table table, String p) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s :
        table
            .newReadBuilder()
            .withFilter(new PredicateBuilder(table.rowType()).equal("p", p))
            .newScan()
            .plan()
            .splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  private Path onDisk(DataFileMeta file) {
    return TestTables.dataFiles(dir.resolve("db.db/t")).stream()
        .filter(f -> f.getFileName().toString().equals(file.fileName()))
        .findFirst()
        .orElseThrow();
  }

  private Set<String> dataFileNames() {
    return TestTables.dataFiles(dir.resolve("db.db/t")).stream()
        .map(f -> f.getFileName().toString())
        .collect(Collectors.toSet());
  }

  /**
   * Corrupts the third file of partition a with {@code corruption}, then checks that a compaction
   * of the whole table fails naming the file (and {@code expected}), publishes no snapshot, leaves
   * no output, and that partition b and a's other files still read as before.
   */
  private void compactionRefuses(
      Table table, Map<String, String> options, Consumer<Path> corruption, String... expected)
      throws Exception {
    List<String> bRows = partition(table, "b");
    List<DataFileMeta> aFiles = files(table, "a");
    DataFileMeta victim = aFiles.get(2);
    Path victimPath = onDisk(victim);
    corruption.accept(victimPath);
    Set<String> filesBefore = dataFileNames();
    long snapshotBefore = table.latestSnapshot().orElseThrow().id();

    assertThatThrownBy(() -> table.newCompactBuilder().withOptions(options).execute())
        .isInstanceOf(IOException.class)
        .hasMessageContaining(victim.fileName())
        .hasMessageContainingAll(expected);

    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(snapshotBefore);
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(partition(table, "b")).containsExactlyInAnyOrderElementsOf(bRows);
    for (DataFileMeta f : aFiles) {
      if (f != victim) {
        org.apache.flink.core.fs.Path path = new org.apache.flink.core.fs.Path(onDisk(f).toUri());
        assertThat(DataFileReader.readAll(path, fileType(table), null)).hasSize((int) f.rowCount());
      }
    }
  }

  private static org.apache.flink.table.types.logical.RowType fileType(Table table) {
    return table.schema().primaryKeys().isEmpty()
        ? table.rowType()
        : new KeyValueLayout(table.store().schema()).fileType();
  }

  private static Consumer<Path> flip(PageType type, String column) {
    return file -> ParquetPages.flipBodyByte(file, ParquetPages.page(file, 0, column, type));
  }

  @ParameterizedTest(name = "{0} {1} of {2}")
  @CsvSource({
    "zstd, DATA_PAGE, note",
    "zstd, DICTIONARY_PAGE, p",
    "uncompressed, DATA_PAGE, note",
    "uncompressed, DICTIONARY_PAGE, p"
  })
  void theRowGroupCopyRefusesAFlippedByte(String compression, PageType type, String column)
      throws Exception {
    Table table = appendTable(compression);
    fill(table);
    compactionRefuses(
        table, Map.of(), flip(type, column), "column '" + column + "'", "row group 0", "CRC32");
  }

  @ParameterizedTest(name = "{0} {1} of {2}")
  @CsvSource({
    "zstd, DATA_PAGE, note",
    "uncompressed, DATA_PAGE, note",
    "uncompressed, DATA_PAGE, id"
  })
  void thePrimaryKeyMergeRefusesAFlippedByte(String compression, PageType type, String column)
      throws Exception {
    Table table = primaryKeyTable(compression);
    fill(table);
    compactionRefuses(
        table,
        Map.of("compaction.full", "true"),
        flip(type, column),
        "column '" + column + "'",
        "row group 0",
        "CRC32");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aTruncatedFileIsRefusedNamingIt(boolean primaryKey) throws Exception {
    Table table = primaryKey ? primaryKeyTable("zstd") : appendTable("zstd");
    fill(table);
    compactionRefuses(
        table,
        Map.of("compaction.full", "true"),
        file -> rewrite(file, bytes -> Arrays.copyOf(bytes, bytes.length / 2)),
        "Cannot read the Parquet footer",
        "ends early (truncated?)");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aBadFooterIsRefusedNamingTheFile(boolean primaryKey) throws Exception {
    Table table = primaryKey ? primaryKeyTable("zstd") : appendTable("zstd");
    fill(table);
    compactionRefuses(
        table,
        Map.of("compaction.full", "true"),
        file ->
            rewrite(
                file,
                bytes -> {
                  // the footer's bytes, before its length and the magic
                  Arrays.fill(bytes, bytes.length - 80, bytes.length - 8, (byte) 0xA5);
                  return bytes;
                }),
        "Cannot read the Parquet footer");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aFooterRowCountOtherThanTheManifestsIsRefused(boolean primaryKey) throws Exception {
    Table table = primaryKey ? primaryKeyTable("zstd") : appendTable("zstd");
    fill(table);
    // one more commit whose manifest entries say one row less than the files hold
    List<RowData> batch = new ArrayList<>();
    for (long i = 0; i < 50; i++) {
      batch.add(row(1000 + i, "a", "late"));
    }
    WriteBuilder wb = table.newBatchWriteBuilder();
    List<CommitMessage> lying = new ArrayList<>();
    try (TableWrite write = wb.newWrite()) {
      for (RowData r : batch) {
        write.write(r);
      }
      for (CommitMessage m : write.prepareCommit()) {
        List<DataFileMeta> files = new ArrayList<>();
        m.newFiles().forEach(f -> files.add(withRowCount(f, f.rowCount() - 1)));
        lying.add(CommitMessage.append(m.partition(), m.bucket(), m.totalBuckets(), files));
      }
    }
    wb.newCommit().commit(lying);
    DataFileMeta victim = lying.get(0).newFiles().get(0);
    Set<String> filesBefore = dataFileNames();
    long snapshotBefore = table.latestSnapshot().orElseThrow().id();

    assertThatThrownBy(
            () ->
                table.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute())
        .isInstanceOf(IOException.class)
        .hasMessageContaining(victim.fileName())
        .hasMessageContaining("holds 50 rows by its footer, but its manifest entry says 49");

    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(snapshotBefore);
    assertThat(dataFileNames()).isEqualTo(filesBefore);
  }

  @Test
  void pagesWithoutACrcAreReencodedNotCopied() throws Exception {
    Table table = appendTable("zstd");
    fill(table);
    List<String> aRows = partition(table, "a");
    List<String> bRows = partition(table, "b");
    // partition a's second file as an older writer left it: no page has a CRC
    Path old = onDisk(files(table, "a").get(1));
    ParquetPages.stripCrcs(old);
    assertThat(ParquetPages.pages(old)).noneMatch(ParquetPages.Page::hasCrc);

    // every row group counts as large, so the copy path is taken wherever pages can be verified
    table
        .newCompactBuilder()
        .withOptions(Map.of("compaction.copy.min-row-group-size", "1 b"))
        .execute();

    assertThat(partition(table, "a")).containsExactlyInAnyOrderElementsOf(aRows);
    assertThat(partition(table, "b")).containsExactlyInAnyOrderElementsOf(bRows);
    Path a = onDisk(single(files(table, "a")));
    Path b = onDisk(single(files(table, "b")));
    // a was decoded and written again (one row group), b copied (a row group per input)
    assertThat(ParquetPages.footer(a).getBlocks()).hasSize(1);
    assertThat(ParquetPages.footer(b).getBlocks()).hasSize(6);
    for (Path out : List.of(a, b)) {
      assertThat(ParquetPages.pages(out))
          .isNotEmpty()
          .allMatch(p -> p.hasCrc() && p.crcMatches(), "a matching CRC on every page");
    }
  }

  private static DataFileMeta single(List<DataFileMeta> files) {
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  private static DataFileMeta withRowCount(DataFileMeta f, long rowCount) {
    return new DataFileMeta(
        f.fileName(),
        f.fileSize(),
        rowCount,
        f.minKey(),
        f.maxKey(),
        f.minValues(),
        f.maxValues(),
        f.nullCounts(),
        f.minSequenceNumber(),
        f.maxSequenceNumber(),
        f.schemaId(),
        f.level(),
        f.creationTimeMillis(),
        f.source(),
        f.deleteRowCount());
  }

  private static void rewrite(Path file, java.util.function.UnaryOperator<byte[]> change) {
    try {
      Files.write(file, change.apply(Files.readAllBytes(file)));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
