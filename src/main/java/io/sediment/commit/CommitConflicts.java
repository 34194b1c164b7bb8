package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.schema.PrimaryKeyOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Decides whether a commit's changes still apply on top of the latest snapshot, and throws {@link
 * CommitConflictException} naming the files when not:
 *
 * <ul>
 *   <li>every file to delete, and every data file given a new deletion vector, is still live;
 *   <li>the deletion vector of every file a message replaces (its compaction inputs) is the one the
 *       message's base snapshot had: the rewrite read that one, so rows deleted since would come
 *       back in its output;
 *   <li>primary-key tables: files of one level >= 1 of one bucket do not overlap in key range;
 *   <li>primary-key tables: a commit that adds or removes files of levels >= 1 of a bucket, or
 *       gives its files deletion vectors, is serializable in that bucket: no other commit since the
 *       message's base snapshot added or removed a level >= 1 file of the bucket or changed a
 *       deletion vector of it ({@link #checkBucketsSerializable}).
 * </ul>
 */
final class CommitConflicts {

  private final FileStore store;

  CommitConflicts(FileStore store) {
    this.store = store;
  }

  /**
   * The view {@link #checkFilesLive} and {@link #checkNoOverlap} read, for one commit's attempts:
   * the partitions its changes and deletion vectors touch.
   */
  LiveFiles liveFiles(
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors,
      Map<Long, List<ManifestEntry>> deltas) {
    Set<BinaryRowData> partitions = new HashSet<>();
    for (ManifestEntry e : changes) {
      partitions.add(e.partition());
    }
    int partitionArity = store.partitionType().getFieldCount();
    for (IndexManifest.Entry d : deletionVectors) {
      partitions.add(d.partition(partitionArity));
    }
    return new LiveFiles(store, partitions, deltas);
  }

  /**
   * Fails when a file to delete, or a data file given a new deletion vector, is no longer live in
   * the latest snapshot (a deletion vector may also be of a file the commit adds: a rollback's copy
   * of a file with one).
   */
  void checkFilesLive(
      Optional<Snapshot> latest,
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors,
      LiveFiles liveFiles)
      throws IOException {
    Set<ManifestEntry.Identifier> toDelete = new LinkedHashSet<>();
    Set<String> liveTargets = new HashSet<>();
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.DELETE) {
        if (!toDelete.add(e.identifier())) {
          // two compactions of one commit replacing one file would keep its rows twice
          throw new CommitConflictException(
              "Commit conflicts with itself: two of its changes replace the same file",
              List.of(e.file().fileName()));
        }
      } else {
        liveTargets.add(IndexManifest.target(e.partition(), e.bucket(), e.file().fileName()));
      }
    }
    Set<ManifestEntry.Identifier> live = new HashSet<>();
    for (ManifestEntry e : liveFiles.at(latest)) {
      live.add(e.identifier());
      liveTargets.add(IndexManifest.target(e.partition(), e.bucket(), e.file().fileName()));
    }
    List<String> missing = new ArrayList<>();
    for (ManifestEntry.Identifier id : toDelete) {
      if (!live.contains(id)) {
        missing.add(id.fileName());
      }
    }
    for (IndexManifest.Entry d : deletionVectors) {
      if (!liveTargets.contains(d.target())) {
        missing.add(d.deletionFile().dataFile());
      }
    }
    if (!missing.isEmpty()) {
      throw new CommitConflictException(
          "Commit conflicts with a concurrent commit: files to replace are no longer in the latest"
              + " snapshot "
              + latest.map(Snapshot::id).orElse(0L),
          missing);
    }
  }

  /**
   * Fails when the deletion vector of a file a message replaces (compact-before) differs between
   * the message's base snapshot and the latest one. When the base is unknown (see {@link
   * SnapshotVectors#atBase}), fails when such a file has any deletion vector in the latest
   * snapshot: vectors are only ever added to a live file, so a file without one now had none when
   * the work read it, and a file with one may have gained it since.
   */
  void checkInputVectorsUnchanged(
      Optional<Snapshot> latest, List<CommitMessage> messages, SnapshotVectors vectors)
      throws IOException {
    if (latest.isEmpty() || latest.get().indexManifest() == null) {
      return; // no file has a deletion vector
    }
    Map<String, IndexManifest.Entry> now = vectors.of(latest);
    List<String> changed = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    Set<Long> bases = new TreeSet<>();
    for (CommitMessage m : messages) {
      if (m.compactBefore().isEmpty()) {
        continue;
      }
      Optional<Map<String, IndexManifest.Entry>> then = vectors.atBase(m.baseSnapshotId());
      for (DataFileMeta f : m.compactBefore()) {
        String target = IndexManifest.target(m.partition(), m.bucket(), f.fileName());
        IndexManifest.Entry current = now.get(target);
        if (then.isEmpty()) {
          if (current != null) {
            unknown.add(f.fileName());
          }
        } else if (!Objects.equals(then.get().get(target), current)) {
          changed.add(f.fileName());
          bases.add(m.baseSnapshotId().getAsLong());
        }
      }
    }
    if (!changed.isEmpty()) {
      throw new CommitConflictException(
          "Commit conflicts with a concurrent commit: the deletion vectors of files to replace"
              + " changed after snapshot "
              + (bases.size() == 1 ? bases.iterator().next() : bases)
              + ", which the work read (latest snapshot "
              + latest.get().id()
              + "); its output would bring deleted rows back",
          changed);
    }
    if (!unknown.isEmpty()) {
      throw new CommitConflictException(
          "Commit conflicts: files to replace have deletion vectors in the latest snapshot "
              + latest.get().id()
              + " and the snapshot the work read is unknown (a message of an older version, or"
              + " an expired base snapshot), so they may have changed since",
          unknown);
    }
  }

  /**
   * Primary-key tables: after applying the changes, the files of one level >= 1 of one bucket must
   * not overlap in key range (each such level is one sorted run).
   */
  void checkNoOverlap(Optional<Snapshot> latest, List<ManifestEntry> changes, LiveFiles liveFiles)
      throws IOException {
    Set<ManifestEntry.Identifier> buckets = new HashSet<>();
    for (ManifestEntry e : changes) {
      buckets.add(bucketOf(e));
    }
    Map<ManifestEntry.Identifier, ManifestEntry> files = new LinkedHashMap<>();
    for (ManifestEntry e : liveFiles.at(latest)) {
      if (e.file().level() > 0 && buckets.contains(bucketOf(e))) {
        files.put(e.identifier(), e);
      }
    }
    for (ManifestEntry e : changes) {
      if (e.file().level() == 0) {
        continue;
      }
      if (e.kind() == FileKind.ADD) {
        files.put(e.identifier(), e);
      } else {
        files.remove(e.identifier());
      }
    }
    Map<ManifestEntry.Identifier, List<ManifestEntry>> byLevel = new HashMap<>();
    for (ManifestEntry e : files.values()) {
      byLevel
          .computeIfAbsent(
              new ManifestEntry.Identifier(e.partition(), e.bucket(), e.file().level(), ""),
              k -> new ArrayList<>())
          .add(e);
    }
    Comparator<RowData> keys = new KeyValueLayout(store.schema()).keyRowComparator();
    for (List<ManifestEntry> level : byLevel.values()) {
      level.sort((a, b) -> keys.compare(a.file().minKey(), b.file().minKey()));
      for (int i = 1; i < level.size(); i++) {
        DataFileMeta prev = level.get(i - 1).file();
        DataFileMeta next = level.get(i).file();
        if (keys.compare(prev.maxKey(), next.minKey()) >= 0) {
          throw new CommitConflictException(
              "Commit would make key ranges of files at level "
                  + next.level()
                  + " of bucket "
                  + level.get(i).bucket()
                  + " overlap",
              List.of(prev.fileName(), next.fileName()));
        }
      }
    }
  }

  /**
   * Primary-key tables, the bucket invariant (docs/spec.md, "The primary-key bucket invariant"): a
   * message that compacts, or changes a bucket's levels >= 1 (adds or removes such files) or its
   * deletion vectors, read the bucket at its base snapshot; it conflicts when any commit after that
   * base changed the bucket's levels >= 1 or deletion vectors, or overwrote it (level 0 too), since
   * its outputs and the vectors it marks were computed without that change (two compactions of one
   * bucket from one base would both keep a version of the same key). Level-0 appends never
   * conflict: APPEND snapshots are not read. A message with an unknown base, or whose base or a
   * snapshot after it is gone, conflicts: what happened in between cannot be told.
   */
  void checkBucketsSerializable(
      Optional<Snapshot> latest,
      List<CommitMessage> messages,
      SnapshotVectors vectors,
      Map<Long, List<ManifestEntry>> deltas)
      throws IOException {
    if (latest.isEmpty()) {
      return;
    }
    long latestId = latest.get().id();
    for (CommitMessage m : messages) {
      if (!changesLevelsOrVectors(m)) {
        continue;
      }
      String bucket = "bucket " + m.bucket() + describePartition(m);
      if (m.baseSnapshotId().isEmpty()) {
        throw new CommitConflictException(
            "Commit conflicts: it changes the levels of "
                + bucket
                + " but the snapshot its work read is unknown (a message of an older version),"
                + " so a concurrent change of the bucket cannot be ruled out",
            names(m));
      }
      long base = m.baseSnapshotId().getAsLong();
      for (long id = base + 1; id <= latestId; id++) {
        Optional<Snapshot> s =
            id == latestId ? latest : store.snapshotManager().snapshotIfExists(id);
        if (s.isEmpty()) {
          throw new CommitConflictException(
              "Commit conflicts: snapshot "
                  + id
                  + ", committed after the snapshot "
                  + base
                  + " its work read, is gone (expired), so a concurrent change of "
                  + bucket
                  + " cannot be ruled out",
              names(m));
        }
        if (s.get().commitKind() == CommitKind.APPEND) {
          continue; // level-0 files only, no deletion vectors
        }
        // an overwrite replaces the bucket whole, level 0 too: a compaction that dropped deletes
        // (its inputs held every version of the bucket it saw) would let replaced keys return
        boolean overwrite = s.get().commitKind() == CommitKind.OVERWRITE;
        for (ManifestEntry e : delta(s.get(), deltas)) {
          if (e.bucket() == m.bucket()
              && (e.file().level() > 0 || overwrite)
              && e.partition().equals(m.partition())) {
            throw new CommitConflictException(
                "Commit conflicts with a concurrent commit: snapshot "
                    + id
                    + " ("
                    + s.get().commitKind()
                    + ") changed level "
                    + e.file().level()
                    + " of "
                    + bucket
                    + " after snapshot "
                    + base
                    + ", which this commit's work read; plan it again on the new state",
                List.of(e.file().fileName()));
          }
        }
      }
      if (store.options().get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED)) {
        checkBucketVectorsUnchanged(latest, m, base, bucket, vectors);
      }
    }
  }

  private void checkBucketVectorsUnchanged(
      Optional<Snapshot> latest, CommitMessage m, long base, String bucket, SnapshotVectors vectors)
      throws IOException {
    Optional<Map<String, IndexManifest.Entry>> then = vectors.atBase(OptionalLong.of(base));
    Map<String, IndexManifest.Entry> now = vectors.of(latest);
    String prefix = IndexManifest.target(m.partition(), m.bucket(), "");
    Map<String, IndexManifest.Entry> before = new HashMap<>();
    Map<String, IndexManifest.Entry> after = new HashMap<>();
    if (then.isPresent()) {
      then.get()
          .forEach(
              (t, e) -> {
                if (t.startsWith(prefix)) {
                  before.put(t, e);
                }
              });
    }
    now.forEach(
        (t, e) -> {
          if (t.startsWith(prefix)) {
            after.put(t, e);
          }
        });
    if (then.isEmpty() && after.isEmpty()) {
      return; // no vector now, and vectors are only ever added: none was then either
    }
    if (then.isEmpty() || !before.equals(after)) {
      Set<String> changed = new TreeSet<>();
      for (String t : union(before.keySet(), after.keySet())) {
        if (!Objects.equals(before.get(t), after.get(t))) {
          changed.add(t.substring(prefix.length()));
        }
      }
      throw new CommitConflictException(
          "Commit conflicts with a concurrent commit: the deletion vectors of "
              + bucket
              + (then.isEmpty()
                  ? " may have changed after snapshot " + base + " (it is gone)"
                  : " changed after snapshot " + base)
              + ", which this commit's work read; plan it again on the new state",
          new ArrayList<>(changed));
    }
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> out = new TreeSet<>(a);
    out.addAll(b);
    return out;
  }

  /**
   * Whether the message adds or removes level >= 1 files, or adds deletion vectors, or is a
   * compaction at all: one whose output is empty still decided on the levels it read (first-row
   * drops a level-0 row whose key it found above; an overwrite or partition drop since then may
   * have removed that version, and the row with it).
   */
  static boolean changesLevelsOrVectors(CommitMessage m) {
    if (!m.deletionFiles().isEmpty() || !m.compactBefore().isEmpty()) {
      return true;
    }
    for (DataFileMeta f : m.compactAfter()) {
      if (f.level() > 0) {
        return true;
      }
    }
    return false;
  }

  private List<ManifestEntry> delta(Snapshot s, Map<Long, List<ManifestEntry>> deltas)
      throws IOException {
    List<ManifestEntry> d = deltas.get(s.id());
    if (d == null) {
      d = store.newScan().readDelta(s);
      deltas.put(s.id(), d);
    }
    return d;
  }

  private String describePartition(CommitMessage m) {
    return store.partitionType().getFieldCount() == 0
        ? ""
        : " of partition " + store.partitionPath(m.partition());
  }

  private static List<String> names(CommitMessage m) {
    List<String> out = new ArrayList<>();
    m.compactBefore().forEach(f -> out.add(f.fileName()));
    return out;
  }

  private static ManifestEntry.Identifier bucketOf(ManifestEntry e) {
    return new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, "");
  }
}
