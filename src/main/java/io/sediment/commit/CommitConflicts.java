package io.sediment.commit;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.mergetree.KeyValueLayout;
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
 *   <li>primary-key tables: files of one level >= 1 of one bucket do not overlap in key range.
 * </ul>
 */
final class CommitConflicts {

  private final FileStore store;

  CommitConflicts(FileStore store) {
    this.store = store;
  }

  /**
   * Fails when a file to delete, or a data file given a new deletion vector, is no longer live in
   * the latest snapshot.
   */
  void checkFilesLive(
      Optional<Snapshot> latest,
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors) {
    Set<ManifestEntry.Identifier> toDelete = new LinkedHashSet<>();
    Set<BinaryRowData> partitions = new HashSet<>();
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.DELETE) {
        toDelete.add(e.identifier());
        partitions.add(e.partition());
      }
    }
    int partitionArity = store.partitionType().getFieldCount();
    for (IndexManifest.Entry d : deletionVectors) {
      partitions.add(d.partition(partitionArity));
    }
    Set<ManifestEntry.Identifier> live = new HashSet<>();
    Set<String> liveTargets = new HashSet<>();
    if (latest.isPresent()) {
      for (ManifestEntry e : scan(latest.get(), partitions)) {
        live.add(e.identifier());
        liveTargets.add(IndexManifest.target(e.partition(), e.bucket(), e.file().fileName()));
      }
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
  void checkNoOverlap(Optional<Snapshot> latest, List<ManifestEntry> changes) {
    Set<BinaryRowData> partitions = new HashSet<>();
    Set<ManifestEntry.Identifier> buckets = new HashSet<>();
    for (ManifestEntry e : changes) {
      partitions.add(e.partition());
      buckets.add(bucketOf(e));
    }
    Map<ManifestEntry.Identifier, ManifestEntry> files = new LinkedHashMap<>();
    if (latest.isPresent()) {
      for (ManifestEntry e : scan(latest.get(), partitions)) {
        if (e.file().level() > 0 && buckets.contains(bucketOf(e))) {
          files.put(e.identifier(), e);
        }
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

  private static ManifestEntry.Identifier bucketOf(ManifestEntry e) {
    return new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, "");
  }

  private List<ManifestEntry> scan(Snapshot snapshot, Set<BinaryRowData> partitions) {
    return store
        .newScan()
        .withPartitionFilter(PartitionPredicates.in(store.partitionType(), partitions))
        .plan(snapshot);
  }
}
