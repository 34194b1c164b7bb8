package io.sediment.format;

import com.github.luben.zstd.ZstdDecompressCtx;
import io.sediment.fs.FileIO;
import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.columnar.vector.ColumnVector;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBooleanVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapByteVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapFloatVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapShortVector;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Reads the flat columns of a Parquet file column by column into batches of Flink heap vectors,
 * {@link #BATCH_SIZE} rows at a time, each column chunk streamed page by page from its own input
 * stream ({@link ColumnChunkReader}): memory is a page per column and two batches, whatever the
 * size of the row groups.
 *
 * <p><b>Row validity:</b> a row returned by {@link #next()} stays valid until the second {@link
 * #next()} after it (two views over two batches alternate; {@link #skip()} never overwrites the
 * batch of the last returned row). Field values (strings, byte arrays) are never overwritten,
 * unless {@link #reuseValueBuffers()} was called: then they are valid exactly as long as their row.
 */
final class VectorizedFileReader implements Closeable {

  static final int BATCH_SIZE = 4096;

  private static final Set<Encoding> SUPPORTED =
      EnumSet.of(
          Encoding.PLAIN,
          Encoding.PLAIN_DICTIONARY,
          Encoding.RLE_DICTIONARY,
          Encoding.RLE,
          Encoding.BIT_PACKED);

  private static final Set<Encoding> DATA_ENCODINGS =
      EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);

  private final Path path;
  private final List<BlockMetaData> blocks;
  private final ColumnDescriptor[] columns;
  private final int[] kinds;
  private final TimeUnit[] units;
  private final CompressionCodecFactory codecs;
  private final AbstractHeapVector[][] vectors = new AbstractHeapVector[2][];
  private final VectorizedColumnBatch[] batches = new VectorizedColumnBatch[2];
  private final BatchRow[] views = new BatchRow[2];
  private final ColumnChunkReader[] chunks;

  /** Rows per batch: {@link #BATCH_SIZE}, or fewer when no row group of the file has as many. */
  private final int batchSize;

  /** Created at the first zstd page: creating a context costs more than a small page's decode. */
  private ZstdDecompressCtx zstd;

  // number in the file of the first row group read (for error messages)
  private final int firstRowGroup;
  private FileSystem fs;

  private int nextBlock;
  private long leftInBlock;
  private int current = -1;
  private int pinned = -1;
  private int rowsInBatch;
  private int nextRow;
  private int view;
  private boolean valueBuffersReused;

  private VectorizedFileReader(
      Path path,
      RowType producedType,
      ColumnDescriptor[] columns,
      List<BlockMetaData> blocks,
      int firstRowGroup,
      CompressionCodecFactory codecs) {
    this.path = path;
    this.blocks = blocks;
    this.firstRowGroup = firstRowGroup;
    this.columns = columns;
    this.codecs = codecs;
    int n = columns.length;
    this.kinds = new int[n];
    this.units = new TimeUnit[n];
    this.chunks = new ColumnChunkReader[n];
    for (int i = 0; i < n; i++) {
      LogicalType type = producedType.getTypeAt(i);
      kinds[i] = kind(type);
      if (kinds[i] == ColumnChunkReader.TIMESTAMP) {
        units[i] = ParquetSchemas.timeUnit(timestampPrecision(type));
      }
    }
    // Small files (the usual compaction input) get vectors of their size, not of a full batch.
    long largest = 1;
    for (BlockMetaData block : blocks) {
      largest = Math.max(largest, block.getRowCount());
    }
    this.batchSize = (int) Math.min(BATCH_SIZE, largest);
    for (int b = 0; b < 2; b++) {
      vectors[b] = new AbstractHeapVector[n];
      for (int i = 0; i < n; i++) {
        vectors[b][i] = newVector(kinds[i], batchSize);
      }
      batches[b] = new VectorizedColumnBatch((ColumnVector[]) vectors[b]);
      views[b] = new BatchRow();
    }
  }

  /**
   * A reader of {@code requested} (flat, of {@code producedType}), or null when a column's type or
   * an encoding of the file is not supported here (the caller then assembles records instead).
   */
  static VectorizedFileReader create(
      Path path,
      RowType producedType,
      MessageType requested,
      ParquetMetadata footer,
      CompressionCodecFactory codecs) {
    MessageType fileSchema = footer.getFileMetaData().getSchema();
    List<ColumnDescriptor> requestedColumns = requested.getColumns();
    if (requestedColumns.size() != producedType.getFieldCount()) {
      return null;
    }
    ColumnDescriptor[] columns = new ColumnDescriptor[requestedColumns.size()];
    for (int i = 0; i < columns.length; i++) {
      String[] p = requestedColumns.get(i).getPath();
      if (kind(producedType.getTypeAt(i)) < 0 || p.length != 1 || !fileSchema.containsPath(p)) {
        return null;
      }
      columns[i] = fileSchema.getColumnDescription(p);
      if (columns[i].getMaxRepetitionLevel() != 0
          || columns[i].getMaxDefinitionLevel() > 1
          || columns[i].getPrimitiveType().getPrimitiveTypeName()
              != ParquetSchemas.toParquet("c", producedType.getTypeAt(i))
                  .asPrimitiveType()
                  .getPrimitiveTypeName()) {
        return null;
      }
    }
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        if (!SUPPORTED.containsAll(chunk.getEncodings()) || chunk.isEncrypted()) {
          return null;
        }
        // RLE in the chunk's encodings may be the definition levels' or the values' (v2 pages
        // encode BOOLEAN values with RLE): only the encoding stats tell the values' encodings
        EncodingStats stats = chunk.getEncodingStats();
        if (stats != null) {
          if (!DATA_ENCODINGS.containsAll(stats.getDataEncodings())) {
            return null;
          }
        } else if (chunk.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BOOLEAN
            && chunk.getEncodings().contains(Encoding.RLE)) {
          return null;
        }
      }
    }
    return new VectorizedFileReader(path, producedType, columns, footer.getBlocks(), 0, codecs);
  }

  /**
   * Like {@link #create}, reading only row group {@code index} of the file (each page verified
   * against its CRC as always); null when the file cannot be read column-wise.
   */
  static VectorizedFileReader forRowGroup(
      Path path,
      RowType producedType,
      ParquetMetadata footer,
      int index,
      CompressionCodecFactory codecs) {
    ParquetMetadata one =
        new ParquetMetadata(footer.getFileMetaData(), List.of(footer.getBlocks().get(index)));
    VectorizedFileReader all =
        create(path, producedType, ParquetSchemas.toParquet(producedType), one, codecs);
    return all == null
        ? null
        : new VectorizedFileReader(path, producedType, all.columns, one.getBlocks(), index, codecs);
  }

  static int kind(LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return ColumnChunkReader.BOOLEAN;
      case TINYINT:
        return ColumnChunkReader.BYTE;
      case SMALLINT:
        return ColumnChunkReader.SHORT;
      case INTEGER:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
        return ColumnChunkReader.INT;
      case BIGINT:
        return ColumnChunkReader.LONG;
      case FLOAT:
        return ColumnChunkReader.FLOAT;
      case DOUBLE:
        return ColumnChunkReader.DOUBLE;
      case CHAR:
      case VARCHAR:
      case BINARY:
      case VARBINARY:
        return ColumnChunkReader.BYTES;
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ColumnChunkReader.TIMESTAMP;
      default:
        return -1;
    }
  }

  private static AbstractHeapVector newVector(int kind, int size) {
    switch (kind) {
      case ColumnChunkReader.BOOLEAN:
        return new HeapBooleanVector(size);
      case ColumnChunkReader.BYTE:
        return new HeapByteVector(size);
      case ColumnChunkReader.SHORT:
        return new HeapShortVector(size);
      case ColumnChunkReader.INT:
        return new HeapIntVector(size);
      case ColumnChunkReader.LONG:
        return new HeapLongVector(size);
      case ColumnChunkReader.FLOAT:
        return new HeapFloatVector(size);
      case ColumnChunkReader.DOUBLE:
        return new HeapDoubleVector(size);
      case ColumnChunkReader.BYTES:
        return new HeapBytesVector(size);
      case ColumnChunkReader.TIMESTAMP:
        return new EpochTimestampVector(size);
      default:
        throw new IllegalStateException("kind " + kind);
    }
  }

  private static int timestampPrecision(LogicalType type) {
    return type instanceof TimestampType
        ? ((TimestampType) type).getPrecision()
        : ((LocalZonedTimestampType) type).getPrecision();
  }

  /**
   * From the next batch on, decodes strings and byte arrays into each vector's own byte buffer
   * instead of a new one per batch: a string read from a row (a view of that buffer; byte arrays
   * are copied when read) is then valid only as long as its row (until the second {@link #next()}
   * after it), not for good. For a caller that writes or copies every value it keeps before that (a
   * compaction's merge and writer): W2's rewrite allocated a buffer of a batch's strings per string
   * column and batch, about a fifth of its garbage.
   */
  void reuseValueBuffers() {
    valueBuffersReused = true;
  }

  /** The next row, or null at the end (see the class comment for how long it stays valid). */
  RowData next() throws IOException {
    if (nextRow >= rowsInBatch && !loadBatch()) {
      return null;
    }
    pinned = current;
    view ^= 1;
    BatchRow row = views[view];
    row.set(batches[current], vectors[current], nextRow++);
    return row;
  }

  /**
   * Loads the next batch whole, for a caller that reads it column by column ({@link
   * #batchVectors()}, {@link #batch()}); its row count, 0 at the end. Its rows are not handed out
   * by {@link #next()}. Valid until the next call.
   */
  int nextBatch() throws IOException {
    if (nextRow < rowsInBatch) {
      throw new IllegalStateException("Rows of the current batch were not read");
    }
    if (!loadBatch()) {
      return 0;
    }
    pinned = current;
    nextRow = rowsInBatch;
    return rowsInBatch;
  }

  /** The vectors of the batch loaded by {@link #nextBatch()}. */
  AbstractHeapVector[] batchVectors() {
    return vectors[current];
  }

  /** The batch loaded by {@link #nextBatch()}. */
  VectorizedColumnBatch batch() {
    return batches[current];
  }

  /** Skips one row; false at the end. */
  boolean skip() throws IOException {
    if (nextRow >= rowsInBatch && !loadBatch()) {
      return false;
    }
    nextRow++;
    return true;
  }

  private boolean loadBatch() throws IOException {
    while (leftInBlock == 0) {
      if (chunks.length > 0 && chunks[0] != null) {
        // the row group's rows are read: its chunks must hold no more
        for (int c = 0; c < chunks.length; c++) {
          try {
            chunks[c].checkExhausted();
          } catch (IOException e) {
            throw readFailure(c, e);
          }
        }
      }
      closeChunks();
      if (nextBlock >= blocks.size()) {
        return false;
      }
      openBlock(blocks.get(nextBlock++));
    }
    // never overwrite the batch of the row last returned by next()
    current = pinned == 0 ? 1 : 0;
    int n = (int) Math.min(batchSize, leftInBlock);
    AbstractHeapVector[] target = vectors[current];
    for (int c = 0; c < chunks.length; c++) {
      try {
        chunks[c].readBatch(n, target[c], !valueBuffersReused);
      } catch (IOException | RuntimeException e) {
        // a corrupt page without a CRC may fail decoding anywhere (an index out of bounds)
        throw readFailure(c, e);
      }
    }
    batches[current].setNumRows(n);
    leftInBlock -= n;
    rowsInBatch = n;
    nextRow = 0;
    return true;
  }

  /** The failure to read column {@code c} of the current row group, naming the file. */
  private IOException readFailure(int c, Exception e) {
    return new IOException(
        "Cannot read column '"
            + columns[c].getPath()[0]
            + "' of row group "
            + (firstRowGroup + nextBlock - 1)
            + " of "
            + FileRoles.of(path)
            + " "
            + path
            + ": "
            + e.getMessage(),
        e);
  }

  private void openBlock(BlockMetaData block) throws IOException {
    Map<ColumnPath, ColumnChunkMetaData> byPath = new HashMap<>();
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      byPath.put(chunk.getPath(), chunk);
    }
    if (fs == null) {
      fs = FileIO.fileSystem(path);
    }
    try {
      openChunks(byPath);
    } catch (IOException | RuntimeException e) {
      try {
        closeChunks();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    leftInBlock = block.getRowCount();
  }

  private void openChunks(Map<ColumnPath, ColumnChunkMetaData> byPath) throws IOException {
    ColumnChunkMetaData[] metas = new ColumnChunkMetaData[columns.length];
    for (int c = 0; c < columns.length; c++) {
      metas[c] = byPath.get(ColumnPath.get(columns[c].getPath()));
      if (metas[c] == null) {
        throw new IOException(
            "Corrupt Parquet file " + path + ": no column chunk for " + columns[c]);
      }
    }
    SmallBlock small = SmallBlock.read(fs, path, metas);
    for (int c = 0; c < columns.length; c++) {
      ColumnChunkMetaData meta = metas[c];
      PageDecompressor decompressor = PageDecompressor.of(meta.getCodec(), codecs, this::zstd);
      InputStream chunk;
      if (small != null) {
        chunk = small.chunk(meta);
      } else {
        FSDataInputStream in = fs.open(path);
        try {
          in.seek(meta.getStartingPos());
        } catch (IOException e) {
          in.close();
          throw e;
        }
        int buffer = (int) Math.max(8192, Math.min(meta.getTotalSize(), 64 * 1024));
        chunk = new BufferedInputStream(in, buffer);
      }
      chunks[c] =
          new ColumnChunkReader(
              columns[c].getPath()[0],
              chunk,
              meta.getTotalSize(),
              meta.getTotalUncompressedSize(),
              decompressor,
              columns[c].getPrimitiveType().getPrimitiveTypeName(),
              kinds[c],
              units[c],
              columns[c].getMaxDefinitionLevel());
    }
  }

  private void closeChunks() throws IOException {
    IOException first = null;
    for (int c = 0; c < chunks.length; c++) {
      if (chunks[c] != null) {
        try {
          chunks[c].close();
        } catch (IOException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
        chunks[c] = null;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      closeChunks();
    } finally {
      if (zstd != null) {
        zstd.close();
        zstd = null;
      }
    }
  }

  /** The file's zstd context, shared by its chunks (read one after another on one thread). */
  private ZstdDecompressCtx zstd() {
    if (zstd == null) {
      zstd = new ZstdDecompressCtx();
    }
    return zstd;
  }
}
