package io.sediment.flink;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The task enumerator's bookkeeping, free of Flink: which tasks are planned and not handed out
 * ({@code pending}), which are handed out and still hold their input files ({@code held}: until
 * released after their window was committed or aborted, or in bounded mode until their rewrite
 * ended), and which reader runs which task.
 *
 * <ul>
 *   <li>A file is in at most one pending or held task: {@link #addPlanned} refuses a task with a
 *       taken input, and {@link #excluded} gives the planner the taken files. A task's files are
 *       those it replaces: the key ranges of a bucket's sort compaction after the first read the
 *       bucket's files without taking them (sort compaction is bounded, planned once).
 *   <li>Released tasks' files can be planned again; tasks of a failed reader go back to the front
 *       of the pending queue ({@link #addBack}).
 *   <li>A bucket-exclusive task (a merge of sorted runs) is not handed out while another task of
 *       its bucket is held.
 *   <li>Replan requests (released files, a failed plan, a restore) are kept in an atomic flag: a
 *       request made while a planning round runs is seen by the next round.
 * </ul>
 *
 * <p>Not thread safe except {@link #excluded}, {@link #takenFiles}, {@link #requestReplan} and
 * {@link #takeReplanRequest}: everything else runs on the enumerator's coordinator thread; the
 * planning thread and metric gauges use only those.
 */
final class TaskLedger<T extends TaskLedger.Task> {

  /** What the ledger needs to know of a task. */
  interface Task {
    String splitId();

    /** Names of the task's input files. */
    Collection<String> inputFileNames();

    /** The bucket the task rewrites (table, partition, bucket). */
    String bucketKey();

    /** Whether no other task of the bucket may run beside this one. */
    boolean bucketExclusive();
  }

  private final ArrayDeque<T> pending = new ArrayDeque<>();
  private final Map<String, T> held = new LinkedHashMap<>();
  private final Set<String> restoredHeld = new HashSet<>();
  // Reader subtask -> the task it is rewriting (handed out; the reader has not asked again).
  private final Map<Integer, String> runningOn = new HashMap<>();
  // Read by the planning thread.
  private volatile Set<String> excluded = Set.of();
  private final AtomicBoolean replanRequested = new AtomicBoolean(true);

  /**
   * Restores the checkpointed tasks; restored held tasks stay held until {@link #releaseRestored}.
   */
  void restore(Collection<T> restoredPending, Collection<T> restoredHeldTasks) {
    pending.addAll(restoredPending);
    for (T t : restoredHeldTasks) {
      held.put(t.splitId(), t);
      restoredHeld.add(t.splitId());
    }
    updateExcluded();
  }

  /**
   * Adds planned tasks, in order, leaving out each one with an input in a pending or held task
   * (planned from a stale view of the taken files: it is planned again later). {@code toTask} makes
   * the ledger's task of a plan's task that is added (giving it the next id). Returns the tasks
   * added.
   */
  <P> List<T> addPlanned(
      Collection<P> planned, Function<P, Collection<String>> inputsOf, Function<P, T> toTask) {
    Set<String> taken = new HashSet<>(excluded);
    List<T> added = new ArrayList<>();
    for (P p : planned) {
      Collection<String> inputs = inputsOf.apply(p);
      boolean clash = false;
      for (String f : inputs) {
        if (taken.contains(f)) {
          clash = true;
          break;
        }
      }
      if (!clash) {
        taken.addAll(inputs);
        T task = toTask.apply(p);
        pending.add(task);
        added.add(task);
      }
    }
    if (!added.isEmpty()) {
      excluded = Set.copyOf(taken);
    }
    return added;
  }

  /**
   * The next pending task a reader may run (its bucket is free if it is exclusive), now held and
   * running on {@code reader}; null when none.
   */
  T assignNext(int reader) {
    Set<String> busyBuckets = new HashSet<>();
    for (T t : held.values()) {
      busyBuckets.add(t.bucketKey());
    }
    Iterator<T> it = pending.iterator();
    while (it.hasNext()) {
      T t = it.next();
      if (t.bucketExclusive() && busyBuckets.contains(t.bucketKey())) {
        continue;
      }
      it.remove();
      held.put(t.splitId(), t);
      runningOn.put(reader, t.splitId());
      return t;
    }
    return null;
  }

  /**
   * A reader asked for its next task, so its previous one was rewritten. Returns that task's id, or
   * null. The task stays held until {@link #release}d.
   */
  String readerFinished(int reader) {
    return runningOn.remove(reader);
  }

  /**
   * Releases finished tasks (their window was committed or aborted): their files can be planned
   * again. A non-empty release requests a replan, since the round that learnt of it planned with
   * the files still taken (and an aborted window makes no new snapshot to trigger one).
   */
  void release(Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return;
    }
    held.keySet().removeAll(taskIds);
    updateExcluded();
    requestReplan();
  }

  /**
   * Forgets the pending tasks and the held ones not running that {@code gone} says belong to a
   * table no longer there (dropped, or dropped and created again): no release record of theirs can
   * come, and their files and buckets would stay taken for good. Returns how many.
   */
  int forget(Predicate<T> gone) {
    Set<String> running = new HashSet<>(runningOn.values());
    int before = pending.size() + held.size();
    pending.removeIf(gone);
    held.values().removeIf(t -> gone.test(t) && !running.contains(t.splitId()));
    restoredHeld.retainAll(held.keySet());
    int n = before - pending.size() - held.size();
    if (n > 0) {
      updateExcluded();
    }
    return n;
  }

  /** Tasks of a failed reader that had not ended: handed out again first. */
  void addBack(Collection<T> tasks, int reader) {
    for (T t : tasks) {
      held.remove(t.splitId());
      pending.addFirst(t);
    }
    runningOn.remove(reader);
    updateExcluded();
  }

  /**
   * After readers restarted without the enumerator (a failover of their region): every held task
   * not running on a reader ended, either with the dead attempt (its outputs are deleted by the
   * restarted committer) or in a commit window the restarted committer restores and commits. Those
   * are released with the restored ones ({@link #releaseRestored}) once a checkpoint of the new
   * attempt completed. Returns how many were marked.
   */
  int endHeldTasksNotRunning() {
    Set<String> running = new HashSet<>(runningOn.values());
    int n = 0;
    for (String id : held.keySet()) {
      if (!running.contains(id) && restoredHeld.add(id)) {
        n++;
      }
    }
    return n;
  }

  /**
   * Releases the tasks held in the restored state, and those {@link #endHeldTasksNotRunning} marked
   * (every one of them has ended once a checkpoint of the new attempt completed). Returns how many.
   */
  int releaseRestored() {
    int n = restoredHeld.size();
    if (n > 0) {
      held.keySet().removeAll(restoredHeld);
      restoredHeld.clear();
      updateExcluded();
      requestReplan();
    }
    return n;
  }

  /** Input files of pending and held tasks, for the planner to leave out (any thread). */
  Set<String> excluded() {
    return excluded;
  }

  /** Asks the next planning round to plan every table, even without a new snapshot. */
  void requestReplan() {
    replanRequested.set(true);
  }

  /** Whether a replan was requested and not yet taken (any thread). */
  boolean hasReplanRequest() {
    return replanRequested.get();
  }

  /** Whether a replan was requested since the last call; clears the request atomically. */
  boolean takeReplanRequest() {
    return replanRequested.getAndSet(false);
  }

  boolean hasPending() {
    return !pending.isEmpty();
  }

  int pendingCount() {
    return pending.size();
  }

  int runningCount() {
    return runningOn.size();
  }

  /** The number of input files of pending and held tasks (any thread). */
  long takenFiles() {
    return excluded.size();
  }

  List<T> pendingTasks() {
    return new ArrayList<>(pending);
  }

  List<T> heldTasks() {
    return new ArrayList<>(held.values());
  }

  private void updateExcluded() {
    Set<String> names = new HashSet<>();
    for (T t : pending) {
      names.addAll(t.inputFileNames());
    }
    for (T t : held.values()) {
      names.addAll(t.inputFileNames());
    }
    excluded = Set.copyOf(names);
  }
}
