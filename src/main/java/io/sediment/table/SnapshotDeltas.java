package io.sediment.table;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes of snapshots read during one catch-up of {@link PrimaryKeyTableWrite}'s buckets,
 * shared by those buckets so each snapshot's delta is read once: snapshot id to its delta entries
 * by bucket; null when the snapshot or its manifests are gone. Separate from the writer because it
 * is only a read cache of the snapshots, cleared after every catch-up.
 */
final class SnapshotDeltas {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotDeltas.class);

  private final FileStore store;
  private final Map<Long, Map<ManifestEntry.Identifier, List<ManifestEntry>>> deltas =
      new HashMap<>();

  SnapshotDeltas(FileStore store) {
    this.store = store;
  }

  /**
   * The changes snapshot {@code id} made, by bucket ({@link #bucketKey}), or null when they cannot
   * be read (expired).
   */
  Map<ManifestEntry.Identifier, List<ManifestEntry>> delta(long id) {
    if (!deltas.containsKey(id)) {
      Map<ManifestEntry.Identifier, List<ManifestEntry>> byBucket = null;
      try {
        Optional<Snapshot> s = store.snapshotManager().snapshotIfExists(id);
        if (s.isPresent()) {
          byBucket = new HashMap<>();
          for (ManifestEntry e : store.newScan().readDelta(s.get())) {
            byBucket
                .computeIfAbsent(bucketKey(e.partition(), e.bucket()), k -> new ArrayList<>())
                .add(e);
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("Cannot read the changes of snapshot {}: {}", id, e.toString());
      }
      deltas.put(id, byBucket);
    }
    return deltas.get(id);
  }

  static ManifestEntry.Identifier bucketKey(BinaryRowData partition, int bucket) {
    return new ManifestEntry.Identifier(partition, bucket, 0, "");
  }

  void clear() {
    deltas.clear();
  }
}
