package io.sediment.compact;

import io.sediment.commit.CommitMessage;
import io.sediment.format.ColumnStats;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.PageWithoutChecksumException;
import io.sediment.format.RowGroupCopier;
import io.sediment.format.RowGroupMerger;
import io.sediment.format.WrittenFile;
import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.io.RollingFileWriter;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites the files of an append-table task into files of the target size, keeping row order,
 * values and nulls, with row groups of the table's {@code parquet.row-group-size}. When the inputs
 * already have the table's Parquet schema and codec ({@link RowGroupMerger}), row groups of at
 * least {@code compaction.copy.min-row-group-size} are copied byte for byte and smaller ones are
 * decoded column-wise and merged into full row groups. Otherwise (the table's compression changed,
 * say) rows are read file by file and written again.
 *
 * <p>Both ways verify their input: every page against its CRC, every file's footer row count
 * against its manifest entry. A corrupt input fails the task with an error naming the file, and the
 * outputs written so far are deleted. An input with pages without a CRC (written before Sediment
 * wrote them) is never copied blindly: the whole task is re-encoded instead, so its pages are at
 * least decoded.
 */
final class AppendCompactRewriter implements CompactRewriter {

  private static final Logger LOG = LoggerFactory.getLogger(AppendCompactRewriter.class);

  private final FileStore store;
  private final DataFileFactory files = new DataFileFactory();

  private final OutputObserver observer;

  AppendCompactRewriter(FileStore store, OutputObserver observer) {
    this.store = store;
    this.observer = observer;
  }

  @Override
  public CompactTaskResult rewrite(CompactTask task, BooleanSupplier cancelled) throws Exception {
    // outputs carry the newest schema of this job and the inputs: no column of an input is lost
    return rewrite(store.forRewriteOf(task.inputs()), task, cancelled);
  }

  /** Rewrites with {@code store}: this rewriter's, or one at a newer schema of the table. */
  private CompactTaskResult rewrite(FileStore store, CompactTask task, BooleanSupplier cancelled)
      throws Exception {
    long start = System.nanoTime();
    // row groups are copied only from files of the output's column layout (same field ids, names
    // and types): a file of another layout is read by field id and written again
    boolean sameLayout = true;
    for (DataFileMeta f : task.inputs()) {
      sameLayout &= store.schema(f.schemaId()).sameLayout(store.schema());
    }
    List<RowGroupCopier.Input> inputs = new ArrayList<>();
    for (DataFileMeta f : task.inputs()) {
      inputs.add(
          new RowGroupCopier.Input(
              store.dataFilePath(task.partition(), task.bucket(), f.fileName()),
              f.fileSize(),
              f.rowCount(),
              new ColumnStats(f.minValues(), f.maxValues(), f.nullCounts())));
    }
    FileFormatOptions format = DataFileFactory.formatOptions(store.options());
    if (sameLayout && RowGroupCopier.canCopy(inputs, store.rowType(), format)) {
      try {
        return copy(store, task, inputs, format, cancelled, start);
      } catch (PageWithoutChecksumException e) {
        LOG.info(
            "Data file {} has pages without a CRC, its bytes cannot be verified: re-encoding the"
                + " rows of task {} instead of copying them",
            e.file(),
            task);
      }
    }
    return reencode(store, task, cancelled, start);
  }

  /**
   * Copies or merges row groups into outputs of at most the target size (at least one whole input
   * each, so each output's stats are the union of its inputs').
   */
  private CompactTaskResult copy(
      FileStore store,
      CompactTask task,
      List<RowGroupCopier.Input> inputs,
      FileFormatOptions format,
      BooleanSupplier cancelled,
      long start)
      throws IOException {
    long target = store.options().targetFileSize();
    long copyMin = store.options().copyMinRowGroupSize();
    List<WrittenFile> written = new ArrayList<>();
    int copied = 0;
    int decoded = 0;
    try {
      int from = 0;
      while (from < inputs.size()) {
        int to = from + 1;
        long size = inputs.get(from).fileSize();
        while (to < inputs.size() && size + inputs.get(to).fileSize() <= target) {
          size += inputs.get(to).fileSize();
          to++;
        }
        Path out = store.dataFilePath(task.partition(), task.bucket(), files.newFileName());
        observer.beforeCreate(out);
        RowGroupMerger.Result r =
            RowGroupMerger.write(
                inputs.subList(from, to), out, store.rowType(), format, copyMin, cancelled);
        written.add(r.file());
        copied += r.rowGroupsCopied();
        decoded += r.rowGroupsDecoded();
        from = to;
      }
    } catch (IOException | RuntimeException | Error e) {
      List<Path> paths = new ArrayList<>();
      written.forEach(w -> paths.add(w.path()));
      for (IOException cleanup : store.fileIO().deleteAll(paths)) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    LOG.debug(
        "Task {}: {} input row groups copied, {} decoded into new row groups",
        task,
        copied,
        decoded);
    return result(store, task, written, task.inputRows(), start);
  }

  private CompactTaskResult reencode(
      FileStore store, CompactTask task, BooleanSupplier cancelled, long start) throws Exception {
    long rowsRead = 0;
    RollingFileWriter writer =
        new RollingFileWriter(
            store.fileIO(),
            outputPaths(store, task, files, observer),
            store.rowType(),
            DataFileFactory.formatOptions(store.options()),
            store.options().targetFileSize());
    List<WrittenFile> written;
    try {
      for (DataFileMeta input : task.inputs()) {
        if (cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction task cancelled: " + task);
        }
        try (EvolvingFileReader reader =
            EvolvingFileReader.open(
                store, task.partition(), task.bucket(), input, store.rowType(), null)) {
          RowData row;
          while ((row = reader.next()) != null) {
            writer.write(row);
            rowsRead++;
          }
        }
      }
      written = writer.finish();
    } catch (Exception | Error e) {
      for (IOException cleanup : writer.abort()) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    return result(store, task, written, rowsRead, start);
  }

  /**
   * New output paths in the task's bucket, each announced to {@code observer} before the file is
   * created (its marker), for a {@link RollingFileWriter}.
   */
  static Supplier<Path> outputPaths(
      FileStore store, CompactTask task, DataFileFactory files, OutputObserver observer) {
    return () -> {
      Path path = store.dataFilePath(task.partition(), task.bucket(), files.newFileName());
      try {
        observer.beforeCreate(path);
      } catch (IOException e) {
        throw new UncheckedIOException("Could not record compaction output " + path, e);
      }
      return path;
    };
  }

  private CompactTaskResult result(
      FileStore store,
      CompactTask task,
      List<WrittenFile> written,
      long rowsRead,
      long startNanos) {
    long minSeq = Long.MAX_VALUE;
    long maxSeq = Long.MIN_VALUE;
    // Outputs hold consecutive slices of the inputs' rows, in the inputs' order; when each input
    // continues the one before it in sequence numbers, each output gets the exact range of its
    // slice (else every output gets the whole range).
    boolean contiguous = true;
    for (DataFileMeta f : task.inputs()) {
      contiguous &= maxSeq == Long.MIN_VALUE || f.minSequenceNumber() == maxSeq + 1;
      contiguous &= f.maxSequenceNumber() - f.minSequenceNumber() + 1 == f.rowCount();
      minSeq = Math.min(minSeq, f.minSequenceNumber());
      maxSeq = Math.max(maxSeq, f.maxSequenceNumber());
    }
    List<DataFileMeta> after = new ArrayList<>();
    long rowsWritten = 0;
    long bytesWritten = 0;
    long nextSeq = minSeq;
    for (WrittenFile w : written) {
      long first = contiguous ? nextSeq : minSeq;
      long last = contiguous ? nextSeq + w.rowCount() - 1 : maxSeq;
      after.add(
          DataFileFactory.appendFileMeta(
              store, w, first, last, task.outputLevel(), FileSource.COMPACT));
      nextSeq += w.rowCount();
      rowsWritten += w.rowCount();
      bytesWritten += w.fileSize();
    }
    CommitMessage message =
        CommitMessage.compact(
            task.partition(),
            task.bucket(),
            task.totalBuckets(),
            task.inputs(),
            after,
            task.baseSnapshotId());
    return new CompactTaskResult(
        task,
        message,
        rowsRead,
        rowsWritten,
        task.inputBytes(),
        bytesWritten,
        (System.nanoTime() - startNanos) / 1_000_000);
  }
}
