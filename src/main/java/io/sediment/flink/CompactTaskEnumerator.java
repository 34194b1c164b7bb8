package io.sediment.flink;

import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactTask;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.metrics.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans compaction tasks with the shared {@link CompactPlanner} and hands them out one at a time to
 * readers that ask (pull-based, so uneven tasks balance).
 *
 * <p>Bounded: plans once, then signals the end. Continuous: re-plans every discovery interval when
 * a followed table has a new snapshot or tasks finished. Input files of tasks that are pending or
 * held (handed out, not known finished) are passed to the planner as {@code excluded}, so no file
 * is in two unfinished tasks. The committer records finished tasks (after commit or abort) in
 * release files ({@link CompactMarkers#takeReleases}); released tasks' files can be planned again.
 * Tasks of one bucket that are not append rewrites never run at once.
 *
 * <p>Continuous mode hands out nothing until the first checkpoint of this attempt completes: by
 * then the committer has committed or aborted the restored windows and deleted outputs of dead
 * attempts, and every task held in the restored state has ended (readers keep no tasks in state),
 * so all restored held tasks are released.
 */
final class CompactTaskEnumerator
    implements SplitEnumerator<CompactTaskSplit, CompactEnumeratorState> {

  private static final Logger LOG = LoggerFactory.getLogger(CompactTaskEnumerator.class);

  private final SplitEnumeratorContext<CompactTaskSplit> context;
  private final CompactTargets targets;
  private final boolean bounded;
  private final long discoveryIntervalMs;
  private String commitUser;

  private final ArrayDeque<CompactTaskSplit> pending = new ArrayDeque<>();
  private final Map<String, CompactTaskSplit> held = new LinkedHashMap<>();
  private final Set<Integer> waitingReaders = new LinkedHashSet<>();
  private long nextId;
  private boolean planned;
  private boolean gateOpen;
  private final Set<String> restoredHeld = new HashSet<>();
  // Reader subtask -> the task it is rewriting (handed out; the reader has not asked again).
  private final Map<Integer, String> runningOn = new HashMap<>();
  // Eligible files the last plan of each table left out (worker thread writes, gauge reads).
  private final Map<String, Long> waitingByTable = new HashMap<>(); // worker thread only
  private volatile long waitingFiles;

  // Planning runs on a worker thread; it reads these snapshots of the coordinator's state.
  private volatile Set<String> excludedSnapshot = Set.of();
  private volatile boolean forceReplan = true;
  private final Map<String, Long> lastPlannedSnapshot = new HashMap<>(); // worker thread only

  private final Counter tasksPlanned;

  CompactTaskEnumerator(
      SplitEnumeratorContext<CompactTaskSplit> context,
      CompactTargets targets,
      boolean bounded,
      long discoveryIntervalMs,
      String commitUser,
      CompactEnumeratorState restored) {
    this.context = context;
    this.targets = targets;
    this.bounded = bounded;
    this.discoveryIntervalMs = discoveryIntervalMs;
    this.commitUser = commitUser;
    this.gateOpen = bounded;
    if (restored != null) {
      pending.addAll(restored.pending());
      for (CompactTaskSplit s : restored.held()) {
        held.put(s.splitId(), s);
        restoredHeld.add(s.splitId());
      }
      nextId = restored.nextId();
      if (restored.commitUser() != null) {
        this.commitUser = restored.commitUser();
      }
    }
    this.tasksPlanned = context.metricGroup().counter("tasksPlanned");
    context.metricGroup().gauge("tasksPending", () -> pending.size());
    context.metricGroup().gauge("tasksRunning", () -> runningOn.size());
    context.metricGroup().gauge("backlog", this::backlogFiles);
    updateExcluded();
  }

  /**
   * Files waiting for compaction: inputs of pending tasks and of held tasks (streaming: until the
   * commit or abort of their window released them; batch: until their rewrite finished), plus the
   * eligible files the last plan left out (see {@link CompactPlanner.Plan}).
   */
  private long backlogFiles() {
    long n = waitingFiles;
    for (CompactTaskSplit s : pending) {
      n += s.task().inputs().size();
    }
    for (CompactTaskSplit s : held.values()) {
      n += s.task().inputs().size();
    }
    return n;
  }

  @Override
  public void start() {
    if (bounded) {
      context.callAsync(this::planRound, this::onPlanned);
    } else {
      context.callAsync(this::planRound, this::onPlanned, 0, discoveryIntervalMs);
    }
  }

  /** One planning round (worker thread): finished tasks and new tasks of every followed table. */
  private PlanRound planRound() throws Exception {
    Set<String> excluded = excludedSnapshot;
    boolean force = forceReplan;
    forceReplan = false;
    List<String> released = new ArrayList<>();
    List<CompactTask> tasks = new ArrayList<>();
    List<String> names = targets.tableNames();
    for (String name : names) {
      Table table = targets.table(name);
      if (!bounded) {
        List<String> r = CompactMarkers.takeReleases(table.store(), commitUser);
        released.addAll(r);
        force |= !r.isEmpty();
      }
      Optional<Snapshot> latest = table.latestSnapshot();
      if (latest.isEmpty()) {
        continue;
      }
      Long last = lastPlannedSnapshot.get(name);
      if (!bounded && !force && last != null && last == latest.get().id()) {
        continue;
      }
      lastPlannedSnapshot.put(name, latest.get().id());
      CompactPlanner.Plan plan =
          new CompactPlanner(table.store(), table.fullName())
              .planWithBacklog(latest.get(), targets.partitionFilter(), excluded);
      tasks.addAll(plan.tasks());
      waitingByTable.put(name, plan.waitingFiles());
    }
    waitingByTable.keySet().retainAll(names);
    waitingFiles = waitingByTable.values().stream().mapToLong(Long::longValue).sum();
    return new PlanRound(released, tasks);
  }

  private record PlanRound(List<String> released, List<CompactTask> tasks) {}

  private void onPlanned(PlanRound round, Throwable error) {
    if (error != null) {
      if (bounded) {
        throw new IllegalStateException("Planning compaction of " + targets + " failed", error);
      }
      LOG.warn("Planning compaction of {} failed; retrying at the next discovery", targets, error);
      forceReplan = true;
      return;
    }
    for (String id : round.released()) {
      held.remove(id);
    }
    if (!round.released().isEmpty()) {
      // This round planned with the released tasks' files still excluded (their buckets were
      // left alone); plan again with them free, even if no new snapshot appears (an aborted
      // window makes none).
      forceReplan = true;
    }
    Set<String> taken = inputNames();
    int added = 0;
    for (CompactTask t : round.tasks()) {
      boolean clash = false;
      for (DataFileMeta f : t.inputs()) {
        if (taken.contains(f.fileName())) {
          clash = true;
          break;
        }
      }
      if (clash) {
        continue; // planned from a stale view of the held files; planned again later
      }
      t.inputs().forEach(f -> taken.add(f.fileName()));
      pending.add(new CompactTaskSplit(Long.toString(nextId++), t, commitUser));
      added++;
    }
    if (added > 0) {
      tasksPlanned.inc(added);
      LOG.info("Planned {} compaction task(s) for {}", added, targets);
    }
    planned = true;
    updateExcluded();
    assignPending();
  }

  private Set<String> inputNames() {
    Set<String> names = new HashSet<>();
    for (CompactTaskSplit s : pending) {
      s.task().inputs().forEach(f -> names.add(f.fileName()));
    }
    for (CompactTaskSplit s : held.values()) {
      s.task().inputs().forEach(f -> names.add(f.fileName()));
    }
    return names;
  }

  private void updateExcluded() {
    excludedSnapshot = Set.copyOf(inputNames());
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    // A reader asks for the next task only after its previous one was rewritten (the rewrite is
    // chained and synchronous). In bounded mode nothing is re-planned, so the finished task no
    // longer needs to hold its files; in continuous mode it holds them until its window is
    // committed or aborted (release records).
    String finished = runningOn.remove(subtaskId);
    if (bounded && finished != null) {
      held.remove(finished);
    }
    waitingReaders.add(subtaskId);
    assignPending();
  }

  private void assignPending() {
    if (!gateOpen) {
      return;
    }
    Iterator<Integer> readers = waitingReaders.iterator();
    while (readers.hasNext()) {
      int reader = readers.next();
      if (!context.registeredReaders().containsKey(reader)) {
        readers.remove();
        continue;
      }
      CompactTaskSplit next = nextAssignable();
      if (next != null) {
        held.put(next.splitId(), next);
        runningOn.put(reader, next.splitId());
        context.assignSplit(next, reader);
        readers.remove();
      } else if (bounded && planned && pending.isEmpty()) {
        context.signalNoMoreSplits(reader);
        readers.remove();
      } else {
        break;
      }
    }
  }

  private CompactTaskSplit nextAssignable() {
    Set<String> busyBuckets = new HashSet<>();
    for (CompactTaskSplit s : held.values()) {
      busyBuckets.add(s.bucketKey());
    }
    Iterator<CompactTaskSplit> it = pending.iterator();
    while (it.hasNext()) {
      CompactTaskSplit s = it.next();
      if (s.bucketExclusive() && busyBuckets.contains(s.bucketKey())) {
        continue;
      }
      it.remove();
      return s;
    }
    return null;
  }

  @Override
  public void addSplitsBack(List<CompactTaskSplit> splits, int subtaskId) {
    // Tasks of a failed reader that had not ended; they produced no committed output.
    for (CompactTaskSplit s : splits) {
      held.remove(s.splitId());
      pending.addFirst(s);
    }
    runningOn.remove(subtaskId);
    updateExcluded();
  }

  @Override
  public void addReader(int subtaskId) {}

  @Override
  public CompactEnumeratorState snapshotState(long checkpointId) {
    return new CompactEnumeratorState(
        new ArrayList<>(pending), new ArrayList<>(held.values()), nextId, commitUser);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (!gateOpen) {
      gateOpen = true;
      if (!restoredHeld.isEmpty()) {
        LOG.info("Releasing {} task(s) held before the restore", restoredHeld.size());
        held.keySet().removeAll(restoredHeld);
        restoredHeld.clear();
        forceReplan = true;
        updateExcluded();
      }
      assignPending();
    }
  }

  @Override
  public void close() {}
}
