package io.sediment.sim;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactPlanner;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactStrategy;
import io.sediment.compact.CompactTask;
import io.sediment.compact.PartitionFilters;
import io.sediment.compact.TableKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.PredicateJson;
import java.io.FileNotFoundException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.flink.core.fs.Path;

/**
 * The dedicated compaction job with its plan, rewrite and commit as separate steps: it plans (minor
 * or full) over the files no unfinished task holds, rewrites one task at a time, and commits the
 * rewritten tasks as one COMPACT snapshot per window (a conflict aborts the window: its outputs are
 * deleted and its files planned again). A crash loses what was planned and rewritten; the restarted
 * job deletes the outputs it had not committed.
 */
final class DedicatedJobActor implements Actor {

  private final SimTable sim;
  private final Random rnd;
  private final String user;
  private final List<CompactTask> planned = new ArrayList<>();
  private final List<CommitMessage> rewritten = new ArrayList<>();
  private final Map<String, Path> outputs = new HashMap<>();
  private final Map<String, Long> outputTimes = new HashMap<>();
  private long window;
  int commits;
  int conflicts;

  DedicatedJobActor(SimTable sim, Random rnd, String user) {
    this.sim = sim;
    this.rnd = rnd;
    this.user = user;
  }

  @Override
  public String name() {
    return "dedicated-job";
  }

  @Override
  public List<String> enabled() {
    List<String> s = new ArrayList<>();
    if (planned.isEmpty()) {
      StreamWriterActor.add(s, "plan", 2);
    } else {
      StreamWriterActor.add(s, "rewrite", 3);
    }
    if (!rewritten.isEmpty()) {
      StreamWriterActor.add(s, "commit", 2);
    }
    if (!planned.isEmpty() || !rewritten.isEmpty()) {
      s.add("crash");
    }
    return s;
  }

  @Override
  public String step(String step) throws Exception {
    FileStore store = sim.table().store();
    switch (step) {
      case "plan":
        return plan(store);
      case "rewrite":
        return rewrite(store);
      case "commit":
        return commit(store);
      case "crash":
        return crash(store);
      default:
        throw new IllegalArgumentException(step);
    }
  }

  private String plan(FileStore store) {
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isEmpty()) {
      return "nothing to plan";
    }
    CompactStrategy strategy = rnd.nextInt(3) == 0 ? CompactStrategy.FULL : CompactStrategy.MINOR;
    Set<String> held = new HashSet<>();
    for (CommitMessage m : rewritten) {
      m.compactBefore().forEach(f -> held.add(f.fileName()));
    }
    String filter = sim.drawPartitionFilter(rnd);
    List<CompactTask> tasks =
        new CompactPlanner(store, "db.t", strategy, null)
            .plan(
                latest.get(),
                filter == null
                    ? null
                    : PartitionFilters.fromRowFilter(
                        store.schema(), PredicateJson.parse(filter, store.rowType())),
                held);
    planned.addAll(tasks);
    List<String> out = new ArrayList<>();
    for (CompactTask t : tasks) {
      out.add(describe(t));
    }
    return "planned ("
        + strategy.value()
        + (filter == null ? "" : ", " + filter)
        + ", snapshot "
        + latest.get().id()
        + ") "
        + out;
  }

  private String rewrite(FileStore store) throws Exception {
    CompactTask t = planned.remove(0);
    CompactRewriter rewriter =
        TableKind.of(store)
            .rewriter(
                store,
                p -> {
                  outputs.put(p.getName(), p);
                  outputTimes.put(p.getName(), System.currentTimeMillis());
                });
    try {
      CommitMessage m = rewriter.rewrite(t, () -> false).message();
      rewritten.add(m);
      return "rewrote " + describe(t) + " into " + m;
    } catch (Exception e) {
      if (!causedByMissingFile(e)) {
        throw e;
      }
      // An input was expired meanwhile: the task fails, its window is aborted.
      abortAll(store);
      return "rewrite of " + describe(t) + " failed (input gone: " + e + "); window aborted";
    }
  }

  private String commit(FileStore store) {
    List<CommitMessage> messages = new ArrayList<>(rewritten);
    rewritten.clear();
    long id = ++window;
    try {
      Long s = new CompactCommit(store, user).commit(messages, id, false);
      commits++;
      forget(messages);
      return "committed window " + id + " as snapshot " + s;
    } catch (CommitConflictException e) {
      conflicts++;
      forget(messages);
      return "window " + id + " conflicted and was aborted: " + e.getMessage();
    }
  }

  private String crash(FileStore store) {
    planned.clear();
    rewritten.clear();
    // the restarted job deletes the outputs of the dead attempt (its markers)
    store.fileIO().deleteAll(outputs.values());
    outputs.clear();
    outputTimes.clear();
    return "crashed; restarted and deleted its uncommitted outputs";
  }

  private void abortAll(FileStore store) {
    new CompactCommit(store, user).abort(rewritten);
    forget(rewritten);
    rewritten.clear();
    planned.clear();
  }

  private void forget(List<CommitMessage> messages) {
    for (String n : StreamWriterActor.names(messages)) {
      outputs.remove(n);
      outputTimes.remove(n);
    }
  }

  static boolean causedByMissingFile(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof FileNotFoundException
          || String.valueOf(c.getMessage()).contains("does not exist")) {
        return true;
      }
    }
    return false;
  }

  static String describe(CompactTask t) {
    List<String> in = new ArrayList<>();
    for (DataFileMeta f : t.inputs()) {
      in.add("L" + f.level() + ":" + f.fileName().substring(5, 13));
    }
    return "bucket " + t.bucket() + " " + in + " -> L" + t.outputLevel();
  }

  @Override
  public void finish() throws Exception {
    FileStore store = sim.table().store();
    planned.clear();
    if (!rewritten.isEmpty()) {
      commit(store);
    }
  }

  @Override
  public Set<String> inFlight() {
    return new HashSet<>(outputs.keySet());
  }

  @Override
  public long oldestInFlightMillis() {
    long min = Long.MAX_VALUE;
    for (long t : outputTimes.values()) {
      min = Math.min(min, t);
    }
    return min;
  }
}
