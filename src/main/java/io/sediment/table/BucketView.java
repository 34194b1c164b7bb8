package io.sediment.table;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.PartitionPredicates;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.SortedRun;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The committed view of one bucket of a {@link PrimaryKeyTableWrite}: the bucket's files in the
 * latest snapshot the writer read, kept up to date from the changes of every snapshot since, and
 * the windows the writer sent for the bucket that the snapshots do not show resolved yet. It
 * decides whether the bucket's compaction may run (see the writer's javadoc); it is separate from
 * the bucket's buffer and write path, which never touch it per row.
 */
final class BucketView {

  private final FileStore store;
  private final BinaryRowData partition;
  private final int bucket;
  private final ManifestEntry.Identifier key;

  /** The bucket's files in snapshot {@link #viewId}, in the order they were added. */
  private final Map<String, DataFileMeta> committed = new LinkedHashMap<>();

  /** The snapshot the committed view is at; 0: the table had none. */
  private long viewId;

  /** The highest sequence number of the files first read; -1: none. */
  private final long maxSequenceNumber;

  private final List<SentWindow> unresolved = new ArrayList<>();

  /**
   * Whether the view follows the snapshots; else it holds no committed file and never reads one (an
   * overwrite's writer: see {@code TableWrite#withIgnorePreviousFiles}).
   */
  private final boolean followsSnapshots;

  /** Reads the bucket in the latest snapshot, or nothing when not {@code followsSnapshots}. */
  BucketView(FileStore store, BinaryRowData partition, int bucket, boolean followsSnapshots) {
    this.store = store;
    this.partition = partition;
    this.bucket = bucket;
    this.key = SnapshotDeltas.bucketKey(partition, bucket);
    this.followsSnapshots = followsSnapshots;
    long max = -1;
    Optional<Snapshot> latest =
        followsSnapshots ? store.snapshotManager().latest() : Optional.empty();
    if (latest.isPresent()) {
      viewId = latest.get().id();
      for (ManifestEntry e : scanBucket(latest.get())) {
        committed.put(e.file().fileName(), e.file());
        max = Math.max(max, e.file().maxSequenceNumber());
      }
    }
    this.maxSequenceNumber = max;
  }

  /** The snapshot the committed view is at; 0: the table had none. */
  long viewId() {
    return viewId;
  }

  /**
   * The first sequence number of the bucket's writer: above the files first read and {@code floor}
   * (a restored writer's); for an overwrite's writer (not following the snapshots) below every
   * other writer's, so that the rows of any window committed after the overwrite, also one written
   * before it, come after its rows (in commit order, as for an append table).
   */
  long firstSequence(long floor) {
    return followsSnapshots ? Math.max(maxSequenceNumber + 1, floor) : Long.MIN_VALUE / 2;
  }

  /** The bucket's files in snapshot {@link #viewId()}, in the order they were added. */
  Collection<DataFileMeta> committedFiles() {
    return committed.values();
  }

  /** The sorted runs of the view: each level-0 file one, each upper level one. */
  int committedRuns() {
    return SortedRun.count(committed.values());
  }

  /**
   * The level-0 runs this writer sent for the bucket that the view does not show committed yet (the
   * appended files of its unresolved windows).
   */
  int runsInFlight() {
    int runs = 0;
    for (SentWindow w : unresolved) {
      runs += w.appended.size();
    }
    return runs;
  }

  /** How many windows sent for this bucket are not yet seen resolved in the snapshots. */
  int unresolvedWindows() {
    return unresolved.size();
  }

  /** Whether a window sent for this bucket is not yet seen resolved in the snapshots. */
  boolean hasUnresolved() {
    return !unresolved.isEmpty();
  }

  private List<ManifestEntry> scanBucket(Snapshot snapshot) {
    return store
        .newScan()
        .withPartitionFilter(PartitionPredicates.in(store.partitionType(), Set.of(partition)))
        .withBucket(bucket)
        .plan(snapshot);
  }

  /**
   * Brings the committed view to snapshot {@code latest} from the changes of the snapshots in
   * between (or a new scan when one cannot be read) and resolves the windows sent before. Returns
   * whether none is left unresolved. {@link #viewId()} moves when the view did: the writer then
   * rebuilds the files it plans over.
   */
  boolean catchUp(long latest, SnapshotDeltas deltas) {
    if (followsSnapshots && latest > viewId) {
      boolean complete = true;
      for (long id = viewId + 1; id <= latest && complete; id++) {
        Map<ManifestEntry.Identifier, List<ManifestEntry>> changes = deltas.delta(id);
        if (changes == null) {
          complete = false;
          break;
        }
        for (ManifestEntry e : changes.getOrDefault(key, List.of())) {
          String name = e.file().fileName();
          if (e.kind() == FileKind.ADD) {
            committed.put(name, e.file());
            unresolved.forEach(w -> w.added(name));
          } else {
            committed.remove(name);
            unresolved.forEach(w -> w.deleted(name));
          }
        }
      }
      if (!complete) {
        // A snapshot in between expired: read the bucket anew, and resolve the windows sent
        // before by what is live now. A window whose appended file is neither live nor deleted
        // stays unresolved: it may still be uncommitted.
        Optional<Snapshot> s = store.snapshotManager().snapshotIfExists(latest);
        if (s.isEmpty()) {
          return false; // cannot be read now: no compaction this time
        }
        committed.clear();
        for (ManifestEntry e : scanBucket(s.get())) {
          committed.put(e.file().fileName(), e.file());
        }
        for (SentWindow w : unresolved) {
          committed.keySet().forEach(w::added);
          for (String input : w.inputs) {
            if (!committed.containsKey(input)) {
              w.deleted(input);
            }
          }
        }
      }
      viewId = latest;
    }
    for (SentWindow w : unresolved) {
      if (!w.resolved()) {
        probe(w);
      }
    }
    unresolved.removeIf(SentWindow::resolved);
    for (SentWindow w : unresolved) {
      if (!w.compactionResolved) {
        return false;
      }
    }
    return true;
  }

  /**
   * Looks at the files of a window the snapshots do not show resolved: a compaction whose outputs
   * are gone was dropped (its rows still come, with the window's appended files); a window whose
   * appended files are gone was aborted whole.
   */
  private void probe(SentWindow w) {
    if (!w.compactionResolved && w.compactionProbe != null && !exists(w.compactionProbe)) {
      w.compactionResolved = true;
    }
    if (!w.appended.isEmpty() && w.appendProbe != null && !exists(w.appendProbe)) {
      w.appended.clear();
    }
  }

  private boolean exists(Path p) {
    try {
      return store.fileIO().exists(p);
    } catch (IOException e) {
      return true; // cannot tell: still in flight
    }
  }

  /** Registers a non-empty message the writer sends for this bucket as a window to resolve. */
  void sent(CommitMessage m) {
    if (!followsSnapshots) {
      // An overwrite's writer: all its windows are committed together, so the next window's
      // compactions plan over the files this one leaves, as if committed.
      m.newFiles().forEach(f -> committed.put(f.fileName(), f));
      m.compactAfter().forEach(f -> committed.put(f.fileName(), f));
      m.compactBefore().forEach(f -> committed.remove(f.fileName()));
      return;
    }
    unresolved.add(new SentWindow(m, compactionProbe(m), appendProbe(m)));
  }

  /** A file a dropped compaction of the message deletes, or null. */
  private Path compactionProbe(CommitMessage m) {
    for (DataFileMeta f : m.compactAfter()) {
      if (!m.newFiles().contains(f)) {
        return store.dataFilePath(partition, bucket, f.fileName());
      }
    }
    for (DeletionFile d : m.deletionFiles()) {
      return store.paths().index(d.dvFile());
    }
    return null;
  }

  /** A file only an abort of the whole message deletes, or null. */
  private Path appendProbe(CommitMessage m) {
    for (DataFileMeta f : m.newFiles()) {
      return store.dataFilePath(partition, bucket, f.fileName());
    }
    return null;
  }

  /**
   * A window of one bucket this writer sent (a non-empty message of a {@code prepareCommit}) and
   * does not yet see resolved in the snapshots: its appended files not yet added, its compaction
   * neither landed (an output added), nor impossible (an input deleted by another commit), nor
   * dropped (its outputs deleted).
   */
  private static final class SentWindow {
    final Set<String> appended = new HashSet<>();
    final Set<String> inputs = new HashSet<>();
    final Set<String> outputs = new HashSet<>();

    /** An output of the compaction whose absence says the compaction was dropped, or null. */
    final Path compactionProbe;

    /** An appended file whose absence says the whole window was aborted, or null. */
    final Path appendProbe;

    boolean compactionResolved;

    SentWindow(CommitMessage m, Path compactionProbe, Path appendProbe) {
      m.newFiles().forEach(f -> appended.add(f.fileName()));
      m.compactBefore().forEach(f -> inputs.add(f.fileName()));
      m.compactAfter().forEach(f -> outputs.add(f.fileName()));
      this.compactionProbe = compactionProbe;
      this.appendProbe = appendProbe;
      // A compaction that wrote nothing cannot be told landed from dropped: not waited for (a
      // later compaction of its inputs loses the race at commit).
      compactionResolved =
          inputs.isEmpty() || (m.compactAfter().isEmpty() && m.deletionFiles().isEmpty());
    }

    void added(String name) {
      appended.remove(name);
      if (outputs.contains(name)) {
        compactionResolved = true;
      }
    }

    void deleted(String name) {
      if (inputs.contains(name)) {
        compactionResolved = true;
      }
    }

    boolean resolved() {
      return appended.isEmpty() && compactionResolved;
    }
  }
}
