package io.sediment.format;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Writes rows of a flat schema into a Parquet file: fields go straight to parquet-mr's column
 * writers ({@link RowFieldWriters}), without the record-assembly layer of {@code ParquetWriter}
 * (which walks every column per row to find the absent ones). Row groups are cut like parquet-mr
 * cuts them: the buffered size is checked at a row interval estimated from the bytes per row.
 */
final class ParquetRowGroupWriter {

  private static final long MIN_ROWS_FOR_CHECK = 100;
  private static final long MAX_ROWS_FOR_CHECK = 10_000;
  // rows of a batch written column by column before their records end: parquet-mr checks page
  // sizes when records end and estimates the next check from the rows it has seen ended, so values
  // written ahead of their records overfill pages (runs of 128 rows gave pages of twice the page
  // size; 16 rows keep them as row-by-row writing does, which a test checks)
  private static final int MAX_RUN = 16;

  private final MessageType schema;
  private final ParquetProperties props;
  private final CompressionCodecFactory.BytesInputCompressor compressor;
  private final ParquetFileWriter file;
  private final RowFieldWriters fields;
  private final long rowGroupSize;
  private ColumnChunkPageWriteStore pageStore;
  private ColumnWriteStore columnStore;
  private long rowsInGroup;
  private long rowsForNextCheck = MIN_ROWS_FOR_CHECK;
  private long lastGroupEnd;

  ParquetRowGroupWriter(
      OutputFile output,
      RowFieldWriters fields,
      ParquetProperties props,
      CompressionCodecFactory.BytesInputCompressor compressor,
      long rowGroupSize)
      throws IOException {
    this.schema = fields.schema();
    this.props = props;
    this.fields = fields;
    this.rowGroupSize = rowGroupSize;
    this.compressor = compressor;
    this.file =
        new ParquetFileWriter(
            output, schema, ParquetFileWriter.Mode.CREATE, rowGroupSize, 0, null, props);
    file.start();
    newRowGroup();
  }

  private void newRowGroup() {
    pageStore =
        new ColumnChunkPageWriteStore(
            compressor,
            schema,
            props.getAllocator(),
            props.getColumnIndexTruncateLength(),
            props.getPageWriteChecksumEnabled());
    columnStore = props.newColumnWriteStore(schema, pageStore, pageStore);
    fields.bind(columnStore);
  }

  void write(RowData row) throws IOException {
    fields.write(row);
    columnStore.endRecord();
    rowsInGroup++;
    if (rowsInGroup >= rowsForNextCheck) {
      checkRowGroupSize();
    }
  }

  /**
   * Writes {@code n} rows of a batch column by column: each column's values of a run of rows, then
   * the run's records ended. Runs are short ({@link #MAX_RUN} rows) and end where the row-group
   * size is checked, so pages and row groups are cut about where row-by-row writing cuts them.
   */
  void writeBatch(VectorizedColumnBatch batch, AbstractHeapVector[] vectors, int n)
      throws IOException {
    int from = 0;
    while (from < n) {
      int to =
          (int) Math.min(n, from + Math.min(MAX_RUN, Math.max(1, rowsForNextCheck - rowsInGroup)));
      fields.writeColumns(batch, vectors, from, to);
      for (int i = from; i < to; i++) {
        columnStore.endRecord();
      }
      rowsInGroup += to - from;
      from = to;
      if (rowsInGroup >= rowsForNextCheck) {
        checkRowGroupSize();
      }
    }
  }

  /** Cuts the row group when it is full, else estimates when to look again. */
  private void checkRowGroupSize() throws IOException {
    long buffered = columnStore.getBufferedSize();
    long rowSize = Math.max(1, buffered / rowsInGroup);
    if (buffered > rowGroupSize - 2 * rowSize) {
      flushRowGroup();
      newRowGroup();
      rowsForNextCheck = MIN_ROWS_FOR_CHECK;
    } else {
      long expected = rowGroupSize / rowSize;
      rowsForNextCheck =
          Math.min(
              Math.max(MIN_ROWS_FOR_CHECK, (rowsInGroup + expected) / 2),
              rowsInGroup + MAX_ROWS_FOR_CHECK);
    }
  }

  /** Bytes written so far plus bytes buffered for the current row group. */
  long dataSize() {
    return lastGroupEnd + columnStore.getBufferedSize();
  }

  /** Bytes buffered for the row group being written; 0 when it holds no row yet. */
  long bufferedRowGroupSize() {
    return rowsInGroup == 0 ? 0 : columnStore.getBufferedSize();
  }

  /**
   * Ends the row group being written (if it holds rows) and appends row group {@code index} of
   * another file with exactly this file's schema, its column chunks copied byte for byte from
   * {@code in}, which verifies every page as it passes.
   */
  void appendRowGroup(BlockMetaData block, int index, CheckedChunkStream in) throws IOException {
    if (rowsInGroup > 0) {
      flushRowGroup();
      newRowGroup();
      rowsForNextCheck = MIN_ROWS_FOR_CHECK;
    }
    List<ColumnDescriptor> columns = schema.getColumns();
    file.startBlock(block.getRowCount());
    for (int c = 0; c < columns.size(); c++) {
      ColumnChunkMetaData chunk = block.getColumns().get(c);
      in.startChunk(index, chunk);
      file.appendColumnChunk(columns.get(c), in, chunk, null, null, null);
      in.finishChunk();
    }
    file.endBlock();
    lastGroupEnd = file.getPos();
  }

  private void flushRowGroup() throws IOException {
    if (rowsInGroup > 0) {
      file.startBlock(rowsInGroup);
      columnStore.flush();
      pageStore.flushToFileWriter(file);
      file.endBlock();
      rowsInGroup = 0;
      lastGroupEnd = file.getPos();
    }
    columnStore.close();
    pageStore.close();
  }

  /** Writes the last row group and the footer (with {@code metadata} as key-value metadata). */
  void finish(Map<String, String> metadata) throws IOException {
    flushRowGroup();
    file.end(metadata);
  }
}
