package io.sediment.format;

import java.io.Closeable;
import java.io.IOException;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.OutputFile;
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

  /** Parquet's configuration key of the zstd level. */
  public static final String ZSTD_LEVEL_KEY = "parquet.compression.codec.zstd.level";

  private final Path path;
  private final RowDataWriteSupport writeSupport;
  private final FlinkOutputFile outputFile;
  private final CodecFactory codecFactory;
  private final ParquetWriter<RowData> writer;
  private long rowCount;
  private WrittenFile result;
  private boolean closed;
  private Exception failed;

  private DataFileWriter(
      Path path,
      RowDataWriteSupport writeSupport,
      FlinkOutputFile outputFile,
      CodecFactory codecFactory,
      ParquetWriter<RowData> writer) {
    this.path = path;
    this.writeSupport = writeSupport;
    this.outputFile = outputFile;
    this.codecFactory = codecFactory;
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
    RowDataWriteSupport writeSupport = new RowDataWriteSupport(rowType); // validates types
    PlainParquetConfiguration conf = new PlainParquetConfiguration();
    conf.setInt(ZSTD_LEVEL_KEY, options.zstdLevel());
    // A Hadoop Configuration without default resources: the codecs need one, and loading
    // core-default.xml for every file written costs more than writing a small file.
    Configuration codecConf = new Configuration(false);
    codecConf.setInt(ZSTD_LEVEL_KEY, options.zstdLevel());
    CodecFactory codecFactory = new CodecFactory(codecConf, options.pageSize());
    FlinkOutputFile outputFile = new FlinkOutputFile(path);
    ParquetWriter<RowData> writer;
    try {
      writer =
          new Builder(outputFile, writeSupport)
              .withConf(conf)
              .withWriteMode(ParquetFileWriter.Mode.CREATE)
              .withCodecFactory(codecFactory)
              .withCompressionCodec(options.codec())
              .withRowGroupSize(options.rowGroupSize())
              .withPageSize(options.pageSize())
              .withDictionaryPageSize(options.pageSize())
              .withDictionaryEncoding(options.dictionary())
              .withMaxPaddingSize(0)
              .withValidation(false)
              .build();
    } catch (IOException | RuntimeException e) {
      codecFactory.release();
      if (outputFile.stream() != null) {
        // we created the file, but failed afterwards: remove it
        abortQuietly(outputFile, path, e);
      }
      throw e;
    }
    return new DataFileWriter(path, writeSupport, outputFile, codecFactory, writer);
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
    writeSupport.checkNotNull(row);
    try {
      writer.write(row);
    } catch (IOException | RuntimeException e) {
      // Parquet's writer is unusable after an exception inside write: only abort remains
      failed = e;
      throw e;
    }
    rowCount++;
  }

  public long rowCount() {
    return rowCount;
  }

  /** Bytes written to the file so far plus bytes buffered for the current row group. */
  public long estimatedLength() {
    return writer.getDataSize();
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
      writer.close();
    } catch (IOException | RuntimeException e) {
      abortQuietly(outputFile, path, e);
      throw e;
    } finally {
      codecFactory.release();
    }
    FlinkOutputFile.PositionStream stream = outputFile.stream();
    long size = stream.getPos();
    result = new WrittenFile(path, size, rowCount, writeSupport.stats());
    return result;
  }

  /** Closes the writer; if {@link #finish} was not called, the partial file is deleted. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      // Do not flush buffered rows: close the raw stream and delete the file.
      FlinkOutputFile.PositionStream stream = outputFile.stream();
      if (stream != null) {
        stream.close();
      }
    } finally {
      codecFactory.release();
      path.getFileSystem().delete(path, false);
    }
  }

  private static void abortQuietly(FlinkOutputFile outputFile, Path path, Throwable cause) {
    try {
      FlinkOutputFile.PositionStream stream = outputFile.stream();
      if (stream != null) {
        stream.close();
      }
      path.getFileSystem().delete(path, false);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
      LOG.warn("Could not delete partial data file {}", path, e);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<RowData, Builder> {
    private final WriteSupport<RowData> writeSupport;

    Builder(OutputFile file, WriteSupport<RowData> writeSupport) {
      super(file);
      this.writeSupport = writeSupport;
    }

    @Override
    protected Builder self() {
      return this;
    }

    @SuppressWarnings("deprecation") // abstract in parquet, required
    @Override
    protected WriteSupport<RowData> getWriteSupport(Configuration conf) {
      return writeSupport;
    }

    @Override
    protected WriteSupport<RowData> getWriteSupport(ParquetConfiguration conf) {
      return writeSupport;
    }
  }
}
