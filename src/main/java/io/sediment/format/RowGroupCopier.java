package io.sediment.format;

import io.sediment.data.BinaryRows;
import io.sediment.data.InternalComparators;
import java.io.IOException;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

/**
 * Concatenates Parquet data files by copying their row groups byte for byte into a new file: no
 * decoding, no re-encoding. Rows keep their order. Possible only when every input has exactly the
 * table's Parquet schema and the wanted codec; {@link #canCopy} checks that from the footers.
 *
 * <p>Compaction of append tables uses it: small files become one large file whose row groups are
 * those of the inputs, at the cost of copying the bytes once.
 */
public final class RowGroupCopier {

  private RowGroupCopier() {}

  /** One input file and what is known of it. */
  public record Input(Path path, long fileSize, long rowCount, ColumnStats stats) {}

  /**
   * Whether every input can be copied into a file of {@code rowType} compressed with {@code codec}.
   */
  public static boolean canCopy(List<Input> inputs, RowType rowType, FileFormatOptions options)
      throws IOException {
    MessageType expected = ParquetSchemas.toParquet(rowType);
    CompressionCodecName codec = options.codec();
    for (Input in : inputs) {
      try (ParquetFileReader reader =
          ParquetFileReader.open(
              new FlinkInputFile(in.path(), in.fileSize()),
              // options of its own: closing a reader releases the options' codec factory,
              // which is not thread-safe (only footers and raw bytes are read here)
              DataFileReader.readOptions())) {
        ParquetMetadata footer = reader.getFooter();
        if (!footer.getFileMetaData().getSchema().equals(expected)) {
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
    }
    return true;
  }

  /**
   * Writes the row groups of {@code inputs}, in order, to a new file at {@code output}. The stats
   * of the result are merged from the inputs' stats. On failure or when {@code cancelled} turns
   * true between inputs, the partial output is deleted and the error thrown.
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
    boolean done = false;
    try {
      writer.start();
      long rows = 0;
      for (Input in : inputs) {
        if (cancelled.getAsBoolean()) {
          throw new java.util.concurrent.CancellationException("Copy cancelled");
        }
        try (ParquetFileReader reader =
            ParquetFileReader.open(
                new FlinkInputFile(in.path(), in.fileSize()),
                // options of its own: closing a reader releases the options' codec factory,
                // which is not thread-safe (only footers and raw bytes are read here)
                DataFileReader.readOptions())) {
          reader.appendTo(writer);
        }
        rows += in.rowCount();
      }
      writer.end(Collections.emptyMap());
      long size = output.getFileSystem().getFileStatus(output).getLen();
      done = true;
      return new WrittenFile(output, size, rows, merge(rowType, inputs));
    } finally {
      if (!done) {
        try {
          output.getFileSystem().delete(output, false);
        } catch (IOException ignored) {
          // best effort; the caller reports its own error
        }
      }
    }
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
