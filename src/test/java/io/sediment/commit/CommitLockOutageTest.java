package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.LockDatabases;
import io.sediment.testutil.StallingProxy;
import io.sediment.testutil.TestTables;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, case 4: a commit lock database that stops answering (PostgreSQL behind a proxy that
 * stops forwarding, as a network partition does). Statements fail within a third of {@code
 * lock.expire-time}, so a lease on it is declared lost and a commit fails with {@link
 * CommitLockLostException} instead of hanging; closing such a lease does not wait; and a lease on
 * another table, renewed directly, is not touched. PostgreSQL comes from {@code
 * SEDIMENT_TEST_POSTGRES_URL} (.ci/run starts one; skipped without it outside CI).
 */
class CommitLockOutageTest {

  private static final Duration EXPIRE = Duration.ofSeconds(3);

  @TempDir Path dir;

  private String direct;
  private StallingProxy proxy;
  private String proxied;

  @BeforeEach
  void startProxy() throws Exception {
    direct = LockDatabases.postgres();
    if (direct == null) {
      Assumptions.abort(LockDatabases.POSTGRES_URL + " is not set");
    }
    URI u = URI.create(direct.substring("jdbc:".length()));
    proxy = new StallingProxy(u.getHost(), u.getPort());
    proxied = direct.replace(u.getHost() + ":" + u.getPort(), "127.0.0.1:" + proxy.port());
  }

  @AfterEach
  void stopProxy() throws Exception {
    FaultyFileSystem.reset();
    if (proxy != null) {
      proxy.close();
    }
  }

  private JdbcCommitLock lock(String url) {
    return new JdbcCommitLock(
        url, null, null, EXPIRE, Duration.ofSeconds(10), Duration.ofMillis(50));
  }

  @Test
  void anOutageLosesOnlyItsOwnLeasesAndNeverBlocksAClose() throws Exception {
    String keyA = "outage-a-" + System.nanoTime();
    String keyB = "outage-b-" + System.nanoTime();
    CommitLease a = lock(proxied).acquire(keyA);
    try (CommitLease b = lock(direct).acquire(keyB)) {
      proxy.stall();

      // The stalled lease is declared lost: its statement times out, it does not hang.
      CompletableFuture<Throwable> check =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  a.checkHeld();
                  return null;
                } catch (Throwable e) {
                  return e;
                }
              });
      await().atMost(EXPIRE.multipliedBy(3)).until(check::isDone);
      assertThat(check.get()).isInstanceOf(CommitLockLostException.class);

      // Closing it returns at once, whatever its connection is doing.
      CompletableFuture<Void> close = CompletableFuture.runAsync(a::close);
      await().atMost(EXPIRE).until(close::isDone);

      // Meanwhile the other table's lease, renewed directly, outlives several expire times.
      long start = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> System.nanoTime() - start > EXPIRE.multipliedBy(3).toNanos());
      b.checkHeld();
    }
  }

  @Test
  void aCommitWhoseLockDatabaseStopsAnsweringFailsAsLockLost() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t" + System.nanoTime(),
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .options(
                    Map.of(
                        "lock.enabled",
                        "true",
                        "lock.jdbc.url",
                        proxied,
                        "lock.expire-time",
                        EXPIRE.toSeconds() + " s"))
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    // The outage starts while the committer holds the lock, before it claims snapshot 2.
    AtomicBoolean stalled = new AtomicBoolean();
    FaultyFileSystem.failCreate(
        p -> {
          if (p.contains("/snapshot/.snapshot-2.") && stalled.compareAndSet(false, true)) {
            proxy.stall();
          }
          return false;
        });

    CompletableFuture<Throwable> commit =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                TestTables.writeBatch(t, List.of(row(2L, "b")));
                return null;
              } catch (Throwable e) {
                return e;
              }
            });
    await().atMost(EXPIRE.multipliedBy(3)).until(commit::isDone);

    assertThat(stalled).isTrue();
    assertThat(commit.get())
        .isNotNull()
        .hasStackTraceContaining(CommitLockLostException.class.getSimpleName())
        .hasStackTraceContaining("nothing is published");
    proxy.resume();
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(1);
    assertThat(TestTables.readAll(t)).hasSize(1);
  }
}
