package io.sediment.commit;

import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.mergetree.DeletionVectors;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Applies a commit's deletion-vector changes to the latest snapshot's vectors, giving the entries
 * of the new index manifest. Entries of data files the commit removes are dropped. A vector the
 * commit adds replaces the current one only when it was built on it: the current vector is the one
 * the message's base snapshot had. Otherwise (another commit changed the file's vector since the
 * base, the base is unknown, or two messages of the commit add to the same file) the vectors are
 * merged: the union of the bitmaps, written to one new deletion-vector file per attempt. Deletions
 * of a live file are only ever added, so the union holds every deletion both commits made.
 */
final class DeletionVectorChanges {

  /**
   * The new index entries, whether they differ from the latest snapshot's, and the vector file this
   * attempt wrote for merged vectors (null if none), which the attempt owns.
   */
  record Result(List<IndexManifest.Entry> entries, boolean changed, String mergedFile) {}

  private final FileStore store;

  DeletionVectorChanges(FileStore store) {
    this.store = store;
  }

  Result apply(
      Map<String, IndexManifest.Entry> latest,
      Set<String> removedTargets,
      List<CommitMessage> messages,
      SnapshotVectors vectors)
      throws IOException {
    Map<String, IndexManifest.Entry> entries = new LinkedHashMap<>();
    for (Map.Entry<String, IndexManifest.Entry> e : latest.entrySet()) {
      if (!removedTargets.contains(e.getKey())) {
        entries.put(e.getKey(), e.getValue());
      }
    }
    boolean changed = entries.size() != latest.size();
    // Targets to merge, with every vector to union (the current one first).
    Map<String, List<IndexManifest.Entry>> toMerge = new LinkedHashMap<>();
    Set<String> added = new HashSet<>();
    for (CommitMessage m : messages) {
      if (m.deletionFiles().isEmpty()) {
        continue;
      }
      Optional<Map<String, IndexManifest.Entry>> base = vectors.atBase(m.baseSnapshotId());
      for (DeletionFile d : m.deletionFiles()) {
        IndexManifest.Entry ours = IndexManifest.Entry.of(m.partition(), m.bucket(), d);
        String target = ours.target();
        if (removedTargets.contains(target)) {
          continue;
        }
        changed = true;
        IndexManifest.Entry current = entries.get(target);
        boolean builtOnCurrent =
            current == null
                || (!added.contains(target)
                    && base.isPresent()
                    && Objects.equals(base.get().get(target), current));
        if (builtOnCurrent && !toMerge.containsKey(target)) {
          entries.put(target, ours);
        } else {
          toMerge.computeIfAbsent(target, t -> new ArrayList<>(List.of(current))).add(ours);
        }
        added.add(target);
      }
    }
    String mergedFile = merge(toMerge, entries);
    return new Result(new ArrayList<>(entries.values()), changed, mergedFile);
  }

  /**
   * Unions the vectors of each target into {@code entries}; returns the new vector file, or null
   * when no union was needed (every other vector was a subset of one of them).
   */
  private String merge(
      Map<String, List<IndexManifest.Entry>> toMerge, Map<String, IndexManifest.Entry> entries)
      throws IOException {
    Map<String, RoaringBitmap> unions = new LinkedHashMap<>();
    Map<String, IndexManifest.Entry> byDataFile = new LinkedHashMap<>();
    for (Map.Entry<String, List<IndexManifest.Entry>> t : toMerge.entrySet()) {
      IndexManifest.Entry widest = null;
      RoaringBitmap widestBits = null;
      RoaringBitmap union = new RoaringBitmap();
      for (IndexManifest.Entry e : t.getValue()) {
        RoaringBitmap bits = DeletionVectors.read(store, e.deletionFile());
        union.or(bits);
        if (widestBits == null || bits.getLongCardinality() > widestBits.getLongCardinality()) {
          widest = e;
          widestBits = bits;
        }
      }
      if (union.getLongCardinality() == widestBits.getLongCardinality()) {
        entries.put(t.getKey(), widest); // one of them already holds every deletion
      } else {
        unions.put(widest.deletionFile().dataFile(), union);
        byDataFile.put(widest.deletionFile().dataFile(), widest);
      }
    }
    if (unions.isEmpty()) {
      return null;
    }
    List<DeletionFile> written = DeletionVectors.write(store, unions);
    for (DeletionFile d : written) {
      IndexManifest.Entry like = byDataFile.get(d.dataFile());
      entries.put(like.target(), new IndexManifest.Entry(like.partitionHex(), like.bucket(), d));
    }
    return written.get(0).dvFile();
  }
}
