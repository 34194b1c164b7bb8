package io.sediment.retention;

import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.InvalidMetadataFileException;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.UserCommit;
import io.sediment.schema.ScanOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expires old snapshots of one table and deletes the files only they use; the engine behind {@code
 * maintenance.ExpireSnapshots} and the automatic expiry after commits ({@link SnapshotRetention}).
 *
 * <p>The snapshots kept are always the newest ones (a contiguous range ending at the latest): at
 * most {@code retainMax}; of those, the ones older than {@code olderThanMillis} are expired too,
 * but never below {@code retainMin} (at least 1, so the latest always stays). Snapshots at the old
 * end whose metadata is already gone (an expiration of an older version was interrupted) are
 * expired as well. At most {@code limit} snapshots are expired by one run, the oldest first. A file
 * is deleted only when no retained snapshot uses it.
 *
 * <p>Crash-safe at every step, each one idempotent: (0) the metadata of the expired snapshots, of
 * the oldest kept one and of the latest is read ({@link TableFiles#keptAfterRetiring}: not every
 * kept snapshot), and a manifest that cannot be read fails the expiration with nothing changed; (1)
 * each commit user's newest expired stream commit is written into the user's hint ({@link
 * #recordCommits}); (2) the expiry record {@code snapshot/EXPIRING} is created exclusively; then
 * {@link RecordedExpiration} retires the snapshots and their files and deletes the record. A run
 * that finds a record finishes it first; with {@link #skipLiveExpiration} it leaves a record alone
 * while another run may still be working on it.
 */
public final class SnapshotExpiration {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotExpiration.class);

  private final FileStore store;
  private final String tableName;
  private int retainMax = Integer.MAX_VALUE;
  private int retainMin = 1;
  private long olderThanMillis = Long.MIN_VALUE;
  private int limit = Integer.MAX_VALUE;
  private boolean skipLive;
  private long committedId = -1;

  public SnapshotExpiration(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
  }

  /** Keep at most this many snapshots (>= 1). */
  public SnapshotExpiration retainMax(int retainMax) {
    this.retainMax = retainMax;
    return this;
  }

  /** Keep at least this many snapshots however old (>= 1). */
  public SnapshotExpiration retainMin(int retainMin) {
    this.retainMin = retainMin;
    return this;
  }

  /** Expire snapshots created before this time (epoch millis), subject to retainMin. */
  public SnapshotExpiration olderThan(long epochMillis) {
    this.olderThanMillis = epochMillis;
    return this;
  }

  /** Expire at most this many snapshots in this run (>= 1), counting a finished record's. */
  public SnapshotExpiration limit(int limit) {
    this.limit = limit;
    return this;
  }

  /**
   * Leave an expiry record alone, expiring nothing, while another run may still be working on it
   * (it is neither marked abandoned nor older than {@link RecordedExpiration#ABANDONED_AFTER}); and
   * skip, rather than fail, when another run creates its record first. For runs that must not wait
   * for or fail on one another: the automatic expiry after commits.
   */
  public SnapshotExpiration skipLiveExpiration(boolean skipLive) {
    this.skipLive = skipLive;
    return this;
  }

  /**
   * The run follows the commit of snapshot {@code snapshotId}: when the {@code EARLIEST} hint and
   * that id show that the options retain every snapshot up to it, it expires nothing without
   * listing the snapshot directory (a LIST on an object store, after every commit). Snapshots
   * committed since by others are left to the next commit's expiry.
   */
  public SnapshotExpiration afterCommitOf(long snapshotId) {
    this.committedId = snapshotId; // negative: unknown
    return this;
  }

  /**
   * What an expiration did, including an interrupted one it finished. The counts are of the files
   * it set out to delete; files a failed run already deleted are counted again by the rerun. {@code
   * skipped}: another expiration was in progress, so this one did nothing.
   */
  public record Result(
      List<Long> expiredSnapshots,
      int deletedDataFiles,
      int deletedMetadataFiles,
      boolean skipped) {

    static final Result NONE = new Result(List.of(), 0, 0, false);
    static final Result SKIPPED = new Result(List.of(), 0, 0, true);

    Result plus(Result other) {
      List<Long> ids = new ArrayList<>(expiredSnapshots);
      ids.addAll(other.expiredSnapshots);
      return new Result(
          List.copyOf(ids),
          deletedDataFiles + other.deletedDataFiles,
          deletedMetadataFiles + other.deletedMetadataFiles,
          skipped || other.skipped);
    }
  }

  /**
   * Whether an expiration in progress retires snapshot {@code id}: its record names it. What makes
   * a new tag safe ({@code maintenance.Tags}): a tag written before the record is created is seen
   * by that expiration ({@link RecordedExpiration} reads the tags again once it holds the record),
   * and a tag written after it sees the record.
   */
  public static boolean isRetiring(FileStore store, long id) {
    return ExpiryRecord.read(store.fileIO(), store.paths().expiryRecord())
        .map(r -> r.retired().stream().anyMatch(s -> s.id() == id))
        .orElse(false);
  }

  public Result execute() {
    if (retainMin < 1 || retainMax < 1 || limit < 1) {
      throw new IllegalArgumentException(
          "retain_min, retain_max and the expire limit must be at least 1, got "
              + retainMin
              + ", "
              + retainMax
              + ", "
              + limit);
    }
    if (retainMin > retainMax) {
      throw new IllegalArgumentException(
          "retain_min (" + retainMin + ") must not be larger than retain_max (" + retainMax + ")");
    }
    RecordedExpiration expiration = new RecordedExpiration(store, tableName);
    Optional<Result> finishedOrSkipped = expiration.finishUnfinished(skipLive);
    if (finishedOrSkipped.isPresent() && finishedOrSkipped.get().skipped()) {
      LOG.info("Another expiration of {} is in progress; not expiring now", tableName);
      return Result.SKIPPED;
    }
    Result finished = finishedOrSkipped.orElse(Result.NONE);
    int budget = limit - finished.expiredSnapshots().size();
    SnapshotManager sm = store.snapshotManager();
    if (committedId >= 0 && budget > 0 && retainsAllUpToCommitted(sm)) {
      return finished;
    }
    List<Snapshot> expired = new ArrayList<>();
    RecordedExpiration.Deletions planned;
    try {
      List<Long> ids = sm.listIds();
      // one reader for the planning: a list or manifest the snapshots read share is checked once
      TableFiles.Reader reader = new TableFiles.Reader(store);
      int k = expiredCount(sm, ids, Math.max(budget, 0), reader);
      if (k == 0) {
        return finished;
      }
      expiration.checkLatestReadable(ids, reader);
      for (long id : ids.subList(0, k)) {
        expired.add(snapshot(reader, id));
      }
      // Every manifest the expired snapshots and the oldest kept one need is read before anything
      // changes.
      planned = expiration.prepare(expired, ids, reader);
      recordCommits(sm, expired, ids.get(ids.size() - 1));
    } catch (VanishedSnapshot e) {
      if (skipLive) {
        LOG.info("Another expiration of {} is retiring snapshots; not expiring now", tableName);
        return finished.plus(Result.SKIPPED);
      }
      throw new IllegalStateException(
          "Snapshot "
              + e.id
              + " of "
              + tableName
              + " vanished while planning the expiration: another expiration is running;"
              + " nothing was expired");
    }
    Optional<Result> done = expiration.run(expired, planned);
    if (done.isEmpty()) {
      if (skipLive) {
        LOG.info("Another expiration of {} started meanwhile; not expiring now", tableName);
        return finished.plus(Result.SKIPPED);
      }
      throw new IllegalStateException(
          "Another expiration of "
              + tableName
              + " is in progress: "
              + store.paths().expiryRecord()
              + " appeared meanwhile; nothing was expired");
    }
    return finished.plus(done.get());
  }

  /**
   * Before any snapshot is deleted: writes each commit user's newest stream commit among the
   * expired snapshots into that user's hint, unless the hint already names it or a newer one. The
   * exactly-once check of a restored writer ({@code FileStoreCommit#isCommitted}) must still see
   * its last commit when that snapshot is gone, and the hint written after the commit may be
   * missing (the writer died before writing it). Users with a stream commit among the kept
   * snapshots are skipped: the check finds that one. They are found in one walk down the kept
   * snapshots from the latest ({@code latest}, as listed) that stops once every such user is found,
   * after a few snapshots for users that commit often (it used to read every kept snapshot; it
   * still does when a user has no kept commit); a kept snapshot found gone means another expiration
   * ran past these snapshots and recorded the hints first. Hints are never deleted. A failure here
   * stops the expiration before anything is deleted.
   */
  private void recordCommits(SnapshotManager sm, List<Snapshot> expired, long latest) {
    long newestExpired = expired.get(expired.size() - 1).id();
    Map<String, Snapshot> newest = new LinkedHashMap<>();
    for (Snapshot s : expired) {
      if (SnapshotManager.isStreamCommit(s)) {
        newest.put(s.commitUser(), s); // ascending ids: the last one is the newest
      }
    }
    Set<String> kept = sm.usersWithStreamCommitBetween(newest.keySet(), newestExpired, latest);
    for (Snapshot s : newest.values()) {
      if (kept.contains(s.commitUser())) {
        continue;
      }
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

  /**
   * How many of the snapshots {@code ids} (ascending) to expire: by the retention settings, plus
   * those at the old end whose metadata is gone (expired already: an interrupted expiration of an
   * older version deleted files before snapshot files; with {@link #skipLiveExpiration} only when
   * the settings expire some). Never the latest, never more than {@code budget}.
   */
  private int expiredCount(
      SnapshotManager sm, List<Long> ids, int budget, TableFiles.Reader reader) {
    int n = ids.size();
    int k = Math.min(budget, Math.max(0, n - retainMax));
    while (k < budget
        && k < n - retainMin
        && snapshot(reader, ids.get(k)).timeMillis() < olderThanMillis) {
      k++;
    }
    k = Math.min(k, heldByConsumers(ids));
    // Reading an oldest snapshot's metadata costs a few reads: an automatic expiry after every
    // commit does it only when the retention options expire something anyway.
    boolean lookForGone = !skipLive || k > 0;
    while (lookForGone
        && k < budget
        && k < n - 1
        && TableFiles.missingFile(reader, snapshot(reader, ids.get(k))).isPresent()) {
      k++;
    }
    return k;
  }

  /**
   * How many of {@code ids} (ascending) lie below the smallest snapshot a live consumer still needs
   * (all of them when no consumer holds one). Read only when something would expire.
   */
  private int heldByConsumers(List<Long> ids) {
    OptionalLong needed =
        new ConsumerManager(store.fileIO(), store.paths())
            .smallestNeeded(
                store.options().get(ScanOptions.CONSUMER_EXPIRATION_TIME), store.clock().millis());
    if (needed.isEmpty()) {
      return ids.size();
    }
    int below = 0;
    while (below < ids.size() && ids.get(below) < needed.getAsLong()) {
      below++;
    }
    return below;
  }

  /**
   * Whether the options keep every snapshot from the {@code EARLIEST} hint to the committed one: at
   * most that many snapshots exist up to it (the hint is never above the oldest), and {@link
   * #expiredCount} expires none of them when they are at most {@code retainMin}, or at most {@code
   * retainMax} with the oldest younger than {@code olderThan}. False (list, as without the hint)
   * when the hint is missing or its snapshot is gone.
   */
  private boolean retainsAllUpToCommitted(SnapshotManager sm) {
    if (!skipLive) {
      return false; // an explicit expiration also looks for snapshots whose files are gone
    }
    OptionalLong earliest = sm.earliestHint();
    if (earliest.isEmpty() || earliest.getAsLong() > committedId) {
      return false;
    }
    long count = committedId - earliest.getAsLong() + 1;
    if (count <= retainMin) {
      return true;
    }
    if (count > retainMax) {
      return false;
    }
    Optional<Snapshot> oldest = sm.snapshotIfExists(earliest.getAsLong());
    return oldest.isPresent() && oldest.get().timeMillis() >= olderThanMillis;
  }

  /** A listed snapshot, or {@link VanishedSnapshot} when another expiration retired it since. */
  private static Snapshot snapshot(TableFiles.Reader reader, long id) {
    return reader.snapshot(id).orElseThrow(() -> new VanishedSnapshot(id));
  }

  /** A snapshot listed a moment ago is gone: only an expiration deletes snapshot files. */
  private static final class VanishedSnapshot extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final long id;

    VanishedSnapshot(long id) {
      super(null, null, false, false);
      this.id = id;
    }
  }
}
