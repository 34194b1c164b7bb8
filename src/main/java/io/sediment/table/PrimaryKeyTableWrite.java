package io.sediment.table;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.TableKind;
import io.sediment.format.RowValueCheck;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.FileStore;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowKindPolicy;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.types.RowKind;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a primary-key table: per partition and bucket, rows are buffered (as binary rows with a
 * sequence number and row kind), sorted by key and sequence, merged with the merge engine (deletes
 * kept) and written as one level-0 file; {@code write-buffer-size} bounds all buffers together, the
 * largest is written when they are full. A bucket left idle for a commit is released. Unless {@code
 * write-only}, the writer compacts its buckets at {@link #prepareCommit()} by the universal rules,
 * and synchronously whenever a bucket reaches {@code num-sorted-run.stop-trigger} runs.
 *
 * <p>A {@code write-only} writer with {@code write-only.stop-trigger-wait} set waits at {@link
 * #prepareCommit()} for a compaction job instead ({@link StopTriggerWait}): it keeps the same view
 * of each bucket it writes, without compacting over it.
 *
 * <p>The writer's own compaction works on a view of the bucket that is exact: the bucket's files in
 * the latest snapshot (kept up to date from the changes of every snapshot since it was read) plus
 * the files of the window being written. A bucket is not compacted while a compaction this writer
 * sent earlier (in the messages of an earlier {@code prepareCommit}) is not resolved: neither
 * committed, nor impossible, nor dropped. That compaction read a state the latest snapshot does not
 * show yet; planning over it, or around it, would mark the wrong rows deleted or plan files twice.
 * So the next compaction of the bucket waits until that commit is visible, typically by the next
 * checkpoint; the rows are written and committed meanwhile. While only rows this writer sent
 * earlier are not yet committed (no compaction of theirs), the bucket is compacted, keeping
 * deletes: those rows are older versions the compaction does not see. Commits check the same rule
 * independently: a compaction commit conflicts with any other change of the bucket's levels >= 1 or
 * deletion vectors since its base snapshot (see docs/spec.md, "The primary-key bucket invariant").
 */
public final class PrimaryKeyTableWrite implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PrimaryKeyTableWrite.class);
  private static final int ROW_OVERHEAD = 64;

  private final FileStore store;
  private final TableSchema schema;
  private final KeyValueLayout layout;
  private final int numBuckets;
  private final RowBuckets buckets;
  private final Level0Writer level0;
  private final BucketMap<BucketWriter> writers = new BucketMap<>();

  /**
   * {@code write-buffer-size}: the memory of all the buckets' buffers together, as Paimon's write
   * buffer is shared by the writers of a task; when it is full, the largest buffer is written.
   */
  private final long bufferSize;

  private long bufferedBytes;
  private final boolean compactInWriter;
  private Exception failed; // a flush or compaction that failed: see checkUsable
  private final RowValueCheck values; // on the rows handed in: the files get binary copies
  private final int stopTrigger;

  /** Write-only, {@code write-only.stop-trigger-wait} set: the wait for a compaction job. */
  private final StopTriggerWait stopTriggerWait;

  /** Whether the buckets' views follow the snapshots (own compaction, or waiting for a job's). */
  private final boolean viewsKept;

  private final boolean deletionVectors;

  /** {@code compaction.trigger.max-delay} set: level-0 runs move up in time, without writes. */
  private final boolean level0MovesUpInTime;

  private final boolean inputChangelog;
  private final boolean lookupChangelog;
  private final String engine;
  private final RowKindPolicy rowKinds;
  private final int[] countFields;
  private final RowDataSerializer serializer;
  private final KeyValueLayout.RowCopier inputCopier;
  private final GenericRowData reuse;
  private final OutputObserver observer;
  private CompactPlanner.BucketStrategy strategy;
  private CompactRewriter rewriter;

  /** The changes of snapshots read during one catch-up, shared by its buckets. */
  private final SnapshotDeltas deltas;

  /** Per bucket, the sequence number its rows must start above (a restored writer's). */
  private final BucketSequences sequenceFloors = new BucketSequences();

  private long deferredCompactions;

  /**
   * Windows of an earlier attempt (a restored job's) may still be committed: their rows are older
   * versions this writer's compactions do not see, so deletes are kept until it is cleared.
   */
  private boolean restoredWindowsPending;

  private boolean ignorePreviousFiles; // TableWrite#withIgnorePreviousFiles

  /** A write that announces each file it creates (data and deletion-vector) to {@code observer}. */
  public PrimaryKeyTableWrite(FileStore store, OutputObserver observer) {
    this.store = store;
    this.deltas = new SnapshotDeltas(store);
    this.observer = observer;
    this.schema = store.schema();
    this.layout = new KeyValueLayout(schema);
    this.values = RowValueCheck.storedAs(schema.rowType(), layout.fileType());
    TableOptions options = store.options();
    this.numBuckets = options.bucket();
    this.buckets = new RowBuckets(schema);
    this.bufferSize = options.get(PrimaryKeyOptions.WRITE_BUFFER_SIZE).getBytes();
    boolean dv = options.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    // A deletion-vector table compacts only with its key lookup on local disk.
    this.compactInWriter =
        !options.writeOnly() && (!dv || options.get(PrimaryKeyOptions.LOCAL_CACHE_ENABLED));
    this.stopTrigger = options.numSortedRunStopTrigger();
    this.stopTriggerWait = new StopTriggerWait(options, store.clock(), options.writeOnly());
    this.viewsKept = compactInWriter || stopTriggerWait.enabled();
    if (!options.writeOnly()
        && !options.get(PrimaryKeyOptions.WRITE_ONLY_STOP_TRIGGER_WAIT).isZero()) {
      LOG.warn(
          "{}: write-only.stop-trigger-wait is set but write-only is not: this writer never waits",
          store.paths().root());
    }
    this.deletionVectors = dv;
    this.level0MovesUpInTime =
        compactInWriter && options.get(CompactionOptions.COMPACTION_TRIGGER_MAX_DELAY) != null;
    this.inputChangelog = options.changelogProducer().equals("input");
    this.lookupChangelog = options.lookupChangelog();
    this.engine = options.mergeEngine();
    this.rowKinds = RowKindPolicy.of(store.paths().root().toString(), options);
    this.countFields = MergeFunctions.countFields(schema, options);
    if (engine.equals("aggregation")) {
      // Validate every aggregate function against its column type now.
      MergeFunctions.create(schema, layout);
    }
    this.serializer = new RowDataSerializer(layout.fileType());
    this.inputCopier = new KeyValueLayout.RowCopier(schema.rowType());
    this.reuse = new GenericRowData(layout.fileType().getFieldCount());
    this.level0 = new Level0Writer(store, layout, observer);
  }

  public void write(RowData row) throws IOException {
    if (row.getArity() != layout.arity()) {
      throw new IllegalArgumentException(
          "Row has "
              + row.getArity()
              + " fields, table has "
              + layout.arity()
              + ": "
              + schema.fieldNames());
    }
    RowKind kind = rowKinds.stored(row.getRowKind());
    if (kind == null) {
      return;
    }
    for (int k : layout.keyIndexes()) {
      if (row.isNullAt(k)) {
        throw new IllegalArgumentException(
            "Primary key column '" + schema.fieldNames().get(k) + "' must not be null");
      }
    }
    values.check(row, !KeyValueLayout.isRetract(kind));
    checkUsable();
    writer(buckets.partition(row), buckets.bucket(row)).write(row, kind, row.getRowKind());
  }

  /** Refuses to go on after a failed flush: written again, its rows would be stored twice. */
  private void checkUsable() {
    if (failed != null) {
      throw new IllegalStateException(
          "This write failed earlier ("
              + failed
              + "): close it (its files are deleted) and write the rows again with a new one",
          failed);
    }
  }

  private BucketWriter writer(BinaryRowData partition, int bucket) {
    return writers.get(partition, bucket, BucketWriter::new);
  }

  /** The bucket whose buffer holds the most: the one written when the shared buffer is full. */
  private BucketWriter largestBuffer() {
    return writers.largest(w -> w.bufferBytes);
  }

  /**
   * Flushes every buffer, compacts (unless write-only, and for each bucket only when every window
   * it sent before is resolved), or waits for a compaction job ({@link StopTriggerWait}), and
   * returns the changes since the last call. A bucket left idle is released ({@link
   * BucketWriter#idle}).
   */
  public List<CommitMessage> prepareCommit() throws IOException {
    checkUsable();
    List<CommitMessage> out = new ArrayList<>();
    long latest = viewsKept ? latestId() : 0;
    try {
      flushAndCompact(latest);
      stopTriggerWait.await(this::writtenBucketsCaughtUp);
      for (BucketWriter w : writers.values()) {
        CommitMessage m = w.drain();
        if (!m.isEmpty()) {
          out.add(m);
        } else if (w.idle(latest)) {
          sequenceFloors.raise(w.partition, w.bucket, w.nextSequence);
          writers.remove(w.partition, w.bucket);
        }
      }
    } finally {
      deltas.clear();
    }
    return out;
  }

  private void flushAndCompact(long latest) throws IOException {
    try {
      for (BucketWriter w : writers.values()) {
        w.flush();
        w.compactionDeferred = false;
        if (compactInWriter) {
          if (w.catchUp(latest) && w.mayCompactNow()) {
            w.compact();
          } else {
            deferredCompactions++;
            w.compactionDeferred = true;
            LOG.debug(
                "Bucket {} of partition {}: an earlier window is not committed yet; its"
                    + " compaction waits",
                w.bucket,
                w.partition);
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      failed = e;
      throw e;
    }
  }

  /** The buckets with new files in this window, brought to the latest snapshot. */
  private List<BucketWriter> writtenBucketsCaughtUp() {
    long latest = latestId();
    List<BucketWriter> out = new ArrayList<>();
    for (BucketWriter w : writers.values()) {
      if (!w.changes.newFiles().isEmpty()) {
        w.catchUp(latest);
        out.add(w);
      }
    }
    return out;
  }

  /**
   * Windows this writer sent that its buckets' views do not show resolved yet, over all buckets:
   * each is a few file names kept until a catch-up sees it committed (or aborted). A writer whose
   * views do not follow the snapshots keeps none.
   */
  int windowsInFlight() {
    int n = 0;
    for (BucketWriter w : writers.values()) {
      n += w.view.unresolvedWindows();
    }
    return n;
  }

  /** The buckets this writer holds a buffer and view for (idle ones are released). */
  public int openBuckets() {
    return writers.size();
  }

  /** The bytes buffered over all buckets, at most {@code write-buffer-size} after a write. */
  long bufferedBytes() {
    return bufferedBytes;
  }

  /** The wait for a compaction job (write-only): what it waited, and the windows it let pass. */
  public StopTriggerWait stopTriggerWait() {
    return stopTriggerWait;
  }

  /**
   * How often a bucket's compaction was deferred because a window this writer sent before was not
   * resolved yet (a metric: a commit that lags the next checkpoint).
   */
  public long deferredCompactions() {
    return deferredCompactions;
  }

  /**
   * Sequence numbers this writer must start above, per partition and bucket: those a writer of an
   * earlier attempt reached (its state at the restored checkpoint). Its windows may be committed by
   * a restored committer after this writer started, and their rows must stay older than this
   * writer's. Call before the first write.
   */
  public void restoreSequences(Map<BinaryRowData, Map<Integer, Long>> floors) {
    sequenceFloors.raiseAll(floors);
  }

  /**
   * Whether windows of an earlier attempt may still be committed (a restored job's committer
   * commits them while this writer may already write): until cleared, this writer's compactions
   * keep deletes, since those windows hold older versions of keys that they cannot see. A restored
   * Flink writer sets it, and clears it once a checkpoint of its own attempt completed (the
   * committer committed the restored windows before).
   */
  public void restoredWindowsPending(boolean pending) {
    this.restoredWindowsPending = pending;
  }

  /** Buckets written from now on start empty: see {@link TableWrite#withIgnorePreviousFiles}. */
  void ignorePreviousFiles(boolean ignore) {
    this.ignorePreviousFiles = ignore;
  }

  /**
   * The next sequence number of every bucket this writer has written (or was restored with): state
   * a restored writer passes to {@link #restoreSequences}.
   */
  public Map<BinaryRowData, Map<Integer, Long>> nextSequences() {
    BucketSequences out = sequenceFloors.copy();
    writers.values().forEach(w -> out.raise(w.partition, w.bucket, w.nextSequence));
    return out.toMap();
  }

  private long latestId() {
    return store.snapshotManager().latestId().orElse(0L);
  }

  @Override
  public void close() {
    writers.values().forEach(BucketWriter::abort);
    writers.clear();
    bufferedBytes = 0;
  }

  private CompactPlanner.BucketStrategy strategy() {
    if (strategy == null) {
      strategy = TableKind.PRIMARY_KEY.compactStrategy(store);
      rewriter = TableKind.PRIMARY_KEY.rewriter(store, observer);
    }
    return strategy;
  }

  /** The buffer, files and pending changes of one bucket. */
  private final class BucketWriter implements StopTriggerWait.Bucket {
    final BinaryRowData partition;
    final int bucket;

    /** The bucket's committed view and the windows sent for it. */
    final BucketView view;

    /** This window's changes, and the files compaction plans over. */
    final BucketChanges changes;

    List<BinaryRowData> buffer = new ArrayList<>();
    long bufferBytes;
    long nextSequence;

    /** Whether the last {@link #prepareCommit} could not compact the bucket (a window pending). */
    boolean compactionDeferred;

    BucketWriter(BinaryRowData partition, int bucket) {
      this.partition = partition;
      this.bucket = bucket;
      this.view = new BucketView(store, partition, bucket, !ignorePreviousFiles);
      this.nextSequence = view.firstSequence(sequenceFloors.get(partition, bucket));
      this.changes = new BucketChanges(view.committedFiles());
    }

    /**
     * Brings the committed view to snapshot {@code latest} (see {@link BucketView#catchUp}) and the
     * files compaction plans over with it. Returns whether no window sent before is left
     * unresolved.
     */
    boolean catchUp(long latest) {
      long before = view.viewId();
      boolean none = view.catchUp(latest, deltas);
      if (view.viewId() != before) {
        changes.rebuild(view.committedFiles());
      }
      return none;
    }

    /**
     * Whether rows this writer sent earlier are not yet seen committed: older versions of keys that
     * are not in the view, so a compaction must keep deletes.
     */
    boolean rowsInFlight() {
      return view.hasUnresolved() || restoredWindowsPending;
    }

    @Override
    public int committedRuns() {
      return view.committedRuns();
    }

    @Override
    public int runsComing() {
      return view.runsInFlight() + changes.newFiles().size();
    }

    @Override
    public String describe() {
      String path = store.partitionPath(partition);
      return "Bucket " + bucket + (path.isEmpty() ? "" : " of partition " + path);
    }

    /**
     * Whether a compaction may run now. With rows in flight it would merge a key's versions on both
     * sides of them (committed ones and this window's): right where the newest version wins
     * (deduplicate, deletes kept) or the oldest (first-row), wrong where versions are combined in
     * order (partial-update, aggregation's last_value and the like): the in-flight ones would then
     * be applied before versions older than they are. Those engines wait until the rows landed.
     */
    boolean mayCompactNow() {
      // The lookup changelog compares level-0 rows with the committed levels: rows in flight would
      // be missing from what their later versions are compared with.
      return !rowsInFlight()
          || (!lookupChangelog && (engine.equals("deduplicate") || engine.equals("first-row")));
    }

    /** {@code kind}: the kind stored; {@code received}: the row's own, kept in input changelog. */
    void write(RowData row, RowKind kind, RowKind received) throws IOException {
      inputCopier.copy(row, reuse);
      for (int c : countFields) {
        boolean present = !row.isNullAt(c);
        reuse.setField(
            c,
            schema.rowType().getTypeAt(c).getTypeRoot() == LogicalTypeRoot.INTEGER
                ? (Object) (present ? 1 : 0)
                : (Object) (present ? 1L : 0L));
      }
      reuse.setField(layout.sequenceIndex(), nextSequence++);
      reuse.setField(layout.kindIndex(), kind.toByteValue());
      // the row header keeps the received kind for the input changelog (files store the column)
      reuse.setRowKind(received);
      BinaryRowData b = serializer.toBinaryRow(reuse).copy();
      buffer.add(b);
      bufferBytes += b.getSizeInBytes() + ROW_OVERHEAD;
      bufferedBytes += b.getSizeInBytes() + ROW_OVERHEAD;
      if (bufferedBytes >= bufferSize) {
        try {
          largestBuffer().flushFull();
        } catch (IOException | RuntimeException e) {
          failed = e; // failed half way: the buffer and its files are not to be trusted
          throw e;
        }
      }
    }

    /** Writes the buffer when the shared one is full, and compacts at the stop trigger. */
    private void flushFull() throws IOException {
      flush();
      // Deletion vectors and the lookup changelog compact only at commit, over a view that
      // equals the latest snapshot plus this window's level-0 files.
      if (compactInWriter
          && !deletionVectors
          && !lookupChangelog
          && changes.level0Runs() >= stopTrigger) {
        if (catchUp(latestId()) && mayCompactNow()) {
          LOG.info(
              "Bucket {} has {} level-0 runs: compacting before writing more",
              bucket,
              changes.level0Runs());
          compact();
        } else {
          deferredCompactions++;
        }
        deltas.clear();
      }
    }

    void flush() throws IOException {
      if (buffer.isEmpty()) {
        return;
      }
      changes.written(level0.write(partition, bucket, buffer));
      if (inputChangelog) {
        changes.changelogWritten(level0.writeChangelog(partition, bucket, buffer));
      }
      // A new list: a cleared one would keep its largest array for the bucket's whole life.
      buffer = new ArrayList<>();
      bufferedBytes -= bufferBytes;
      bufferBytes = 0;
    }

    /**
     * Whether the bucket can be released after an empty drain, its next sequence number kept as a
     * floor: nothing buffered or unsent, its compaction not waiting (also not for {@code
     * compaction.trigger.max-delay} to move its level-0 runs up), and no window it sent left
     * unresolved (the view that would tell is caught up to {@code latest} for that), so that a new
     * view read when it is written again is the same. An overwrite's writer keeps its buckets: it
     * numbers from the same first sequence each time (see {@link BucketView#firstSequence}).
     */
    boolean idle(long latest) {
      if (ignorePreviousFiles || compactionDeferred || !buffer.isEmpty()) {
        return false;
      }
      if (level0MovesUpInTime && changes.level0Runs() > 0) {
        return false;
      }
      if (view.hasUnresolved()) {
        catchUp(latest);
      }
      return !view.hasUnresolved();
    }

    void compact() throws IOException {
      CompactPlanner.BucketStrategy s = strategy();
      List<CompactTask> tasks =
          s.plan(
              new CompactPlanner.Bucket(
                  "",
                  partition,
                  store.partitionPath(partition),
                  bucket,
                  numBuckets,
                  changes.files()));
      for (CompactTask planned : tasks) {
        // The view is the bucket at snapshot viewId: the compaction's base. Rows sent earlier and
        // not yet committed are older versions the compaction does not see: keep deletes then.
        CompactTask t = planned.withBaseSnapshotId(view.viewId());
        t = ignorePreviousFiles ? t.lookingUpOnlyIn(changes.files()) : t;
        if (rowsInFlight()) {
          t = t.keepingDeletes();
        }
        CompactTaskResult r;
        try {
          r = rewriter.rewrite(t, () -> false);
        } catch (IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException("Compaction in the writer failed: " + t, e);
        }
        changes.compacted(
            r.message(),
            f ->
                store
                    .fileIO()
                    .deleteAll(List.of(store.dataFilePath(partition, bucket, f.fileName()))));
      }
    }

    /** The bucket's changes since the last drain (see {@link BucketChanges#drain}). */
    CommitMessage drain() {
      CommitMessage m = changes.drain(partition, bucket, numBuckets);
      if (!m.isEmpty() && viewsKept) {
        view.sent(m); // resolved only by a catch-up: kept only while the view follows
      }
      changes.rebuild(view.committedFiles());
      return m;
    }

    void abort() {
      List<Path> paths = new ArrayList<>();
      changes.unsent().forEach(f -> paths.add(store.dataFilePath(partition, bucket, f.fileName())));
      changes.unsentVectors().forEach(v -> paths.add(store.paths().index(v)));
      store.fileIO().deleteAll(paths);
      buffer = new ArrayList<>();
    }
  }
}
