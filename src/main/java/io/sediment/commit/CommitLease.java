package io.sediment.commit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A held commit lock ({@link JdbcCommitLock}): renewed in the background every third of {@code
 * lock.expire-time} while held, and once more, synchronously, by {@link #checkHeld} right before a
 * snapshot is published. Once a renewal fails the lease is lost for good. Closing releases it.
 */
final class CommitLease implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CommitLease.class);

  private static final ScheduledExecutorService HEARTBEATS =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "sediment-commit-lock-heartbeat");
            t.setDaemon(true);
            return t;
          });

  private final JdbcCommitLock lock;
  private final Connection connection;
  private final String key;
  private final String owner;
  private final ScheduledFuture<?> heartbeat;

  /** Why the lease was lost, once it was; null while held. */
  private Exception lost;

  CommitLease(JdbcCommitLock lock, Connection connection, String key, String owner) {
    this.lock = lock;
    this.connection = connection;
    this.key = key;
    this.owner = owner;
    long period = Math.max(1, lock.expireTime().toMillis() / 3);
    this.heartbeat =
        HEARTBEATS.scheduleWithFixedDelay(this::heartbeat, period, period, TimeUnit.MILLISECONDS);
  }

  private void heartbeat() {
    try {
      renew();
    } catch (CommitLockLostException e) {
      LOG.warn("{}", e.getMessage());
    }
  }

  /**
   * Renews the lease now; throws when it is no longer held, and from then on. Called right before a
   * publish, so that a holder that lost its lock never publishes.
   */
  void checkHeld() throws CommitLockLostException {
    renew();
  }

  private synchronized void renew() throws CommitLockLostException {
    if (lost == null) {
      try {
        if (!lock.renew(connection, key, owner)) {
          lost = new IllegalStateException("its lease ran out or another committer took it over");
        }
      } catch (SQLException e) {
        lost = e;
      }
    }
    if (lost != null) {
      heartbeat.cancel(false);
      throw new CommitLockLostException(
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
  }

  /** Stops renewing and releases the lock (errors are logged: the lease then runs out). */
  @Override
  public synchronized void close() {
    heartbeat.cancel(false);
    try (connection) {
      if (lost == null) {
        lock.release(connection, key, owner);
      }
    } catch (SQLException e) {
      LOG.warn(
          "Could not release the commit lock of {} in {}; it is free again after {}",
          key,
          lock.url(),
          lock.expireTime(),
          e);
    }
  }
}
