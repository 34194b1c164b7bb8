package io.sediment.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.fs.FileIO;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Snapshot files on a real local file system: the listing of {@code snapshot/} is the truth, {@code
 * LATEST}/{@code EARLIEST} and user hints only shorten searches, and publishing is exclusive.
 * Invalid snapshot files are covered by {@link InvalidSnapshotFileTest}.
 */
class SnapshotManagerTest {

  private static final long BATCH = Long.MAX_VALUE;

  @TempDir java.nio.file.Path dir;

  private SnapshotManager sm;
  private ExecutorService pool;

  @BeforeEach
  void setUp() {
    Path root = new Path(dir.toUri());
    sm = new SnapshotManager(FileIO.of(root), new TablePaths(root));
  }

  @AfterEach
  void tearDown() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  // ---- listing, latest, earliest --------------------------------------------------------------

  @Test
  void aTableWithoutSnapshotsHasNone() {
    assertThat(sm.listIds()).isEmpty();
    assertThat(sm.latestId()).isEmpty();
    assertThat(sm.earliestId()).isEmpty();
    assertThat(sm.latest()).isEmpty();
    assertThat(sm.latestForCommit()).isEmpty();
    assertThat(sm.exists(1)).isFalse();
    assertThat(sm.snapshotIfExists(1)).isEmpty();
  }

  @Test
  void committedSnapshotsAreListedInOrderWithLatestAndEarliest() throws Exception {
    for (long id = 1; id <= 12; id++) {
      assertThat(sm.tryCommit(snapshot(id, "u", BATCH))).isTrue();
    }
    // Ascending by number, not by name (snapshot-10 sorts before snapshot-2 as text).
    assertThat(sm.listIds()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
    assertThat(sm.latestId()).hasValue(12);
    assertThat(sm.earliestId()).hasValue(1);
    assertThat(sm.latest().orElseThrow().id()).isEqualTo(12);
    assertThat(sm.latestForCommit().orElseThrow().id()).isEqualTo(12);
    assertThat(sm.snapshot(5)).isEqualTo(snapshot(5, "u", BATCH));
    assertThat(sm.exists(12)).isTrue();
    assertThat(sm.exists(13)).isFalse();
  }

  @Test
  void readingAMissingSnapshotNamesTheFile() throws Exception {
    sm.tryCommit(snapshot(1, "u", BATCH));
    assertThatThrownBy(() -> sm.snapshot(9))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Snapshot 9 does not exist")
        .hasMessageContaining(snapshotFile(9).toString());
    assertThat(sm.snapshotIfExists(9)).isEmpty();
    assertThat(sm.snapshotIfExists(1)).isPresent();
  }

  @Test
  void theListingIgnoresFilesThatAreNotSnapshots() throws Exception {
    sm.tryCommit(snapshot(1, "u", BATCH));
    sm.tryCommit(snapshot(2, "u", 1));
    Files.writeString(snapshotDir().resolve("snapshot-abc"), "x");
    Files.writeString(snapshotDir().resolve(".snapshot-3.1234.tmp"), "x");
    Files.writeString(snapshotDir().resolve("EXPIRING"), "x");
    Files.writeString(snapshotDir().resolve("snapshot-"), "x");

    assertThat(sm.listIds()).containsExactly(1L, 2L);
    assertThat(sm.latestId()).hasValue(2);
    assertThat(sm.earliestId()).hasValue(1);
  }

  @Test
  void theListingTakesOnlyNamesASnapshotFileCanHave() throws Exception {
    sm.tryCommit(snapshot(1, "u", BATCH));
    sm.tryCommit(snapshot(2, "u", BATCH));
    // Names that parse as a number but that no commit writes (copies, hand edits).
    Files.copy(snapshotFile(2), snapshotDir().resolve("snapshot-+3"));
    Files.copy(snapshotFile(1), snapshotDir().resolve("snapshot-0001"));
    Files.copy(snapshotFile(1), snapshotDir().resolve("snapshot--1"));

    assertThat(sm.listIds()).containsExactly(1L, 2L);
    assertThat(sm.earliestId()).hasValue(1);
    Files.delete(snapshotDir().resolve("LATEST"));
    assertThat(sm.latestId()).hasValue(2);
  }

  @Test
  void earliestFollowsExpiryEvenWhenTheHintSaysOtherwise() throws Exception {
    for (long id = 1; id <= 4; id++) {
      sm.tryCommit(snapshot(id, "u", BATCH));
    }
    assertThat(Files.readString(snapshotDir().resolve("EARLIEST")).trim()).isEqualTo("1");
    Files.delete(snapshotFile(1));
    Files.delete(snapshotFile(2));

    assertThat(sm.earliestId()).hasValue(3);
    assertThat(sm.listIds()).containsExactly(3L, 4L);
  }

  // ---- LATEST and EARLIEST are hints ----------------------------------------------------------

  @Test
  void eachPublishUpdatesTheLatestHint() throws Exception {
    sm.tryCommit(snapshot(1, "u", BATCH));
    assertThat(hint("LATEST")).isEqualTo("1");
    assertThat(hint("EARLIEST")).isEqualTo("1");
    sm.tryCommit(snapshot(2, "u", BATCH));
    assertThat(hint("LATEST")).isEqualTo("2");
    assertThat(hint("EARLIEST")).isEqualTo("1");
  }

  @Test
  void aStaleLatestHintDoesNotHideNewerSnapshots() throws Exception {
    for (long id = 1; id <= 5; id++) {
      sm.tryCommit(snapshot(id, "u", BATCH));
    }
    // A committer that died between publishing and updating the hint leaves it behind.
    writeHint("LATEST", "2");
    assertThat(sm.latestId()).hasValue(5);
    assertThat(sm.latest().orElseThrow().id()).isEqualTo(5);
  }

  @Test
  void aLatestHintThatCannotBeUsedFallsBackToTheListing() throws Exception {
    for (long id = 1; id <= 3; id++) {
      sm.tryCommit(snapshot(id, "u", BATCH));
    }
    for (String content : List.of("garbage", "", "99", "-1")) {
      writeHint("LATEST", content);
      assertThat(sm.latestId()).as("LATEST = '%s'", content).hasValue(3);
    }
    Files.delete(snapshotDir().resolve("LATEST"));
    assertThat(sm.latestId()).hasValue(3);
  }

  @Test
  void aLatestHintNamingAnExpiredSnapshotFallsBackToTheListing() throws Exception {
    for (long id = 1; id <= 3; id++) {
      sm.tryCommit(snapshot(id, "u", BATCH));
    }
    writeHint("LATEST", "1");
    Files.delete(snapshotFile(1));
    assertThat(sm.latestId()).hasValue(3);
    assertThat(sm.earliestId()).hasValue(2);
  }

  @Test
  void hintsWithoutSnapshotsMeanNothing() throws Exception {
    Files.createDirectories(snapshotDir());
    writeHint("LATEST", "4");
    writeHint("EARLIEST", "1");
    assertThat(sm.latestId()).isEmpty();
    assertThat(sm.earliestId()).isEmpty();
  }

  // ---- exclusive publish ----------------------------------------------------------------------

  @Test
  void aSnapshotIdIsTakenOnlyOnce() throws Exception {
    Snapshot first = snapshot(1, "first", BATCH);
    Snapshot second = snapshot(1, "second", BATCH);
    assertThat(sm.tryCommit(first)).isTrue();
    assertThat(sm.tryCommit(second)).isFalse();
    assertThat(sm.snapshot(1)).isEqualTo(first);
    assertThat(snapshotDirNames()).containsExactlyInAnyOrder("snapshot-1", "LATEST", "EARLIEST");
  }

  @Test
  void ofCommittersRacingForOneIdExactlyOneWins() throws Exception {
    int racers = 4;
    pool = Executors.newFixedThreadPool(racers);
    for (long id = 1; id <= 20; id++) {
      CyclicBarrier start = new CyclicBarrier(racers);
      List<Future<Boolean>> results = new ArrayList<>();
      for (int r = 0; r < racers; r++) {
        Snapshot s = snapshot(id, "racer-" + r, BATCH);
        Callable<Boolean> commit =
            () -> {
              start.await();
              return sm.tryCommit(s);
            };
        results.add(pool.submit(commit));
      }
      List<String> winners = new ArrayList<>();
      for (int r = 0; r < racers; r++) {
        if (results.get(r).get()) {
          winners.add("racer-" + r);
        }
      }
      assertThat(winners).as("winners of snapshot %s", id).hasSize(1);
      assertThat(sm.snapshot(id).commitUser()).isEqualTo(winners.get(0));
    }
    assertThat(sm.listIds()).hasSize(20);
    assertThat(snapshotDirNames()).noneMatch(n -> n.endsWith(".tmp"));
  }

  // ---- user hints -----------------------------------------------------------------------------

  @Test
  void aStreamCommitLeavesItsUsersHintAndABatchCommitDoesNot() throws Exception {
    sm.tryCommit(snapshot(1, "batch-user", BATCH));
    sm.tryCommit(snapshot(2, "stream-user", 7));

    assertThat(sm.readUserHint("batch-user")).isEmpty();
    assertThat(sm.readUserHint("stream-user"))
        .hasValue(new UserCommit("stream-user", 2, 7, CommitKind.APPEND));
    assertThat(SnapshotManager.isStreamCommit(sm.snapshot(1))).isFalse();
    assertThat(SnapshotManager.isStreamCommit(sm.snapshot(2))).isTrue();
  }

  @Test
  void userHintFileNamesAreEscapedAndLongNamesStayDistinct() throws Exception {
    Path escaped = sm.userHintPath("job/1:a");
    assertThat(escaped.getName()).isEqualTo("user-job%2F1%3Aa");
    assertThat(escaped.getParent().getName()).isEqualTo("snapshot");

    String prefix = "x".repeat(300);
    Path a = sm.userHintPath(prefix + "a");
    Path b = sm.userHintPath(prefix + "b");
    assertThat(a.getName().length()).isLessThan(255);
    assertThat(a).isNotEqualTo(b);

    sm.writeUserHint(new UserCommit(prefix + "a", 3, 30, CommitKind.COMPACT));
    sm.writeUserHint(new UserCommit(prefix + "b", 4, 40, CommitKind.APPEND));
    assertThat(sm.readUserHint(prefix + "a").orElseThrow().snapshotId()).isEqualTo(3);
    assertThat(sm.readUserHint(prefix + "b").orElseThrow().snapshotId()).isEqualTo(4);
  }

  @Test
  void aUserHintNamingAnotherUserIsAnErrorNamingTheFile() throws Exception {
    Files.createDirectories(snapshotDir());
    Path p = sm.userHintPath("alice");
    Files.writeString(
        snapshotDir().resolve(p.getName()),
        new UserCommit("bob", 1, 1, CommitKind.APPEND).toJson());
    assertThatThrownBy(() -> sm.readUserHint("alice"))
        .isInstanceOf(InvalidMetadataFileException.class)
        .hasMessageContaining(p.toString())
        .hasMessageContaining("names commit user bob");
  }

  @Test
  void theLatestCommitOfAUserIsFoundFromTheSnapshotsWithTheHintAsAShortcut() throws Exception {
    sm.tryCommit(snapshot(1, "job", 1));
    sm.tryCommit(snapshot(2, "other", 1));
    sm.tryCommit(snapshot(3, "job", 2));
    sm.tryCommit(snapshot(4, "job", BATCH)); // batch commits do not count
    sm.tryCommit(snapshot(5, "other", 2));

    UserCommit third = new UserCommit("job", 3, 2, CommitKind.APPEND);
    assertThat(sm.latestCommitOfUser("job", Optional.empty())).hasValue(third);
    // A hint that is behind (the writer died before updating it) does not hide snapshot 3.
    UserCommit behind = new UserCommit("job", 1, 1, CommitKind.APPEND);
    assertThat(sm.latestCommitOfUser("job", Optional.of(behind))).hasValue(third);
    // A hint from another history (above the latest snapshot) is ignored.
    UserCommit ahead = new UserCommit("job", 9, 9, CommitKind.APPEND);
    assertThat(sm.latestCommitOfUser("job", Optional.of(ahead))).hasValue(third);
    assertThat(sm.latestCommitOfUser("nobody", Optional.empty())).isEmpty();
  }

  @Test
  void aUserHintOutlivesTheExpiryOfItsSnapshot() throws Exception {
    sm.tryCommit(snapshot(1, "job", 1));
    sm.tryCommit(snapshot(2, "other", 1));
    sm.tryCommit(snapshot(3, "other", 2));
    Files.delete(snapshotFile(1));

    UserCommit hint = sm.readUserHint("job").orElseThrow();
    assertThat(hint).isEqualTo(new UserCommit("job", 1, 1, CommitKind.APPEND));
    assertThat(sm.latestCommitOfUser("job", Optional.of(hint))).hasValue(hint);
    // Without the hint the expired commit cannot be found; the search reads it again from disk.
    assertThat(sm.latestCommitOfUser("job", Optional.empty())).hasValue(hint);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static Snapshot snapshot(long id, String user, long identifier) {
    return new Snapshot(
        1,
        id,
        0,
        "manifest-list-base-" + id,
        "manifest-list-delta-" + id,
        null,
        user,
        identifier,
        CommitKind.APPEND,
        1_700_000_000_000L + id,
        id * 10,
        10,
        id);
  }

  private java.nio.file.Path snapshotDir() {
    return dir.resolve("snapshot");
  }

  private java.nio.file.Path snapshotFile(long id) {
    return snapshotDir().resolve("snapshot-" + id);
  }

  private String hint(String name) throws Exception {
    return Files.readString(snapshotDir().resolve(name)).trim();
  }

  private void writeHint(String name, String content) throws Exception {
    Files.writeString(snapshotDir().resolve(name), content);
  }

  private List<String> snapshotDirNames() throws Exception {
    try (Stream<java.nio.file.Path> files = Files.list(snapshotDir())) {
      return files.map(f -> f.getFileName().toString()).toList();
    }
  }
}
