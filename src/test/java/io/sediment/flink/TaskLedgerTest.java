package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The enumerator's bookkeeping, without Flink: what is handed out, held, released, replanned. */
class TaskLedgerTest {

  /** A task of the ledger: its files, its bucket, whether it excludes others in its bucket. */
  record Task(
      String splitId, List<String> inputFileNames, String bucketKey, boolean bucketExclusive)
      implements TaskLedger.Task {}

  private static Task append(String id, String bucket, String... files) {
    return new Task(id, List.of(files), bucket, false);
  }

  private static Task merge(String id, String bucket, String... files) {
    return new Task(id, List.of(files), bucket, true);
  }

  private static List<Task> plan(TaskLedger<Task> ledger, Task... tasks) {
    return ledger.addPlanned(List.of(tasks), Task::inputFileNames, Function.identity());
  }

  private static List<String> ids(Collection<Task> tasks) {
    List<String> ids = new ArrayList<>();
    tasks.forEach(t -> ids.add(t.splitId()));
    return ids;
  }

  @Test
  void aFileIsNeverHandedOutTwiceWhileHeld() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    assertThat(ids(plan(ledger, append("1", "b0", "f1", "f2")))).containsExactly("1");
    // Planned again from a stale view (the planner did not yet see task 1): refused.
    assertThat(plan(ledger, append("2", "b0", "f2", "f3"))).isEmpty();
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("1");
    assertThat(ledger.excluded()).containsExactlyInAnyOrder("f1", "f2");

    // The rewrite ended but its window is not committed: the files stay held.
    assertThat(ledger.readerFinished(0)).isEqualTo("1");
    assertThat(plan(ledger, append("3", "b0", "f1"))).isEmpty();
    assertThat(ledger.assignNext(0)).isNull();
    assertThat(ledger.excluded()).containsExactlyInAnyOrder("f1", "f2");
    // Within one plan, two tasks sharing a file: only the first is taken.
    assertThat(ids(plan(ledger, append("4", "b1", "g1"), append("5", "b1", "g1", "g2"))))
        .containsExactly("4");
  }

  /**
   * Tasks of a table that is gone are forgotten, pending or held, except one still running (its
   * reader ends it): their files and buckets are free, no release of theirs being able to come.
   */
  @Test
  void forgottenTasksFreeTheirFilesAndBucketsExceptARunningOne() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, merge("1", "gone/b0", "f1"), merge("2", "gone/b1", "f2"));
    plan(ledger, append("3", "gone/b2", "f3"), append("4", "kept/b0", "g1"));
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("1");
    ledger.readerFinished(0); // 1 held, not running
    assertThat(ledger.assignNext(1).splitId()).isEqualTo("2"); // 2 running on reader 1

    int n = ledger.forget(t -> t.bucketKey().startsWith("gone/"));

    assertThat(n).isEqualTo(2); // 1 (held) and 3 (pending)
    assertThat(ledger.excluded()).containsExactlyInAnyOrder("f2", "g1");
    assertThat(ids(ledger.pendingTasks())).containsExactly("4");
    assertThat(ids(ledger.heldTasks())).containsExactly("2");
    assertThat(ids(plan(ledger, merge("5", "gone/b0", "f1")))).containsExactly("5");
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("4");
    assertThat(ledger.assignNext(2).splitId()).as("bucket b0 is free again").isEqualTo("5");
  }

  @Test
  void releasedFilesCanBePlannedAgain() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, append("1", "b0", "f1", "f2"));
    ledger.assignNext(0);
    ledger.readerFinished(0);

    ledger.release(List.of("1"));

    assertThat(ledger.excluded()).isEmpty();
    assertThat(ledger.takenFiles()).isZero();
    assertThat(ids(plan(ledger, append("2", "b0", "f2", "f3")))).containsExactly("2");
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("2");
  }

  @Test
  void tasksOfAnAbortedWindowAreReleasedAndTheirFilesPlannedAgain() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, merge("1", "b0", "f1", "f2"));
    ledger.assignNext(0);
    ledger.readerFinished(0);
    ledger.takeReplanRequest();

    // The committer aborted the window: the release asks for a replan (no snapshot came).
    ledger.release(List.of("1"));

    assertThat(ledger.takeReplanRequest()).isTrue();
    assertThat(ids(plan(ledger, merge("2", "b0", "f1", "f2")))).containsExactly("2");
    assertThat(ledger.assignNext(1).splitId()).isEqualTo("2");
  }

  @Test
  void tasksOfAFailedReaderAreHandedOutAgainFirst() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, append("1", "b0", "f1"), append("2", "b1", "f2"), append("3", "b2", "f3"));
    Task first = ledger.assignNext(0);
    assertThat(ledger.runningCount()).isEqualTo(1);

    ledger.addBack(List.of(first), 0);

    assertThat(ledger.runningCount()).isZero();
    assertThat(ledger.heldTasks()).isEmpty();
    assertThat(ids(ledger.pendingTasks())).containsExactly("1", "2", "3");
    // Still taken while pending: not planned a second time.
    assertThat(plan(ledger, append("4", "b0", "f1"))).isEmpty();
    assertThat(ledger.assignNext(1).splitId()).isEqualTo("1");
  }

  @Test
  void oneBucketOfAPrimaryKeyTableNeverHasTwoRunningTasks() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(
        ledger,
        merge("1", "pk/p=1/0", "f1"),
        merge("2", "pk/p=1/0", "f2"),
        merge("3", "pk/p=1/1", "f3"));

    assertThat(ledger.assignNext(0).splitId()).isEqualTo("1");
    // Task 2 is in the busy bucket: task 3 of the other bucket goes first.
    assertThat(ledger.assignNext(1).splitId()).isEqualTo("3");
    assertThat(ledger.assignNext(2)).isNull();

    // Task 1's rewrite ended, but it holds its bucket until its window is released.
    ledger.readerFinished(0);
    assertThat(ledger.assignNext(0)).isNull();
    ledger.release(List.of("1"));
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("2");
  }

  @Test
  void appendRewritesOfOneBucketMayRunTogether() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, append("1", "t/p=1/0", "f1"), append("2", "t/p=1/0", "f2"));

    assertThat(ledger.assignNext(0).splitId()).isEqualTo("1");
    assertThat(ledger.assignNext(1).splitId()).isEqualTo("2");
  }

  @Test
  void restoredHeldTasksHoldTheirFilesUntilReleased() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    ledger.restore(List.of(append("2", "b1", "f2")), List.of(merge("1", "b0", "f1")));
    ledger.takeReplanRequest();

    assertThat(ledger.excluded()).containsExactlyInAnyOrder("f1", "f2");
    assertThat(plan(ledger, merge("3", "b0", "f1"))).isEmpty();

    assertThat(ledger.releaseRestored()).isEqualTo(1);
    assertThat(ledger.takeReplanRequest()).isTrue();
    assertThat(ledger.excluded()).containsExactly("f2");
    assertThat(ledger.releaseRestored()).isZero();
  }

  @Test
  void afterARegionFailoverEveryHeldTaskNotRunningReleasesWithTheRestored() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    plan(ledger, merge("1", "b0", "f1"), merge("2", "b1", "f2"), merge("3", "b2", "f3"));
    ledger.assignNext(0); // 1: rewrite finished, its window not committed when the region failed
    ledger.readerFinished(0);
    ledger.assignNext(0); // 2: rewriting on reader 0 when the region failed
    ledger.assignNext(1); // 3: rewriting on reader 1, handed out after the restored checkpoint
    ledger.takeReplanRequest();

    // Flink gives back what was handed out after the restored checkpoint, reader by reader.
    ledger.addBack(List.of(), 0);
    assertThat(ledger.endHeldTasksNotRunning())
        .as("1 and 2; 3 still runs on reader 1")
        .isEqualTo(2);
    ledger.addBack(List.of(merge("3", "b2", "f3")), 1);
    assertThat(ledger.endHeldTasksNotRunning()).isZero();
    assertThat(ledger.excluded()).containsExactlyInAnyOrder("f1", "f2", "f3");

    // Once a checkpoint of the restarted region completed: 1 and 2 release; 3 is handed out again.
    assertThat(ledger.releaseRestored()).isEqualTo(2);
    assertThat(ledger.takeReplanRequest()).isTrue();
    assertThat(ledger.excluded()).containsExactly("f3");
    assertThat(ledger.assignNext(0).splitId()).isEqualTo("3");
  }

  @Test
  void aReplanRequestIsTakenOnce() {
    TaskLedger<Task> ledger = new TaskLedger<>();
    assertThat(ledger.takeReplanRequest()).as("the first round plans everything").isTrue();
    assertThat(ledger.takeReplanRequest()).isFalse();
    ledger.requestReplan();
    ledger.requestReplan();
    assertThat(ledger.takeReplanRequest()).isTrue();
    assertThat(ledger.takeReplanRequest()).isFalse();
  }

  /**
   * A planning round takes the request on its worker thread while the coordinator may request again
   * at that moment. The requester requests, then waits until a round took a request; a lost request
   * (read by a round, then cleared after a new request arrived) is never taken.
   */
  @Test
  void replanRequestsAreNotLostWhenTheyRaceWithAReplan() throws Exception {
    TaskLedger<Task> ledger = new TaskLedger<>();
    ledger.takeReplanRequest();
    AtomicLong taken = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    Thread planner =
        new Thread(
            () -> {
              while (!stop.get()) {
                if (ledger.takeReplanRequest()) {
                  taken.incrementAndGet();
                }
              }
            });
    planner.start();
    try {
      for (int i = 0; i < 20_000; i++) {
        long before = taken.get();
        ledger.requestReplan();
        Awaitility.await()
            .pollInSameThread() // no thread per wait: 20,000 waits
            .pollDelay(0, TimeUnit.MILLISECONDS)
            .pollInterval(1, TimeUnit.MILLISECONDS)
            .atMost(10, TimeUnit.SECONDS)
            .until(() -> taken.get() > before);
      }
    } finally {
      stop.set(true);
      planner.join();
    }
  }
}
