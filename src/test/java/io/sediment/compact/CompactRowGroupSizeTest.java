package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.format.ParquetPages;
import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.Schema;
import io.sediment.schema.TableOptions;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The row groups of compacted append-table files: small input row groups are merged into row groups
 * of {@code parquet.row-group-size} (at least half of it, but the last of a file), large ones are
 * still copied byte for byte, rows and their order unchanged, every page with a valid CRC.
 */
class CompactRowGroupSizeTest {

  private static final long ROW_GROUP = 256 * 1024;

  @TempDir Path dir;

  private long nextId;

  /** One bucket (order is kept), row groups of 256 KiB, small pages so sizes are exact enough. */
  private Table table() {
    Schema schema =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("note", DataTypes.STRING())
            .option("bucket", "1")
            .option("bucket-key", "id")
            .option("parquet.row-group-size", "256 kb")
            .option("parquet.page-size", "8 kb")
            .option("target-file-size", "64 mb")
            .build();
    return TestTables.create(TestTables.catalog(dir), "t", schema);
  }

  /** One commit of one file of {@code rows} rows (about 50 compressed bytes each). */
  private List<RowData> commit(Table table, int rows) {
    List<RowData> batch = new ArrayList<>();
    byte[] note = new byte[64];
    for (int i = 0; i < rows; i++, nextId++) {
      SplittableRandom rnd = new SplittableRandom(nextId);
      for (int k = 0; k < note.length; k++) {
        note[k] = (byte) ('a' + rnd.nextInt(26));
      }
      batch.add(
          GenericRowData.of(nextId, nextId % 7 == 0 ? null : StringData.fromBytes(note.clone())));
    }
    TestTables.writeBatch(table, batch);
    return batch;
  }

  private static List<DataFileMeta> files(Table table) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  private Path path(DataFileMeta f) {
    return dir.resolve("db.db/t/bucket-0/" + f.fileName());
  }

  private List<String> read(Table table) {
    return TestTables.toStrings(table.rowType(), TestTables.readAll(table));
  }

  private static void compact(Table table) throws Exception {
    table.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
  }

  /** Every row group of every live file but the last of each holds at least half a row group. */
  private void assertWellFormed(Table table) throws IOException {
    for (DataFileMeta f : files(table)) {
      List<BlockMetaData> blocks = ParquetPages.footer(path(f)).getBlocks();
      for (int g = 0; g < blocks.size() - 1; g++) {
        assertThat(blocks.get(g).getCompressedSize())
            .as("row group %d of %d of %s", g, blocks.size(), f.fileName())
            .isGreaterThanOrEqualTo(ROW_GROUP / 2);
      }
      assertThat(ParquetPages.pages(path(f)))
          .as("pages of %s", f.fileName())
          .isNotEmpty()
          .allSatisfy(p -> assertThat(p.hasCrc() && p.crcMatches()).as(p.toString()).isTrue())
          // pages keep about parquet.page-size (8 KiB): merging must not write fewer, larger ones
          .allSatisfy(p -> assertThat(p.compressedSize()).as(p.toString()).isLessThan(16 * 1024));
    }
  }

  @Test
  void manySmallFilesBecomeFullRowGroupsWithRowsAndOrderUnchanged() throws Exception {
    Table table = table();
    List<RowData> written = new ArrayList<>();
    for (int c = 0; c < 60; c++) {
      written.addAll(commit(table, 200));
    }
    assertThat(files(table)).hasSize(60);

    compact(table);

    List<DataFileMeta> after = files(table);
    assertThat(after).hasSize(1);
    List<BlockMetaData> blocks = ParquetPages.footer(path(after.get(0))).getBlocks();
    // about 600 KB of rows: two full row groups and the rest, instead of 60 of 10 KB
    assertThat(blocks).hasSizeBetween(2, 4);
    assertWellFormed(table);
    assertThat(read(table))
        .containsExactlyElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  @Test
  void largeRowGroupsAreCopiedByteForByteAndSmallOnesAccumulated() throws Exception {
    Table table = table();
    List<RowData> written = new ArrayList<>();
    written.addAll(commit(table, 4000)); // one row group of about 200 KB: copied
    written.addAll(commit(table, 4000));
    for (int c = 0; c < 25; c++) {
      written.addAll(commit(table, 200)); // about 10 KB each: merged
    }
    written.addAll(commit(table, 4000));
    for (int c = 0; c < 3; c++) {
      written.addAll(commit(table, 200));
    }
    List<DataFileMeta> inputs = files(table);
    assertThat(inputs).hasSize(31);
    List<byte[]> largeChunks = new ArrayList<>();
    for (DataFileMeta f : List.of(inputs.get(0), inputs.get(1), inputs.get(27))) {
      ParquetMetadata footer = ParquetPages.footer(path(f));
      assertThat(footer.getBlocks()).hasSize(1);
      assertThat(footer.getBlocks().get(0).getCompressedSize())
          .isGreaterThanOrEqualTo(ROW_GROUP / 2);
      largeChunks.add(noteChunk(path(f), footer.getBlocks().get(0)));
    }

    compact(table);

    List<DataFileMeta> after = files(table);
    assertThat(after).hasSize(1);
    Path out = path(after.get(0));
    List<BlockMetaData> blocks = ParquetPages.footer(out).getBlocks();
    // copied, copied, the 25 small files merged (about 250 KB), copied, the last 3 merged
    assertThat(blocks).hasSize(5);
    assertThat(noteChunk(out, blocks.get(0))).isEqualTo(largeChunks.get(0));
    assertThat(noteChunk(out, blocks.get(1))).isEqualTo(largeChunks.get(1));
    assertThat(noteChunk(out, blocks.get(3))).isEqualTo(largeChunks.get(2));
    assertThat(blocks.get(2).getRowCount()).isEqualTo(25 * 200);
    assertWellFormed(table);
    assertThat(read(table))
        .containsExactlyElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  @Test
  void aCopyThresholdAboveTheInputsMergesEvenLargeRowGroups() throws Exception {
    Table table = table();
    List<RowData> written = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      written.addAll(commit(table, 4000));
    }
    table
        .newCompactBuilder()
        .withOptions(
            Map.of("compaction.full", "true", "compaction.copy.min-row-group-size", "1 gb"))
        .execute();
    // 4 x 200 KB decoded into row groups of 256 KB: no input row group survives as it was
    List<BlockMetaData> blocks = ParquetPages.footer(path(files(table).get(0))).getBlocks();
    assertThat(blocks.get(0).getRowCount()).isNotEqualTo(4000);
    assertWellFormed(table);
    assertThat(read(table))
        .containsExactlyElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  @Test
  void theCopyThresholdDefaultsToHalfTheRowGroupSizeAndIsValidated() {
    assertThat(TableOptions.of(Map.of()).copyMinRowGroupSize()).isEqualTo(64L << 20);
    assertThat(TableOptions.of(Map.of("parquet.row-group-size", "8 mb")).copyMinRowGroupSize())
        .isEqualTo(4L << 20);
    assertThat(
            TableOptions.of(Map.of("compaction.copy.min-row-group-size", "16 mb"))
                .copyMinRowGroupSize())
        .isEqualTo(16L << 20);
    assertThatThrownBy(() -> TableOptions.of(Map.of("compaction.copy.min-row-group-size", "0 b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value '0 b' for option 'compaction.copy.min-row-group-size': must be a"
                + " positive size such as '128 mb'");
    assertThatThrownBy(() -> TableOptions.of(Map.of("compaction.copy.min-row-group-size", "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "Invalid value 'lots' for option 'compaction.copy.min-row-group-size'")
        .hasMessageContaining("expected a memory size such as '128 mb'");
  }

  /** The bytes of the {@code note} column chunk of a row group, as they lie in the file. */
  private static byte[] noteChunk(Path file, BlockMetaData block) throws IOException {
    ColumnChunkMetaData chunk = block.getColumns().get(1);
    byte[] bytes = new byte[(int) chunk.getTotalSize()];
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      f.seek(chunk.getStartingPos());
      f.readFully(bytes);
    }
    return bytes;
  }
}
