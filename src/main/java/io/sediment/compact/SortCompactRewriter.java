package io.sediment.compact;

import io.sediment.commit.CommitMessage;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.io.DataFileFactory;
import io.sediment.io.ExternalRowSorter;
import io.sediment.io.OutputObserver;
import io.sediment.io.RollingFileWriter;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableSchema;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one range of a sort compaction ({@link CompactTask.Kind#SORT_REWRITE}): reads every input
 * row, keeps those whose sort key is in the task's {@link SortRange}, sorts them in bounded memory
 * ({@code write-buffer-size}, spilling sorted runs to local temporary files beyond it) and writes
 * them into files of the target size, with row groups of at most an eighth of it ({@link #format}),
 * so each file and row group covers a narrow slice of the order and its statistics are tight. Only
 * range 0's commit message removes the inputs; the ranges of a bucket are committed together.
 */
final class SortCompactRewriter implements CompactRewriter {

  private static final Logger LOG = LoggerFactory.getLogger(SortCompactRewriter.class);

  /** Rows between two looks at the cancellation flag. */
  private static final int CANCEL_CHECK_ROWS = 4096;

  private final FileStore store;
  private final OutputObserver observer;
  private final DataFileFactory files = new DataFileFactory();

  SortCompactRewriter(FileStore store, OutputObserver observer) {
    this.store = store;
    this.observer = observer;
  }

  @Override
  public CompactTaskResult rewrite(CompactTask task, BooleanSupplier cancelled) throws Exception {
    long start = System.nanoTime();
    FileStore store = this.store.forRewriteOf(task.inputs());
    SortRange range = task.sortRange().orElseThrow();
    checkKeyTypes(store, range, task);
    RowType rowType = store.rowType();
    SortKeys keys = SortKeys.of(range.order(), rowType);
    RowDataSerializer serializer = new RowDataSerializer(rowType);
    long bufferBytes = store.options().get(PrimaryKeyOptions.WRITE_BUFFER_SIZE).getBytes();
    File spillDir = new File(System.getProperty("java.io.tmpdir"), "sediment-sort");
    long rowsTaken = 0;
    List<WrittenFile> outputs;
    try (ExternalRowSorter sorter =
        new ExternalRowSorter(rowType.getFieldCount(), bufferBytes, spillDir)) {
      for (DataFileMeta input : task.inputs()) {
        try (EvolvingFileReader reader =
            EvolvingFileReader.open(store, task.partition(), task.bucket(), input, rowType, null)) {
          RowData row;
          long n = 0;
          while ((row = reader.next()) != null) {
            if (++n % CANCEL_CHECK_ROWS == 0 && cancelled.getAsBoolean()) {
              throw new CancellationException("Compaction task cancelled: " + task);
            }
            byte[] key = keys.key(row);
            if (range.contains(key)) {
              sorter.add(key, serializer.toBinaryRow(row));
              rowsTaken++;
            }
          }
        }
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction task cancelled: " + task);
        }
      }
      RollingFileWriter writer = newWriter(store, task);
      try {
        long[] written = {0};
        sorter.sorted(
            row -> {
              if (++written[0] % CANCEL_CHECK_ROWS == 0 && cancelled.getAsBoolean()) {
                throw new CancellationException("Compaction task cancelled: " + task);
              }
              writer.write(row);
            });
        outputs = writer.finish();
      } catch (Exception | Error e) {
        for (IOException cleanup : writer.abort()) {
          e.addSuppressed(cleanup);
        }
        throw e;
      }
      LOG.debug("Task {}: {} rows sorted, {} spill files", task, rowsTaken, sorter.spillCount());
      try {
        sorter.close(); // here, not by the try: its outputs are written and must reach the commit
      } catch (IOException e) {
        LOG.warn("Task {}: could not delete its spill files: {}", task, e.toString());
      }
    }
    return result(store, task, outputs, rowsTaken, start);
  }

  /**
   * Every range of a bucket must make keys alike: refuses a table whose schema changed a sort
   * column since the ranges were planned, so no row falls between or into two ranges. A column is
   * its field id (as everywhere in the format): the name must still be that field's, of the same
   * type (a widened decimal encodes differently); a column dropped and added again under its name,
   * or two columns that swapped names, are other columns.
   */
  private static void checkKeyTypes(FileStore store, SortRange range, CompactTask task)
      throws IOException {
    if (store.schema().id() == range.schemaId()) {
      return;
    }
    TableSchema planned = store.schema(range.schemaId());
    for (String column : range.order().columns()) {
      int now = store.schema().fieldNames().indexOf(column);
      int then = planned.fieldNames().indexOf(column);
      if (now < 0
          || then < 0
          || store.schema().fields().get(now).id() != planned.fields().get(then).id()
          || !store.rowType().getTypeAt(now).equals(planned.rowType().getTypeAt(then))) {
        throw new IllegalStateException(
            "Sort column '"
                + column
                + "' of "
                + task.table()
                + " changed since the sort compaction was planned (schema "
                + range.schemaId()
                + " -> "
                + store.schema().id()
                + "): nothing was committed; run the compaction again");
      }
    }
  }

  private RollingFileWriter newWriter(FileStore store, CompactTask task) {
    return new RollingFileWriter(
        store.fileIO(),
        AppendCompactRewriter.outputPaths(store, task, files, observer),
        store.rowType(),
        format(store),
        store.options().targetFileSize());
  }

  /**
   * The table's file format, with row groups of at most an eighth of the target file size (16 MB
   * with the defaults): a sorted file is read through filters, and narrow row groups let their
   * statistics skip most of it ({@code parquet.row-group-size} when that is smaller).
   */
  static FileFormatOptions format(FileStore store) {
    FileFormatOptions table = DataFileFactory.formatOptions(store.options());
    return table.withRowGroupSize(
        Math.min(table.rowGroupSize(), Math.max(1, store.options().targetFileSize() / 8)));
  }

  private static CompactTaskResult result(
      FileStore store, CompactTask task, List<WrittenFile> written, long rows, long startNanos) {
    // rows are reordered: every output spans the sequence numbers of all inputs
    long minSeq = Long.MAX_VALUE;
    long maxSeq = Long.MIN_VALUE;
    for (DataFileMeta f : task.inputs()) {
      minSeq = Math.min(minSeq, f.minSequenceNumber());
      maxSeq = Math.max(maxSeq, f.maxSequenceNumber());
    }
    List<DataFileMeta> after = new ArrayList<>();
    long rowsWritten = 0;
    long bytesWritten = 0;
    for (WrittenFile w : written) {
      after.add(
          DataFileFactory.appendFileMeta(
              store, w, minSeq, maxSeq, task.outputLevel(), FileSource.COMPACT));
      rowsWritten += w.rowCount();
      bytesWritten += w.fileSize();
    }
    CommitMessage message =
        CommitMessage.compact(
            task.partition(),
            task.bucket(),
            task.totalBuckets(),
            task.replacedInputs(),
            after,
            task.baseSnapshotId());
    // rows read counts the rows of this range, input bytes the files it replaces: summed over the
    // ranges of a bucket, each row and input byte counts once
    return new CompactTaskResult(
        task,
        message,
        rows,
        rowsWritten,
        task.replacedBytes(),
        bytesWritten,
        (System.nanoTime() - startNanos) / 1_000_000);
  }
}
