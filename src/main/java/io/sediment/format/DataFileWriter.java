package io.sediment.format;

import io.sediment.fs.FileIO;
import java.io.Closeable;
import java.io.IOException;
import java.util.Map;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.types.logical.RowType;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes rows of one {@link RowType} to a new Parquet data file on a Flink file system.
 *
 * <p>Usage: {@link #create}, {@link #write} rows, then {@link #finish} to complete the file and
 * obtain its {@link WrittenFile} description. {@link #close()} without {@link #finish} aborts: the
 * partial file is deleted. Not thread-safe.
 */
public final class DataFileWriter implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(DataFileWriter.class);

  private final Path path;
  private final RowFieldWriters fields;
  private final FlinkOutputFile outputFile;
  // releases the page compressor (a native zstd context) or the codec factory behind it
  private final Runnable releaseCodec;
  private final ParquetRowGroupWriter writer;
  private long rowCount;
  private WrittenFile result;
  private boolean closed;
  private Exception failed;

  private DataFileWriter(
      Path path,
      RowFieldWriters fields,
      FlinkOutputFile outputFile,
      Runnable releaseCodec,
      ParquetRowGroupWriter writer) {
    this.path = path;
    this.fields = fields;
    this.outputFile = outputFile;
    this.releaseCodec = releaseCodec;
    this.writer = writer;
  }

  /**
   * Creates a new data file at {@code path}.
   *
   * @throws IllegalArgumentException if a column type is unsupported (no file is created)
   * @throws IOException if the file exists already or cannot be created
   */
  public static DataFileWriter create(Path path, RowType rowType, FileFormatOptions options)
      throws IOException {
    RowFieldWriters fields = new RowFieldWriters(rowType); // validates types
    CompressionCodecFactory.BytesInputCompressor compressor;
    Runnable releaseCodec;
    if (options.codec() == CompressionCodecName.ZSTD) {
      ZstdPageCompressor zstd = new ZstdPageCompressor(options.zstdLevel());
      compressor = zstd;
      releaseCodec = zstd::release;
    } else {
      // A Hadoop Configuration without default resources: the codecs need one, and loading
      // core-default.xml for every file written costs more than writing a small file.
      Configuration codecConf = new Configuration(false);
      CodecFactory codecFactory = new CodecFactory(codecConf, options.pageSize());
      compressor = codecFactory.getCompressor(options.codec());
      releaseCodec = codecFactory::release;
    }
    FlinkOutputFile outputFile = new FlinkOutputFile(path);
    ParquetProperties.Builder builder =
        ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withPageSize(options.pageSize())
            .withDictionaryPageSize(options.pageSize())
            .withDictionaryEncoding(options.dictionary())
            .withAllocator(new RecyclingAllocator())
            .withValuesWriterFactory(new ArrayPlainValuesWriter.Factory())
            // unencoded-size statistics (Parquet 2.10) cost a little per value; nothing reads them
            .withSizeStatisticsEnabled(false)
            // a CRC32 in every page header, dictionary pages included: readers and the row-group
            // copy of compaction verify pages by it (parquet-mr's default, stated, not assumed)
            .withPageWriteChecksumEnabled(true);
    for (String column : options.plainColumns()) {
      builder.withDictionaryEncoding(column, false);
    }
    ParquetProperties props = builder.build();
    ParquetRowGroupWriter writer;
    try {
      writer =
          new ParquetRowGroupWriter(outputFile, fields, props, compressor, options.rowGroupSize());
    } catch (IOException | RuntimeException e) {
      releaseCodec.run();
      if (outputFile.stream() != null) {
        // we created the file, but failed afterwards: remove it
        abortQuietly(outputFile, path, e);
      }
      throw e;
    }
    return new DataFileWriter(path, fields, outputFile, releaseCodec, writer);
  }

  /**
   * Appends a row (internal data format, laid out by the writer's row type). The row is not
   * retained and may be reused by the caller.
   *
   * @throws NullPointerException if a NOT NULL column holds null
   */
  public void write(RowData row) throws IOException {
    if (closed) {
      throw new IllegalStateException("Writer is closed: " + path);
    }
    if (failed != null) {
      throw new IOException("Writer failed before, cannot write: " + path, failed);
    }
    fields.checkNotNull(row);
    try {
      writer.write(row);
    } catch (IOException | RuntimeException e) {
      // Parquet's writer is unusable after an exception inside write: only abort remains
      failed = e;
      throw e;
    }
    rowCount++;
  }

  /**
   * Appends {@code n} rows of a batch decoded by this package ({@link VectorizedFileReader}),
   * column by column: the file is the same as when the rows are written one by one.
   *
   * @throws NullPointerException if a NOT NULL column holds null (the writer can then only abort)
   */
  void writeBatch(VectorizedColumnBatch batch, AbstractHeapVector[] vectors, int n)
      throws IOException {
    if (closed) {
      throw new IllegalStateException("Writer is closed: " + path);
    }
    if (failed != null) {
      throw new IOException("Writer failed before, cannot write: " + path, failed);
    }
    try {
      writer.writeBatch(batch, vectors, n);
    } catch (IOException | RuntimeException e) {
      // part of the batch may be written: only abort remains
      failed = e;
      throw e;
    }
    rowCount += n;
  }

  /**
   * Ends the row group being written and appends row group {@code index} of another data file of
   * exactly this file's Parquet schema and codec, copied byte for byte from {@code in} and verified
   * page by page. The file's statistics ({@link WrittenFile#stats()}) then cover the written rows
   * only: the caller knows those of the copied ones.
   */
  void appendRowGroup(BlockMetaData block, int index, CheckedChunkStream in) throws IOException {
    if (closed) {
      throw new IllegalStateException("Writer is closed: " + path);
    }
    if (failed != null) {
      throw new IOException("Writer failed before, cannot write: " + path, failed);
    }
    try {
      writer.appendRowGroup(block, index, in);
    } catch (IOException | RuntimeException e) {
      failed = e;
      throw e;
    }
    rowCount += block.getRowCount();
  }

  /** Bytes buffered for the row group being written (0 when it holds no row yet). */
  long bufferedRowGroupSize() {
    return writer.bufferedRowGroupSize();
  }

  public long rowCount() {
    return rowCount;
  }

  /** Bytes written to the file so far plus bytes buffered for the current row group. */
  public long estimatedLength() {
    return writer.dataSize();
  }

  public Path path() {
    return path;
  }

  /** Completes the file and describes it. Idempotent: repeated calls return the same result. */
  public WrittenFile finish() throws IOException {
    if (result != null) {
      return result;
    }
    if (closed) {
      throw new IllegalStateException("Writer was aborted: " + path);
    }
    if (failed != null) {
      close();
      throw new IOException("A write failed, the partial file was deleted: " + path, failed);
    }
    closed = true;
    try {
      writer.finish(Map.of("writer.model.name", "sediment"));
      FlinkOutputFile.PositionStream stream = outputFile.stream();
      // described before it counts as written: a failure here must not leave a file nobody owns
      result = new WrittenFile(path, stream.getPos(), rowCount, fields.stats());
    } catch (IOException | RuntimeException e) {
      abortQuietly(outputFile, path, e);
      throw e;
    } finally {
      releaseCodec.run();
    }
    return result;
  }

  /** Closes the writer; if {@link #finish} was not called, the partial file is deleted. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    // Do not flush buffered rows: close the raw stream and delete the file, whatever closing does
    IOException failure = new IOException("Aborting the partial data file " + path + " failed");
    abortQuietly(outputFile, path, failure);
    releaseCodec.run();
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
  }

  /**
   * Closes the stream and deletes the partial file; the delete is tried whatever closing does (a
   * write interrupted by a job's cancellation fails every later call on its stream). Failures are
   * added to {@code cause}.
   */
  private static void abortQuietly(FlinkOutputFile outputFile, Path path, Throwable cause) {
    try {
      FlinkOutputFile.PositionStream stream = outputFile.stream();
      if (stream != null) {
        stream.close();
      }
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
    try {
      FileIO.fileSystem(path).delete(path, false);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
      LOG.warn("Could not delete partial data file {}", path, e);
    }
  }
}
