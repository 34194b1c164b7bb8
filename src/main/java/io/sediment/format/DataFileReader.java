package io.sediment.format;

import io.sediment.predicate.Predicate;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of a Parquet data file written by {@link DataFileWriter}, optionally projected,
 * one row group at a time.
 *
 * <p>Flat files in the encodings Sediment writes are decoded column by column into batches and
 * streamed page by page ({@link VectorizedFileReader}); anything else (DECIMAL columns, other
 * encodings) goes through parquet-mr's record assembly, one row group at a time.
 *
 * <p><b>Verification:</b> both paths check every page that carries a CRC (every page Sediment
 * writes) before decoding it, and fail with an error naming the file, and the column and row group
 * where known. A footer that cannot be read, or whose row count differs from the one the caller
 * expects (the manifest's), is an error naming the file.
 *
 * <p><b>Row reuse:</b> a row returned by {@link #next()} is a reused, mutable object that stays
 * valid until the second {@link #next()} after it (so a merge may hold the previous row of a file
 * while looking at the current one); {@link #skip()} does not invalidate it. Copy it (e.g. {@link
 * #copy(RowData)}) to retain it longer, or use {@link #readAll()}. The field values themselves
 * (strings, decimals, byte arrays, timestamps) are never mutated afterwards, unless {@link
 * #reuseValueBuffers()} was called: then strings are valid only as long as their row. Not
 * thread-safe.
 */
public final class DataFileReader implements Closeable {

  private final Path path;
  private final RowType producedType;
  private final ParquetMetadata footer;
  private final CompressionCodecFactory codecs;
  private final RowDataSerializer serializer;
  // exactly one of the two is set: column-wise decoding, or parquet-mr's record assembly
  private final VectorizedFileReader vectorized;
  private final ParquetFileReader reader;
  private final MessageColumnIO columnIO;
  private final RowDataMaterializer materializer;
  // record assembly reuses one row: hand out two alternating shallow copies instead
  private final GenericRowData[] assembled = new GenericRowData[2];
  private int assembledFlip;
  private RecordReader<RowData> recordReader;
  private long remainingInRowGroup;
  // the row group being assembled (-1 before the first), for error messages
  private int assembledRowGroup = -1;

  private DataFileReader(
      Path path,
      RowType producedType,
      ParquetMetadata footer,
      CompressionCodecFactory codecs,
      VectorizedFileReader vectorized,
      ParquetFileReader reader,
      MessageType requested) {
    this.path = path;
    this.producedType = producedType;
    this.footer = footer;
    this.codecs = codecs;
    this.serializer = new RowDataSerializer(producedType);
    this.vectorized = vectorized;
    this.reader = reader;
    if (reader != null) {
      this.columnIO =
          new ColumnIOFactory(footer.getFileMetaData().getCreatedBy())
              .getColumnIO(requested, footer.getFileMetaData().getSchema());
      this.materializer = new RowDataMaterializer(producedType);
      for (int i = 0; i < 2; i++) {
        assembled[i] = new GenericRowData(producedType.getFieldCount());
      }
    } else {
      this.columnIO = null;
      this.materializer = null;
    }
  }

  /**
   * Opens a data file.
   *
   * @param fileRowType the row type the file was written with
   * @param projection indexes into {@code fileRowType} of the fields to produce, in the produced
   *     order; null for all fields
   */
  public static DataFileReader open(Path path, RowType fileRowType, int[] projection)
      throws IOException {
    return open(path, fileRowType, projection, -1, -1);
  }

  /**
   * Read options whose codecs use a Hadoop Configuration without default resources: parsing
   * core-default.xml for every file opened would cost more than reading a small file. Record
   * assembly verifies page CRCs like column-wise decoding does.
   */
  static ParquetReadOptions readOptions() {
    return ParquetReadOptions.builder(new PlainParquetConfiguration())
        .withCodecFactory(
            new org.apache.parquet.hadoop.CodecFactory(
                new org.apache.hadoop.conf.Configuration(false), 1 << 20))
        .usePageChecksumVerification(true)
        .build();
  }

  /**
   * The footer of {@code file}, read through {@code in}; any failure (a truncated file, a corrupt
   * footer) is an {@link IOException} naming the file.
   */
  static ParquetMetadata readFooter(
      FlinkInputFile file, ParquetReadOptions options, SeekableInputStream in) throws IOException {
    try {
      ParquetMetadata footer = ParquetFileReader.readFooter(file, options, in);
      // a corrupt footer may still parse: its row groups must at least lie inside the file
      long length = file.getLength();
      for (BlockMetaData block : footer.getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          long start = chunk.getStartingPos();
          if (start < 4 || chunk.getTotalSize() < 0 || start + chunk.getTotalSize() > length) {
            throw new IOException(
                "column chunk "
                    + chunk.getPath().toDotString()
                    + " at "
                    + start
                    + " of "
                    + chunk.getTotalSize()
                    + " bytes lies outside the file's "
                    + length);
          }
        }
        if (block.getRowCount() < 0) {
          throw new IOException("a row group of " + block.getRowCount() + " rows");
        }
      }
      return footer;
    } catch (IOException | RuntimeException e) {
      String why =
          e instanceof EOFException
              ? "it ends early (truncated?)"
              : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      throw new IOException(
          "Cannot read the Parquet footer of "
              + FileRoles.of(file.path())
              + " "
              + file.path()
              + ": "
              + why,
          e);
    }
  }

  /** Rows of a footer. */
  static long rowCount(ParquetMetadata footer) {
    long rows = 0;
    for (BlockMetaData block : footer.getBlocks()) {
      rows += block.getRowCount();
    }
    return rows;
  }

  /**
   * Fails unless the footer of {@code path} holds {@code expected} rows (the manifest's count);
   * negative {@code expected}: not checked.
   */
  static void checkRowCount(Path path, ParquetMetadata footer, long expected) throws IOException {
    long rows = rowCount(footer);
    if (expected >= 0 && rows != expected) {
      throw new IOException(
          "Data file "
              + path
              + " holds "
              + rows
              + " rows by its footer, but its manifest entry says "
              + expected
              + ": the file is corrupt or not the one committed");
    }
  }

  /**
   * Like {@link #open(Path, RowType, int[])}, with a known file size (negative = unknown).
   *
   * <p>The footer is read through a stream that is closed at once: column-wise decoding opens one
   * stream per column chunk itself, so only record assembly keeps parquet-mr's file reader (and its
   * stream) open.
   */
  public static DataFileReader open(Path path, RowType fileRowType, int[] projection, long fileSize)
      throws IOException {
    return open(path, fileRowType, projection, fileSize, -1);
  }

  /**
   * Like {@link #open(Path, RowType, int[], long)}, failing unless the footer holds {@code
   * rowCount} rows (negative = not checked): a file's row count in the manifest is matched against
   * its footer before a row is read.
   */
  public static DataFileReader open(
      Path path, RowType fileRowType, int[] projection, long fileSize, long rowCount)
      throws IOException {
    return open(path, fileRowType, projection, fileSize, rowCount, null);
  }

  /**
   * Like {@link #open(Path, RowType, int[], long, long)}, reading only the row groups whose
   * statistics show they may hold rows matching {@code rowGroupFilter} (a predicate on the produced
   * row type; null reads every row group): {@link RowGroupPruning}. The rows read still have to be
   * filtered; row groups are only left out when no row of them can match.
   */
  public static DataFileReader open(
      Path path,
      RowType fileRowType,
      int[] projection,
      long fileSize,
      long rowCount,
      Predicate rowGroupFilter)
      throws IOException {
    RowType producedType = project(fileRowType, projection);
    MessageType requested = ParquetSchemas.toParquet(producedType);
    ParquetReadOptions options = readOptions();
    CompressionCodecFactory codecs = options.getCodecFactory();
    FlinkInputFile file = new FlinkInputFile(path, fileSize);
    SeekableInputStream in = file.newStream();
    ParquetMetadata footer;
    ParquetFileReader reader;
    try {
      footer = readFooter(file, options, in);
      checkRowCount(path, footer, rowCount);
      VectorizedFileReader vectorized;
      try {
        requested = ParquetSchemas.asStored(requested, footer.getFileMetaData().getSchema());
        footer.getFileMetaData().getSchema().checkContains(requested);
        ParquetMetadata read =
            rowGroupFilter == null
                ? footer
                : RowGroupPruning.prune(footer, producedType, rowGroupFilter);
        vectorized = VectorizedFileReader.create(path, producedType, requested, read, codecs);
      } catch (RuntimeException e) {
        throw mismatch(path, producedType, e);
      }
      if (vectorized != null) {
        in.close(); // the column chunks are read through streams of their own
        return new DataFileReader(path, producedType, footer, codecs, vectorized, null, requested);
      }
      reader = new ParquetFileReader(file, options, in); // owns the stream from here on
    } catch (IOException | RuntimeException e) {
      closeAfterFailure(in, e);
      codecs.release();
      throw e;
    }
    try {
      reader.setRequestedSchema(requested);
      return new DataFileReader(
          path, producedType, reader.getFooter(), codecs, null, reader, requested);
    } catch (RuntimeException e) {
      closeAfterFailure(reader, e);
      throw mismatch(path, producedType, e);
    }
  }

  private static void closeAfterFailure(Closeable c, Exception failure) {
    try {
      c.close();
    } catch (IOException suppressed) {
      failure.addSuppressed(suppressed);
    }
  }

  private static IOException mismatch(Path path, RowType producedType, RuntimeException e) {
    return new IOException(
        "Data file " + path + " does not match the expected row type " + producedType, e);
  }

  /** The fields of {@code type} at {@code projection} (null = all), in projection order. */
  public static RowType project(RowType type, int[] projection) {
    if (projection == null) {
      return type;
    }
    List<RowType.RowField> fields = new ArrayList<>(projection.length);
    for (int index : projection) {
      if (index < 0 || index >= type.getFieldCount()) {
        throw new IllegalArgumentException(
            "Projection index " + index + " out of range for " + type);
      }
      fields.add(type.getFields().get(index));
    }
    return new RowType(type.isNullable(), fields);
  }

  /**
   * The next row, or null at the end. The returned object is reused by the next call (see class
   * comment).
   */
  public RowData next() throws IOException {
    if (vectorized != null) {
      return vectorized.next();
    }
    if (!advanceAssembled()) {
      return null;
    }
    GenericRowData row = (GenericRowData) readAssembled();
    GenericRowData out = assembled[assembledFlip ^= 1];
    for (int i = 0; i < out.getArity(); i++) {
      out.setField(i, row.getField(i));
    }
    out.setRowKind(row.getRowKind());
    return out;
  }

  /**
   * Lets a column-wise reader decode strings and byte arrays into buffers it reuses: a string is
   * then valid only as long as its row, not for good (byte arrays are copied when read) (see {@link
   * VectorizedFileReader#reuseValueBuffers()}). Record assembly makes new values anyway.
   */
  public DataFileReader reuseValueBuffers() {
    if (vectorized != null) {
      vectorized.reuseValueBuffers();
    }
    return this;
  }

  /** Whether this file is decoded column-wise (see the class comment). */
  public boolean isColumnar() {
    return vectorized != null;
  }

  /** Skips the next row without returning it; false at the end. */
  public boolean skip() throws IOException {
    if (vectorized != null) {
      return vectorized.skip();
    }
    if (!advanceAssembled()) {
      return false;
    }
    readAssembled();
    return true;
  }

  private RowData readAssembled() throws IOException {
    try {
      return recordReader.read();
    } catch (RuntimeException e) {
      throw assemblyFailure(e);
    }
  }

  /** parquet-mr's failures (a CRC mismatch among them) do not name the file: these do. */
  private IOException assemblyFailure(Exception e) {
    return new IOException(
        "Cannot read row group "
            + assembledRowGroup
            + " of "
            + FileRoles.of(path)
            + " "
            + path
            + ": "
            + e.getMessage(),
        e);
  }

  private boolean advanceAssembled() throws IOException {
    while (remainingInRowGroup == 0) {
      PageReadStore pages;
      assembledRowGroup++;
      try {
        pages = reader.readNextRowGroup();
      } catch (IOException | RuntimeException e) {
        throw assemblyFailure(e);
      }
      if (pages == null) {
        return false;
      }
      remainingInRowGroup = pages.getRowCount();
      recordReader = columnIO.getRecordReader(pages, materializer);
    }
    remainingInRowGroup--;
    return true;
  }

  /** An independent copy of a row returned by {@link #next()}. */
  public RowData copy(RowData row) {
    return serializer.copy(row);
  }

  /** The remaining rows, each copied. */
  public List<RowData> readAll() throws IOException {
    List<RowData> rows = new ArrayList<>();
    RowData row;
    while ((row = next()) != null) {
      rows.add(copy(row));
    }
    return rows;
  }

  /** Opens, reads all (copied) rows and closes. */
  public static List<RowData> readAll(Path path, RowType fileRowType, int[] projection)
      throws IOException {
    try (DataFileReader reader = open(path, fileRowType, projection)) {
      return reader.readAll();
    }
  }

  public RowType producedType() {
    return producedType;
  }

  /** Number of rows of the file, from its footer. */
  public long rowCount() {
    return rowCount(footer);
  }

  /** The Parquet footer (schema, row groups, codecs, Parquet's own column statistics). */
  public ParquetMetadata footer() {
    return footer;
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() throws IOException {
    if (reader != null) {
      reader.close(); // releases the codecs too
      return;
    }
    try {
      vectorized.close();
    } finally {
      codecs.release();
    }
  }
}
