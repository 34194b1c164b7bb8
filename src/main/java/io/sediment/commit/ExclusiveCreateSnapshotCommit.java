package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import org.apache.flink.core.fs.Path;

/** Publishes with the file system's atomic create-if-absent (local: hard link; HDFS: rename). */
final class ExclusiveCreateSnapshotCommit implements SnapshotCommit {

  private final SnapshotManager snapshots;
  private final FileIO fileIO;

  ExclusiveCreateSnapshotCommit(SnapshotManager snapshots, FileIO fileIO) {
    this.snapshots = snapshots;
    this.fileIO = fileIO;
  }

  @Override
  public boolean tryPublish(Snapshot snapshot, FileIO.PublishFence beforePublish)
      throws IOException {
    beforePublish.check();
    return snapshots.tryCommit(snapshot);
  }

  @Override
  public boolean tryCreate(Path file, byte[] content) throws IOException {
    return fileIO.tryCreateExclusive(file, content);
  }
}
