package io.sediment.format;

import io.sediment.data.BinaryRows;
import io.sediment.data.InternalComparators;
import io.sediment.fs.FileIO;
import io.sediment.schema.SupportedTypes;
import java.io.IOException;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Concatenates Parquet data files by copying their row groups byte for byte into a new file: no
 * decoding, no re-encoding. Rows keep their order. Possible only when every input has exactly the
 * table's Parquet schema and the wanted codec; {@link #canCopy} checks that from the footers.
 *
 * <p>Compaction of append tables uses it: small files become one large file whose row groups are
 * those of the inputs, at the cost of copying the bytes once.
 *
 * <p><b>Nothing is copied unverified.</b> An input's footer must hold the row count its manifest
 * entry says, and every page is checked against the CRC32 of its header as it passes through memory
 * ({@link CheckedChunkStream}): a corrupt input fails the copy with an error naming the file, the
 * column and the row group, and the partial output is deleted. A page without a CRC cannot be
 * verified: {@link PageWithoutChecksumException}, and the caller decodes the rows instead.
 */
public final class RowGroupCopier {

  private static final Logger LOG = LoggerFactory.getLogger(RowGroupCopier.class);

  private RowGroupCopier() {}

  /** One input file and what its manifest entry says of it. */
  public record Input(Path path, long fileSize, long rowCount, ColumnStats stats) {}

  /**
   * Whether every input can be copied into a file of {@code rowType} compressed with {@code codec},
   * and its row groups decoded column-wise where {@link RowGroupMerger} merges them.
   *
   * @throws IOException if a footer cannot be read (the message names the file)
   */
  public static boolean canCopy(List<Input> inputs, RowType rowType, FileFormatOptions options)
      throws IOException {
    MessageType expected = ParquetSchemas.toParquet(rowType);
    CompressionCodecName codec = options.codec();
    for (Input in : inputs) {
      FlinkInputFile file = new FlinkInputFile(in.path(), in.fileSize());
      ParquetMetadata footer;
      try (SeekableInputStream stream = file.newStream()) {
        footer = DataFileReader.readFooter(file, DataFileReader.readOptions(), stream);
      }
      if (!footer.getFileMetaData().getSchema().equals(expected)) {
        return false;
      }
      // its small row groups are merged by decoding them column-wise (RowGroupMerger), or, for a
      // schema with nested columns, through record assembly
      if (!hasNestedColumns(rowType)
          && VectorizedFileReader.create(in.path(), rowType, expected, footer, null) == null) {
        return false;
      }
      for (BlockMetaData block : footer.getBlocks()) {
        for (ColumnChunkMetaData column : block.getColumns()) {
          if (column.getCodec() != codec) {
            return false;
          }
        }
      }
    }
    return true;
  }

  /**
   * Writes the row groups of {@code inputs}, in order, to a new file at {@code output}, verifying
   * every page (see the class comment). The stats of the result are merged from the inputs' stats.
   * On failure or when {@code cancelled} turns true between inputs, the partial output is deleted
   * and the error thrown.
   *
   * @throws PageWithoutChecksumException if a page has no CRC to verify it by
   * @throws IOException if an input is corrupt (named in the message) or cannot be read
   */
  public static WrittenFile copy(
      List<Input> inputs,
      Path output,
      RowType rowType,
      FileFormatOptions options,
      BooleanSupplier cancelled)
      throws IOException {
    MessageType schema = ParquetSchemas.toParquet(rowType);
    ParquetFileWriter writer =
        new ParquetFileWriter(
            new FlinkOutputFile(output),
            schema,
            ParquetFileWriter.Mode.CREATE,
            options.rowGroupSize(),
            0);
    // one stream for all inputs: its page and read-ahead buffers are reused
    CheckedChunkStream stream = new CheckedChunkStream();
    try {
      writer.start();
      long rows = 0;
      for (Input in : inputs) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("Copy cancelled");
        }
        stream.open(in.path(), FileIO.fileSystem(in.path()).open(in.path()));
        try (stream) {
          rows += append(in, stream, schema, writer);
        }
      }
      writer.end(Collections.emptyMap());
      long size = FileIO.fileSystem(output).getFileStatus(output).getLen();
      return new WrittenFile(output, size, rows, merge(rowType, inputs));
    } catch (IOException | RuntimeException | Error e) {
      deletePartial(writer, output, e);
      throw e;
    }
  }

  /**
   * Appends the row groups of {@code in}, read through {@code stream}, to {@code writer}, verified;
   * returns its rows.
   */
  private static long append(
      Input in, CheckedChunkStream stream, MessageType schema, ParquetFileWriter writer)
      throws IOException {
    FlinkInputFile file = new FlinkInputFile(in.path(), in.fileSize());
    try {
      // options of its own: closing a reader releases the options' codec factory, which is not
      // thread-safe (only the footer is read through them here)
      ParquetMetadata footer =
          DataFileReader.readFooter(file, DataFileReader.readOptions(), stream);
      DataFileReader.checkRowCount(in.path(), footer, in.rowCount());
      if (!footer.getFileMetaData().getSchema().equals(schema)) {
        throw new IOException("Data file " + in.path() + " no longer has the schema " + schema);
      }
      List<ColumnDescriptor> columns = schema.getColumns();
      List<BlockMetaData> blocks = footer.getBlocks();
      for (int g = 0; g < blocks.size(); g++) {
        BlockMetaData block = blocks.get(g);
        if (block.getRowCount() == 0) {
          continue; // no rows, nothing to copy (and Parquet refuses an empty row group)
        }
        checkChunks(in.path(), g, block, columns);
        writer.startBlock(block.getRowCount());
        for (int c = 0; c < columns.size(); c++) {
          ColumnChunkMetaData chunk = block.getColumns().get(c);
          stream.startChunk(g, chunk);
          writer.appendColumnChunk(columns.get(c), stream, chunk, null, null, null);
          stream.finishChunk();
        }
        writer.endBlock();
      }
      return DataFileReader.rowCount(footer);
    } catch (RuntimeException e) {
      // parquet-mr's own failures do not name the file
      throw new IOException(
          "Cannot copy the row groups of data file " + in.path() + ": " + e.getMessage(), e);
    }
  }

  /** The footer's chunks of a row group must be the schema's columns, a value per row each. */
  static void checkChunks(
      Path path, int rowGroup, BlockMetaData block, List<ColumnDescriptor> columns)
      throws IOException {
    List<ColumnChunkMetaData> chunks = block.getColumns();
    if (chunks.size() != columns.size()) {
      throw new IOException(
          "Corrupt data file "
              + path
              + ": row group "
              + rowGroup
              + " has "
              + chunks.size()
              + " column chunks, the schema "
              + columns.size()
              + " columns");
    }
    for (int c = 0; c < columns.size(); c++) {
      ColumnChunkMetaData chunk = chunks.get(c);
      ColumnDescriptor column = columns.get(c);
      if (!chunk.getPath().equals(ColumnPath.get(column.getPath()))) {
        throw new IOException(
            "Corrupt data file "
                + path
                + ": column chunk "
                + c
                + " of row group "
                + rowGroup
                + " is "
                + chunk.getPath().toDotString()
                + ", not "
                + String.join(".", column.getPath()));
      }
      if (column.getMaxRepetitionLevel() == 0 && chunk.getValueCount() != block.getRowCount()) {
        throw new IOException(
            "Corrupt data file "
                + path
                + ", column '"
                + chunk.getPath().toDotString()
                + "' in row group "
                + rowGroup
                + ": "
                + chunk.getValueCount()
                + " values for "
                + block.getRowCount()
                + " rows");
      }
    }
  }

  private static void deletePartial(ParquetFileWriter writer, Path output, Throwable failure) {
    try {
      writer.close();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
    try {
      FileIO.fileSystem(output).delete(output, false);
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
      LOG.warn("Could not delete the partial copy {}", output, e);
    }
  }

  /** Whether a column of {@code rowType} is a ROW, ARRAY, MAP or MULTISET. */
  static boolean hasNestedColumns(RowType rowType) {
    for (LogicalType t : rowType.getChildren()) {
      if (SupportedTypes.isNested(t)) {
        return true;
      }
    }
    return false;
  }

  /** Column stats of the union of the inputs. */
  @SuppressWarnings("unchecked")
  public static ColumnStats merge(RowType rowType, List<Input> inputs) {
    int n = rowType.getFieldCount();
    Object[] min = new Object[n];
    Object[] max = new Object[n];
    long[] nulls = new long[n];
    for (int f = 0; f < n; f++) {
      Comparator<Object> cmp = InternalComparators.forType(rowType.getTypeAt(f));
      RowData.FieldGetter getter = RowData.createFieldGetter(rowType.getTypeAt(f), f);
      for (Input in : inputs) {
        nulls[f] += in.stats().nullCounts()[f];
        if (cmp == null) {
          continue;
        }
        Object lo = getter.getFieldOrNull(in.stats().min());
        Object hi = getter.getFieldOrNull(in.stats().max());
        if (lo != null && (min[f] == null || cmp.compare(lo, min[f]) < 0)) {
          min[f] = lo;
        }
        if (hi != null && (max[f] == null || cmp.compare(hi, max[f]) > 0)) {
          max[f] = hi;
        }
      }
    }
    RowType statsType = RowFieldWriters.nullable(rowType);
    return new ColumnStats(
        BinaryRows.toBinary(statsType, GenericRowData.of(min)),
        BinaryRows.toBinary(statsType, GenericRowData.of(max)),
        nulls);
  }
}
