package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.format.DataFileReader;
import io.sediment.manifest.DataFileMeta;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filtered read of an append table reads only the row groups whose statistics can match: with the
 * file's last row group damaged, a filter matching only the first reads its rows, while a read
 * without the filter fails on the damage (so the damaged row group was not read at all).
 */
class RowGroupPruningReadTest {

  @TempDir Path dir;

  @Test
  void aFilteredReadLeavesOutTheRowGroupsThatCannotMatch() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("note", DataTypes.STRING())
                .option("parquet.row-group-size", "16 kb")
                .build());
    List<RowData> rows = new ArrayList<>();
    for (long id = 0; id < 20_000; id++) {
      rows.add(row(id, "note-" + id));
    }
    TestTables.writeBatch(table, rows);
    DataSplit split = table.newReadBuilder().newScan().plan().splits().get(0);
    DataFileMeta file = split.files().get(0);
    org.apache.flink.core.fs.Path path =
        table.store().dataFilePath(split.partition(), split.bucket(), file.fileName());
    List<BlockMetaData> blocks;
    try (DataFileReader r = DataFileReader.open(path, table.rowType(), null, -1, -1)) {
      blocks = r.footer().getBlocks();
    }
    assertThat(blocks.size()).as("row groups").isGreaterThan(3);
    ColumnChunkMetaData last = blocks.get(blocks.size() - 1).getColumns().get(0);
    Path local = Paths.get(path.toUri());
    byte[] bytes = Files.readAllBytes(local);
    int at = (int) (last.getStartingPos() + last.getTotalSize() / 2);
    bytes[at] ^= 0x55;
    Files.write(local, bytes);

    Predicate first = new PredicateBuilder(table.rowType()).lessThan("id", 100L);
    ReadBuilder rb = table.newReadBuilder().withFilter(first);
    List<RowData> read = rb.newRead().readAll(rb.newScan().plan().splits());
    assertThat(read).hasSize(100);
    assertThat(read).allMatch(r -> r.getLong(0) < 100);

    assertThatThrownBy(() -> TestTables.readAll(table)).hasStackTraceContaining(file.fileName());
  }
}
