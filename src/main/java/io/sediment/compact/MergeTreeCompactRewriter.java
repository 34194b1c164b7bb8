package io.sediment.compact;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.PartitionPredicates;
import io.sediment.format.EncodingHints;
import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.mergetree.KeyValueFileWriter;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.LevelLookup;
import io.sediment.mergetree.LocalKeyCache;
import io.sediment.mergetree.LookupChangelog;
import io.sediment.mergetree.MergeFunction;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.RunReader;
import io.sediment.mergetree.SortMergeReader;
import io.sediment.mergetree.SortedRun;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rewrites a MERGE_TREE task: k-way merges the sorted runs of its inputs with the table's merge
 * engine into files of the output level (dropping deletes when the task says so).
 */
public final class MergeTreeCompactRewriter implements CompactRewriter {

  private final FileStore store;
  private final KeyValueLayout layout;
  private final DataFileFactory names = new DataFileFactory();
  private final OutputObserver observer;
  // rewriters at newer schema versions some inputs were written with (see rewrite); tasks of one
  // rewriter may run on several threads (CompactBuilder)
  private final Map<Long, MergeTreeCompactRewriter> newer = new ConcurrentHashMap<>();

  public MergeTreeCompactRewriter(FileStore store, OutputObserver observer) {
    this.store = store;
    this.observer = observer;
    this.layout = new KeyValueLayout(store.schema());
  }

  /**
   * Whether a merge of {@code task} also reads its bucket's {@linkplain CompactTask#lookupFiles
   * other levels}: on a deletion-vector table always, with the lookup changelog producer when it
   * moves level-0 files up.
   */
  static boolean looksUp(TableOptions options, CompactTask task) {
    return task.kind() == CompactTask.Kind.MERGE_TREE
        && (options.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED)
            || (options.lookupChangelog() && task.inputs().stream().anyMatch(f -> f.level() == 0)));
  }

  @Override
  public CompactTaskResult rewrite(CompactTask task, BooleanSupplier cancelled) throws Exception {
    // outputs carry the newest schema of this job and the inputs, and merge with its layout and
    // merge functions: a column an input has is never lost (a job that loaded an older schema)
    FileStore target = store.forRewriteOf(task.inputs());
    return target == store
        ? rewriteAtOwnSchema(task, cancelled)
        : rewriteAt(target, task, cancelled);
  }

  private CompactTaskResult rewriteAt(FileStore target, CompactTask task, BooleanSupplier cancelled)
      throws Exception {
    return newer
        .computeIfAbsent(target.schema().id(), id -> new MergeTreeCompactRewriter(target, observer))
        .rewriteAtOwnSchema(task, cancelled);
  }

  private CompactTaskResult rewriteAtOwnSchema(CompactTask task, BooleanSupplier cancelled)
      throws Exception {
    long start = System.nanoTime();
    if (task.kind() != CompactTask.Kind.MERGE_TREE) {
      throw new IllegalArgumentException("Not a merge-tree task: " + task);
    }
    TableKind.checkCompactable(store);
    boolean dv = store.options().get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    // Deletion-vector tables: the current vectors of the bucket, and the files not compacted
    // here (older levels), whose older versions of the merged keys get marked deleted. They are
    // read from the latest snapshot, which becomes the base the commit validates against: a
    // vector that changes after it makes the commit conflict or merge (FileStoreCommit).
    Map<String, RoaringBitmap> vectors = new HashMap<>();
    Map<String, DeletionFile> vectorFiles = new HashMap<>();
    List<SortedRun> others = new ArrayList<>();
    OptionalLong base = task.baseSnapshotId();
    // The lookup changelog producer: the changes of the level-0 rows this task moves up, computed
    // against the bucket's levels >= 1 of the same snapshot (see LookupChangelog).
    List<DataFileMeta> level0 = new ArrayList<>();
    if (store.options().lookupChangelog()) {
      task.inputs().stream().filter(f -> f.level() == 0).forEach(level0::add);
    }
    List<DataFileMeta> upper = new ArrayList<>();
    if (looksUp(store.options(), task)) {
      // An overwrite's writer looks up only in its own files (their vectors are its own too)
      List<DataFileMeta> bucketFiles = task.ownBucketFiles();
      if (bucketFiles == null) {
        Optional<Snapshot> latest = store.snapshotManager().latest();
        base = OptionalLong.of(latest.map(Snapshot::id).orElse(0L));
        if (latest.isPresent()) {
          if (dv) {
            vectorFiles =
                new IndexManifest(store.fileIO(), store.paths())
                    .read(latest.get().indexManifest(), task.partition(), task.bucket());
            vectors = new HashMap<>(DeletionVectors.read(store, vectorFiles.values()));
          }
          bucketFiles = new ArrayList<>();
          for (ManifestEntry e :
              store
                  .newScan()
                  .withPartitionFilter(
                      PartitionPredicates.in(store.partitionType(), Set.of(task.partition())))
                  .withBucket(task.bucket())
                  .plan(latest.get())) {
            bucketFiles.add(e.file());
          }
        }
      }
      if (bucketFiles != null) {
        List<DataFileMeta> rest = task.lookupFiles(bucketFiles);
        List<DataFileMeta> all = new ArrayList<>(rest);
        all.addAll(task.inputs());
        if (store.forRewriteOf(all) != store) {
          // a file the lookup reads has a newer schema: the merge happens at that schema
          return rewriteAt(store.forRewriteOf(all), task, cancelled);
        }
        upper.addAll(rest);
        if (dv) {
          // Oldest first: the highest level first.
          others = new ArrayList<>(SortedRun.of(rest, layout.keyRowComparator()));
          Collections.reverse(others);
        }
      }
      task.inputs().stream().filter(f -> f.level() > 0).forEach(upper::add);
    }
    List<DataFileMeta> changelog =
        level0.isEmpty()
            ? List.of()
            : new LookupChangelog(store, layout, observer)
                .write(task.partition(), task.bucket(), level0, upper, vectors, cancelled);
    // the runs open their first files before the first output file is created (the merge
    // reads one row of every run first), so the output's encodings can follow the inputs'
    EncodingHints hints = new EncodingHints();
    // Strings into reused buffers: the merge keeps a run's row only while its key's versions are
    // merged (a run's keys are unique), and the writer copies what it keeps (key range,
    // statistics).
    List<RowIterator> readers = new ArrayList<>();
    for (SortedRun run : SortedRun.of(task.inputs(), layout.keyRowComparator())) {
      readers.add(
          new RunReader(store, layout, task.partition(), task.bucket(), run.files(), vectors)
              .reuseValueBuffers()
              .observeEncodings(hints));
    }
    KeyValueFileWriter writer =
        new KeyValueFileWriter(
            store,
            layout,
            task.partition(),
            task.bucket(),
            task.outputLevel(),
            FileSource.COMPACT,
            names,
            observer);
    writer.useEncodingHints(hints);
    LocalKeyCache cache = dv ? new LocalKeyCache(store, layout) : null;
    if (dv && task.outputLevel() > 0) {
      // later compactions look keys up in this level (deletion vectors): its lookup files are
      // made as it is written, not read back from it by the first of them
      writer.writeLookupFilesTo(cache);
    }
    List<DataFileMeta> after = List.of();
    long rows = 0;
    Map<String, RoaringBitmap> changed = new LinkedHashMap<>();
    List<LevelLookup> lookups = new ArrayList<>();
    List<DeletionFile> newVectors = List.of();
    try (SortMergeReader reader =
        new SortMergeReader(
            readers,
            layout,
            MergeFunctions.create(store.schema(), layout),
            task.dropDeletes() && others.isEmpty())) {
      for (SortedRun r : others) {
        lookups.add(new LevelLookup(cache, layout, task.partition(), task.bucket(), r.files()));
      }
      MergeFunction versions = MergeFunctions.create(store.schema(), layout);
      int seqIndex = layout.sequenceIndex();
      List<DataFileMeta> foundFiles = new ArrayList<>();
      List<Integer> foundPositions = new ArrayList<>();
      List<RowData> foundRows = new ArrayList<>();
      List<Integer> order = new ArrayList<>();
      RowData kv;
      while ((kv = reader.next()) != null) {
        if ((++rows & 1023) == 0 && cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction task cancelled: " + task);
        }
        if (lookups.isEmpty()) {
          writer.write(kv);
          continue;
        }
        // Older live versions of this key in the levels not compacted (oldest level first).
        foundFiles.clear();
        foundPositions.clear();
        foundRows.clear();
        for (LevelLookup l : lookups) {
          DataFileMeta f = l.seek(kv);
          if (f == null) {
            continue;
          }
          int pos = l.position();
          RoaringBitmap b =
              changed.containsKey(f.fileName())
                  ? changed.get(f.fileName())
                  : vectors.get(f.fileName());
          if (b != null && b.contains(pos)) {
            continue;
          }
          foundFiles.add(f);
          foundPositions.add(pos);
          foundRows.add(l.row());
        }
        if (foundFiles.isEmpty()) {
          if (!layout.isRetract(kv) || task.keepRetracts()) {
            writer.write(kv);
          }
          continue;
        }
        // The versions go to the merge engine in sequence order: a row compacted here is usually
        // newer than those found in the levels, but not always (a writer's rows committed after
        // a newer version was compacted, first-row keeping the oldest).
        long newSeq = kv.getLong(seqIndex);
        order.clear();
        for (int i = 0; i <= foundRows.size(); i++) {
          order.add(i);
        }
        final RowData current = kv;
        order.sort(
            (x, y) ->
                Long.compare(
                    (x == foundRows.size() ? current : foundRows.get(x)).getLong(seqIndex),
                    (y == foundRows.size() ? current : foundRows.get(y)).getLong(seqIndex)));
        versions.reset();
        for (int i : order) {
          versions.add(i == foundRows.size() ? kv : foundRows.get(i));
        }
        RowData result = versions.result();
        long resultSeq = result == null ? Long.MIN_VALUE : result.getLong(seqIndex);
        boolean newWins = result != null && resultSeq == newSeq;
        // The version that stays: the compacted row when it wins, else the found version whose
        // sequence number the result carries (the last such, newest level first).
        int winner = -1;
        if (!newWins && result != null) {
          for (int i = foundFiles.size() - 1; i >= 0 && winner < 0; i--) {
            if (foundRows.get(i).getLong(seqIndex) == resultSeq) {
              winner = i;
            }
          }
        }
        for (int i = 0; i < foundFiles.size(); i++) {
          if (i != winner) {
            String name = foundFiles.get(i).fileName();
            RoaringBitmap b = changed.get(name);
            if (b == null) {
              RoaringBitmap old = vectors.get(name);
              b = old == null ? new RoaringBitmap() : old.clone();
              changed.put(name, b);
            }
            b.add(foundPositions.get(i));
          }
        }
        if (newWins && (!layout.isRetract(result) || task.keepRetracts())) {
          writer.write(result);
        }
      }
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("Compaction task cancelled: " + task);
      }
      after = writer.finish();
      newVectors = DeletionVectors.write(store, changed, observer);
    } catch (Exception | Error e) {
      for (IOException cleanup : writer.abort()) {
        e.addSuppressed(cleanup);
      }
      List<Path> written = new ArrayList<>();
      for (DataFileMeta f : changelog) {
        written.add(store.dataFilePath(task.partition(), task.bucket(), f.fileName()));
      }
      // finished outputs (the writer hands them out and no longer aborts them): the vectors'
      // file failed after them
      for (DataFileMeta f : after) {
        written.add(store.dataFilePath(task.partition(), task.bucket(), f.fileName()));
      }
      for (IOException cleanup : store.fileIO().deleteAll(written)) {
        e.addSuppressed(cleanup);
      }
      throw e;
    } finally {
      for (LevelLookup l : lookups) {
        l.close();
      }
    }
    long bytes = 0;
    for (DataFileMeta f : after) {
      bytes += f.fileSize();
    }
    CommitMessage message =
        new CommitMessage(
            task.partition(),
            task.bucket(),
            task.totalBuckets(),
            List.of(),
            task.inputs(),
            after,
            newVectors,
            base,
            changelog);
    return new CompactTaskResult(
        task,
        message,
        task.inputRows(),
        rows,
        task.inputBytes(),
        bytes,
        (System.nanoTime() - start) / 1_000_000);
  }
}
