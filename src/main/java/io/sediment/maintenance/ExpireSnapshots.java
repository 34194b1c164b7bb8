package io.sediment.maintenance;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.InvalidMetadataFileException;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
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
      List<Long> expiredSnapshots, int deletedDataFiles, int deletedMetadataFiles) {

    static final Result NONE = new Result(List.of(), 0, 0);

    Result plus(Result other) {
      List<Long> ids = new ArrayList<>(expiredSnapshots);
      ids.addAll(other.expiredSnapshots);
      return new Result(
          List.copyOf(ids),
          deletedDataFiles + other.deletedDataFiles,
          deletedMetadataFiles + other.deletedMetadataFiles);
    }
  }

  /**
   * Before any snapshot is deleted: writes each commit user's newest stream commit among the
   * expired snapshots into that user's hint, unless the hint already names it or a newer one. The
   * exactly-once check of a restored writer ({@code FileStoreCommit#isCommitted}) must still see
   * its last commit when that snapshot is gone, and the hint written after the commit may be
   * missing (the writer died before writing it). Users with a stream commit among the kept
   * snapshots are skipped: the search finds that one. Hints are never deleted. A failure here stops
   * the expiration before anything is deleted.
   */
  private void recordCommits(SnapshotManager sm, List<Snapshot> expired, List<Snapshot> kept) {
    Set<String> keptUsers = new HashSet<>();
    for (Snapshot s : kept) {
      if (SnapshotManager.isStreamCommit(s)) {
        keptUsers.add(s.commitUser());
      }
    }
    Map<String, Snapshot> newest = new LinkedHashMap<>();
    for (Snapshot s : expired) {
      if (SnapshotManager.isStreamCommit(s) && !keptUsers.contains(s.commitUser())) {
        newest.put(s.commitUser(), s); // ascending ids: the last one is the newest
      }
    }
    for (Snapshot s : newest.values()) {
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
    RecordedExpiration expiration = new RecordedExpiration(store, table.fullName());
    Result finished = expiration.finishUnfinished();
    SnapshotManager sm = store.snapshotManager();
    List<Long> ids = sm.listIds();
    int k = expiredCount(store, sm, ids);
    if (k == 0) {
      return finished;
    }
    checkReadable(store, sm.snapshot(ids.get(ids.size() - 1)));
    List<Snapshot> expired = new ArrayList<>();
    for (long id : ids.subList(0, k)) {
      expired.add(sm.snapshot(id));
    }
    List<Snapshot> kept = new ArrayList<>();
    for (long id : ids.subList(k, ids.size())) {
      kept.add(sm.snapshot(id));
    }
    recordCommits(sm, expired, kept);
    return finished.plus(expiration.run(expired));
  }

  /**
   * How many of the snapshots {@code ids} (ascending) to expire: by the retention settings, plus
   * those at the old end whose metadata is gone (expired already: an interrupted expiration of an
   * older version deleted files before snapshot files). Never the latest.
   */
  private int expiredCount(FileStore store, SnapshotManager sm, List<Long> ids) {
    int n = ids.size();
    int k = Math.max(0, n - retainMax);
    while (k < n - retainMin && sm.snapshot(ids.get(k)).timeMillis() < olderThanMillis) {
      k++;
    }
    while (k < n - 1 && TableFiles.missingFile(store, sm.snapshot(ids.get(k))).isPresent()) {
      k++;
    }
    return k;
  }

  /**
   * The latest snapshot must stay readable: refuses, naming the missing file, before any change.
   */
  private void checkReadable(FileStore store, Snapshot latest) {
    Optional<Path> missing = TableFiles.missingFile(store, latest);
    if (missing.isPresent()) {
      throw new IllegalStateException(
          "The latest snapshot "
              + latest.id()
              + " of "
              + table.fullName()
              + " cannot be read: "
              + missing.get()
              + " does not exist; nothing was expired");
    }
  }
}
