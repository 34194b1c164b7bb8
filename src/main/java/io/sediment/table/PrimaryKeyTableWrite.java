package io.sediment.table;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.PartitionPredicates;
import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.TableKind;
import io.sediment.data.PartitionComputer;
import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.KeyValueFileWriter;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.SortMergeReader;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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
 * sequence number and row kind) up to {@code write-buffer-size}, sorted by key and sequence, merged
 * with the merge engine (deletes kept) and written as one level-0 file. Unless {@code write-only},
 * the writer compacts its buckets at {@link #prepareCommit()} by the universal rules, and
 * synchronously whenever a bucket reaches {@code num-sorted-run.stop-trigger} runs.
 */
public final class PrimaryKeyTableWrite implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PrimaryKeyTableWrite.class);
  private static final int ROW_OVERHEAD = 64;

  private final FileStore store;
  private final TableSchema schema;
  private final KeyValueLayout layout;
  private final int numBuckets;
  private final PartitionComputer partitionComputer;
  private final PartitionComputer bucketKeyComputer;
  private final DataFileFactory names = new DataFileFactory();
  private final Map<BinaryRowData, Map<Integer, BucketWriter>> writers = new LinkedHashMap<>();
  private final long bufferSize;
  private final boolean compactInWriter;
  private final int stopTrigger;
  private final boolean deletionVectors;
  private final String engine;
  private final int[] countFields;
  private final RowDataSerializer serializer;
  private final KeyValueLayout.RowCopier inputCopier;
  private final GenericRowData reuse;
  private final Comparator<RowData> sortOrder;
  private final OutputObserver observer;
  private CompactPlanner.BucketStrategy strategy;
  private CompactRewriter rewriter;

  public PrimaryKeyTableWrite(FileStore store) {
    this(store, OutputObserver.NONE);
  }

  /** A write that announces each file it creates (data and deletion-vector) to {@code observer}. */
  public PrimaryKeyTableWrite(FileStore store, OutputObserver observer) {
    this.store = store;
    this.observer = observer;
    this.schema = store.schema();
    this.layout = new KeyValueLayout(schema);
    TableOptions options = store.options();
    this.numBuckets = options.bucket();
    this.partitionComputer =
        new PartitionComputer(schema.rowType(), schema.indexes(schema.partitionKeys()));
    this.bucketKeyComputer =
        new PartitionComputer(schema.rowType(), schema.indexes(schema.bucketKeys()));
    this.bufferSize = options.get(TableOptions.WRITE_BUFFER_SIZE).getBytes();
    boolean dv = options.get(TableOptions.DELETION_VECTORS_ENABLED);
    // A deletion-vector table compacts only with its key lookup on local disk.
    this.compactInWriter =
        !options.writeOnly() && (!dv || options.get(TableOptions.LOCAL_CACHE_ENABLED));
    this.stopTrigger = options.numSortedRunStopTrigger();
    this.deletionVectors = dv;
    this.engine = options.mergeEngine();
    List<Integer> counts = new ArrayList<>();
    if (engine.equals("aggregation")) {
      options
          .aggregateFunctions()
          .forEach(
              (f, fn) -> {
                if (fn.equals("count")) {
                  int i = schema.fieldNames().indexOf(f);
                  switch (schema.rowType().getTypeAt(i).getTypeRoot()) {
                    case INTEGER:
                    case BIGINT:
                      counts.add(i);
                      break;
                    default:
                      throw new IllegalArgumentException(
                          "Aggregate function count of field '" + f + "' needs type INT or BIGINT");
                  }
                }
              });
      // Validate every aggregate function against its column type now.
      MergeFunctions.create(schema, layout);
    }
    this.countFields = counts.stream().mapToInt(Integer::intValue).toArray();
    this.serializer = new RowDataSerializer(layout.fileType());
    this.inputCopier = new KeyValueLayout.RowCopier(schema.rowType());
    this.reuse = new GenericRowData(layout.fileType().getFieldCount());
    this.sortOrder = layout.keyAndSequenceComparator();
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
    RowKind kind = MergeFunctions.storedKind(engine, row.getRowKind());
    if (kind == null) {
      return;
    }
    for (int k : layout.keyIndexes()) {
      if (row.isNullAt(k)) {
        throw new IllegalArgumentException(
            "Primary key column '" + schema.fieldNames().get(k) + "' must not be null");
      }
    }
    BinaryRowData partition = partitionComputer.project(row);
    int bucket = Math.abs(bucketKeyComputer.project(row).hashCode() % numBuckets);
    writer(partition, bucket).write(row, kind);
  }

  private BucketWriter writer(BinaryRowData partition, int bucket) {
    Map<Integer, BucketWriter> byBucket = writers.computeIfAbsent(partition, p -> new HashMap<>());
    BucketWriter w = byBucket.get(bucket);
    if (w == null) {
      w = new BucketWriter(partition, bucket);
      byBucket.put(bucket, w);
    }
    return w;
  }

  /** Flushes every buffer, compacts (unless write-only) and returns the changes since last call. */
  public List<CommitMessage> prepareCommit() throws IOException {
    List<CommitMessage> out = new ArrayList<>();
    for (Map<Integer, BucketWriter> byBucket : writers.values()) {
      for (BucketWriter w : byBucket.values()) {
        w.flush();
        if (compactInWriter) {
          w.compact();
        }
        CommitMessage m = w.drain();
        if (!m.isEmpty()) {
          out.add(m);
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    for (Map<Integer, BucketWriter> byBucket : writers.values()) {
      for (BucketWriter w : byBucket.values()) {
        w.abort();
      }
    }
    writers.clear();
  }

  private CompactPlanner.BucketStrategy strategy() {
    if (strategy == null) {
      strategy = TableKind.PRIMARY_KEY.compactStrategy(store);
      rewriter = TableKind.PRIMARY_KEY.rewriter(store, observer);
    }
    return strategy;
  }

  /** The buffer, files and pending changes of one bucket. */
  private final class BucketWriter {
    final BinaryRowData partition;
    final int bucket;
    final List<DataFileMeta> files = new ArrayList<>();
    final List<BinaryRowData> buffer = new ArrayList<>();
    long bufferBytes;
    long nextSequence;
    final List<DataFileMeta> newFiles = new ArrayList<>();
    final List<DataFileMeta> compactBefore = new ArrayList<>();
    final List<DataFileMeta> compactAfter = new ArrayList<>();
    final List<CommitMessage> extra = new ArrayList<>();

    BucketWriter(BinaryRowData partition, int bucket) {
      this.partition = partition;
      this.bucket = bucket;
      long max = -1;
      Optional<Snapshot> latest = store.snapshotManager().latest();
      if (latest.isPresent()) {
        for (ManifestEntry e :
            store
                .newScan()
                .withPartitionFilter(
                    PartitionPredicates.in(store.partitionType(), Set.of(partition)))
                .withBucket(bucket)
                .plan(latest.get())) {
          files.add(e.file());
          max = Math.max(max, e.file().maxSequenceNumber());
        }
      }
      this.nextSequence = max + 1;
    }

    void write(RowData row, RowKind kind) throws IOException {
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
      reuse.setRowKind(RowKind.INSERT);
      BinaryRowData b = serializer.toBinaryRow(reuse).copy();
      buffer.add(b);
      bufferBytes += b.getSizeInBytes() + ROW_OVERHEAD;
      if (bufferBytes >= bufferSize) {
        flush();
        if (compactInWriter && !deletionVectors && level0Runs() >= stopTrigger) {
          LOG.info(
              "Bucket {} has {} level-0 runs: compacting before writing more",
              bucket,
              level0Runs());
          compact();
        }
      }
    }

    int level0Runs() {
      int n = 0;
      for (DataFileMeta f : files) {
        if (f.level() == 0) {
          n++;
        }
      }
      return n;
    }

    void flush() throws IOException {
      if (buffer.isEmpty()) {
        return;
      }
      buffer.sort(sortOrder);
      KeyValueFileWriter w =
          new KeyValueFileWriter(
              store, layout, partition, bucket, 0, FileSource.APPEND, names, observer);
      try {
        SortMergeReader merged =
            new SortMergeReader(
                List.of(RowIterator.of(buffer)),
                layout,
                MergeFunctions.create(schema, layout),
                false);
        RowData kv;
        while ((kv = merged.next()) != null) {
          w.write(kv);
        }
        List<DataFileMeta> written = w.finish();
        newFiles.addAll(written);
        files.addAll(written);
      } catch (IOException | RuntimeException e) {
        for (IOException s : w.abort()) {
          e.addSuppressed(s);
        }
        throw e;
      }
      buffer.clear();
      bufferBytes = 0;
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
                  List.copyOf(files)));
      for (CompactTask t : tasks) {
        CompactTaskResult r;
        try {
          r = rewriter.rewrite(t, () -> false);
        } catch (IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException("Compaction in the writer failed: " + t, e);
        }
        CommitMessage m = r.message();
        for (DataFileMeta before : m.compactBefore()) {
          files.remove(before);
          if (!compactAfter.remove(before)) {
            compactBefore.add(before);
          } else {
            // An output of an earlier, uncommitted compaction: never committed, delete it.
            store
                .fileIO()
                .deleteAll(List.of(store.dataFilePath(partition, bucket, before.fileName())));
          }
        }
        files.addAll(m.compactAfter());
        compactAfter.addAll(m.compactAfter());
        extra.add(m);
      }
    }

    /**
     * The bucket's changes since the last drain. Its base is the oldest base of the compactions in
     * it (unknown if any is unknown): the commit validates deletion vectors against it.
     */
    CommitMessage drain() {
      List<DeletionFile> dvs = new ArrayList<>();
      OptionalLong base = OptionalLong.empty();
      boolean baseKnown = true;
      for (CommitMessage m : extra) {
        dvs.addAll(m.deletionFiles());
        OptionalLong b = m.baseSnapshotId();
        if (b.isEmpty()) {
          baseKnown = false;
        } else if (base.isEmpty() || b.getAsLong() < base.getAsLong()) {
          base = b;
        }
      }
      CommitMessage m =
          new CommitMessage(
              partition,
              bucket,
              numBuckets,
              newFiles,
              compactBefore,
              compactAfter,
              dvs,
              baseKnown ? base : OptionalLong.empty());
      newFiles.clear();
      compactBefore.clear();
      compactAfter.clear();
      extra.clear();
      return m;
    }

    void abort() {
      List<Path> paths = new ArrayList<>();
      for (DataFileMeta f : newFiles) {
        paths.add(store.dataFilePath(partition, bucket, f.fileName()));
      }
      for (DataFileMeta f : compactAfter) {
        paths.add(store.dataFilePath(partition, bucket, f.fileName()));
      }
      store.fileIO().deleteAll(paths);
      buffer.clear();
    }
  }
}
