package io.sediment.commit;

import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.Snapshot;
import java.util.List;
import org.apache.flink.core.fs.Path;

/**
 * One commit attempt: the snapshot it races to publish, the files it adds to the table (checked
 * again right before the publish: see {@link SnapshotCommit}), and how to delete the metadata files
 * written for it when it loses the race or fails before publishing.
 */
final class SnapshotAttempt {

  private final Snapshot snapshot;
  private final List<IndexManifest.Entry> newVectors;
  private final Runnable cleanup;
  private final List<Path> added;

  SnapshotAttempt(
      Snapshot snapshot, List<IndexManifest.Entry> newVectors, Runnable cleanup, List<Path> added) {
    this.snapshot = snapshot;
    this.newVectors = newVectors;
    this.cleanup = cleanup;
    this.added = List.copyOf(added);
  }

  /**
   * The files the snapshot references that no earlier snapshot did: data and deletion-vector files
   * the commit adds, and the metadata written for this attempt.
   */
  List<Path> added() {
    return added;
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
