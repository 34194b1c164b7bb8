package io.sediment.flink;

import io.sediment.compact.CompactBudget;
import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactStrategy;
import io.sediment.compact.CompactTask;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.TableKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.marker.ReleaseRecords;
import io.sediment.schema.CompactionOptions;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
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
 * a followed table has a new snapshot or tasks finished; and, while tasks are out, looks for their
 * release every {@link #RELEASE_POLL_MILLIS} (at most the discovery interval) and re-plans as soon
 * as one is released: a bucket whose merge was just committed is planned again within a second, not
 * up to a discovery interval later (a primary-key bucket's next merge waits for the previous one's
 * commit, so that wait adds to every bucket's runs). Every continuous round waits until shortly
 * before the expected next checkpoint ({@link CheckpointAlignment}), since its output is committed
 * at that checkpoint either way. Input files of tasks that are pending or held (handed out, not
 * known finished) are passed to the planner as {@code excluded}, so no file is in two unfinished
 * tasks. The committer records finished tasks (after commit or abort) in release files ({@link
 * ReleaseRecords#take}); released tasks' files can be planned again. Merges of one bucket's sorted
 * runs never run at once. That bookkeeping is the {@link TaskLedger}'s.
 *
 * <p>Continuous mode hands out nothing until the first checkpoint of this attempt completes: by
 * then the committer has committed or aborted the restored windows and deleted outputs of dead
 * attempts, and every task held in the restored state has ended (readers and rewrite operators keep
 * no tasks in state; a rewrite running at the checkpoint was stopped with its attempt), so all
 * restored held tasks are released. The same holds after a failover of the readers' region, which
 * restarts readers and committer but not this enumerator (Flink resets a source coordinator only on
 * a global failover; a region failover only gives back the tasks handed out after the restored
 * checkpoint, through {@link #addSplitsBack}): the gate closes until a checkpoint taken after the
 * failover completes, so that no rewrite runs while the restarted committer deletes the outputs of
 * dead attempts, and then every held task that was not running releases. This relies on the
 * committer being in the same pipelined region as every reader (the rewrite-to-committer edge is
 * all-to-one and pipelined), so that any failover of a reader restarts the committer too.
 */
final class CompactTaskEnumerator
    implements SplitEnumerator<CompactTaskSplit, CompactEnumeratorState> {

  private static final Logger LOG = LoggerFactory.getLogger(CompactTaskEnumerator.class);

  /** How often a continuous job with tasks out looks for their release. */
  static final long RELEASE_POLL_MILLIS = 1_000;

  /**
   * The rewriting throughput a job's first rounds assume, before one was measured: a cold JVM's
   * (W5-PK-DV's first merges read about 4 MB a second, against 20-50 once compiled).
   */
  static final long COLD_REWRITE_BYTES_PER_SECOND = 4_000_000;

  private final SplitEnumeratorContext<CompactTaskSplit> context;
  private final CompactTargets targets;
  private final ExecutionMode mode;
  private final long discoveryIntervalMs;
  private String commitUser;

  private final TaskLedger<CompactTaskSplit> ledger = new TaskLedger<>();
  private final CheckpointAlignment alignment;
  private final Set<Integer> waitingReaders = new LinkedHashSet<>();
  private long nextId;
  private boolean planned;
  private boolean gateOpen;
  // The gate opens at the completion of a checkpoint after this one (taken after the restart).
  private long gateClosedAtCheckpoint = -1;
  private long lastCheckpointId = -1;
  // Eligible files the last plan of each table left out (worker thread writes, gauge reads).
  private final Map<String, Long> waitingByTable = new HashMap<>(); // worker thread only
  private volatile long waitingFiles;
  private final Map<String, Long> lastPlannedSnapshot = new HashMap<>(); // worker thread only
  // Append tables a round planned in the window before its last stretch (worker thread): their
  // groups of two small files qualify in the last stretch, so a round there plans them again even
  // without a new snapshot.
  private final Set<String> groupsDueInLastStretch = new HashSet<>();
  // when a table's round is full (worker thread only)
  private final FullCompactionTriggers fullTriggers = new FullCompactionTriggers();
  // when the last round that looked for new snapshots ran (worker thread only)
  private long lastDiscoveryMillis;

  private final Counter tasksPlanned;

  CompactTaskEnumerator(
      SplitEnumeratorContext<CompactTaskSplit> context,
      CompactTargets targets,
      ExecutionMode mode,
      long discoveryIntervalMs,
      String commitUser,
      CompactEnumeratorState restored) {
    this(context, targets, mode, discoveryIntervalMs, JobCheckpoints.UNKNOWN, commitUser, restored);
  }

  /**
   * {@code checkpoints}: the job's checkpoint settings (the interval not known: the rounds learn it
   * from two checkpoints).
   */
  CompactTaskEnumerator(
      SplitEnumeratorContext<CompactTaskSplit> context,
      CompactTargets targets,
      ExecutionMode mode,
      long discoveryIntervalMs,
      JobCheckpoints checkpoints,
      String commitUser,
      CompactEnumeratorState restored) {
    this.context = context;
    this.targets = targets;
    this.mode = mode;
    this.discoveryIntervalMs = discoveryIntervalMs;
    this.alignment =
        new CheckpointAlignment(
            roundPeriodMillis(),
            checkpoints,
            checkpoints.intervalMillis() > 0 ? COLD_REWRITE_BYTES_PER_SECOND : 0);
    this.commitUser = commitUser;
    this.gateOpen = mode.isBounded();
    if (restored != null) {
      ledger.restore(restored.pending(), restored.held());
      nextId = restored.nextId();
      if (restored.commitUser() != null) {
        this.commitUser = restored.commitUser();
      }
    }
    this.tasksPlanned = context.metricGroup().counter("tasksPlanned");
    context.metricGroup().gauge("tasksPending", ledger::pendingCount);
    context.metricGroup().gauge("tasksRunning", ledger::runningCount);
    context.metricGroup().gauge("backlog", this::backlogFiles);
    if (!mode.isBounded()) {
      context.metricGroup().gauge("handOverLeadMs", alignment::lastLeadMillis);
      context.metricGroup().gauge("rewriteMarginMs", alignment::lastMarginMillis);
      context.metricGroup().gauge("rewriteBytesPerSecond", alignment::bytesPerSecond);
      context.metricGroup().gauge("planningWindowMs", alignment::windowMillis);
    }
  }

  /**
   * Files waiting for compaction: inputs of pending tasks and of held tasks (streaming: until the
   * commit or abort of their window released them; batch: until their rewrite finished), plus the
   * eligible files the last plan left out (see {@link CompactPlanner.Plan}).
   */
  private long backlogFiles() {
    return waitingFiles + ledger.takenFiles();
  }

  @Override
  public void start() {
    if (mode.isBounded()) {
      context.callAsync(this::planRound, this::onPlanned);
    } else {
      // Flink's timer calls the rounds; whether a round discovers is decided on targets.clock().
      context.callAsync(this::planRound, this::onPlanned, 0, roundPeriodMillis());
    }
  }

  private long roundPeriodMillis() {
    return Math.min(discoveryIntervalMs, RELEASE_POLL_MILLIS);
  }

  /**
   * Whether a continuous job's round at {@code now} waits to plan nearer the next checkpoint
   * ({@link CheckpointAlignment}).
   */
  boolean roundWaits(long now) {
    return !mode.isBounded() && alignment.waits(now);
  }

  /** One planning round (worker thread): finished tasks and new tasks of every followed table. */
  private PlanRound planRound() throws Exception {
    long now = targets.clock().millis();
    if (roundWaits(now)) {
      return PlanRound.NONE; // its output would be committed at the same checkpoint as later
    }
    Set<String> excluded = ledger.excluded();
    // Until two checkpoints were seen every round discovers: rounds cannot aim at a checkpoint
    // yet, so a bucket is planned once it qualifies, not at a discovery that may fall just before
    // the checkpoint (a writer started with the job fills its buckets meanwhile).
    boolean discovery =
        mode.isBounded()
            || now - lastDiscoveryMillis >= discoveryIntervalMs
            || !alignment.intervalKnown();
    // the last stretch before the checkpoint (not the part a recent long lead added in front)
    boolean lastStretch = !mode.isBounded() && alignment.inLastStretch(now);
    boolean groupsDue = lastStretch && !groupsDueInLastStretch.isEmpty();
    if (!discovery && !groupsDue && excluded.isEmpty() && !ledger.hasReplanRequest()) {
      return PlanRound.NONE; // nothing out to be released: no I/O
    }
    long previousDiscovery = lastDiscoveryMillis;
    if (discovery) {
      lastDiscoveryMillis = now;
    }
    if (!targets.excludedFiles().isEmpty()) {
      // a later round of a batch run leaves alone the buckets its earlier rounds sorted
      Set<String> both = new HashSet<>(excluded);
      both.addAll(targets.excludedFiles());
      excluded = both;
    }
    // Atomic: a request made while this round runs is seen by the next one.
    boolean force = ledger.takeReplanRequest();
    List<String> released = new ArrayList<>();
    List<CompactTask> tasks = new ArrayList<>();
    // in the window before the expected checkpoint a round may be the last whose output it commits
    boolean inWindow = !mode.isBounded() && alignment.inWindow(now);
    boolean anyFull = false;
    List<String> names = targets.tableNames();
    Set<String> replaced = new HashSet<>();
    for (String name : names) {
      Long plannedBefore = lastPlannedSnapshot.get(name);
      FullCompactionTriggers.State triggersBefore = fullTriggers.state(name);
      try {
        Table table = targets.table(name);
        if (!mode.isBounded()) {
          List<String> r = ReleaseRecords.take(table.store(), commitUser);
          released.addAll(r);
          force |= !r.isEmpty();
        }
        boolean tableGroupsDue = groupsDue && groupsDueInLastStretch.remove(name);
        if (!discovery && !force && !tableGroupsDue) {
          continue; // between discoveries, a table is planned only when a task was released
        }
        Optional<Snapshot> latest = table.latestSnapshot();
        if (latest.isEmpty()) {
          continue;
        }
        Long last = lastPlannedSnapshot.get(name);
        if (last != null && latest.get().id() < last) {
          // Snapshot ids never go back: the table was dropped and created again under its name.
          LOG.info("{} was created again since its last round: planned as a new table", name);
          lastPlannedSnapshot.remove(name);
          fullTriggers.forget(name);
          plannedBefore = null;
          triggersBefore = null;
          replaced.add(name);
          last = null;
        }
        if (!mode.isBounded()
            && !force
            && !tableGroupsDue
            && last != null
            && last == latest.get().id()
            && !fullTriggers.optimizationDue(name, table, targets.clock().millis())
            && table.options().get(CompactionOptions.COMPACTION_TRIGGER_MAX_DELAY) == null) {
          continue; // nothing new; an age trigger fires without a new snapshot, so it is planned
        }
        lastPlannedSnapshot.put(name, latest.get().id());
        CompactStrategy strategy = targets.spec().strategy(table.options(), mode);
        boolean fullRound =
            !mode.isBounded()
                && fullTriggers.due(name, table, last, latest.get().id(), targets.clock().millis());
        if (fullRound) {
          strategy = CompactStrategy.FULL;
          anyFull = true;
        }
        FileStore store = table.store();
        if (strategy == CompactStrategy.MINOR
            && TableKind.of(store) == TableKind.APPEND
            && inWindow
            && !store
                .options()
                .toMap()
                .containsKey(CompactionOptions.COMPACTION_MIN_FILE_NUM.key())) {
          if (lastStretch) {
            store = lastRoundBeforeCommit(store);
          } else {
            groupsDueInLastStretch.add(name);
          }
        }
        CompactPlanner.Plan plan =
            targets
                .spec()
                .planner(store, table.fullName(), strategy)
                .planWithBacklog(latest.get(), targets.partitionFilter(), excluded);
        // a commit rewrites at most the budget: the rest is planned by a later round (or run)
        List<CompactTask> capped = CompactBudget.cap(plan.tasks(), targets.budget(name, table));
        if (fullRound && plan.blockedBuckets() == 0 && capped.size() == plan.tasks().size()) {
          // done only when no bucket was left out for files held by unfinished tasks (or by the
          // budget): else the next round is full again (the buckets written most often are the
          // ones usually held)
          fullTriggers.fullRoundDone(name, targets.clock().millis());
        }
        tasks.addAll(capped);
        long leftOut = 0;
        Set<CompactTask> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        taken.addAll(capped);
        for (CompactTask t : plan.tasks()) {
          leftOut += taken.contains(t) ? 0 : t.replacedInputs().size();
        }
        waitingByTable.put(name, plan.waitingFiles() + leftOut);
      } catch (Exception e) {
        if (mode.isBounded()) {
          throw e;
        }
        // One table's failure (dropped meanwhile, refused, an I/O error) does not stop the other
        // tables' rounds, nor drop the release records already taken for the round. Its state is
        // as before the round, so the next discovery plans it again; not every round (a table that
        // keeps failing would make every table be planned at every round).
        LOG.warn(
            "Planning compaction of {} failed; it is planned again at the next discovery", name, e);
        restore(lastPlannedSnapshot, name, plannedBefore);
        fullTriggers.restore(name, triggersBefore);
      }
    }
    waitingByTable.keySet().retainAll(names);
    lastPlannedSnapshot.keySet().retainAll(names); // a table dropped and created again starts anew
    fullTriggers.retainAll(names);
    groupsDueInLastStretch.retainAll(names); // a dropped table's would keep every round planning
    waitingFiles = waitingByTable.values().stream().mapToLong(Long::longValue).sum();
    long end = targets.clock().millis();
    long bytes = readBytes(tasks);
    // A full round hands over at once: its trigger was counted, not seen again.
    boolean handOver = mode.isBounded() || anyFull || alignment.handsOver(end, end - now, bytes);
    if (!handOver || (tasks.isEmpty() && inWindow && alignment.inWindow(end))) {
      // Not yet, or nothing yet: the next round plans again, with what a writer adds before the
      // checkpoint (a discovery stays due; a table whose tasks are dropped here is planned then
      // even without a new snapshot).
      lastDiscoveryMillis = previousDiscovery;
      if (!tasks.isEmpty() || force) {
        ledger.requestReplan();
      }
    }
    Set<String> followed = Set.copyOf(names);
    Set<String> gone = Set.copyOf(replaced);
    return new PlanRound(
        released,
        handOver ? tasks : List.of(),
        end - now,
        anyFull,
        t -> !followed.contains(t) || gone.contains(t));
  }

  private static <V> void restore(Map<String, V> state, String name, V before) {
    if (before == null) {
      state.remove(name);
    } else {
      state.put(name, before);
    }
  }

  /** What the tasks' rewrites read: their inputs, and the lookups their planner counted. */
  private static long readBytes(List<CompactTask> tasks) {
    long bytes = 0;
    for (CompactTask t : tasks) {
      bytes += t.readBytes();
    }
    return bytes;
  }

  /**
   * The store a minor round of an append table in the window before the expected checkpoint plans
   * with: compaction's time trigger fires for every group ({@code compaction.trigger.max-delay} of
   * 1 ms), so a bucket's group of two or more small files qualifies without {@code
   * compaction.min.file-num} files. A group left out now waits a whole interval more for its
   * commit; under a streaming writer a partition's files otherwise qualify only when the last file
   * of the count arrives, whenever that falls before the checkpoint, and the rounds that merge the
   * most bytes (size tiers filling up together) miss it. Not for primary-key buckets: moving every
   * level-0 run up each round adds a sorted run per round until universal compaction merges them.
   * Not when the table sets {@code compaction.min.file-num}: a count a user chose is waited for.
   */
  private static FileStore lastRoundBeforeCommit(FileStore store) {
    String key = CompactionOptions.COMPACTION_TRIGGER_MAX_DELAY.key();
    return store.withOptions(store.options().with(Map.of(key, "1 ms")));
  }

  /**
   * What a round found: released task ids, new tasks, how long it planned, whether it was full, and
   * the tables whose earlier tasks are void: not followed any more, or replaced (null: not known,
   * the round planned nothing).
   */
  private record PlanRound(
      List<String> released,
      List<CompactTask> tasks,
      long planMillis,
      boolean full,
      Predicate<String> voidTables) {
    static final PlanRound NONE = new PlanRound(List.of(), List.of(), 0, false, null);
  }

  private void onPlanned(PlanRound round, Throwable error) {
    if (error != null) {
      if (mode.isBounded()) {
        String message = "Planning compaction of " + targets + " failed";
        // a bad option or a refused table fails the job at once; an I/O error may be retried
        throw UnrecoverableCompactionError.unfixable(error)
            ? new UnrecoverableCompactionError(message, error)
            : new IllegalStateException(message, error);
      }
      LOG.warn("Planning compaction of {} failed; retrying at the next discovery", targets, error);
      ledger.requestReplan();
      return;
    }
    // This round planned with the released tasks' files still excluded (their buckets were left
    // alone): the ledger asks for another round with them free, even if no new snapshot appears
    // (an aborted window makes none).
    ledger.release(round.released());
    if (round.voidTables() != null) {
      int forgotten = ledger.forget(s -> round.voidTables().test(s.task().table()));
      if (forgotten > 0) {
        LOG.info("Forgot {} task(s) of tables dropped or created again", forgotten);
      }
    }
    List<CompactTaskSplit> splits =
        ledger.addPlanned(
            round.tasks(),
            CompactTaskSplit::inputFileNames,
            t -> new CompactTaskSplit(Long.toString(nextId++), t, commitUser));
    int added = splits.size();
    if (added > 0) {
      tasksPlanned.inc(added);
      if (mode.isBounded()) {
        LOG.info("Planned {} compaction task(s) for {}", added, targets);
      } else {
        List<CompactTask> tasks = splits.stream().map(CompactTaskSplit::task).toList();
        long bytes = readBytes(tasks);
        long lookups = tasks.stream().mapToLong(CompactTask::lookupBytes).sum();
        // a full round hands over at once, whatever its lead: it does not widen the window
        boolean mergesBuckets =
            !round.full()
                && splits.stream().anyMatch(s -> s.task().kind() == CompactTask.Kind.MERGE_TREE);
        alignment.roundPlanned(round.planMillis(), bytes, targets.clock().millis(), mergesBuckets);
        Long margin = alignment.lastMarginMillis();
        LOG.info(
            "Planned {} compaction task(s) reading {} bytes ({} of them lookups) for {} (lead {}"
                + " ms; {})",
            added,
            bytes,
            lookups,
            targets,
            alignment.lastLeadMillis(),
            margin == null
                ? "no rewrites ended yet"
                : "the last rewrites ended "
                    + margin
                    + " ms before the checkpoint after their start");
      }
    }
    planned = true;
    assignPending();
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    // A reader asks for the next task only after its previous one was rewritten (it waits for the
    // chained rewrite operator's slot to be free). In bounded mode nothing is re-planned, so the
    // finished task no longer needs to hold its files; in continuous mode it holds them until its
    // window is committed or aborted (release records).
    String finished = ledger.readerFinished(subtaskId);
    if (mode.isBounded() && finished != null) {
      ledger.release(List.of(finished));
    }
    waitingReaders.add(subtaskId);
    assignPending();
    if (ledger.runningCount() == 0 && !ledger.hasPending()) {
      alignment.readersIdle(targets.clock().millis());
    }
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
      CompactTaskSplit next = ledger.assignNext(reader);
      if (next != null) {
        context.assignSplit(next, reader);
        readers.remove();
      } else if (mode.isBounded() && planned && !ledger.hasPending()) {
        context.signalNoMoreSplits(reader);
        readers.remove();
      } else {
        break;
      }
    }
  }

  @Override
  public void addSplitsBack(List<CompactTaskSplit> splits, int subtaskId) {
    // A reader restarted (Flink calls this for every restarted subtask, also with no task): the
    // tasks handed out to it after the restored checkpoint produced no committed output.
    ledger.addBack(splits, subtaskId);
    if (!mode.isBounded()) {
      int ended = ledger.endHeldTasksNotRunning();
      if (gateOpen) {
        LOG.info(
            "Reader {} restarted: handing out tasks again after the next checkpoint ({} held"
                + " task(s) to release then)",
            subtaskId,
            ended);
      }
      gateOpen = false;
      gateClosedAtCheckpoint = lastCheckpointId;
    }
  }

  @Override
  public void addReader(int subtaskId) {}

  @Override
  public CompactEnumeratorState snapshotState(long checkpointId) {
    lastCheckpointId = Math.max(lastCheckpointId, checkpointId);
    alignment.checkpointTriggered(targets.clock().millis());
    return new CompactEnumeratorState(
        ledger.pendingTasks(), ledger.heldTasks(), nextId, commitUser);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    if (!gateOpen && checkpointId > gateClosedAtCheckpoint) {
      gateOpen = true;
      int released = ledger.releaseRestored();
      if (released > 0) {
        LOG.info("Releasing {} task(s) held before the restore", released);
      }
      assignPending();
    }
  }

  @Override
  public void close() {}
}
