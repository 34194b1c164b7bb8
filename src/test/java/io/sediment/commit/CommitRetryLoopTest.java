package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.fs.FileIO;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.TablePaths;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.core.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The race for the next snapshot id, lost on purpose: a rival committer takes the id right before
 * each of the first attempts publishes (through the real exclusive create), so every retry, clean
 * up and give-up path runs deterministically in-process, where two real committers would rarely
 * collide.
 */
class CommitRetryLoopTest {

  @TempDir java.nio.file.Path dir;

  private SnapshotManager snapshots;
  private FileIO fileIO;
  private TablePaths paths;

  /** What each attempt was built on ({@code -1}: no snapshot yet), in order. */
  private final List<Long> builtOn = new ArrayList<>();

  /** The attempts (by their base manifest list) whose files were cleaned up, in order. */
  private final List<String> cleanedUp = new ArrayList<>();

  @BeforeEach
  void setUp() {
    Path root = new Path(dir.toUri());
    fileIO = FileIO.of(root);
    paths = new TablePaths(root);
    snapshots = new SnapshotManager(fileIO, paths);
  }

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  static Stream<Arguments> lostRacesWithinTheRetries() {
    return Stream.of(0, 1, 3, 10)
        .flatMap(
            max ->
                Stream.iterate(0, lost -> lost <= max, lost -> lost + 1)
                    .map(lost -> Arguments.of(max, lost)));
  }

  @ParameterizedTest(name = "commit.max-retries {0}, {1} races lost")
  @MethodSource("lostRacesWithinTheRetries")
  void aCommitThatLosesRacesRetriesOnTopOfEachWinnerAndLands(int maxRetries, int lost)
      throws IOException {
    CommitRetryLoop loop = loop(rivalTakesTheIdOfTheFirst(lost), maxRetries);

    SnapshotAttempt landed = loop.run("the test's commit", this::attempt).orElseThrow();

    assertThat(landed.snapshot().id()).as("after %s rival snapshots", lost).isEqualTo(lost + 1);
    assertThat(snapshots.snapshot(lost + 1).commitUser()).isEqualTo("us");
    assertThat(snapshots.latestForCommit())
        .hasValueSatisfying(s -> assertThat(s.id()).isEqualTo(lost + 1));
    List<Long> expectedBases = new ArrayList<>();
    List<String> expectedCleanups = new ArrayList<>();
    for (long i = 0; i <= lost; i++) {
      expectedBases.add(i == 0 ? -1 : i); // each retry builds on the rival that won the last race
      if (i < lost) {
        expectedCleanups.add("attempt-" + i);
      }
    }
    assertThat(builtOn).isEqualTo(expectedBases);
    assertThat(cleanedUp)
        .as("every lost attempt, once; never the landed one")
        .isEqualTo(expectedCleanups);
  }

  @ParameterizedTest(name = "commit.max-retries {0}")
  @MethodSource("maxRetries")
  void aCommitThatLosesEveryRaceGivesUpAfterItsRetriesAndCleansUpEveryAttempt(int maxRetries)
      throws IOException {
    CommitRetryLoop loop = loop(rivalTakesTheIdOfTheFirst(Integer.MAX_VALUE), maxRetries);

    assertThatThrownBy(() -> loop.run("the test's commit", this::attempt))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Gave up committing the test's commit after "
                + (maxRetries + 1)
                + " attempts: other committers kept taking the next snapshot id");
    assertThat(builtOn).hasSize(maxRetries + 1);
    assertThat(cleanedUp).hasSize(maxRetries + 1).doesNotHaveDuplicates();
    assertThat(snapshots.listIds()).as("only the rivals' snapshots").hasSize(maxRetries + 1);
    for (long id : snapshots.listIds()) {
      assertThat(snapshots.snapshot(id).commitUser()).isEqualTo("rival");
    }
  }

  /**
   * While an attempt waits to publish (for the lock, say), rivals publish its id and later ones,
   * and an expiry retires the oldest of them, its id among them: the id is free again. The attempt
   * must not publish into it (its rows would be in no later snapshot, under an id from the past):
   * it builds again on the latest and lands above every rival. Generated: how many rivals land and
   * how many snapshots the expiry retires (oldest first, never the latest), the table empty or not.
   */
  @ParameterizedTest(name = "{0} before, {1} rivals, {2} retired")
  @MethodSource("rivalsThenExpiry")
  void anIdTakenAndExpiredWhileTheAttemptWaitedIsNotPublishedAgain(
      int before, int rivals, int retired) throws IOException {
    for (long id = 1; id <= before; id++) {
      assertThat(snapshots.tryCommit(rival(id))).isTrue();
    }
    SnapshotCommit real = new ExclusiveCreateSnapshotCommit(snapshots, fileIO);
    boolean[] first = {true};
    SnapshotCommit rivalsThenExpiry =
        publishing(
            (snapshot, fence) -> {
              if (first[0]) {
                first[0] = false;
                for (long id = snapshot.id(); id < snapshot.id() + rivals; id++) {
                  assertThat(snapshots.tryCommit(rival(id))).isTrue();
                }
                List<Long> ids = snapshots.listIds();
                for (long id : ids.subList(0, retired)) { // oldest first, never the latest
                  fileIO.deleteQuietly(paths.snapshot(id));
                }
              }
              return real.tryPublish(snapshot, fence);
            });

    SnapshotAttempt landed = loop(rivalsThenExpiry, 3).run("c", this::attempt).orElseThrow();

    long expected = before + rivals + 1;
    assertThat(landed.snapshot().id()).isEqualTo(expected);
    assertThat(snapshots.listIds()).last().isEqualTo(expected);
    assertThat(snapshots.snapshot(expected).commitUser()).isEqualTo("us");
    for (long id : snapshots.listIds()) {
      if (id != expected) {
        assertThat(snapshots.snapshot(id).commitUser()).as("snapshot %s", id).isEqualTo("rival");
      }
    }
    assertThat(cleanedUp).containsExactly("attempt-0");
    assertThat(builtOn)
        .as("the retry built on the latest")
        .containsExactly(before == 0 ? -1L : before, (long) before + rivals);
  }

  static Stream<Arguments> rivalsThenExpiry() {
    return Stream.of(0, 1, 3)
        .flatMap(
            before ->
                // two rivals at least: expiry never retires the latest, so one rival leaves the
                // attempt's id taken
                Stream.of(2, 3, 4)
                    .flatMap(
                        rivals ->
                            Stream.iterate(1, r -> r < before + rivals, r -> r + 1)
                                .filter(r -> r > before) // the attempt's own id retired
                                .map(r -> Arguments.of(before, rivals, r))));
  }

  static Stream<Integer> maxRetries() {
    return Stream.of(0, 1, 4);
  }

  @Test
  void nothingToCommitPublishesNothing() throws IOException {
    CommitRetryLoop loop = loop(rivalTakesTheIdOfTheFirst(0), 3);

    assertThat(loop.run("nothing", latest -> null)).isEmpty();
    assertThat(snapshots.listIds()).isEmpty();
  }

  @Test
  void aPublishThatFailsAfterItsSnapshotLandedIsALandedCommit() throws IOException {
    SnapshotCommit landsThenFails =
        publishing(
            (snapshot, fence) -> {
              fileIO.tryCreateExclusive(
                  paths.snapshot(snapshot.id()),
                  snapshot.toJson().getBytes(StandardCharsets.UTF_8));
              throw new IOException("the reply to the rename was lost");
            });

    SnapshotAttempt landed = loop(landsThenFails, 3).run("c", this::attempt).orElseThrow();

    assertThat(landed.snapshot().id()).isEqualTo(1);
    assertThat(cleanedUp).as("a landed commit keeps its files").isEmpty();
    assertThat(snapshots.latestForCommit())
        .as("the hints name it")
        .hasValueSatisfying(s -> assertThat(s.commitUser()).isEqualTo("us"));
  }

  @Test
  void aPublishThatFailsWithoutLandingCleansUpAndThrowsItsError() {
    IOException error = new IOException("the file system said no");
    SnapshotCommit fails = failing(snapshot -> error);

    assertThatThrownBy(() -> loop(fails, 3).run("c", this::attempt)).isSameAs(error);
    assertThat(cleanedUp).containsExactly("attempt-0");
    assertThat(builtOn).as("an error is not a lost race: no retry").hasSize(1);
  }

  @Test
  void aPublishThatFailsWhileARivalTookTheIdCleansUpAndThrowsItsError() {
    IOException error = new IOException("the file system said no");
    SnapshotCommit rivalThenFail =
        failing(
            snapshot -> {
              snapshots.tryCommit(rival(snapshot.id()));
              return error;
            });

    assertThatThrownBy(() -> loop(rivalThenFail, 3).run("c", this::attempt)).isSameAs(error);
    assertThat(cleanedUp).containsExactly("attempt-0");
  }

  @Test
  void aPublishWhoseOutcomeCannotBeToldKeepsTheAttemptsFiles() {
    IOException error = new IOException("the reply was lost");
    SnapshotCommit unreadable =
        failing(
            snapshot -> {
              // a file with the id that is no snapshot: whether ours landed cannot be told
              fileIO.tryCreateExclusive(
                  paths.snapshot(snapshot.id()), "{".getBytes(StandardCharsets.UTF_8));
              return error;
            });

    assertThatThrownBy(() -> loop(unreadable, 3).run("c", this::attempt))
        .isInstanceOf(CommitOutcomeUnknownException.class)
        .hasMessage("Could not tell whether snapshot 1 was published")
        .hasCause(error);
    assertThat(cleanedUp).as("the commit may have landed: its files stay").isEmpty();
  }

  @Test
  void anOutcomeUnknownUnderTheLockKeepsTheAttemptsFiles() {
    CommitOutcomeUnknownException unknown =
        new CommitOutcomeUnknownException("claimed under the lock", new IOException("x"));
    SnapshotCommit claimed =
        publishing(
            (snapshot, fence) -> {
              throw unknown;
            });

    assertThatThrownBy(() -> loop(claimed, 3).run("c", this::attempt)).isSameAs(unknown);
    assertThat(cleanedUp).isEmpty();
  }

  @Test
  void aSnapshotReferencingAFileDeletedMeanwhileIsNotPublished() throws IOException {
    java.nio.file.Path data = Files.writeString(dir.resolve("data-1.parquet"), "rows");
    java.nio.file.Path gone = dir.resolve("data-2.parquet");
    CommitRetryLoop loop = loop(new ExclusiveCreateSnapshotCommit(snapshots, fileIO), 3);

    assertThatThrownBy(
            () ->
                loop.run(
                    "c",
                    latest ->
                        attempt(latest, List.of(new Path(data.toUri()), new Path(gone.toUri())))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Refusing to publish snapshot 1: files it references are missing")
        .hasMessageContaining("data-2.parquet")
        .hasMessageNotContaining("data-1.parquet");
    assertThat(snapshots.listIds()).isEmpty();
    assertThat(cleanedUp).containsExactly("attempt-0");
  }

  @Test
  void theBackOffDoublesPerLostRaceUpToItsCap() {
    List<Long> bounds = new ArrayList<>();
    for (int attempt = 0; attempt < 10; attempt++) {
      bounds.add(CommitRetryLoop.backOffBound(attempt));
    }
    assertThat(bounds).containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 200L, 200L, 200L);
    assertThat(CommitRetryLoop.backOffBound(Integer.MAX_VALUE)).isEqualTo(200L);
  }

  /**
   * Repeated: the back-off's draw is random, and a draw of 0 ms once let an interrupted committer
   * go on to the next attempt (a third of the draws after the first lost race).
   */
  @RepeatedTest(50)
  void anInterruptDuringTheBackOffCommitsNothing() {
    SnapshotCommit losing = rivalTakesTheIdOfTheFirst(1);
    SnapshotCommit interruptedAfterLosing =
        publishing(
            (snapshot, fence) -> {
              boolean published = losing.tryPublish(snapshot, fence);
              Thread.currentThread().interrupt(); // the job is cancelled as the race is lost
              return published;
            });
    CommitRetryLoop loop = loop(interruptedAfterLosing, 3);

    assertThatThrownBy(() -> loop.run("c", this::attempt))
        .isInstanceOf(InterruptedIOException.class)
        .hasMessage("Interrupted while waiting to retry a commit; nothing was committed");
    assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
    assertThat(cleanedUp).containsExactly("attempt-0");
    assertThat(snapshots.listIds()).as("only the rival's").containsExactly(1L);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private CommitRetryLoop loop(SnapshotCommit commit, int maxRetries) {
    return new CommitRetryLoop(snapshots, commit, fileIO, maxRetries);
  }

  /** The real exclusive create, where a rival commits the same id first in the first attempts. */
  private SnapshotCommit rivalTakesTheIdOfTheFirst(int attempts) {
    SnapshotCommit real = new ExclusiveCreateSnapshotCommit(snapshots, fileIO);
    int[] publishes = {0};
    return publishing(
        (snapshot, fence) -> {
          if (publishes[0]++ < attempts) {
            assertThat(snapshots.tryCommit(rival(snapshot.id()))).isTrue();
          }
          return real.tryPublish(snapshot, fence);
        });
  }

  /** A commit whose publish throws the error {@code what} returns (after what it does). */
  private static SnapshotCommit failing(PublishAction what) {
    return publishing(
        (snapshot, fence) -> {
          throw what.run(snapshot);
        });
  }

  /** A commit that publishes as {@code publish} says; the loop never creates other files. */
  private static SnapshotCommit publishing(Publish publish) {
    return new SnapshotCommit() {
      @Override
      public boolean tryPublish(Snapshot snapshot, FileIO.PublishFence fence) throws IOException {
        return publish.tryPublish(snapshot, fence);
      }

      @Override
      public boolean tryCreate(Path file, byte[] content) {
        throw new UnsupportedOperationException();
      }
    };
  }

  @FunctionalInterface
  private interface Publish {
    boolean tryPublish(Snapshot snapshot, FileIO.PublishFence fence) throws IOException;
  }

  @FunctionalInterface
  private interface PublishAction {
    IOException run(Snapshot snapshot) throws IOException;
  }

  private SnapshotAttempt attempt(Optional<Snapshot> latest) {
    return attempt(latest, List.of());
  }

  /** Our attempt on top of {@code latest}; its cleanup is recorded. */
  private SnapshotAttempt attempt(Optional<Snapshot> latest, List<Path> added) {
    long base = latest.map(Snapshot::id).orElse(-1L);
    String name = "attempt-" + builtOn.size();
    builtOn.add(base);
    return new SnapshotAttempt(
        snapshot(latest.map(s -> s.id() + 1).orElse(1L), "us", name),
        null,
        () -> cleanedUp.add(name),
        added);
  }

  private static Snapshot rival(long id) {
    return snapshot(id, "rival", "rival-" + id);
  }

  private static Snapshot snapshot(long id, String user, String baseManifestList) {
    return new Snapshot(
        1,
        id,
        0,
        baseManifestList,
        "delta-" + baseManifestList,
        null,
        user,
        id,
        CommitKind.APPEND,
        1_700_000_000_000L + id,
        id,
        1,
        id);
  }
}
