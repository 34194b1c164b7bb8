package io.sediment.commit;

import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;

/** Publishes with the file system's atomic create-if-absent (local: hard link; HDFS: rename). */
final class ExclusiveCreateSnapshotCommit implements SnapshotCommit {

  private final SnapshotManager snapshots;

  ExclusiveCreateSnapshotCommit(SnapshotManager snapshots) {
    this.snapshots = snapshots;
  }

  @Override
  public boolean tryPublish(Snapshot snapshot) throws IOException {
    return snapshots.tryCommit(snapshot);
  }
}
