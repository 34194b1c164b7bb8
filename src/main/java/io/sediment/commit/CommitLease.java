package io.sediment.commit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held commit lock ({@link JdbcCommitLock}) on a connection of its own: renewed in the background
 * every third of {@code lock.expire-time} while held, and once more, synchronously, by {@link
 * #checkHeld} before a publish. Once a renewal fails the lease is lost for good.
 *
 * <p>A database that stops answering touches only its own leases: renewals run on a pool (a
 * scheduler only starts them), each lease has at most one statement in flight on its connection,
 * and the connection's socket and query timeouts (a third of {@code lock.expire-time}) end a hung
 * one, losing the lease. {@link #close()} never waits for a hung statement: the release then
 * happens when it ends, or the lease runs out in the database.
 */
final class CommitLease implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CommitLease.class);

  private static final ScheduledExecutorService TICKS =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sediment-commit-lock-heartbeat");
            t.setDaemon(true);
            return t;
          });

  /** Runs renewals and delayed releases: one stalled database never delays another lease. */
  private static final ExecutorService WORKERS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "sediment-commit-lock-renewal");
            t.setDaemon(true);
            return t;
          });

  private final JdbcCommitLock lock;
  private final Connection connection;
  private final String key;
  private final String owner;
  private final ScheduledFuture<?> heartbeat;

  /** One statement at a time on the connection (JDBC connections are not thread-safe). */
  private final ReentrantLock statements = new ReentrantLock();

  /** Why the lease was lost, once it was; null while held. */
  private volatile Exception lost;

  private volatile boolean closed;

  CommitLease(JdbcCommitLock lock, Connection connection, String key, String owner) {
    this.lock = lock;
    this.connection = connection;
    this.key = key;
    this.owner = owner;
    long period = Math.max(1, lock.expireTime().toMillis() / 3);
    this.heartbeat =
        TICKS.scheduleWithFixedDelay(
            () -> WORKERS.execute(this::heartbeat), period, period, TimeUnit.MILLISECONDS);
  }

  private void heartbeat() {
    // A renewal or a publish still runs on the connection: this tick is not needed.
    if (closed || !statements.tryLock()) {
      return;
    }
    try {
      renewLocked();
    } catch (CommitLockLostException e) {
      LOG.warn("{}", e.getMessage());
    } finally {
      statements.unlock();
      releaseIfClosed();
    }
  }

  /**
   * Renews the lease now; throws when it is no longer held, and from then on. Called right before a
   * publish, so that a holder that lost its lock never publishes.
   */
  void checkHeld() throws CommitLockLostException {
    statements.lock();
    try {
      renewLocked();
    } finally {
      statements.unlock();
    }
  }

  /** The claim in the database, under the lease (see {@link LockedSnapshotCommit}). */
  JdbcCommitLock.Claim readClaim() throws CommitLockLostException {
    statements.lock();
    try {
      checkNotLost();
      return lock.readClaim(connection, key);
    } catch (SQLException e) {
      throw lose(e);
    } finally {
      statements.unlock();
    }
  }

  /**
   * Replaces claim {@code expected} with {@code next} if this lease still holds the lock and the
   * claim is still {@code expected}; false otherwise (the lease ran out and another committer took
   * the lock). Throws when the database cannot say.
   */
  boolean replaceClaim(JdbcCommitLock.Claim expected, JdbcCommitLock.Claim next)
      throws CommitLockLostException {
    statements.lock();
    try {
      checkNotLost();
      boolean done;
      try {
        done = lock.replaceClaim(connection, key, owner, expected, next);
      } catch (SQLException e) {
        // The statement may have been applied before its reply was lost.
        lost = e;
        heartbeat.cancel(false);
        throw new CommitOutcomeUnknownException(
            "Could not tell whether the claim of " + key + " in " + lock.url() + " was set", e);
      }
      if (!done) {
        lost = new IllegalStateException("its lease ran out or another committer took it over");
      }
      return done;
    } finally {
      statements.unlock();
    }
  }

  private void renewLocked() throws CommitLockLostException {
    checkNotLost();
    try {
      if (!lock.renew(connection, key, owner)) {
        lost = new IllegalStateException("its lease ran out or another committer took it over");
      }
    } catch (SQLException e) {
      lost = e;
    }
    checkNotLost();
  }

  private CommitLockLostException lose(SQLException e) {
    lost = e;
    return failure();
  }

  private void checkNotLost() throws CommitLockLostException {
    if (lost != null) {
      throw failure();
    }
  }

  private CommitLockLostException failure() {
    heartbeat.cancel(false);
    return new CommitLockLostException(
        "Lost the commit lock of "
            + key
            + " in "
            + lock.url()
            + " ("
            + lost.getMessage()
            + "; 'lock.expire-time' is "
            + lock.expireTime()
            + "): nothing is published",
        lost);
  }

  /**
   * Stops renewing and releases the lock. Never waits for a statement in flight (a stalled
   * database): the release then runs when it ends, or the lease runs out in the database.
   */
  @Override
  public void close() {
    closed = true;
    heartbeat.cancel(false);
    releaseIfClosed();
  }

  private void releaseIfClosed() {
    if (!closed || !statements.tryLock()) {
      return; // the statement in flight releases when it ends
    }
    try {
      if (connection.isClosed()) {
        return;
      }
      try (connection) {
        if (lost == null) {
          lock.release(connection, key, owner);
        }
      }
    } catch (SQLException e) {
      LOG.warn(
          "Could not release the commit lock of {} in {}; it is free again after {}",
          key,
          lock.url(),
          lock.expireTime(),
          e);
    } finally {
      statements.unlock();
    }
  }
}
