package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The race for the next snapshot id, shared by every kind of commit: each attempt builds a snapshot
 * on top of the latest one and publishes it ({@link SnapshotCommit}: an exclusive create, or under
 * the commit lock); an attempt that loses is cleaned up, and after a short randomized back-off (so
 * that committers that collided do not collide again in lock step) the next attempt builds on top
 * of the winner. Gives up after {@code commit.max-retries} lost races.
 */
final class CommitRetryLoop {

  private static final Logger LOG = LoggerFactory.getLogger(CommitRetryLoop.class);

  /** Upper bound of the first back-off; doubles per lost race up to {@link #MAX_BACKOFF_MILLIS}. */
  static final long FIRST_BACKOFF_MILLIS = 2;

  static final long MAX_BACKOFF_MILLIS = 200;

  /** Builds one attempt on top of the latest snapshot; null when there is nothing to commit. */
  @FunctionalInterface
  interface AttemptBuilder {
    SnapshotAttempt build(Optional<Snapshot> latest) throws IOException;
  }

  private final SnapshotManager snapshots;
  private final SnapshotCommit snapshotCommit;
  private final FileIO fileIO;
  private final int maxRetries;

  CommitRetryLoop(
      SnapshotManager snapshots, SnapshotCommit snapshotCommit, FileIO fileIO, int maxRetries) {
    this.snapshots = snapshots;
    this.snapshotCommit = snapshotCommit;
    this.fileIO = fileIO;
    this.maxRetries = maxRetries;
  }

  /**
   * Runs attempts until one publishes its snapshot; returns it, or empty when an attempt found
   * nothing to commit. Errors of an attempt (a conflict, an I/O error) end the loop; the attempt's
   * files are cleaned up unless the outcome is unknown ({@link CommitOutcomeUnknownException}).
   */
  Optional<SnapshotAttempt> run(String what, AttemptBuilder builder) throws IOException {
    for (int attempt = 0; ; attempt++) {
      SnapshotAttempt a = builder.build(snapshots.latestForCommit());
      if (a == null) {
        return Optional.empty();
      }
      if (publish(a)) {
        return Optional.of(a);
      }
      a.cleanup();
      if (attempt >= maxRetries) {
        throw new IllegalStateException(
            "Gave up committing "
                + what
                + " after "
                + (attempt + 1)
                + " attempts: other committers kept taking the next snapshot id");
      }
      LOG.debug("Lost the race for snapshot {}; retrying", a.snapshot().id());
      backOff(attempt);
    }
  }

  /**
   * The upper bound of the back-off after {@code attempt + 1} lost races: {@link
   * #FIRST_BACKOFF_MILLIS}, doubled per further lost race, capped at {@link #MAX_BACKOFF_MILLIS}.
   */
  static long backOffBound(int attempt) {
    return Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(attempt, 16));
  }

  /**
   * Sleeps a random time up to {@link #backOffBound}. An interrupted committer stops here whatever
   * the draw: a sleep of 0 ms would not look at the interrupt, and the next attempt would commit.
   */
  private static void backOff(int attempt) throws InterruptedIOException {
    try {
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
      TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(backOffBound(attempt) + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "Interrupted while waiting to retry a commit; nothing was committed");
    }
  }

  /** The base of an attempt is gone: the snapshot id it would take was taken and expired. */
  private static final class BaseGone extends IOException {
    BaseGone(String message) {
      super(message);
    }
  }

  /**
   * Right before the publish (under the lock, where there is one): the snapshot the attempt was
   * built on (the one below its id) is still there. A free id alone does not show that nobody took
   * it: while this committer waited (for the lock, say), others may have published that id and
   * later ones and an expiry retired it again; publishing into the free id would leave this
   * commit's rows out of the latest snapshot, under an id from the past. Expiry retires snapshots
   * oldest first and never the latest, so the base being there means the id was never taken: under
   * the lock, where only lock holders publish, exactly; without one, up to the moment between this
   * check and the exclusive create. The first snapshot has no base: no other snapshot may be there.
   */
  private void checkBase(Snapshot s) throws IOException {
    long base = s.id() - 1;
    // (a first snapshot already there is a race lost as any other: the create fails)
    boolean there =
        base >= 1
            ? fileIO.exists(snapshots.paths().snapshot(base)) // usually there: one HEAD
            : snapshots.exists(s.id()) || snapshots.latestId().isEmpty();
    if (!there) {
      throw new BaseGone(
          "Snapshot "
              + s.id()
              + " was built on snapshot "
              + base
              + ", which expired meanwhile: later snapshots landed");
    }
  }

  /**
   * Right before the publish (under the lock, where there is one): every file the snapshot adds
   * must exist. A file deleted meanwhile (by orphan removal with a threshold shorter than the
   * commit took, or by hand) would leave a snapshot that cannot be read: nothing is published.
   */
  private void checkAdded(SnapshotAttempt a) throws IOException {
    List<String> missing = new ArrayList<>();
    for (Path p : a.added()) {
      if (!fileIO.exists(p)) { // a present file: one HEAD on an object store
        missing.add(p.toString());
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "Refusing to publish snapshot "
              + a.snapshot().id()
              + ": files it references are missing (deleted while the commit ran?): "
              + missing);
    }
  }

  /**
   * Publishes an attempt's snapshot. When publishing throws, the snapshot may still have been
   * created (a rename that succeeded before its reply was lost): if the snapshot with that id is
   * ours the commit landed; if it is absent or another's, the attempt is cleaned up and the error
   * thrown; if that cannot be told, nothing is cleaned up and {@link CommitOutcomeUnknownException}
   * is thrown.
   */
  private boolean publish(SnapshotAttempt a) throws IOException {
    Snapshot s = a.snapshot();
    try {
      return snapshotCommit.tryPublish(
          s,
          () -> {
            checkBase(s);
            checkAdded(a);
          });
    } catch (BaseGone e) {
      LOG.debug("{}; retrying on the latest snapshot", e.getMessage());
      return false; // lost the race: snapshots landed (and expired) meanwhile; run() cleans up
    } catch (CommitOutcomeUnknownException e) {
      throw e; // claimed under the lock: it lands, by this committer or the next; keep its files
    } catch (IOException | RuntimeException e) {
      Boolean ours;
      try {
        ours =
            snapshots.exists(s.id())
                && snapshots.snapshot(s.id()).baseManifestList().equals(s.baseManifestList());
      } catch (RuntimeException check) {
        e.addSuppressed(check);
        ours = null;
      }
      if (ours == null) {
        throw new CommitOutcomeUnknownException(
            "Could not tell whether snapshot " + s.id() + " was published", e);
      }
      if (ours) {
        LOG.warn(
            "Publishing snapshot {} reported an error but it landed: {}", s.id(), e.toString());
        snapshots.writeHints(s);
        return true;
      }
      a.cleanup();
      throw e;
    }
  }
}
