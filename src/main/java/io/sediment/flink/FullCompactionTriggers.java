package io.sediment.flink;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.CompactionOptions;
import io.sediment.table.Table;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a continuous compaction job's round of a table is a full compaction ({@code
 * full-compaction.delta-commits}, {@code compaction.optimization-interval}): per table, the delta
 * commits counted since its last full round and when that round was. Kept by the task enumerator's
 * planning thread only.
 */
final class FullCompactionTriggers {

  private static final Logger LOG = LoggerFactory.getLogger(FullCompactionTriggers.class);

  /** A table's state: delta commits since its last full round, and when that round ended. */
  record State(Integer deltaCommits, Long lastFullMillis) {}

  // delta commits since the last full round, per table
  private final Map<String, Integer> deltaCommits = new HashMap<>();
  // when the last full round of a table ended, or the job first looked at it
  private final Map<String, Long> lastFullMillis = new HashMap<>();

  /** The table's state, to {@link #restore} after a round of it failed. */
  State state(String name) {
    return new State(deltaCommits.get(name), lastFullMillis.get(name));
  }

  /** Back to {@code before} (null: none, as for a table never seen). */
  void restore(String name, State before) {
    forget(name);
    if (before != null && before.deltaCommits() != null) {
      deltaCommits.put(name, before.deltaCommits());
    }
    if (before != null && before.lastFullMillis() != null) {
      lastFullMillis.put(name, before.lastFullMillis());
    }
  }

  /** A table not followed any more, or created again under its name. */
  void forget(String name) {
    deltaCommits.remove(name);
    lastFullMillis.remove(name);
  }

  void retainAll(Collection<String> names) {
    deltaCommits.keySet().retainAll(names);
    lastFullMillis.keySet().retainAll(names);
  }

  /** A full round of the table planned everything at {@code now}: the counts start again. */
  void fullRoundDone(String name, long now) {
    deltaCommits.put(name, 0);
    lastFullMillis.put(name, now);
  }

  /**
   * Whether a snapshot is a delta commit: not a compaction, and not an empty APPEND (a streaming
   * writer's snapshot for automatic tags, made while no row came). {@code previous}: the snapshot
   * before it, if it exists.
   */
  private static boolean wroteRows(Snapshot s, Optional<Snapshot> previous) {
    if (s.commitKind() == CommitKind.COMPACT) {
      return false;
    }
    if (s.commitKind() != CommitKind.APPEND || s.deltaRecordCount() != 0) {
      return true;
    }
    // No net rows: an empty APPEND adds no file; deletes alone, or rows that cancel out, do.
    return previous.isEmpty() || previous.get().totalFileCount() != s.totalFileCount();
  }

  /**
   * Whether this round of a continuous job is a full compaction of {@code table}: {@code
   * full-compaction.delta-commits} APPEND or OVERWRITE commits landed since its last full round (in
   * snapshots {@code (last, latest]}; at the job's first look, since the table's last COMPACT
   * snapshot), or {@code compaction.optimization-interval} passed since that round (or the job's
   * first look at the table) and at least one such commit landed. Each snapshot is read once.
   */
  boolean due(String name, Table table, Long last, long latest, long now) {
    Integer every = table.options().get(CompactionOptions.FULL_COMPACTION_DELTA_COMMITS);
    Duration interval = table.options().get(CompactionOptions.COMPACTION_OPTIMIZATION_INTERVAL);
    if (every == null && interval == null) {
      deltaCommits.remove(name);
      return false;
    }
    int count = deltaCommits.getOrDefault(name, 0);
    long since = lastFullMillis.computeIfAbsent(name, n -> now);
    SnapshotManager snapshots = table.snapshotManager();
    if (last != null) {
      Optional<Snapshot> previous =
          latest > last ? snapshots.snapshotIfExists(last) : Optional.empty();
      for (long id = last + 1; id <= latest; id++) {
        Optional<Snapshot> s = snapshots.snapshotIfExists(id);
        if (s.isPresent() && wroteRows(s.get(), previous)) {
          count++;
        }
        previous = s;
      }
    } else {
      // the job's first look at the table: the delta commits since its last compaction (up to
      // the count needed), whenever the job started
      int needed = every == null ? 1 : every;
      Optional<Snapshot> s = snapshots.snapshotIfExists(latest);
      for (long id = latest; id > 0 && count < needed; id--) {
        if (s.isEmpty() || s.get().commitKind() == CommitKind.COMPACT) {
          break;
        }
        Optional<Snapshot> previous = snapshots.snapshotIfExists(id - 1);
        if (wroteRows(s.get(), previous)) {
          count++;
        }
        s = previous;
      }
    }
    deltaCommits.put(name, count);
    if (every != null && count >= every) {
      LOG.info("Full compaction of {}: {} delta commits since the last one", name, count);
      return true;
    }
    if (interval != null && count > 0 && now - since >= interval.toMillis()) {
      LOG.info(
          "Full compaction of {}: {} since the last one (compaction.optimization-interval), {}"
              + " delta commits",
          name,
          Duration.ofMillis(now - since),
          count);
      return true;
    }
    return false;
  }

  /**
   * Whether {@code compaction.optimization-interval} passed since the last full round of a table
   * with delta commits since: a round is planned then even without a new snapshot.
   */
  boolean optimizationDue(String name, Table table, long now) {
    Duration interval = table.options().get(CompactionOptions.COMPACTION_OPTIMIZATION_INTERVAL);
    Long since = lastFullMillis.get(name);
    return interval != null
        && since != null
        && deltaCommits.getOrDefault(name, 0) > 0
        && now - since >= interval.toMillis();
  }
}
