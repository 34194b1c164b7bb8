package io.sediment.maintenance;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TablePaths;
import io.sediment.manifest.UserCommit;
import io.sediment.table.Table;
import java.io.IOException;
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
 * but never below {@code retainMin} (at least 1, so the latest always stays). A file is deleted
 * only when no kept snapshot uses it (data files live in a kept snapshot, its manifests and
 * manifest lists). Order: data files, manifests, manifest lists, then the snapshot files from the
 * oldest up, so an interrupted run leaves a readable contiguous range of snapshots and at worst
 * unreferenced files for {@link RemoveOrphanFiles}; the {@code EARLIEST} hint is updated last.
 *
 * <p>Expiring a commit user's last snapshot must not make its commit look undone to a restored
 * writer: before deleting anything, each user's newest expired stream commit is written into the
 * user's hint {@code snapshot/user-<user>} (see {@link #recordCommits}); hints are never deleted.
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

  /** What an expiration did. */
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
      Optional<UserCommit> hint = sm.readUserHint(s.commitUser());
      if (hint.isPresent() && hint.get().snapshotId() >= s.id()) {
        continue;
      }
      try {
        sm.writeUserHint(UserCommit.of(s));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(
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
    SnapshotManager sm = store.snapshotManager();
    List<Long> ids = sm.listIds();
    int n = ids.size();
    int k = Math.max(0, n - retainMax);
    while (k < n - retainMin && sm.snapshot(ids.get(k)).timeMillis() < olderThanMillis) {
      k++;
    }
    if (k == 0) {
      return new Result(List.of(), 0, 0);
    }
    List<Long> expired = new ArrayList<>(ids.subList(0, k));
    TableFiles kept = new TableFiles();
    Set<String> keptUsers = new HashSet<>();
    for (long id : ids.subList(k, n)) {
      Snapshot s = sm.snapshot(id);
      kept.add(store, s);
      if (SnapshotManager.isStreamCommit(s)) {
        keptUsers.add(s.commitUser());
      }
    }
    TableFiles candidates = new TableFiles();
    Map<String, Snapshot> newestExpired = new LinkedHashMap<>();
    for (long id : expired) {
      Snapshot s = sm.snapshot(id);
      candidates.add(store, s);
      if (SnapshotManager.isStreamCommit(s) && !keptUsers.contains(s.commitUser())) {
        newestExpired.put(s.commitUser(), s); // ascending ids: the last one is the newest
      }
    }
    recordCommits(sm, newestExpired.values());
    TablePaths paths = store.paths();
    List<Path> data = new ArrayList<>();
    for (java.util.Map.Entry<String, Path> e : candidates.dataPaths.entrySet()) {
      if (!kept.dataPaths.containsKey(e.getKey())) {
        data.add(e.getValue());
      }
    }
    List<Path> manifests = new ArrayList<>();
    List<Path> lists = new ArrayList<>();
    for (String name : candidates.metadataNames) {
      if (!kept.metadataNames.contains(name)) {
        (name.startsWith("manifest-list-") ? lists : manifests).add(paths.manifest(name));
      }
    }
    for (String name : candidates.indexNames) {
      if (!kept.indexNames.contains(name)) {
        manifests.add(paths.index(name));
      }
    }
    List<IOException> errors = new ArrayList<>();
    errors.addAll(store.fileIO().deleteAll(data));
    errors.addAll(store.fileIO().deleteAll(manifests));
    errors.addAll(store.fileIO().deleteAll(lists));
    if (!errors.isEmpty()) {
      IOException e =
          new IOException(
              "Could not delete " + errors.size() + " file(s); no snapshot was expired");
      errors.forEach(e::addSuppressed);
      throw new java.io.UncheckedIOException(e);
    }
    for (long id : expired) {
      IOException e = store.fileIO().deleteQuietly(paths.snapshot(id));
      if (e != null) {
        throw new java.io.UncheckedIOException("Could not delete snapshot " + id, e);
      }
    }
    try {
      store
          .fileIO()
          .overwriteHint(new Path(paths.snapshotDir(), "EARLIEST"), Long.toString(ids.get(k)));
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not update the EARLIEST hint of {}", table.fullName(), e);
    }
    LOG.info(
        "Expired snapshots {}..{} of {}: {} data file(s), {} metadata file(s) deleted",
        expired.get(0),
        expired.get(expired.size() - 1),
        table.fullName(),
        data.size(),
        manifests.size() + lists.size());
    return new Result(expired, data.size(), manifests.size() + lists.size());
  }
}
