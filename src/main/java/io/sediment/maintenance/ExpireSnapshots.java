package io.sediment.maintenance;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.InvalidMetadataFileException;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TablePaths;
import io.sediment.manifest.UserCommit;
import io.sediment.table.Table;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires old snapshots of a table and deletes the files only they use.
 *
 * <p>The snapshots kept are always the newest ones (a contiguous range ending at the latest): at
 * most {@code retainMax}; of those, the ones older than {@code olderThanMillis} are expired too,
 * but never below {@code retainMin} (at least 1, so the latest always stays). Snapshots at the old
 * end whose metadata is already gone (an expiration of an older version was interrupted) are
 * expired as well. A file is deleted only when no retained snapshot uses it.
 *
 * <p>Crash-safe at every step, each one idempotent: (1) each commit user's newest expired stream
 * commit is written into the user's hint ({@link #recordCommits}); (2) the expiry record {@code
 * snapshot/EXPIRING} is created, naming the snapshots to retire and their manifest lists; (3) their
 * snapshot files are deleted, oldest first, so the listing stays a contiguous, readable range; (4)
 * the data and deletion-vector files only they referenced are deleted, then (5) their manifests and
 * index manifests, then (6) their manifest lists, and (7) the record. A run that finds a record
 * (the last one failed or died) finishes it first; files already gone are skipped.
 *
 * <p>Run it from one process at a time per table; it is safe against concurrent writers, which
 * always commit on top of the latest snapshot.
 */
public final class ExpireSnapshots {

  private static final Logger LOG = LoggerFactory.getLogger(ExpireSnapshots.class);

  private final Table table;
  private int retainMax = Integer.MAX_VALUE;
  private int retainMin = 1;
  private long olderThanMillis = Long.MIN_VALUE;

  public ExpireSnapshots(Table table) {
    this.table = table;
  }

  /** Keep at most this many snapshots (>= 1). */
  public ExpireSnapshots retainMax(int retainMax) {
    if (retainMax < 1) {
      throw new IllegalArgumentException("retain_max must be at least 1, got " + retainMax);
    }
    this.retainMax = retainMax;
    return this;
  }

  /** Keep at least this many snapshots however old (>= 1). */
  public ExpireSnapshots retainMin(int retainMin) {
    if (retainMin < 1) {
      throw new IllegalArgumentException("retain_min must be at least 1, got " + retainMin);
    }
    this.retainMin = retainMin;
    return this;
  }

  /** Expire snapshots created before this time (epoch millis), subject to retainMin. */
  public ExpireSnapshots olderThan(long epochMillis) {
    this.olderThanMillis = epochMillis;
    return this;
  }

  /**
   * What an expiration did, including an interrupted one it finished. The counts are of the files
   * it set out to delete; files a failed run already deleted are counted again by the rerun.
   */
  public record Result(
      List<Long> expiredSnapshots, int deletedDataFiles, int deletedMetadataFiles) {}

  /**
   * Before any snapshot is deleted: writes each commit user's newest stream commit among the
   * expired snapshots into that user's hint, unless the hint already names it or a newer one. The
   * exactly-once check of a restored writer ({@code FileStoreCommit#isCommitted}) must still see
   * its last commit when that snapshot is gone, and the hint written after the commit may be
   * missing (the writer died before writing it). Users with a stream commit among the kept
   * snapshots are skipped: the search finds that one. Hints are never deleted. A failure here stops
   * the expiration before anything is deleted.
   */
  private void recordCommits(SnapshotManager sm, Iterable<Snapshot> newest) {
    for (Snapshot s : newest) {
      Optional<UserCommit> hint;
      try {
        hint = sm.readUserHint(s.commitUser());
      } catch (InvalidMetadataFileException e) {
        // The user has no newer commit than s (none is kept), so s is what the hint must say.
        LOG.warn("Replacing an invalid commit user hint: {}", e.getMessage());
        hint = Optional.empty();
      }
      if (hint.isPresent() && hint.get().snapshotId() >= s.id()) {
        continue;
      }
      try {
        sm.writeUserHint(UserCommit.of(s));
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Could not record the last commit of user "
                + s.commitUser()
                + " (snapshot "
                + s.id()
                + "); no snapshot was expired",
            e);
      }
    }
  }

  public Result execute() {
    if (retainMin > retainMax) {
      throw new IllegalArgumentException(
          "retain_min (" + retainMin + ") must not be larger than retain_max (" + retainMax + ")");
    }
    FileStore store = table.store();
    Progress done = new Progress();
    Optional<ExpiryRecord> unfinished =
        ExpiryRecord.read(store.fileIO(), store.paths().expiryRecord());
    if (unfinished.isPresent()) {
      LOG.info("Finishing an interrupted expiration of {}", table.fullName());
      finish(store, unfinished.get(), done);
    }
    SnapshotManager sm = store.snapshotManager();
    List<Long> ids = sm.listIds();
    int n = ids.size();
    int k = Math.max(0, n - retainMax);
    while (k < n - retainMin && sm.snapshot(ids.get(k)).timeMillis() < olderThanMillis) {
      k++;
    }
    // Snapshots at the old end whose metadata is gone are expired already: retire them too.
    while (k < n - 1 && TableFiles.missingFile(store, sm.snapshot(ids.get(k))).isPresent()) {
      k++;
    }
    if (k == 0) {
      return done.result();
    }
    Optional<Path> latestMissing = TableFiles.missingFile(store, sm.snapshot(ids.get(n - 1)));
    if (latestMissing.isPresent()) {
      throw new IllegalStateException(
          "The latest snapshot "
              + ids.get(n - 1)
              + " of "
              + table.fullName()
              + " cannot be read: "
              + latestMissing.get()
              + " does not exist; nothing was expired");
    }
    List<Snapshot> expired = new ArrayList<>();
    for (long id : ids.subList(0, k)) {
      expired.add(sm.snapshot(id));
    }
    Set<String> keptUsers = new HashSet<>();
    for (long id : ids.subList(k, n)) {
      Snapshot s = sm.snapshot(id);
      if (SnapshotManager.isStreamCommit(s)) {
        keptUsers.add(s.commitUser());
      }
    }
    Map<String, Snapshot> newestExpired = new LinkedHashMap<>();
    for (Snapshot s : expired) {
      if (SnapshotManager.isStreamCommit(s) && !keptUsers.contains(s.commitUser())) {
        newestExpired.put(s.commitUser(), s); // ascending ids: the last one is the newest
      }
    }
    recordCommits(sm, newestExpired.values());
    ExpiryRecord record = ExpiryRecord.of(expired.stream().map(TableFiles.Retired::of).toList());
    Path recordFile = store.paths().expiryRecord();
    try {
      if (!record.create(store.fileIO(), recordFile)) {
        throw new IllegalStateException(
            "Another expiration of "
                + table.fullName()
                + " is in progress: "
                + recordFile
                + " appeared meanwhile; nothing was expired");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Could not write the expiry record " + recordFile + "; nothing was expired", e);
    }
    finish(store, record, done);
    return done.result();
  }

  /** What this run expired and deleted. */
  private static final class Progress {
    final List<Long> expired = new ArrayList<>();
    int dataFiles;
    int metadataFiles;

    Result result() {
      return new Result(List.copyOf(expired), dataFiles, metadataFiles);
    }
  }

  /**
   * Carries out a recorded expiration: retires the snapshot files (oldest first), deletes the files
   * only they referenced (data and deletion vectors, then manifests and index manifests, then
   * manifest lists), and deletes the record. Idempotent; a failure leaves the record for the next
   * run.
   */
  private void finish(FileStore store, ExpiryRecord record, Progress done) {
    TablePaths paths = store.paths();
    FileIO io = store.fileIO();
    SnapshotManager sm = store.snapshotManager();
    List<TableFiles.Retired> retired = record.retired();
    if (retired.isEmpty()) {
      deleteRecord(io, paths);
      return;
    }
    String range = retired.get(0).id() + ".." + retired.get(retired.size() - 1).id();
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
                + table.fullName()
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
        LOG.warn("Could not update the EARLIEST hint of {}", table.fullName(), e);
      }
    }

    TableFiles kept = TableFiles.ofRetainedSnapshots(store);
    TableFiles gone = TableFiles.ofRetired(store, retired);
    List<Path> data = new ArrayList<>();
    for (Map.Entry<String, Path> e : gone.dataPaths.entrySet()) {
      if (!kept.dataPaths.containsKey(e.getKey())) {
        data.add(e.getValue());
      }
    }
    List<Path> vectors = new ArrayList<>();
    List<Path> indexManifests = new ArrayList<>();
    Set<String> indexManifestNames = new HashSet<>();
    for (TableFiles.Retired r : retired) {
      if (r.indexManifest() != null) {
        indexManifestNames.add(r.indexManifest());
      }
    }
    for (String name : gone.indexNames) {
      if (!kept.indexNames.contains(name)) {
        (indexManifestNames.contains(name) ? indexManifests : vectors).add(paths.index(name));
      }
    }
    Set<String> listNames = new HashSet<>();
    for (TableFiles.Retired r : retired) {
      listNames.add(r.baseManifestList());
      listNames.add(r.deltaManifestList());
    }
    List<Path> manifests = new ArrayList<>();
    List<Path> lists = new ArrayList<>();
    for (String name : gone.metadataNames) {
      if (!kept.metadataNames.contains(name)) {
        (listNames.contains(name) ? lists : manifests).add(paths.manifest(name));
      }
    }
    manifests.addAll(indexManifests);
    List<Path> dataAndVectors = new ArrayList<>(data);
    dataAndVectors.addAll(vectors);
    deleteStep(io, dataAndVectors, range);
    deleteStep(io, manifests, range);
    deleteStep(io, lists, range);
    deleteRecord(io, paths);
    for (TableFiles.Retired r : retired) {
      done.expired.add(r.id());
    }
    done.dataFiles += data.size();
    done.metadataFiles += vectors.size() + manifests.size() + lists.size();
    LOG.info(
        "Expired snapshots {} of {}: {} data file(s), {} metadata file(s) deleted",
        range,
        table.fullName(),
        data.size(),
        vectors.size() + manifests.size() + lists.size());
  }

  /** Deletes one step's files; on any failure stops here, leaving the record for a rerun. */
  private void deleteStep(FileIO io, List<Path> files, String range) {
    List<IOException> errors = io.deleteAll(files);
    if (!errors.isEmpty()) {
      IOException e =
          new IOException(
              "Could not delete "
                  + errors.size()
                  + " file(s) of the expired snapshots "
                  + range
                  + " of "
                  + table.fullName()
                  + "; the snapshots are expired, run the expiration again to delete the rest");
      errors.forEach(e::addSuppressed);
      throw new UncheckedIOException(e);
    }
  }

  private void deleteRecord(FileIO io, TablePaths paths) {
    IOException e = io.deleteQuietly(paths.expiryRecord());
    if (e != null) {
      throw new UncheckedIOException(
          "Could not delete the expiry record "
              + paths.expiryRecord()
              + " of "
              + table.fullName()
              + "; every file of the expiration is deleted, the next run removes it",
          e);
    }
  }
}
