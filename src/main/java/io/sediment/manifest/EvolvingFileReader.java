package io.sediment.manifest;

import io.sediment.format.DataFileReader;
import io.sediment.predicate.Predicate;
import io.sediment.schema.FieldMapping;
import io.sediment.schema.MappedRow;
import io.sediment.schema.TableSchema;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Reads a data file of any schema version of the table as rows of the store's schema: a file
 * written with the store's column layout is read as it is; any other is read by field id ({@link
 * FieldMapping}: added columns null, renamed ones by id, dropped ones not read, widened ones
 * converted). Every reader of data files goes through here, so no reader can read an old file by
 * position or by name. Rows are reused as {@link DataFileReader#next()}'s are.
 */
public final class EvolvingFileReader implements Closeable {

  private final DataFileReader reader;
  // null when the file has the store's layout; else two views, alternated like the reader's rows
  private final MappedRow[] views;
  private int flip;

  private EvolvingFileReader(DataFileReader reader, MappedRow[] views) {
    this.reader = reader;
    this.views = views;
  }

  /**
   * Opens {@code file} of {@code bucket} of {@code partition}.
   *
   * @param readType the store's row type followed by the columns every file has after the table's
   *     (none for append files; sequence number and row kind for primary-key files)
   * @param projection indexes into {@code readType} of the columns to produce, null for all
   */
  public static EvolvingFileReader open(
      FileStore store,
      BinaryRowData partition,
      int bucket,
      DataFileMeta file,
      RowType readType,
      int[] projection)
      throws IOException {
    return open(store, partition, bucket, file, readType, projection, null);
  }

  /**
   * Like {@link #open(FileStore, BinaryRowData, int, DataFileMeta, RowType, int[])}; a file of the
   * reading layout reads only the row groups that may hold rows matching {@code rowGroupFilter} (on
   * the produced type; null for all). Files of other layouts read every row group.
   */
  public static EvolvingFileReader open(
      FileStore store,
      BinaryRowData partition,
      int bucket,
      DataFileMeta file,
      RowType readType,
      int[] projection,
      Predicate rowGroupFilter)
      throws IOException {
    TableSchema reading = store.schema();
    TableSchema written = store.schema(file.schemaId());
    if (written.sameLayout(reading)) {
      return new EvolvingFileReader(
          DataFileReader.open(
              store.dataFilePath(partition, bucket, file.fileName()),
              readType,
              projection,
              file.fileSize(),
              file.rowCount(),
              rowGroupFilter),
          null);
    }
    int tableColumns = reading.fields().size();
    List<RowType.RowField> trailing =
        readType.getFields().subList(tableColumns, readType.getFieldCount());
    FieldMapping mapping = FieldMapping.of(written, reading, trailing.size(), projection);
    List<RowType.RowField> fileFields = new ArrayList<>(written.rowType().getFields());
    fileFields.addAll(trailing);
    DataFileReader reader =
        DataFileReader.open(
            store.dataFilePath(partition, bucket, file.fileName()),
            new RowType(fileFields),
            mapping.fileProjection(),
            file.fileSize(),
            file.rowCount());
    return new EvolvingFileReader(reader, new MappedRow[] {mapping.newRow(), mapping.newRow()});
  }

  /** The next row, or null at the end; valid until the second {@code next()} after it. */
  public RowData next() throws IOException {
    RowData row = reader.next();
    if (row == null || views == null) {
      return row;
    }
    return views[flip ^= 1].replace(row);
  }

  /**
   * Strings valid only as long as their row, for a caller that keeps none longer ({@link
   * DataFileReader#reuseValueBuffers()}).
   */
  public EvolvingFileReader reuseValueBuffers() {
    reader.reuseValueBuffers();
    return this;
  }

  /** Skips the next row; false at the end. Keeps the last returned row valid. */
  public boolean skip() throws IOException {
    return reader.skip();
  }

  /** Whether the file is read through a mapping (it has another column layout). */
  public boolean isMapped() {
    return views != null;
  }

  public ParquetMetadata footer() {
    return reader.footer();
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
