package io.sediment.bench;

import io.sediment.format.DataFileReader;
import io.sediment.format.ParquetSchemas;
import io.sediment.manifest.DataFileMeta;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
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

  /** Wall, process CPU and GC time since its creation: one scan's measurements. */
  private static final class Clock {
    private final long start = System.nanoTime();
    private final long cpuStart = BenchRunner.processCpuNanos();
    private final long gcStart = gcMillis();

    Scan scan(long rows, long checksum) {
      return new Scan(
          rows,
          (System.nanoTime() - start) / 1e9,
          (BenchRunner.processCpuNanos() - cpuStart) / 1e9,
          (gcMillis() - gcStart) / 1e3,
          checksum);
    }
  }

  /**
   * One scan: rows read, wall seconds (of the faster of two runs where so said), the process's CPU
   * seconds over it (all threads: GC included; steadier than wall time on a shared machine), the
   * collectors' accumulated time over it, a checksum of the values.
   */
  record Scan(long rows, double seconds, double cpuSeconds, double gcSeconds, long checksum) {
    double rowsPerSecond() {
      return rows / seconds;
    }
  }

  /**
   * The row groups of a set of files: per file, and the compressed sizes and rows over all of them.
   */
  record RowGroups(
      List<Integer> perFile, long count, long minBytes, long maxBytes, long totalBytes, long rows) {
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

  /** The accumulated collection time of the JVM's garbage collectors. */
  private static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }

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
    long rows = 0;
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
        rows += block.getRowCount();
      }
    }
    return new RowGroups(perFile, count, count == 0 ? 0 : min, max, total, rows);
  }

  /** Scans the table with Sediment's reader: every field ({@code column} null) or one column. */
  static Scan sediment(Table table, String column) throws IOException {
    Scan first = sedimentOnce(table, column);
    Scan second = sedimentOnce(table, column);
    return first.seconds() < second.seconds() ? first : second;
  }

  private static Scan sedimentOnce(Table table, String column) throws IOException {
    Clock clock = new Clock();
    ReadBuilder rb = table.newReadBuilder();
    if (column != null) {
      rb = rb.withProjection(column);
    }
    TableRead read = rb.newRead();
    RowType type = rb.readType();
    int[] kinds = kinds(type);
    long rows = 0;
    long checksum = 0;
    for (DataSplit split : rb.newScan().plan().splits()) {
      try (TableRead.RecordReader r = read.createReader(split)) {
        RowData row;
        while ((row = r.next()) != null) {
          rows++;
          checksum += checksum(row, kinds, type);
        }
      }
    }
    return clock.scan(rows, checksum);
  }

  /**
   * Scans Parquet files of any writer with Sediment's file reader ({@link DataFileReader}, the one
   * {@link TableRead} uses; column-wise where the encodings allow), each file read with the row
   * type of its own schema: every column ({@code column} null) or one. One run.
   */
  static Scan sedimentFiles(List<Path> files, String column) throws IOException {
    Clock clock = new Clock();
    long rows = 0;
    long checksum = 0;
    for (Path file : files) {
      MessageType schema;
      try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
        schema = reader.getFooter().getFileMetaData().getSchema();
      }
      RowType fileType = ParquetSchemas.toRowType(schema);
      int[] projection = column == null ? null : new int[] {fieldIndex(file, fileType, column)};
      RowType type = DataFileReader.project(fileType, projection);
      int[] kinds = kinds(type);
      try (DataFileReader reader =
          DataFileReader.open(
              new org.apache.flink.core.fs.Path(file.toUri()), fileType, projection)) {
        RowData row;
        while ((row = reader.next()) != null) {
          rows++;
          checksum += checksum(row, kinds, type);
        }
      }
    }
    return clock.scan(rows, checksum);
  }

  private static int fieldIndex(Path file, RowType type, String column) {
    int index = type.getFieldIndex(column);
    if (index < 0) {
      throw new IllegalArgumentException(
          "Parquet file "
              + file
              + " has no column '"
              + column
              + "'; its columns: "
              + type.getFieldNames());
    }
    return index;
  }

  private static final int LONG = 0;
  private static final int STRING = 1;
  private static final int DOUBLE = 2;
  private static final int MILLIS = 3;
  private static final int OTHER = 4;
  private static final int INT = 5;
  private static final int FLOAT = 6;
  private static final int BOOLEAN = 7;
  private static final int BYTES = 8;
  private static final int MICROS = 9;
  private static final int NANOS = 10;
  private static final int SHORT = 11;
  private static final int BYTE = 12;
  private static final int DECIMAL_LONG = 13;

  private static int[] kinds(RowType type) {
    int[] kinds = new int[type.getFieldCount()];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = kind(type.getTypeAt(i));
    }
    return kinds;
  }

  private static int kind(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BIGINT -> LONG;
      case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> INT;
      case SMALLINT -> SHORT;
      case TINYINT -> BYTE;
      case VARCHAR, CHAR -> STRING;
      case BINARY, VARBINARY -> BYTES;
      case DOUBLE -> DOUBLE;
      case FLOAT -> FLOAT;
      case BOOLEAN -> BOOLEAN;
      case DECIMAL -> LogicalTypeChecks.getPrecision(type) <= 18 ? DECIMAL_LONG : OTHER;
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
        int precision = LogicalTypeChecks.getPrecision(type);
        yield precision <= 3 ? MILLIS : precision <= 6 ? MICROS : NANOS;
      }
      default -> OTHER;
    };
  }

  /**
   * A checksum of a row's non-null values, the same as {@link #consume} computes from the values as
   * Parquet stores them (timestamps in their unit, strings and binaries by length).
   */
  private static long checksum(RowData row, int[] kinds, RowType type) {
    long checksum = 0;
    for (int i = 0; i < kinds.length; i++) {
      if (row.isNullAt(i)) {
        continue;
      }
      switch (kinds[i]) {
        case LONG -> checksum += row.getLong(i);
        case INT -> checksum += row.getInt(i);
        case SHORT -> checksum += row.getShort(i);
        case BYTE -> checksum += row.getByte(i);
        case STRING -> checksum += row.getString(i).toBytes().length;
        case BYTES -> checksum += row.getBinary(i).length;
        case DOUBLE -> checksum += (long) row.getDouble(i);
        case FLOAT -> checksum += (long) row.getFloat(i);
        case BOOLEAN -> checksum += row.getBoolean(i) ? 1 : 0;
        case MILLIS -> checksum += row.getTimestamp(i, 3).getMillisecond();
        case MICROS -> {
          TimestampData t = row.getTimestamp(i, 6);
          checksum += t.getMillisecond() * 1000 + t.getNanoOfMillisecond() / 1000;
        }
        case NANOS -> {
          TimestampData t = row.getTimestamp(i, 9);
          checksum += t.getMillisecond() * 1_000_000 + t.getNanoOfMillisecond();
        }
        case DECIMAL_LONG -> {
          int p = LogicalTypeChecks.getPrecision(type.getTypeAt(i));
          int s = LogicalTypeChecks.getScale(type.getTypeAt(i));
          checksum += row.getDecimal(i, p, s).toUnscaledLong();
        }
        default -> checksum++;
      }
    }
    return checksum;
  }

  /**
   * Scans the files with parquet-mr's column readers: every column ({@code column} null) or one.
   */
  static Scan parquetMr(List<Path> files, String column) throws IOException {
    Scan first = parquetMrOnce(files, column);
    Scan second = parquetMrOnce(files, column);
    return first.seconds() < second.seconds() ? first : second;
  }

  /** One run of {@link #parquetMr}. */
  static Scan parquetMrOnce(List<Path> files, String column) throws IOException {
    Clock clock = new Clock();
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
    return clock.scan(rows, checksum);
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
      case FLOAT:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum += (long) cr.getFloat();
          }
        }
        break;
      case BOOLEAN:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined && cr.getBoolean()) {
            checksum++;
          }
        }
        break;
      default:
        for (long i = 0; i < n; i++, cr.consume()) {
          if (cr.getCurrentDefinitionLevel() == defined) {
            checksum++;
          }
        }
    }
    return checksum;
  }
}
