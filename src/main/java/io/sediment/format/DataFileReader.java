package io.sediment.format;

import java.io.Closeable;
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
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of a Parquet data file written by {@link DataFileWriter}, optionally projected,
 * one row group at a time.
 *
 * <p>Flat files in the encodings Sediment writes are decoded column by column into batches and
 * streamed page by page ({@link VectorizedFileReader}); anything else (DECIMAL columns, other
 * encodings) goes through parquet-mr's record assembly, one row group at a time.
 *
 * <p><b>Row reuse:</b> a row returned by {@link #next()} is a reused, mutable object that stays
 * valid until the second {@link #next()} after it (so a merge may hold the previous row of a file
 * while looking at the current one); {@link #skip()} does not invalidate it. Copy it (e.g. {@link
 * #copy(RowData)}) to retain it longer, or use {@link #readAll()}. The field values themselves
 * (strings, decimals, byte arrays, timestamps) are never mutated afterwards. Not thread-safe.
 */
public final class DataFileReader implements Closeable {

  private final Path path;
  private final RowType producedType;
  private final ParquetFileReader reader;
  private final MessageColumnIO columnIO;
  private final RowDataMaterializer materializer;
  private final RowDataSerializer serializer;
  private final VectorizedFileReader vectorized;
  // record assembly reuses one row: hand out two alternating shallow copies instead
  private final GenericRowData[] assembled = new GenericRowData[2];
  private int assembledFlip;
  private RecordReader<RowData> recordReader;
  private long remainingInRowGroup;

  private DataFileReader(
      Path path,
      RowType producedType,
      ParquetFileReader reader,
      MessageType requested,
      VectorizedFileReader vectorized) {
    this.path = path;
    this.producedType = producedType;
    this.reader = reader;
    this.columnIO =
        new ColumnIOFactory(reader.getFileMetaData().getCreatedBy())
            .getColumnIO(requested, reader.getFileMetaData().getSchema());
    this.materializer = new RowDataMaterializer(producedType);
    this.serializer = new RowDataSerializer(producedType);
    this.vectorized = vectorized;
    for (int i = 0; i < 2; i++) {
      assembled[i] = new GenericRowData(producedType.getFieldCount());
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
    return open(path, fileRowType, projection, -1);
  }

  /**
   * Read options whose codecs use a Hadoop Configuration without default resources: parsing
   * core-default.xml for every file opened would cost more than reading a small file.
   */
  static ParquetReadOptions readOptions() {
    return ParquetReadOptions.builder(new PlainParquetConfiguration())
        .withCodecFactory(
            new org.apache.parquet.hadoop.CodecFactory(
                new org.apache.hadoop.conf.Configuration(false), 1 << 20))
        .build();
  }

  /** Like {@link #open(Path, RowType, int[])}, with a known file size (negative = unknown). */
  public static DataFileReader open(Path path, RowType fileRowType, int[] projection, long fileSize)
      throws IOException {
    RowType producedType = project(fileRowType, projection);
    MessageType requested = ParquetSchemas.toParquet(producedType);
    ParquetReadOptions options = readOptions();
    ParquetFileReader reader = ParquetFileReader.open(new FlinkInputFile(path, fileSize), options);
    try {
      MessageType fileSchema = reader.getFileMetaData().getSchema();
      fileSchema.checkContains(requested);
      reader.setRequestedSchema(requested);
      VectorizedFileReader vectorized =
          VectorizedFileReader.create(
              path, producedType, requested, reader.getFooter(), options.getCodecFactory());
      return new DataFileReader(path, producedType, reader, requested, vectorized);
    } catch (RuntimeException e) {
      try {
        reader.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new IOException(
          "Data file " + path + " does not match the expected row type " + producedType, e);
    }
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
    GenericRowData row = (GenericRowData) recordReader.read();
    GenericRowData out = assembled[assembledFlip ^= 1];
    for (int i = 0; i < out.getArity(); i++) {
      out.setField(i, row.getField(i));
    }
    out.setRowKind(row.getRowKind());
    return out;
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
    recordReader.read();
    return true;
  }

  private boolean advanceAssembled() throws IOException {
    while (remainingInRowGroup == 0) {
      PageReadStore pages = reader.readNextRowGroup();
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
    return reader.getRecordCount();
  }

  /** The Parquet footer (schema, row groups, codecs, Parquet's own column statistics). */
  public ParquetMetadata footer() {
    return reader.getFooter();
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() throws IOException {
    if (vectorized != null) {
      try {
        vectorized.close();
      } catch (IOException e) {
        try {
          reader.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
    reader.close();
  }
}
