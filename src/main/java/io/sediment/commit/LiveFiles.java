package io.sediment.commit;

import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The live files of some partitions at the latest snapshot, kept up to date across a commit's
 * attempts: the first attempt scans the snapshot it builds on, a later one applies only the deltas
 * of the snapshots committed since. An attempt that lost the race for the snapshot id therefore
 * costs what was committed meanwhile, not the size of the table: a commit that checks its inputs (a
 * compaction, a deletion-vector write) is not starved by writers that commit more often than a full
 * scan takes.
 */
final class LiveFiles {

  private final FileStore store;
  private final Set<BinaryRowData> partitions;
  private final Map<Long, List<ManifestEntry>> deltas;
  private Map<ManifestEntry.Identifier, ManifestEntry> live;
  private long at = -1;

  /**
   * @param deltas the commit's cache of delta entries by snapshot id, shared with its other checks
   *     (each snapshot's delta is read once per commit)
   */
  LiveFiles(FileStore store, Set<BinaryRowData> partitions, Map<Long, List<ManifestEntry>> deltas) {
    this.store = store;
    this.partitions = Set.copyOf(partitions);
    this.deltas = deltas;
  }

  /** The live files of the partitions in {@code latest} (none when there is no snapshot). */
  Collection<ManifestEntry> at(Optional<Snapshot> latest) throws IOException {
    if (latest.isEmpty()) {
      live = new LinkedHashMap<>();
      at = 0;
      return live.values();
    }
    long target = latest.get().id();
    if (live == null || at <= 0 || target < at || !advance(latest.get())) {
      live = new LinkedHashMap<>();
      for (ManifestEntry e :
          store
              .newScan()
              .withPartitionFilter(PartitionPredicates.in(store.partitionType(), partitions))
              .plan(latest.get())) {
        if (partitions.contains(e.partition())) { // the filter prunes manifests, may keep more
          live.put(e.identifier(), e);
        }
      }
    }
    at = target;
    return live.values();
  }

  /**
   * Applies the deltas of the snapshots after {@link #at} up to {@code latest}; false, with the
   * view unusable, when one of them is gone (expired meanwhile): then the latest is scanned.
   */
  private boolean advance(Snapshot latest) throws IOException {
    for (long id = at + 1; id <= latest.id(); id++) {
      Optional<Snapshot> s =
          id == latest.id() ? Optional.of(latest) : store.snapshotManager().snapshotIfExists(id);
      if (s.isEmpty()) {
        return false;
      }
      for (ManifestEntry e : delta(s.get())) {
        if (!partitions.contains(e.partition())) {
          continue;
        }
        if (e.kind() == FileKind.ADD) {
          live.put(e.identifier(), e);
        } else {
          live.remove(e.identifier());
        }
      }
    }
    return true;
  }

  private List<ManifestEntry> delta(Snapshot s) throws IOException {
    List<ManifestEntry> d = deltas.get(s.id());
    if (d == null) {
      d = store.newScan().readDelta(s);
      deltas.put(s.id(), d);
    }
    return d;
  }
}
