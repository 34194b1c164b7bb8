package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding a commit user's last stream commit (the exactly-once check) reads only what it needs:
 * never every retained snapshot on each commit, and a per-user hint never hides a later commit.
 */
class CommitUserLookupTest {

  @TempDir Path dir;

  Table t;
  final AtomicInteger snapshotReads = new AtomicInteger();

  @BeforeEach
  void setUp() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .build());
    FaultyFileSystem.onOpen(
        p -> {
          if (p.contains("/snapshot/snapshot-")) {
            snapshotReads.incrementAndGet();
          }
        });
  }

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private List<CommitMessage> write(long id) throws Exception {
    WriteBuilder wb = t.newBatchWriteBuilder();
    try (TableWrite w = wb.newWrite()) {
      w.write(row(id, "v" + id));
      return w.prepareCommit();
    }
  }

  /** Commits of other writers (batch commits, each with a random commit user). */
  private void others(int n) {
    for (int i = 0; i < n; i++) {
      TestTables.writeBatch(t, List.of(row(1000L + i, "other")));
    }
  }

  private <T> T countingSnapshotReads(Supplier<T> action) {
    snapshotReads.set(0);
    return action.get();
  }

  private TableCommit committer(String user) {
    return t.newStreamWriteBuilder().withCommitUser(user).newCommit();
  }

  @Test
  void aStreamCommitDoesNotReadEverySnapshotSinceTheUsersLastCommit() throws Exception {
    TableCommit c = committer("u");
    c.commit(1, write(1));
    others(40);
    List<CommitMessage> m2 = write(2);
    assertThat(countingSnapshotReads(() -> c.commit(2, m2))).containsExactly(42L);
    // At most two for the lookup, and one for the automatic expiry's look at the oldest snapshot
    // (is it older than snapshot.time-retained?).
    assertThat(snapshotReads.get()).as("snapshot files read by the commit").isLessThanOrEqualTo(3);

    others(40);
    // Nothing to commit: nothing to look up, and no snapshot made: nothing to expire.
    assertThat(countingSnapshotReads(() -> c.commit(3, List.of()))).isEmpty();
    assertThat(snapshotReads.get()).isZero();
    assertThat(TestTables.readAll(t)).hasSize(82);
  }

  @Test
  void eachStreamCommitLeavesAHintNamingItsSnapshotAndIdentifier() throws Exception {
    committer("job a%b:c").commit(7, write(1));
    Path hint = dir.resolve("db.db/t/snapshot/user-job a%25b%3Ac");
    assertThat(hint).exists();
    String json = Files.readString(hint);
    assertThat(json).contains("\"commitUser\" : \"job a%b:c\"");
    assertThat(json).contains("\"snapshotId\" : 1");
    assertThat(json).contains("\"commitIdentifier\" : 7");
    assertThat(json).contains("\"commitKind\" : \"APPEND\"");
    // Batch commits leave none.
    TestTables.writeBatch(t, List.of(row(2L, "b")));
    try (var files = Files.list(dir.resolve("db.db/t/snapshot"))) {
      assertThat(files.filter(p -> p.getFileName().toString().startsWith("user-")))
          .containsExactly(hint);
    }
  }

  @Test
  void aStaleHintNeverHidesALaterCommit() throws Exception {
    TableCommit c = committer("u");
    c.commit(1, write(1));
    Path hint = dir.resolve("db.db/t/snapshot/user-u");
    String first = Files.readString(hint);
    List<CommitMessage> m2 = write(2);
    c.commit(2, m2);
    others(5);
    // The writer died after publishing snapshot 2 and before updating its hint.
    Files.writeString(hint, first);

    TableCommit restored = committer("u");
    assertThat(restored.commit(2, m2)).isEmpty();
    assertThat(TestTables.readAll(t)).hasSize(7);
    assertThat(new FileStoreCommit(t.store(), "u").isCommitted(2)).isTrue();
    assertThat(new FileStoreCommit(t.store(), "u").isCommitted(3)).isFalse();
  }

  @Test
  void aHintThatDoesNotMatchItsSnapshotIsIgnored() throws Exception {
    committer("u").commit(1, write(1));
    others(3);
    Files.writeString(
        dir.resolve("db.db/t/snapshot/user-u"),
        "{\"commitUser\":\"u\",\"snapshotId\":3,\"commitIdentifier\":99,\"commitKind\":\"APPEND\"}");
    assertThat(new FileStoreCommit(t.store(), "u").isCommitted(1)).isTrue();
    assertThat(new FileStoreCommit(t.store(), "u").isCommitted(2)).isFalse();
  }

  @Test
  void anUnparsableHintIsAnErrorNamingItNotAMissingHint() throws Exception {
    committer("u").commit(1, write(1));
    Files.writeString(dir.resolve("db.db/t/snapshot/user-u"), "not json");
    assertThatThrownBy(() -> new FileStoreCommit(t.store(), "u").isCommitted(1))
        .hasMessageContaining("snapshot/user-u")
        .hasMessageContaining("not JSON");
  }

  @Test
  void twoCommitObjectsOfOneUserSeeEachOthersCommits() throws Exception {
    TableCommit a = committer("u");
    TableCommit b = committer("u");
    a.commit(1, write(1));
    List<CommitMessage> m2 = write(2);
    assertThat(b.commit(2, m2)).hasSize(1);
    others(3);
    assertThat(a.commit(2, m2)).isEmpty();
    assertThat(TestTables.readAll(t)).hasSize(5);
  }
}
