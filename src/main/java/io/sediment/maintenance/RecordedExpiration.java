package io.sediment.maintenance;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TablePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out an expiration through its {@link ExpiryRecord}: creates the record, retires the
 * snapshot files (oldest first), deletes the files only they referenced (data and deletion-vector
 * files, then manifests and index manifests, then manifest lists), and deletes the record. Every
 * step skips files already gone, so finishing a record that a failed or killed run left is the same
 * work as carrying out a new one.
 */
final class RecordedExpiration {

  private static final Logger LOG = LoggerFactory.getLogger(RecordedExpiration.class);

  private final FileStore store;
  private final String tableName;
  private final TablePaths paths;
  private final FileIO io;

  RecordedExpiration(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
    this.paths = store.paths();
    this.io = store.fileIO();
  }

  /** Finishes the expiration a failed or killed run left, if any. */
  ExpireSnapshots.Result finishUnfinished() {
    Optional<ExpiryRecord> unfinished = ExpiryRecord.read(io, paths.expiryRecord());
    if (unfinished.isEmpty()) {
      return ExpireSnapshots.Result.NONE;
    }
    LOG.info("Finishing an interrupted expiration of {}", tableName);
    return finish(unfinished.get());
  }

  /** Records the expiration of {@code expired} (oldest first, never the latest), then does it. */
  ExpireSnapshots.Result run(List<Snapshot> expired) {
    ExpiryRecord record = ExpiryRecord.of(expired.stream().map(TableFiles.Retired::of).toList());
    try {
      if (!record.create(io, paths.expiryRecord())) {
        throw new IllegalStateException(
            "Another expiration of "
                + tableName
                + " is in progress: "
                + paths.expiryRecord()
                + " appeared meanwhile; nothing was expired");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Could not write the expiry record " + paths.expiryRecord() + "; nothing was expired", e);
    }
    return finish(record);
  }

  private ExpireSnapshots.Result finish(ExpiryRecord record) {
    List<TableFiles.Retired> retired = record.retired();
    if (retired.isEmpty()) {
      deleteRecord();
      return ExpireSnapshots.Result.NONE;
    }
    String range = retired.get(0).id() + ".." + retired.get(retired.size() - 1).id();
    retireSnapshotFiles(retired, range);

    TableFiles kept = TableFiles.ofRetainedSnapshots(store);
    TableFiles gone = TableFiles.ofRetired(store, retired);
    List<Path> data = new ArrayList<>();
    for (Map.Entry<String, Path> e : gone.dataPaths.entrySet()) {
      if (!kept.dataPaths.containsKey(e.getKey())) {
        data.add(e.getValue());
      }
    }
    Set<String> indexManifestNames = new HashSet<>();
    Set<String> listNames = new HashSet<>();
    for (TableFiles.Retired r : retired) {
      if (r.indexManifest() != null) {
        indexManifestNames.add(r.indexManifest());
      }
      listNames.add(r.baseManifestList());
      listNames.add(r.deltaManifestList());
    }
    List<Path> vectors = new ArrayList<>();
    List<Path> manifests = new ArrayList<>();
    for (String name : gone.indexNames) {
      if (!kept.indexNames.contains(name)) {
        (indexManifestNames.contains(name) ? manifests : vectors).add(paths.index(name));
      }
    }
    List<Path> lists = new ArrayList<>();
    for (String name : gone.metadataNames) {
      if (!kept.metadataNames.contains(name)) {
        (listNames.contains(name) ? lists : manifests).add(paths.manifest(name));
      }
    }
    List<Path> dataAndVectors = new ArrayList<>(data);
    dataAndVectors.addAll(vectors);
    deleteStep(dataAndVectors, range);
    deleteStep(manifests, range);
    deleteStep(lists, range);
    deleteRecord();
    int metadata = vectors.size() + manifests.size() + lists.size();
    LOG.info(
        "Expired snapshots {} of {}: {} data file(s), {} metadata file(s) deleted",
        range,
        tableName,
        data.size(),
        metadata);
    return new ExpireSnapshots.Result(
        retired.stream().map(TableFiles.Retired::id).toList(), data.size(), metadata);
  }

  /** Deletes the snapshot files, oldest first, then points the EARLIEST hint at the first left. */
  private void retireSnapshotFiles(List<TableFiles.Retired> retired, String range) {
    SnapshotManager sm = store.snapshotManager();
    List<Long> listed = sm.listIds();
    long latest = listed.isEmpty() ? Long.MIN_VALUE : listed.get(listed.size() - 1);
    for (TableFiles.Retired r : retired) {
      if (r.id() >= latest) {
        throw new IllegalStateException(
            "The expiry record "
                + paths.expiryRecord()
                + " names snapshot "
                + r.id()
                + ", but the latest snapshot is "
                + latest
                + " and is never expired; nothing was deleted");
      }
    }
    for (TableFiles.Retired r : retired) {
      IOException e = io.deleteQuietly(paths.snapshot(r.id()));
      if (e != null) {
        throw new UncheckedIOException(
            "Could not delete the snapshot file "
                + paths.snapshot(r.id())
                + " while expiring snapshots "
                + range
                + " of "
                + tableName
                + "; run the expiration again to finish it",
            e);
      }
    }
    List<Long> remaining = sm.listIds();
    if (!remaining.isEmpty()) {
      try {
        io.overwriteHint(
            new Path(paths.snapshotDir(), "EARLIEST"), Long.toString(remaining.get(0)));
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not update the EARLIEST hint of {}", tableName, e);
      }
    }
  }

  /** Deletes one step's files; on any failure stops here, leaving the record for a rerun. */
  private void deleteStep(List<Path> files, String range) {
    List<IOException> errors = io.deleteAll(files);
    if (!errors.isEmpty()) {
      IOException e =
          new IOException(
              "Could not delete "
                  + errors.size()
                  + " file(s) of the expired snapshots "
                  + range
                  + " of "
                  + tableName
                  + "; the snapshots are expired, run the expiration again to delete the rest");
      errors.forEach(e::addSuppressed);
      throw new UncheckedIOException(e);
    }
  }

  private void deleteRecord() {
    IOException e = io.deleteQuietly(paths.expiryRecord());
    if (e != null) {
      throw new UncheckedIOException(
          "Could not delete the expiry record "
              + paths.expiryRecord()
              + " of "
              + tableName
              + "; every file of the expiration is deleted, the next run removes it",
          e);
    }
  }
}
