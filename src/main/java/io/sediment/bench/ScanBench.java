package io.sediment.bench;

import io.sediment.manifest.DataFileMeta;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * The read side of the benchmark (W4): full and one-column scans of a table's live data files with
 * Sediment's reader ({@link TableRead}) and with parquet-mr's column readers (a neutral reader:
 * {@link ParquetFileReader} and {@link ColumnReader}, its default options), every value touched;
 * and the row groups of the files, as readers meet them.
 */
final class ScanBench {

  /** One scan: rows read, wall seconds of the faster of two runs, a checksum of the values. */
  record Scan(long rows, double seconds, long checksum) {
    double rowsPerSecond() {
      return rows / seconds;
    }
  }

  /** The row groups of a set of files: per file, and the compressed sizes over all of them. */
  record RowGroups(
      List<Integer> perFile, long count, long minBytes, long maxBytes, long totalBytes) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "%d row groups in %d files %s, compressed %.1f-%.1f MiB (mean %.1f MiB)",
          count,
          perFile.size(),
          perFile,
          minBytes / 1048576.0,
          maxBytes / 1048576.0,
          count == 0 ? 0 : totalBytes / 1048576.0 / count);
    }
  }

  private ScanBench() {}

  /** The paths of the table's live data files (a local warehouse). */
  static List<Path> dataFiles(Table table) {
    List<Path> out = new ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      for (DataFileMeta f : s.files()) {
        out.add(
            Paths.get(table.store().dataFilePath(s.partition(), s.bucket(), f.fileName()).toUri()));
      }
    }
    return out;
  }

  static RowGroups rowGroups(List<Path> files) throws IOException {
    List<Integer> perFile = new ArrayList<>();
    long count = 0;
    long min = Long.MAX_VALUE;
    long max = 0;
    long total = 0;
    for (Path file : files) {
      ParquetMetadata footer;
      try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
        footer = reader.getFooter();
      }
      perFile.add(footer.getBlocks().size());
      for (BlockMetaData block : footer.getBlocks()) {
        count++;
        min = Math.min(min, block.getCompressedSize());
        max = Math.max(max, block.getCompressedSize());
        total += block.getCompressedSize();
      }
    }
    return new RowGroups(perFile, count, count == 0 ? 0 : min, max, total);
  }

  /** Scans the table with Sediment's reader: every field ({@code column} null) or one column. */
  static Scan sediment(Table table, String column) throws IOException {
    Scan first = sedimentOnce(table, column);
    Scan second = sedimentOnce(table, column);
    return first.seconds() < second.seconds() ? first : second;
  }

  private static Scan sedimentOnce(Table table, String column) throws IOException {
    long start = System.nanoTime();
    ReadBuilder rb = table.newReadBuilder();
    if (column != null) {
      rb = rb.withProjection(column);
    }
    TableRead read = rb.newRead();
    RowType type = rb.readType();
    int n = type.getFieldCount();
    int[] kinds = new int[n];
    for (int i = 0; i < n; i++) {
      kinds[i] = kind(type.getTypeAt(i));
    }
    long rows = 0;
    long checksum = 0;
    for (DataSplit split : rb.newScan().plan().splits()) {
      try (TableRead.RecordReader r = read.createReader(split)) {
        RowData row;
        while ((row = r.next()) != null) {
          rows++;
          for (int i = 0; i < n; i++) {
            if (row.isNullAt(i)) {
              continue;
            }
            switch (kinds[i]) {
              case 0 -> checksum += row.getLong(i);
              case 1 -> checksum += row.getString(i).toBytes().length;
              case 2 -> checksum += (long) row.getDouble(i);
              case 3 -> checksum += row.getTimestamp(i, 3).getMillisecond();
              default -> checksum++;
            }
          }
        }
      }
    }
    return new Scan(rows, (System.nanoTime() - start) / 1e9, checksum);
  }

  private static int kind(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BIGINT -> 0;
      case VARCHAR, CHAR -> 1;
      case DOUBLE -> 2;
      case TIMESTAMP_WITHOUT_TIME_ZONE -> 3;
      default -> 4;
    };
  }

  /**
   * Scans the files with parquet-mr's column readers: every column ({@code column} null) or one.
   */
  static Scan parquetMr(List<Path> files, String column) throws IOException {
    Scan first = parquetMrOnce(files, column);
    Scan second = parquetMrOnce(files, column);
    return first.seconds() < second.seconds() ? first : second;
  }

  private static Scan parquetMrOnce(List<Path> files, String column) throws IOException {
    long start = System.nanoTime();
    long rows = 0;
    long checksum = 0;
    for (Path file : files) {
      try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
        MessageType schema = reader.getFooter().getFileMetaData().getSchema();
        MessageType requested =
            column == null ? schema : new MessageType(schema.getName(), schema.getType(column));
        reader.setRequestedSchema(requested);
        String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
        PageReadStore pages;
        while ((pages = reader.readNextRowGroup()) != null) {
          ColumnReadStoreImpl store =
              new ColumnReadStoreImpl(
                  pages,
                  new GroupRecordConverter(requested).getRootConverter(),
                  requested,
                  createdBy);
          for (ColumnDescriptor d : requested.getColumns()) {
            checksum += consume(store.getColumnReader(d), d);
          }
          rows += pages.getRowCount();
        }
      }
    }
    return new Scan(rows, (System.nanoTime() - start) / 1e9, checksum);
  }

  /** Reads every value of a column chunk; a checksum of them. */
  private static long consume(ColumnReader cr, ColumnDescriptor d) {
    long n = cr.getTotalValueCount();
    int defined = d.getMaxDefinitionLevel();
    long checksum = 0;
    switch (d.getPrimitiveType().getPrimitiveTypeName()) {
      case INT64:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum += cr.getLong();
          }
        }
        break;
      case INT32:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum += cr.getInteger();
          }
        }
        break;
      case DOUBLE:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum += (long) cr.getDouble();
          }
        }
        break;
      case BINARY:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum += cr.getBinary().length();
          }
        }
        break;
      default:
        for (long i = 0; i < n; i++, cr.consume()) {
          checksum++;
        }
    }
    return checksum;
  }
}
