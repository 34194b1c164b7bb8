package io.sediment.table;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.PartitionPredicates;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.io.RollingFileWriter;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.TableSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.types.RowKind;

/**
 * Writes rows of an append table into data files, one rolling writer per partition and bucket.
 * {@link #prepareCommit()} closes the files and returns the commit messages; the write can go on
 * afterwards (stream writes). Not thread-safe: one per writing thread or task.
 *
 * <p>An {@link OutputObserver} given to the {@link WriteBuilder} is told about every file the write
 * creates (data files, and a primary-key table's deletion-vector files) before it is created.
 */
public final class TableWrite implements AutoCloseable {

  private final FileStore store;
  private final FileFormatOptions format;
  private final long targetFileSize;
  private final int numBuckets;
  private final RowBuckets buckets;
  private final DataFileFactory files = new DataFileFactory();
  private final BucketMap<BucketWriter> writers = new BucketMap<>();

  /**
   * Fixed-bucket append tables: the next sequence number of each bucket whose writer was released.
   */
  private final BucketSequences sequenceFloors = new BucketSequences();

  private final PrimaryKeyTableWrite primaryKeyWrite;
  private final StopTriggerWait stopTriggerWait;
  private final OutputObserver observer;
  private boolean closed;

  TableWrite(FileStore store, OutputObserver observer) {
    TableSchema schema = store.schema();
    // Primary-key tables: LSM writer (sorted buffers, level-0 files, compaction).
    this.primaryKeyWrite =
        schema.hasPrimaryKey() ? new PrimaryKeyTableWrite(store, observer) : null;
    this.stopTriggerWait =
        primaryKeyWrite != null ? primaryKeyWrite.stopTriggerWait() : StopTriggerWait.never();
    this.store = store;
    this.observer = observer;
    this.format = DataFileFactory.formatOptions(store.options());
    this.targetFileSize = store.options().targetFileSize();
    this.numBuckets = store.options().bucket();
    this.buckets = new RowBuckets(schema);
  }

  /**
   * Buffers a row. Rows of append tables must be inserts; rows of primary-key tables may be any
   * kind (+I, -U, +U, -D), merged by the table's merge engine.
   */
  public void write(RowData row) throws IOException {
    if (closed) {
      throw new IllegalStateException("TableWrite is closed");
    }
    if (primaryKeyWrite != null) {
      primaryKeyWrite.write(row);
      return;
    }
    if (row.getRowKind() != RowKind.INSERT) {
      throw new IllegalArgumentException(
          "An append table accepts only INSERT rows, got " + row.getRowKind().shortString());
    }
    if (row.getArity() != store.rowType().getFieldCount()) {
      throw new IllegalArgumentException(
          "Row has "
              + row.getArity()
              + " fields, table has "
              + store.rowType().getFieldCount()
              + ": "
              + store.schema().fieldNames());
    }
    writer(buckets.partition(row), buckets.bucket(row)).write(row);
  }

  private BucketWriter writer(BinaryRowData partition, int bucket) {
    return writers.get(
        partition,
        bucket,
        (p, b) ->
            new BucketWriter(p, b, Math.max(sequenceFloors.get(p, b), restoreSequence(p, b))));
  }

  /** Fixed-bucket tables keep sequence order per bucket: continue after the largest committed. */
  private long restoreSequence(BinaryRowData partition, int bucket) {
    if (numBuckets <= 0) {
      return 0;
    }
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isEmpty()) {
      return 0;
    }
    long max = -1;
    for (ManifestEntry e :
        store
            .newScan()
            .withPartitionFilter(PartitionPredicates.in(store.partitionType(), Set.of(partition)))
            .withBucket(bucket)
            .plan(latest.get())) {
      max = Math.max(max, e.file().maxSequenceNumber());
    }
    return max + 1;
  }

  /**
   * The sequence numbers each bucket's rows must start above, from the state of a writer of an
   * earlier attempt ({@link #nextSequences()} at the restored checkpoint). Its windows may be
   * committed after this writer started, and their rows must stay older than this writer's (in a
   * fixed-bucket append table, in sequence order). Call before the first write.
   */
  public void restoreSequences(Map<BinaryRowData, Map<Integer, Long>> floors) {
    if (primaryKeyWrite != null) {
      primaryKeyWrite.restoreSequences(floors);
    } else if (numBuckets > 0) {
      sequenceFloors.raiseAll(floors);
    }
  }

  /**
   * Whether the writes ignore the files the table holds (Paimon's {@code withIgnorePreviousFiles}):
   * the writer of an overwrite, whose commit replaces them ({@link TableCommit#overwrite}). A
   * primary-key table's buckets then start empty, so its compactions take only this writer's own
   * files. Call before the first write; append tables write the same either way.
   */
  public TableWrite withIgnorePreviousFiles(boolean ignore) {
    if (primaryKeyWrite != null) {
      primaryKeyWrite.ignorePreviousFiles(ignore);
    }
    return this;
  }

  /**
   * Primary-key tables: whether windows of an earlier attempt may still be committed (see {@link
   * PrimaryKeyTableWrite#restoredWindowsPending}); append tables ignore it.
   */
  public void restoredWindowsPending(boolean pending) {
    if (primaryKeyWrite != null) {
      primaryKeyWrite.restoredWindowsPending(pending);
    }
  }

  /**
   * The next sequence number of each bucket written (or restored, or released): the writer's state.
   * Empty for an unbucketed append table, whose files keep no order.
   */
  public Map<BinaryRowData, Map<Integer, Long>> nextSequences() {
    if (primaryKeyWrite != null) {
      return primaryKeyWrite.nextSequences();
    }
    if (numBuckets <= 0) {
      return Map.of();
    }
    BucketSequences out = sequenceFloors.copy();
    writers.values().forEach(w -> out.raise(w.partition, w.bucket, w.nextSequence));
    return out.toMap();
  }

  /**
   * The writer's wait for a compaction job at {@code num-sorted-run.stop-trigger} ({@code
   * write-only.stop-trigger-wait}): what it waited and let pass, its limit. A writer of an append
   * table never waits.
   */
  public StopTriggerWait stopTriggerWait() {
    return stopTriggerWait;
  }

  /**
   * The buckets the write holds a writer for: both table kinds release the buckets they left idle
   * for a commit (see {@link PrimaryKeyTableWrite#openBuckets}).
   */
  public int openBuckets() {
    return primaryKeyWrite != null ? primaryKeyWrite.openBuckets() : writers.size();
  }

  /** Closes all open files and returns what was written since the last call. */
  public List<CommitMessage> prepareCommit() throws IOException {
    if (primaryKeyWrite != null) {
      return primaryKeyWrite.prepareCommit();
    }
    List<CommitMessage> out = new ArrayList<>();
    for (BucketWriter w : writers.values()) {
      List<DataFileMeta> newFiles = w.flush();
      if (!newFiles.isEmpty()) {
        out.add(CommitMessage.append(w.partition, w.bucket, numBuckets, newFiles));
      } else {
        // Idle for a commit: released, so that a long stream over new partitions holds only the
        // buckets it writes now. Its next sequence number stays (its last window may not be
        // committed yet, so the snapshot would not show it).
        if (numBuckets > 0) {
          sequenceFloors.raise(w.partition, w.bucket, w.nextSequence);
        }
        writers.remove(w.partition, w.bucket);
      }
    }
    return out;
  }

  /** Closes the writer; files not yet handed out by prepareCommit are deleted. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (primaryKeyWrite != null) {
      primaryKeyWrite.close();
    }
    writers.values().forEach(w -> w.writer.abort());
    writers.clear();
  }

  /** The path of a new data file, announced to the observer before the file is created. */
  private Path newFilePath(BinaryRowData partition, int bucket) {
    Path path = store.dataFilePath(partition, bucket, files.newFileName());
    try {
      observer.beforeCreate(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return path;
  }

  /** The rolling writer of one bucket and its sequence numbers. */
  private final class BucketWriter {
    final BinaryRowData partition;
    final int bucket;
    final RollingFileWriter writer;
    long nextSequence;
    long fileStartSequence;

    BucketWriter(BinaryRowData partition, int bucket, long firstSequence) {
      this.partition = partition;
      this.bucket = bucket;
      this.nextSequence = firstSequence;
      this.fileStartSequence = firstSequence;
      this.writer =
          new RollingFileWriter(
              store.fileIO(),
              () -> newFilePath(partition, bucket),
              store.rowType(),
              format,
              targetFileSize);
    }

    void write(RowData row) throws IOException {
      writer.write(row);
      nextSequence++;
    }

    List<DataFileMeta> flush() throws IOException {
      List<DataFileMeta> out = new ArrayList<>();
      long seq = fileStartSequence;
      for (WrittenFile f : writer.finish()) {
        out.add(
            DataFileFactory.appendFileMeta(
                store, f, seq, seq + f.rowCount() - 1, 0, FileSource.APPEND));
        seq += f.rowCount();
      }
      fileStartSequence = nextSequence;
      return out;
    }
  }
}
