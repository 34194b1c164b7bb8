package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import io.sediment.testutil.LockDatabases;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A snapshot published through the commit lock ({@link LockedSnapshotCommit}), on the databases of
 * {@link CommitLockTest}: what a publish leaves when the snapshot exists already or its last check
 * refuses, and when it lands.
 */
class CommitLockPublishTest {

  @TempDir static Path lockDir;

  @TempDir Path dir;

  static Stream<String> databases() {
    return LockDatabases.urls(lockDir).stream();
  }

  @ParameterizedTest
  @MethodSource("databases")
  void aPublishNeverReplacesASnapshotAndARefusingFenceLeavesNothing(String url) throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    SnapshotManager snapshots = t.snapshotManager();
    Path snapshotDir = dir.resolve("db.db/t/snapshot");
    String firstJson = Files.readString(snapshotDir.resolve("snapshot-1"));
    JdbcCommitLock lock =
        new JdbcCommitLock(
            url, null, null, Duration.ofMinutes(5), Duration.ofMillis(300), Duration.ofMillis(20));
    String key = "publish-test-" + UUID.randomUUID();
    LockedSnapshotCommit commit =
        new LockedSnapshotCommit(snapshots, t.store().fileIO(), lock, key);
    Snapshot first = snapshots.snapshot(1);

    Snapshot other = withId(first, 1, 99);
    assertThat(commit.tryPublish(other, () -> {})).as("snapshot 1 exists").isFalse();
    assertThat(Files.readString(snapshotDir.resolve("snapshot-1"))).isEqualTo(firstJson);

    Snapshot second = withId(first, 2, 2);
    assertThatThrownBy(
            () ->
                commit.tryPublish(
                    second,
                    () -> {
                      throw new IOException("an added file is gone");
                    }))
        .isInstanceOf(IOException.class)
        .hasMessage("an added file is gone");
    assertThat(snapshotDir.resolve("snapshot-2")).doesNotExist();
    assertThat(snapshots.listStaged()).as("staged snapshot files").isEmpty();
    assertThat(claim(lock, url, key)).as("nothing claimed").isEqualTo(JdbcCommitLock.Claim.NONE);

    assertThat(commit.tryPublish(second, () -> {})).isTrue();
    assertThat(snapshots.snapshot(2)).isEqualTo(second);
    assertThat(snapshots.latest()).hasValue(second);
    assertThat(snapshots.listStaged()).isEmpty();
    assertThat(claim(lock, url, key))
        .as("the claim is cleared")
        .isEqualTo(JdbcCommitLock.Claim.NONE);
    lock.acquire(key).close(); // released: taken at once
  }

  private static JdbcCommitLock.Claim claim(JdbcCommitLock lock, String url, String key)
      throws Exception {
    try (Connection c = DriverManager.getConnection(url)) {
      return lock.readClaim(c, key);
    }
  }

  private static Snapshot withId(Snapshot s, long id, long commitIdentifier) {
    return new Snapshot(
        s.version(),
        id,
        s.schemaId(),
        s.baseManifestList(),
        s.deltaManifestList(),
        s.indexManifest(),
        s.commitUser(),
        commitIdentifier,
        s.commitKind(),
        s.timeMillis(),
        s.totalRecordCount(),
        s.deltaRecordCount(),
        s.totalFileCount(),
        s.changelogManifestList(),
        s.watermark());
  }
}
