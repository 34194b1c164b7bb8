package io.sediment.commit;

import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.Snapshot;
import java.util.List;

/**
 * One commit attempt: the snapshot it races to publish, and how to delete the metadata files
 * written for it when it loses the race or fails before publishing.
 */
final class SnapshotAttempt {

  private final Snapshot snapshot;
  private final List<IndexManifest.Entry> newVectors;
  private final Runnable cleanup;

  SnapshotAttempt(Snapshot snapshot, List<IndexManifest.Entry> newVectors, Runnable cleanup) {
    this.snapshot = snapshot;
    this.newVectors = newVectors;
    this.cleanup = cleanup;
  }

  Snapshot snapshot() {
    return snapshot;
  }

  /** The snapshot's deletion vectors when the attempt wrote a new index manifest, else null. */
  List<IndexManifest.Entry> newVectors() {
    return newVectors;
  }

  /** Deletes the files written for this attempt (best effort; never the published ones). */
  void cleanup() {
    cleanup.run();
  }
}
