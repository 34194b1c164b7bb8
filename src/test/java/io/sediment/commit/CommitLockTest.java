package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.LockDatabases;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JDBC commit lock on both databases it supports: SQLite (a file in a temporary directory)
 * always, PostgreSQL when {@code SEDIMENT_TEST_POSTGRES_URL} (environment or system property) names
 * one, as .ci/run does. A committer that died holding the lock is taken over after its lease; a
 * live holder is waited for; a committer whose lock was taken never publishes; a held lease is
 * renewed past its expire time.
 */
class CommitLockTest {

  @TempDir static Path lockDir;

  @TempDir Path dir;

  static Stream<String> databases() {
    return LockDatabases.urls(lockDir).stream();
  }

  @AfterEach
  void resetFaults() {
    FaultyFileSystem.reset();
  }

  private Table table(String warehouse, String url, Map<String, String> extra) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("lock.enabled", "true");
    options.put("lock.jdbc.url", url);
    options.putAll(extra);
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    catalog.createDatabase("db", true);
    return TestTables.create(catalog, "t", TestTables.idValueSchema().options(options).build());
  }

  private static String key(Table t) {
    return SnapshotCommits.lockKey(t.store());
  }

  /**
   * Under the lock, an exclusive create (an expiry record, a first schema) makes its file once and
   * never replaces it, and a published snapshot leaves the hints readers start from.
   */
  @ParameterizedTest
  @MethodSource("databases")
  void anExclusiveCreateUnderTheLockNeverReplacesAFileAndCommitsLeaveTheirHints(String url)
      throws Exception {
    Table t = table(dir.toString(), url, Map.of());
    org.apache.flink.core.fs.Path file =
        new org.apache.flink.core.fs.Path(t.store().paths().root(), "exclusive");

    assertThat(SnapshotCommits.tryCreateExclusive(t.store(), file, "first".getBytes())).isTrue();
    assertThat(SnapshotCommits.tryCreateExclusive(t.store(), file, "second".getBytes())).isFalse();
    assertThat(java.nio.file.Files.readString(dir.resolve("db.db/t/exclusive"))).isEqualTo("first");
    assertThat(t.snapshotManager().listStaged()).isEmpty();

    TestTables.writeBatch(t, List.of(row(1L, "a")));
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    assertThat(java.nio.file.Files.readString(dir.resolve("db.db/t/snapshot/LATEST")).trim())
        .isEqualTo("2");
    assertThat(t.snapshotManager().earliestHint()).hasValue(1);
  }

  /** Writes the lock row a holder leaves behind, expiring after {@code lease} (database clock). */
  private static void holdAs(String url, String key, String owner, Duration lease)
      throws SQLException {
    JdbcCommitLock.Dialect d = JdbcCommitLock.Dialect.of(url);
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement(
                "INSERT INTO "
                    + JdbcCommitLock.TABLE
                    + " (lock_key, owner, expires_at) VALUES (?, ?, "
                    + d.nowMillis
                    + " + ?)")) {
      st.setString(1, key);
      st.setString(2, owner);
      st.setLong(3, lease.toMillis());
      st.executeUpdate();
    }
  }

  private static void takeOver(String url, String key) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement(
                "UPDATE " + JdbcCommitLock.TABLE + " SET owner = 'thief' WHERE lock_key = ?")) {
      st.setString(1, key);
      assertThat(st.executeUpdate()).isEqualTo(1);
    }
  }

  /** How many lock rows {@code key} has (0 or 1). */
  static int lockRows(String url, String key) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement(
                "SELECT COUNT(*) FROM " + JdbcCommitLock.TABLE + " WHERE lock_key = ?")) {
      st.setString(1, key);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aCommitterThatDiedHoldingTheLockIsTakenOverAfterItsLease(String url) throws Exception {
    Table t =
        table(
            dir.toString(), url, Map.of("lock.expire-time", "2 s", "lock-acquire-timeout", "30 s"));
    TestTables.writeBatch(t, List.of(row(1L, "a"))); // creates the lock table
    holdAs(url, key(t), "a committer that died", Duration.ofSeconds(2));

    TestTables.writeBatch(t, List.of(row(2L, "b")));

    assertThat(TestTables.readAll(t)).hasSize(2);
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(2);
    assertThat(lockRows(url, key(t))).as("released after the commit").isZero();
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aCommitWaitsForALiveHolderAndGivesUpAfterTheAcquireTimeout(String url) throws Exception {
    Table t = table(dir.toString(), url, Map.of("lock-acquire-timeout", "1 s"));
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    holdAs(url, key(t), "a live committer", Duration.ofMinutes(5));

    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(row(2L, "b"))))
        .hasStackTraceContaining("waiting for the commit lock of " + key(t))
        .hasStackTraceContaining("lock-acquire-timeout");

    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(1);
    assertThat(TestTables.readAll(t)).hasSize(1);
  }

  /** An expiration claims the table's expiry record under the commit lock too. */
  @ParameterizedTest
  @MethodSource("databases")
  void anExpirationTakesTheCommitLock(String url) throws Exception {
    Table t = table(dir.toString(), url, Map.of("lock-acquire-timeout", "1 s"));
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v")));
    }
    holdAs(url, key(t), "a live committer", Duration.ofMinutes(5));

    assertThatThrownBy(() -> new ExpireSnapshots(t).retainMax(1).execute())
        .hasStackTraceContaining("waiting for the commit lock of " + key(t));

    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L);
    assertThat(dir.resolve("db.db/t/snapshot/EXPIRING")).doesNotExist();
    assertThat(TestTables.readAll(t)).hasSize(3);
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aCommitterWhoseLockWasTakenOverDoesNotPublish(String url) throws Exception {
    Table t = table(FaultyFileSystem.uri(dir), url, Map.of());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    // Between taking the lock and publishing snapshot 2 (while its file is written), the lock
    // passes to another committer, as when this one stalls past its lease.
    AtomicBoolean taken = new AtomicBoolean();
    FaultyFileSystem.failCreate(
        p -> {
          if (p.contains("/snapshot/.snapshot-2.") && taken.compareAndSet(false, true)) {
            try {
              takeOver(url, key(t));
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
          }
          return false;
        });

    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(row(2L, "b"))))
        .hasStackTraceContaining("Lost the commit lock of " + key(t))
        .hasStackTraceContaining("nothing is published");

    assertThat(taken).isTrue();
    assertThat(dir.resolve("db.db/t/snapshot/snapshot-2")).doesNotExist();
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(1);
    assertThat(TestTables.readAll(t)).hasSize(1);
  }

  /**
   * Issue 21, case 6: a committer pauses between the last check of its lease and the move of its
   * snapshot file into place, longer than its lease: another committer takes the lock and commits
   * meanwhile. Publishing is fenced by the claim in the lock's database: the second committer
   * publishes the first one's claimed snapshot before its own, and the first one's late move writes
   * the same bytes again. Both commits land, each once.
   */
  @ParameterizedTest
  @MethodSource("databases")
  void aCommitterPausedBetweenItsClaimAndItsMoveLosesNoCommit(String url) throws Exception {
    Table t = table(FaultyFileSystem.uri(dir), url, Map.of());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    AtomicBoolean paused = new AtomicBoolean();
    AtomicReference<List<Long>> second = new AtomicReference<>();
    FaultyFileSystem.onRename(
        target -> {
          if (target.endsWith("/snapshot/snapshot-2") && paused.compareAndSet(false, true)) {
            // The pause: the lease runs out and another committer takes the lock and commits.
            try {
              release(url, key(t));
            } catch (SQLException e) {
              throw new IOException(e);
            }
            second.set(TestTables.writeBatch(t, List.of(row(3L, "c"))));
          }
        });

    List<Long> first = TestTables.writeBatch(t, List.of(row(2L, "b")));

    assertThat(paused).isTrue();
    assertThat(second.get()).as("the second committer built on the claimed snapshot").contains(3L);
    assertThat(first).containsExactly(2L);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");
  }

  /**
   * The move of a claimed snapshot fails: the commit's outcome is unknown and its files stay; the
   * next commit to the table publishes the claimed snapshot first, and a retry of the same stream
   * commit (a restored job) finds it landed instead of committing it twice.
   */
  @ParameterizedTest
  @MethodSource("databases")
  void aClaimedSnapshotWhoseMoveFailedLandsOnce(String url) throws Exception {
    Table t = table(FaultyFileSystem.uri(dir), url, Map.of());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    List<CommitMessage> window = commitWithFailedMove(t, "snapshot-2", row(2L, "b"));
    assertThat(dir.resolve("db.db/t/snapshot/snapshot-2")).doesNotExist();

    // The restored job commits its window again.
    List<Long> retried =
        t.newStreamWriteBuilder().withCommitUser("job").newCommit().commit(7, window);

    assertThat(retried).containsExactly(2L);
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)");
  }

  /**
   * Commits a window of job "job" (identifier 7) whose claimed snapshot is not moved into place;
   * returns the window.
   */
  private static List<CommitMessage> commitWithFailedMove(
      Table t, String snapshotName, RowData... rows) throws Exception {
    AtomicBoolean failed = new AtomicBoolean();
    FaultyFileSystem.onRename(
        target -> {
          if (target.endsWith("/snapshot/" + snapshotName) && failed.compareAndSet(false, true)) {
            throw new IOException("Injected failure moving the claimed snapshot");
          }
        });
    List<CommitMessage> window;
    try (TableWrite w = t.newStreamWriteBuilder().withCommitUser("job").newWrite()) {
      for (RowData r : rows) {
        w.write(r);
      }
      window = w.prepareCommit();
    }
    assertThatThrownBy(
            () -> t.newStreamWriteBuilder().withCommitUser("job").newCommit().commit(7, window))
        .isInstanceOf(CommitOutcomeUnknownException.class);
    FaultyFileSystem.reset();
    return window;
  }

  /**
   * Orphan removal while a claimed snapshot waits to be published keeps its files: the staged
   * snapshot is read like a retained one, so the next commit publishes a snapshot whose data is
   * there.
   */
  @ParameterizedTest
  @MethodSource("databases")
  void orphanRemovalKeepsTheFilesOfAClaimedSnapshot(String url) throws Exception {
    Table t = table(FaultyFileSystem.uri(dir), url, Map.of());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    commitWithFailedMove(t, "snapshot-2", row(2L, "b"));
    assertThat(t.snapshotManager().listStaged()).hasSize(1);

    // Every data file counts as old enough: only being used protects one.
    List<org.apache.flink.core.fs.Path> removed =
        new RemoveOrphanFiles(t).olderThan(System.currentTimeMillis() + 60_000).execute();
    TestTables.writeBatch(t, List.of(row(3L, "c")));

    assertThat(removed).isEmpty();
    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");
  }

  /**
   * A claimed snapshot whose manifest list was deleted while it waited (by hand, or by a removal
   * that ignored the claim) is abandoned by the next holder instead of published as a snapshot that
   * cannot be read; the next commit lands on the last readable snapshot.
   */
  @ParameterizedTest
  @MethodSource("databases")
  void aClaimedSnapshotWhoseManifestsAreGoneIsNotPublished(String url) throws Exception {
    Table t = table(FaultyFileSystem.uri(dir), url, Map.of());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    commitWithFailedMove(t, "snapshot-2", row(2L, "b"));
    org.apache.flink.core.fs.Path staged = t.snapshotManager().listStaged().get(0);
    io.sediment.manifest.Snapshot claimed =
        io.sediment.manifest.Snapshot.fromJson(
            java.nio.file.Files.readString(Path.of(staged.toUri().getPath())));
    java.nio.file.Files.delete(
        dir.resolve("db.db/t/manifest").resolve(claimed.deltaManifestList()));

    List<Long> next = TestTables.writeBatch(t, List.of(row(3L, "c")));

    assertThat(next).containsExactly(2L);
    assertThat(t.snapshotManager().listStaged()).isEmpty();
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(3,c)");
  }

  private static void release(String url, String key) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        PreparedStatement st =
            c.prepareStatement("DELETE FROM " + JdbcCommitLock.TABLE + " WHERE lock_key = ?")) {
      st.setString(1, key);
      st.executeUpdate();
    }
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aHeldLeaseIsRenewedPastItsExpireTime(String url) throws Exception {
    JdbcCommitLock lock =
        new JdbcCommitLock(
            url, null, null, Duration.ofSeconds(1), Duration.ofMillis(200), Duration.ofMillis(50));
    String key = dir.toUri() + "renewed";
    try (CommitLease lease = lock.acquire(key)) {
      long start = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> System.nanoTime() - start > Duration.ofSeconds(3).toNanos());
      lease.checkHeld(); // three expire times later, still held: the heartbeat renewed it
      assertThatThrownBy(() -> lock.acquire(key).close())
          .hasMessageContaining("waiting for the commit lock");
    }
    lock.acquire(key).close(); // released
  }
}
