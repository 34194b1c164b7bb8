package io.sediment.commit;

import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deletion vectors of snapshots by {@link IndexManifest.Entry#target() target}, read once per
 * index manifest: the latest snapshot's, which each commit attempt applies its changes to, and the
 * base snapshots' its messages were read from. Lives for one commit.
 */
final class SnapshotVectors {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotVectors.class);

  private final SnapshotManager snapshots;
  private final IndexManifest indexManifest;
  private final Map<String, Map<String, IndexManifest.Entry>> byManifest = new HashMap<>();
  private final Map<Long, Optional<Map<String, IndexManifest.Entry>>> byBase = new HashMap<>();

  SnapshotVectors(SnapshotManager snapshots, IndexManifest indexManifest) {
    this.snapshots = snapshots;
    this.indexManifest = indexManifest;
  }

  /** The vectors of a snapshot, or none when there is no snapshot. */
  Map<String, IndexManifest.Entry> of(Optional<Snapshot> snapshot) throws IOException {
    return of(snapshot.map(Snapshot::indexManifest).orElse(null));
  }

  private Map<String, IndexManifest.Entry> of(String manifest) throws IOException {
    if (manifest == null) {
      return Map.of();
    }
    Map<String, IndexManifest.Entry> entries = byManifest.get(manifest);
    if (entries == null) {
      entries = IndexManifest.byTarget(indexManifest.read(manifest));
      byManifest.put(manifest, entries);
    }
    return entries;
  }

  /**
   * The vectors of a message's base snapshot (id 0: the table had none), or empty when they cannot
   * be known: the message carries no base (written by an older version), or the base snapshot has
   * expired or cannot be read. Callers then assume any vector may have changed.
   */
  Optional<Map<String, IndexManifest.Entry>> atBase(OptionalLong base) {
    if (base.isEmpty()) {
      return Optional.empty();
    }
    long id = base.getAsLong();
    if (id == 0) {
      return Optional.of(Map.of());
    }
    Optional<Map<String, IndexManifest.Entry>> known = byBase.get(id);
    if (known == null) {
      try {
        known = Optional.of(of(snapshots.snapshot(id).indexManifest()));
      } catch (IOException | RuntimeException e) {
        LOG.info(
            "Cannot read the deletion vectors of base snapshot {}; treating the base as unknown: {}",
            id,
            e.toString());
        known = Optional.empty();
      }
      byBase.put(id, known);
    }
    return known;
  }
}
