package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.testutil.LockDatabases;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A lease of the JDBC commit lock against the rows it leaves in the database, on the databases of
 * {@link CommitLockTest}: who may take a lock, renew it, replace its claim and release it. A lease
 * runs out here by setting its row's expiry into the past, as the database's clock would, so no
 * test waits for a lease to end.
 */
class CommitLockLeaseTest {

  @TempDir static Path lockDir;

  /** Long enough that no lease runs out by itself during a test. */
  private static final Duration EXPIRE = Duration.ofMinutes(5);

  static Stream<String> databases() {
    return LockDatabases.urls(lockDir).stream();
  }

  private static JdbcCommitLock lock(String url) {
    return new JdbcCommitLock(
        url, null, null, EXPIRE, Duration.ofMillis(300), Duration.ofMillis(20));
  }

  private static String newKey() {
    return "lease-test-" + UUID.randomUUID();
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aLiveLeaseIsWaitedForAndOneThatRanOutIsTakenOverFromItsHolder(String url) throws Exception {
    JdbcCommitLock lock = lock(url);
    String key = newKey();
    CommitLease first = lock.acquire(key);
    String firstOwner = owner(url, key);

    assertThatThrownBy(() -> lock.acquire(key).close())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Timed out after PT0.3S ('lock-acquire-timeout')")
        .hasMessageContaining("commit lock of " + key + " in " + url)
        .hasMessageContaining("'lock.expire-time' (PT5M)");
    assertThat(owner(url, key)).as("a waiter leaves the holder's row alone").isEqualTo(firstOwner);
    first.checkHeld(); // still held: a live lease is renewed

    runOut(url, key);
    CommitLease second = lock.acquire(key);
    assertThat(owner(url, key)).as("taken over").isNotEqualTo(firstOwner);

    assertThatThrownBy(first::checkHeld)
        .isInstanceOf(CommitLockLostException.class)
        .hasMessageContaining("Lost the commit lock of " + key)
        .hasMessageContaining("nothing is published");
    assertThatThrownBy(first::readClaim).isInstanceOf(CommitLockLostException.class);
    first.close();
    assertThat(CommitLockTest.lockRows(url, key))
        .as("the old holder's close keeps the new holder's row")
        .isOne();
    second.checkHeld();

    second.close();
    assertThat(CommitLockTest.lockRows(url, key)).as("released").isZero();
    lock.acquire(key).close(); // free at once, no waiting for a lease
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aRenewalOfALeaseThatRanOutFailsForGood(String url) throws Exception {
    JdbcCommitLock lock = lock(url);
    String key = newKey();
    CommitLease lease = lock.acquire(key);
    runOut(url, key);

    assertThatThrownBy(lease::checkHeld)
        .isInstanceOf(CommitLockLostException.class)
        .hasMessageContaining("its lease ran out or another committer took it over");
    // The row is still this owner's, yet the lease stays lost: a renewal never revives it.
    restore(url, key);
    assertThatThrownBy(lease::checkHeld).isInstanceOf(CommitLockLostException.class);
    lease.close();
    assertThat(CommitLockTest.lockRows(url, key)).as("a lost lease releases nothing").isOne();
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aClaimIsReplacedOnlyByALiveHolderAndOnlyFromWhatItExpects(String url) throws Exception {
    JdbcCommitLock lock = lock(url);
    String key = newKey();
    JdbcCommitLock.Claim empty = new JdbcCommitLock.Claim("", "");
    JdbcCommitLock.Claim a = new JdbcCommitLock.Claim("snapshot-2", ".snapshot-2.a.tmp");
    JdbcCommitLock.Claim b = new JdbcCommitLock.Claim("snapshot-3", ".snapshot-3.b.tmp");

    try (CommitLease holder = lock.acquire(key)) {
      assertThat(holder.readClaim()).as("a new key's claim").isEqualTo(empty);
      assertThat(holder.readClaim()).isEqualTo(empty);
      assertThat(holder.replaceClaim(empty, a)).isTrue();
      assertThat(holder.readClaim()).isEqualTo(a);
      assertThat(holder.replaceClaim(a, empty)).isTrue();
      assertThat(holder.replaceClaim(empty, a)).isTrue();
    }

    // A holder whose lease ran out cannot claim, even from the claim it expects.
    CommitLease late = lock.acquire(key);
    runOut(url, key);
    assertThat(late.replaceClaim(a, b)).isFalse();
    assertThatThrownBy(late::checkHeld).isInstanceOf(CommitLockLostException.class);
    late.close();

    // A live holder that expects another claim than the database's does not replace it, and
    // stops: nothing more is published through that lease.
    try (CommitLease stale = lock.acquire(key)) {
      assertThat(stale.readClaim()).as("unchanged by the late holder").isEqualTo(a);
      assertThat(stale.replaceClaim(empty, b)).isFalse();
      assertThatThrownBy(stale::checkHeld).isInstanceOf(CommitLockLostException.class);
      assertThatThrownBy(() -> stale.replaceClaim(a, b))
          .isInstanceOf(CommitLockLostException.class);
    }
    try (Connection c = DriverManager.getConnection(url)) {
      assertThat(lock.readClaim(c, key)).as("the claim in the database").isEqualTo(a);
    }
  }

  /** The lease of {@code key} ran out: its expiry is in the past. */
  private static void runOut(String url, String key) throws SQLException {
    setExpiry(url, key, 0);
  }

  /** The lease of {@code key} is live again (its owner unchanged). */
  private static void restore(String url, String key) throws SQLException {
    setExpiry(url, key, Long.MAX_VALUE / 2);
  }

  private static void setExpiry(String url, String key, long expiresAt) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement(
                "UPDATE " + JdbcCommitLock.TABLE + " SET expires_at = ? WHERE lock_key = ?")) {
      st.setLong(1, expiresAt);
      st.setString(2, key);
      assertThat(st.executeUpdate()).as("the lock row of %s", key).isOne();
    }
  }

  private static String owner(String url, String key) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement(
                "SELECT owner FROM " + JdbcCommitLock.TABLE + " WHERE lock_key = ?")) {
      st.setString(1, key);
      try (ResultSet rs = st.executeQuery()) {
        assertThat(rs.next()).as("a lock row for %s", key).isTrue();
        return rs.getString(1);
      }
    }
  }
}
