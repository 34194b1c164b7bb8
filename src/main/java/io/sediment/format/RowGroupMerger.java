package io.sediment.format;

import io.sediment.fs.FileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the rows of whole Parquet data files, in order, into one new file whose row groups have
 * the configured size: an input row group of at least {@code copyMinRowGroupSize} compressed bytes
 * is copied byte for byte (like {@link RowGroupCopier}); smaller ones are decoded column-wise
 * ({@link VectorizedFileReader}, no record assembly) and written again through the direct column
 * writers ({@link DataFileWriter}), accumulating into row groups of {@link
 * FileFormatOptions#rowGroupSize()}. Compacting many small files so yields the few large row groups
 * readers want, while large row groups still cost only their bytes.
 *
 * <p>A large row group is copied only when the row group being accumulated is empty or already
 * holds half the row-group size: otherwise it is decoded into it, so that no row group but the last
 * of the file is smaller than half the row-group size (given a copy threshold of at least that).
 *
 * <p>Everything read is verified: copied pages against their CRC as they pass ({@link
 * CheckedChunkStream}), decoded pages before decoding, every footer's row count against the
 * manifest's. Inputs must have exactly the table's Parquet schema and codec and be readable
 * column-wise ({@link RowGroupCopier#canCopy}).
 */
public final class RowGroupMerger {

  private static final Logger LOG = LoggerFactory.getLogger(RowGroupMerger.class);

  /** The written file and how many input row groups were copied and decoded into it. */
  public record Result(WrittenFile file, int rowGroupsCopied, int rowGroupsDecoded) {}

  private RowGroupMerger() {}

  /**
   * Writes the rows of {@code inputs} to a new file at {@code output}. The stats of the result are
   * merged from the inputs' stats. On failure, or when {@code cancelled} turns true between inputs,
   * the partial output is deleted and the error thrown.
   *
   * @throws PageWithoutChecksumException if a page to copy has no CRC to verify it by
   * @throws IOException if an input is corrupt (named in the message) or cannot be read
   */
  public static Result write(
      List<RowGroupCopier.Input> inputs,
      Path output,
      RowType rowType,
      FileFormatOptions options,
      long copyMinRowGroupSize,
      BooleanSupplier cancelled)
      throws IOException {
    MessageType schema = ParquetSchemas.toParquet(rowType);
    // options of its own: its codec factory is not thread-safe and is released at the end
    ParquetReadOptions readOptions = DataFileReader.readOptions();
    CompressionCodecFactory codecs = readOptions.getCodecFactory();
    DataFileWriter writer;
    List<ParquetMetadata> footers = new ArrayList<>();
    try {
      // a column whose dictionary overflowed in every input is written plain from the start
      EncodingHints hints = new EncodingHints();
      for (RowGroupCopier.Input in : inputs) {
        ParquetMetadata footer = footer(in, schema, readOptions);
        hints.observe(footer);
        footers.add(footer);
      }
      writer = DataFileWriter.create(output, rowType, hints.apply(options));
    } catch (IOException | RuntimeException | Error e) {
      codecs.release();
      throw e;
    }
    // one stream for the copies of all inputs: its page and read-ahead buffers are reused
    CheckedChunkStream stream = new CheckedChunkStream();
    long half = options.rowGroupSize() / 2;
    int copied = 0;
    int decoded = 0;
    try {
      for (int i = 0; i < inputs.size(); i++) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction cancelled while writing " + output);
        }
        RowGroupCopier.Input in = inputs.get(i);
        ParquetMetadata footer = footers.get(i);
        List<ColumnDescriptor> columns = schema.getColumns();
        List<BlockMetaData> blocks = footer.getBlocks();
        boolean opened = false;
        try {
          for (int g = 0; g < blocks.size(); g++) {
            BlockMetaData block = blocks.get(g);
            if (block.getRowCount() == 0) {
              continue; // nothing to write (and Parquet refuses an empty row group)
            }
            RowGroupCopier.checkChunks(in.path(), g, block, columns);
            long pending = writer.bufferedRowGroupSize();
            if (block.getCompressedSize() >= copyMinRowGroupSize
                && (pending == 0 || pending >= half)) {
              if (!opened) {
                stream.open(in.path(), FileIO.fileSystem(in.path()).open(in.path()));
                opened = true;
              }
              appendCopy(in, block, g, stream, writer);
              copied++;
            } else {
              decode(in, footer, g, rowType, codecs, writer);
              decoded++;
            }
          }
        } finally {
          if (opened) {
            stream.close();
          }
        }
      }
      WrittenFile w = writer.finish();
      WrittenFile file =
          new WrittenFile(
              w.path(), w.fileSize(), w.rowCount(), RowGroupCopier.merge(rowType, inputs));
      return new Result(file, copied, decoded);
    } catch (IOException | RuntimeException | Error e) {
      try {
        writer.close(); // deletes the partial file
      } catch (IOException | RuntimeException cleanup) {
        e.addSuppressed(cleanup);
        LOG.warn("Could not delete the partial output {}", output, cleanup);
      }
      throw e;
    } finally {
      codecs.release();
    }
  }

  /** The footer of {@code in}, which must hold the manifest's row count and the table's schema. */
  private static ParquetMetadata footer(
      RowGroupCopier.Input in, MessageType schema, ParquetReadOptions readOptions)
      throws IOException {
    FlinkInputFile file = new FlinkInputFile(in.path(), in.fileSize());
    ParquetMetadata footer;
    try (SeekableInputStream stream = file.newStream()) {
      footer = DataFileReader.readFooter(file, readOptions, stream);
    }
    DataFileReader.checkRowCount(in.path(), footer, in.rowCount());
    if (!footer.getFileMetaData().getSchema().equals(schema)) {
      throw new IOException("Data file " + in.path() + " no longer has the schema " + schema);
    }
    return footer;
  }

  private static void appendCopy(
      RowGroupCopier.Input in,
      BlockMetaData block,
      int index,
      CheckedChunkStream stream,
      DataFileWriter writer)
      throws IOException {
    try {
      writer.appendRowGroup(block, index, stream);
    } catch (RuntimeException e) {
      // parquet-mr's own failures do not name the file
      throw new IOException(
          "Cannot copy row group " + index + " of data file " + in.path() + ": " + e.getMessage(),
          e);
    }
  }

  /**
   * Decodes row group {@code index} of {@code in} through parquet-mr's record assembly (nested
   * columns, which column-wise decoding does not read) and writes its rows; pages are verified
   * against their CRC as always.
   */
  private static void decodeAssembled(
      RowGroupCopier.Input in, int index, RowType rowType, DataFileWriter writer)
      throws IOException {
    MessageType schema = ParquetSchemas.toParquet(rowType);
    FlinkInputFile file = new FlinkInputFile(in.path(), in.fileSize());
    try (ParquetFileReader reader =
        new ParquetFileReader(file, DataFileReader.readOptions(), file.newStream())) {
      reader.setRequestedSchema(schema);
      PageReadStore pages = reader.readRowGroup(index);
      MessageColumnIO io =
          new ColumnIOFactory(reader.getFooter().getFileMetaData().getCreatedBy())
              .getColumnIO(schema, reader.getFooter().getFileMetaData().getSchema());
      RecordReader<RowData> records = io.getRecordReader(pages, new RowDataMaterializer(rowType));
      for (long r = 0; r < pages.getRowCount(); r++) {
        writer.write(records.read());
      }
    } catch (RuntimeException e) {
      throw new IOException(
          "Cannot decode row group " + index + " of data file " + in.path() + ": " + e.getMessage(),
          e);
    }
  }

  /** Decodes row group {@code index} of {@code in} column-wise and writes its rows. */
  private static void decode(
      RowGroupCopier.Input in,
      ParquetMetadata footer,
      int index,
      RowType rowType,
      CompressionCodecFactory codecs,
      DataFileWriter writer)
      throws IOException {
    VectorizedFileReader reader =
        VectorizedFileReader.forRowGroup(in.path(), rowType, footer, index, codecs);
    if (reader == null) {
      if (!RowGroupCopier.hasNestedColumns(rowType)) {
        throw new IOException(
            "Data file "
                + in.path()
                + " cannot be decoded column-wise (checked by canCopy before)");
      }
      decodeAssembled(in, index, rowType, writer);
      return;
    }
    try (reader) {
      reader.reuseValueBuffers(); // each batch is written before the next is read
      int n;
      while ((n = reader.nextBatch()) > 0) {
        writer.writeBatch(reader.batch(), reader.batchVectors(), n);
      }
    }
  }
}
