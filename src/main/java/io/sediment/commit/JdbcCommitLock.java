package io.sediment.commit;

import io.sediment.schema.CommitOptions;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A commit lock held as a row of table {@code sediment_commit_lock} in a database reached through
 * JDBC (SQLite for committers on one machine, PostgreSQL for committers on many). A row is a lease:
 * it names its owner and expires {@code lock.expire-time} after its last renewal, by the database's
 * clock (so the committers' clocks need not agree). A holder renews it in the background ({@link
 * CommitLease}); the lock of a holder that died is taken over once its lease ran out.
 */
final class JdbcCommitLock {

  private static final Logger LOG = LoggerFactory.getLogger(JdbcCommitLock.class);

  static final String TABLE = "sediment_commit_lock";

  /**
   * One row per lock key: the file its last holder claimed it would publish ({@code target}) and
   * where the content waits ({@code staged}); empty strings when there is none. See {@link
   * LockedSnapshotCommit}.
   */
  static final String CLAIM_TABLE = "sediment_commit_claim";

  /** A claim: the file a holder of the lock publishes, and its staged content; NONE: no claim. */
  record Claim(String target, String staged) {
    static final Claim NONE = new Claim("", "");

    boolean isNone() {
      return target.isEmpty();
    }
  }

  /** First pause between two tries to take a held lock; doubles up to lock-check-max-sleep. */
  private static final long FIRST_SLEEP_MILLIS = 5;

  private final String url;
  private final String user;
  private final String password;
  private final Dialect dialect;
  private final Duration expireTime;
  private final Duration acquireTimeout;
  private final Duration maxSleep;

  private volatile boolean tableReady;

  /** The SQL that differs between the supported databases: the database's clock in millis. */
  enum Dialect {
    SQLITE("org.sqlite.JDBC", "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"),
    POSTGRESQL(
        "org.postgresql.Driver", "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)");

    /**
     * The driver, loaded by name: in a Flink job jar the drivers are in the job's class loader,
     * where {@code DriverManager}'s service lookup does not find them.
     */
    final String driverClass;

    final String nowMillis;

    Dialect(String driverClass, String nowMillis) {
      this.driverClass = driverClass;
      this.nowMillis = nowMillis;
    }

    static Dialect of(String url) {
      String u = url.toLowerCase(Locale.ROOT);
      if (u.startsWith("jdbc:sqlite:")) {
        return SQLITE;
      }
      if (u.startsWith("jdbc:postgresql:")) {
        return POSTGRESQL;
      }
      throw new IllegalArgumentException(
          "Unsupported commit lock database '"
              + url
              + "' in option '"
              + CommitOptions.LOCK_JDBC_URL.key()
              + "': use jdbc:sqlite:<file> or jdbc:postgresql://<host>/<database>");
    }
  }

  JdbcCommitLock(
      String url,
      String user,
      String password,
      Duration expireTime,
      Duration acquireTimeout,
      Duration maxSleep) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.dialect = Dialect.of(url);
    this.expireTime = expireTime;
    this.acquireTimeout = acquireTimeout;
    this.maxSleep = maxSleep;
  }

  /** The lock a table's options configure ({@code lock.*}). */
  static JdbcCommitLock of(TableOptions options) {
    String url = options.get(CommitOptions.LOCK_JDBC_URL);
    if (url == null || url.isBlank()) {
      url = defaultUrl();
    }
    return new JdbcCommitLock(
        url,
        options.get(CommitOptions.LOCK_JDBC_USER),
        options.get(CommitOptions.LOCK_JDBC_PASSWORD),
        options.get(CommitOptions.LOCK_EXPIRE_TIME),
        options.get(CommitOptions.LOCK_ACQUIRE_TIMEOUT),
        options.get(CommitOptions.LOCK_CHECK_MAX_SLEEP));
  }

  /**
   * The embedded default: an SQLite file in the user's home, shared by the machine's committers.
   */
  static String defaultUrl() {
    Path dir = Paths.get(System.getProperty("user.home"), ".sediment");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException(
          "Cannot create "
              + dir
              + " for the default commit lock database; set option '"
              + CommitOptions.LOCK_JDBC_URL.key()
              + "'",
          e);
    }
    return "jdbc:sqlite:" + dir.resolve("commit-locks.db");
  }

  String url() {
    return url;
  }

  Duration expireTime() {
    return expireTime;
  }

  /**
   * Takes the lock named {@code key}, waiting up to {@code lock-acquire-timeout} while another
   * holder has it. A lock whose lease ran out (its holder died or stalled) is taken over.
   */
  CommitLease acquire(String key) throws IOException {
    Connection c = connect();
    try {
      ensureTable(c);
      String owner = UUID.randomUUID().toString();
      long deadline = System.nanoTime() + acquireTimeout.toNanos();
      long sleep = FIRST_SLEEP_MILLIS;
      while (!tryTake(c, key, owner)) {
        if (System.nanoTime() - deadline > 0) {
          throw new IOException(
              "Timed out after "
                  + acquireTimeout
                  + " ('"
                  + CommitOptions.LOCK_ACQUIRE_TIMEOUT.key()
                  + "') waiting for the commit lock of "
                  + key
                  + " in "
                  + url
                  + ": another committer holds it. A holder that died loses it after '"
                  + CommitOptions.LOCK_EXPIRE_TIME.key()
                  + "' ("
                  + expireTime
                  + ")");
        }
        pause(sleep);
        sleep = Math.min(sleep * 2, Math.max(1, maxSleep.toMillis()));
      }
      return new CommitLease(this, c, key, owner);
    } catch (SQLException e) {
      closeAfterFailure(c, e);
      throw new IOException("Cannot take the commit lock of " + key + " in " + url, e);
    } catch (IOException | RuntimeException e) {
      closeAfterFailure(c, e);
      throw e;
    }
  }

  private boolean tryTake(Connection c, String key, String owner) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + TABLE
                + " (lock_key, owner, expires_at) VALUES (?, ?, "
                + dialect.nowMillis
                + " + ?) ON CONFLICT (lock_key) DO NOTHING")) {
      insert.setString(1, key);
      insert.setString(2, owner);
      insert.setLong(3, expireTime.toMillis());
      if (insert.executeUpdate() == 1) {
        return true;
      }
    }
    try (PreparedStatement takeOver =
        c.prepareStatement(
            "UPDATE "
                + TABLE
                + " SET owner = ?, expires_at = "
                + dialect.nowMillis
                + " + ? WHERE lock_key = ? AND expires_at < "
                + dialect.nowMillis)) {
      takeOver.setString(1, owner);
      takeOver.setLong(2, expireTime.toMillis());
      takeOver.setString(3, key);
      if (takeOver.executeUpdate() == 1) {
        LOG.warn(
            "Took over the commit lock of {} in {}: its holder's lease ran out (it died or"
                + " stalled for longer than {})",
            key,
            url,
            expireTime);
        return true;
      }
    }
    return false;
  }

  /** Extends the lease; false when it is no longer this owner's (ran out, or taken over). */
  boolean renew(Connection c, String key, String owner) throws SQLException {
    try (PreparedStatement renew =
        c.prepareStatement(
            "UPDATE "
                + TABLE
                + " SET expires_at = "
                + dialect.nowMillis
                + " + ? WHERE lock_key = ? AND owner = ? AND expires_at >= "
                + dialect.nowMillis)) {
      renew.setLong(1, expireTime.toMillis());
      renew.setString(2, key);
      renew.setString(3, owner);
      return renew.executeUpdate() == 1;
    }
  }

  /** The claim of {@code key} (creating its row, empty, the first time). */
  Claim readClaim(Connection c, String key) throws SQLException {
    try (PreparedStatement insert =
        c.prepareStatement(
            "INSERT INTO "
                + CLAIM_TABLE
                + " (lock_key, target, staged) VALUES (?, '', '') ON CONFLICT (lock_key) DO"
                + " NOTHING")) {
      insert.setString(1, key);
      insert.executeUpdate();
    }
    try (PreparedStatement select =
        c.prepareStatement("SELECT target, staged FROM " + CLAIM_TABLE + " WHERE lock_key = ?")) {
      select.setString(1, key);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("The claim row of " + key + " vanished");
        }
        return new Claim(rs.getString(1), rs.getString(2));
      }
    }
  }

  /**
   * Replaces the claim of {@code key}, if it is {@code expected} and {@code owner} holds the lock
   * (its lease not run out): one statement, so that a holder whose lease ran out meanwhile cannot
   * claim. Returns whether it did.
   */
  boolean replaceClaim(Connection c, String key, String owner, Claim expected, Claim next)
      throws SQLException {
    try (PreparedStatement update =
        c.prepareStatement(
            "UPDATE "
                + CLAIM_TABLE
                + " SET target = ?, staged = ? WHERE lock_key = ? AND target = ? AND staged = ?"
                + " AND EXISTS (SELECT 1 FROM "
                + TABLE
                + " WHERE lock_key = ? AND owner = ? AND expires_at >= "
                + dialect.nowMillis
                + ")")) {
      update.setString(1, next.target());
      update.setString(2, next.staged());
      update.setString(3, key);
      update.setString(4, expected.target());
      update.setString(5, expected.staged());
      update.setString(6, key);
      update.setString(7, owner);
      return update.executeUpdate() == 1;
    }
  }

  void release(Connection c, String key, String owner) throws SQLException {
    try (PreparedStatement delete =
        c.prepareStatement("DELETE FROM " + TABLE + " WHERE lock_key = ? AND owner = ?")) {
      delete.setString(1, key);
      delete.setString(2, owner);
      delete.executeUpdate();
    }
  }

  Connection connect() throws IOException {
    Properties props = new Properties();
    if (user != null) {
      props.setProperty("user", user);
    }
    if (password != null) {
      props.setProperty("password", password);
    }
    // A database that stops answering must fail a statement well within the lease: socket, login
    // and lock waits are bounded by a third of lock.expire-time.
    long third = Math.max(1000, expireTime.toMillis() / 3);
    if (dialect == Dialect.SQLITE) {
      // Committers of one machine share the file: wait for each other's short writes.
      props.setProperty("busy_timeout", String.valueOf(Math.min(30000, third)));
    } else {
      String seconds = String.valueOf(Math.max(1, third / 1000));
      props.setProperty("connectTimeout", seconds);
      props.setProperty("socketTimeout", seconds);
      props.setProperty("loginTimeout", seconds);
      props.setProperty("tcpKeepAlive", "true");
    }
    try {
      Driver driver =
          (Driver)
              Class.forName(dialect.driverClass, true, JdbcCommitLock.class.getClassLoader())
                  .getDeclaredConstructor()
                  .newInstance();
      Connection c = driver.connect(url, props);
      if (c == null) {
        throw new SQLException(dialect.driverClass + " does not accept the URL");
      }
      c.setAutoCommit(true);
      return c;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "The JDBC driver " + dialect.driverClass + " of the commit lock is not available", e);
    } catch (SQLException e) {
      throw new IOException(
          "Cannot connect to the commit lock database "
              + url
              + " (option '"
              + CommitOptions.LOCK_JDBC_URL.key()
              + "')",
          e);
    }
  }

  private void ensureTable(Connection c) throws SQLException {
    if (tableReady) {
      return;
    }
    try (Statement st = c.createStatement()) {
      st.executeUpdate(
          "CREATE TABLE IF NOT EXISTS "
              + TABLE
              + " (lock_key VARCHAR(4000) PRIMARY KEY, owner VARCHAR(64) NOT NULL,"
              + " expires_at BIGINT NOT NULL)");
      st.executeUpdate(
          "CREATE TABLE IF NOT EXISTS "
              + CLAIM_TABLE
              + " (lock_key VARCHAR(4000) PRIMARY KEY, target VARCHAR(4000) NOT NULL,"
              + " staged VARCHAR(4000) NOT NULL)");
    } catch (SQLException e) {
      // Two first committers creating it at once: PostgreSQL fails one of them. Fine if it is
      // there now.
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT COUNT(*) FROM " + TABLE + ", " + CLAIM_TABLE + " WHERE 1 = 0")) {
        rs.next();
      } catch (SQLException again) {
        e.addSuppressed(again);
        throw e;
      }
    }
    tableReady = true;
  }

  private static void pause(long boundMillis) throws InterruptedIOException {
    try {
      TimeUnit.MILLISECONDS.sleep(1 + ThreadLocalRandom.current().nextLong(boundMillis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "Interrupted while waiting for the commit lock; nothing was committed");
    }
  }

  private static void closeAfterFailure(Connection c, Exception original) {
    try {
      c.close();
    } catch (SQLException e) {
      original.addSuppressed(e);
    }
  }
}
