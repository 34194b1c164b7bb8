package io.sediment.sim;

import io.sediment.commit.CommitMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * A streaming write job as Flink runs it: a writer that flushes at every checkpoint barrier and a
 * committer that commits the windows of every completed checkpoint, in order, when it is notified.
 * Its input is a replayable stream of changes of its own keys. The scheduler can decline a
 * checkpoint, deliver a completion notice late (after later barriers) or never, crash the job
 * between any two steps and restore it from a retained checkpoint: the committer commits its
 * restored windows and the writer starts again (in either order), the input replays from the
 * checkpoint's offset. A SQL job's input can also end ({@code end-input}): the rest waits for a
 * checkpoint taken after the end, whose completion commits it and ends the job, and a crash before
 * that restores an older checkpoint and replays the input as before.
 *
 * <p>The writer and the committer are the job's own ({@link WriteJob}): the model learns of a
 * window only when the committer says it committed it.
 */
final class StreamWriterActor implements Actor {

  /** A window: the changes written between two barriers and the messages that carry them. */
  static final class Window {
    final long checkpoint;
    final List<Change> changes;
    final List<CommitMessage> messages;

    Window(long checkpoint, List<Change> changes, List<CommitMessage> messages) {
      this.checkpoint = checkpoint;
      this.changes = changes;
      this.messages = messages;
    }
  }

  /**
   * A completed checkpoint: the input offset and the committer's windows at it, and whether it was
   * taken after the end of input.
   */
  record Checkpoint(
      long id, int offset, TreeMap<Long, Window> windows, Object jobState, boolean afterEnd) {}

  private final String name;
  private final SimModel model;
  private final Random rnd;
  private final Random inputRnd;
  private final WriteJob job;
  private final int writerIndex;
  private final int writers;
  private final int keys;
  private final boolean rewinds;
  private final boolean sharedKeys;
  private final boolean insertsOnly;

  /**
   * With sequence.field = b: a delete's b is at least every earlier b of its key, and a later
   * version's b at least the last delete's, so no result depends on which compaction dropped a
   * delete ({@link SimConfig#sequenceField}). Per key: the largest b, and the last delete's.
   */
  private final boolean deletesWin;

  private final Map<Long, String> largestB = new java.util.HashMap<>();
  private final Map<Long, String> deletedAt = new java.util.HashMap<>();

  private final List<Change> input = new ArrayList<>();
  private int offset;
  private List<Change> sinceBarrier = new ArrayList<>();
  private long nextCheckpoint = 1;
  private final List<Checkpoint> retained = new ArrayList<>();
  private final List<Long> notifications = new ArrayList<>();
  private final Map<Window, Boolean> applied = new IdentityHashMap<>();
  private boolean writerUp = true;
  private boolean committerUp = true;
  private int crashes;

  /** The input of this attempt ended after checkpoint {@code endedAfter}; -1: it did not. */
  private long endedAfter = -1;

  /** The job finished: everything it wrote is committed. */
  private boolean done;

  /** Whether the input may end during the run (some SQL jobs' inputs do). */
  private final boolean mayEnd;

  StreamWriterActor(
      String name,
      SimModel model,
      Random rnd,
      long inputSeed,
      WriteJob job,
      int writerIndex,
      int writers,
      int keys,
      boolean sharedKeys,
      boolean rewinds,
      boolean insertsOnly,
      boolean deletesWin) {
    this.name = name;
    this.model = model;
    this.rnd = rnd;
    this.inputRnd = new Random(inputSeed);
    this.job = job;
    this.writerIndex = writerIndex;
    this.writers = writers;
    this.keys = keys;
    this.sharedKeys = sharedKeys;
    this.rewinds = rewinds;
    this.insertsOnly = insertsOnly;
    this.deletesWin = deletesWin;
    this.mayEnd = job.endsWithFinalCheckpoint() && rnd.nextInt(3) == 0;
  }

  /** What the simulation drives of a write job: its writer and its committer. */
  interface WriteJob {
    /**
     * Whether a restored writer may write before its committer committed the restored windows
     * (Flink starts the tasks in any order); the Java API asks callers to commit first.
     */
    boolean writerMayStartFirst();

    /** Starts the writer (of a new attempt: after {@link #crash}, from the restored state). */
    void startWriter() throws Exception;

    /**
     * What a {@code write-only} writer that waits for a compaction job does at each pause of its
     * wait, besides moving its clock: {@code step} runs another actor (the writers of every attempt
     * of the job).
     */
    default void whileWaiting(Runnable step) {}

    void write(Change c) throws Exception;

    /**
     * The barrier of {@code checkpoint}: the writer flushes; the window's messages reach the
     * committer. Returns them.
     */
    List<CommitMessage> flush(long checkpoint) throws Exception;

    /** The job's state at a checkpoint (its committer's windows and users, its writer's). */
    Object snapshotState(long checkpoint);

    /**
     * Checkpoint {@code checkpoint} completed: the committer commits every window up to it. Returns
     * normally when their rows are in the table (now or before).
     */
    void notifyComplete(long checkpoint) throws Exception;

    /** The job died: nothing of it runs; its memory is gone. */
    void crash();

    /**
     * The writer's state is restored from {@code state} (checkpoint {@code restoredCheckpoint}, 0:
     * none); called before {@link #startWriter}.
     */
    void restoreWriter(long restoredCheckpoint, Object state);

    /**
     * The committer restarts from {@code state}: it commits the restored windows. Returns normally
     * when their rows are in the table (now or before).
     */
    void restoreCommitter(long restoredCheckpoint, Object state) throws Exception;

    /**
     * The writer's input ended: it sends the rest and is closed. Without {@link
     * #endsWithFinalCheckpoint} every window is committed; with it the rest waits for the
     * completion of a checkpoint taken after the end.
     */
    void endInput() throws Exception;

    /** Whether the rest at the end of input waits for a final checkpoint (Flink SQL's sink). */
    default boolean endsWithFinalCheckpoint() {
      return false;
    }

    /** Files written and not committed or deleted, that nothing but age protects. */
    Set<String> inFlight();

    long oldestInFlightMillis();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> enabled() {
    List<String> s = new ArrayList<>();
    if (done) {
      return s;
    }
    boolean ended = endedAfter >= 0;
    if (writerUp && committerUp && !ended && mayEnd) {
      add(s, "end-input", 1);
    }
    if (writerUp && !ended) {
      add(s, "write", 6);
    }
    if (writerUp && committerUp) {
      add(s, "barrier", 3);
    }
    if (committerUp && !notifications.isEmpty()) {
      add(s, "notify", 3);
      add(s, "lose-notify", 1);
    }
    if (writerUp && committerUp) {
      add(s, "crash", 1);
    }
    if (!writerUp && !committerUp) {
      s.add("restore");
    }
    return s;
  }

  @Override
  public String step(String step) throws Exception {
    switch (step) {
      case "write":
        return write(1 + rnd.nextInt(4));
      case "end-input":
        return endInput();
      case "barrier":
        return barrier();
      case "notify":
        return notifyComplete(notifications.remove(0));
      case "lose-notify":
        return "completion notice of checkpoint " + notifications.remove(0) + " lost";
      case "crash":
        return crash();
      case "restore":
        return restore();
      default:
        throw new IllegalArgumentException(step);
    }
  }

  static void add(List<String> steps, String step, int weight) {
    for (int i = 0; i < weight; i++) {
      steps.add(step);
    }
  }

  private Change next() {
    while (input.size() <= offset) {
      long k =
          sharedKeys
              ? inputRnd.nextInt(keys)
              : writerIndex + (long) writers * inputRnd.nextInt(Math.max(1, keys / writers));
      int kind = inputRnd.nextInt(6);
      Integer a = inputRnd.nextInt(4) == 0 ? null : inputRnd.nextInt(100);
      String b = inputRnd.nextInt(4) == 0 ? null : "v" + inputRnd.nextInt(1000);
      boolean delete = kind == 0 && !insertsOnly;
      if (deletesWin) {
        b = atLeast(b, delete ? largestB.get(k) : deletedAt.get(k));
        largestB.merge(k, b == null ? "" : b, (x, y) -> x.compareTo(y) >= 0 ? x : y);
        if (delete) {
          deletedAt.put(k, b);
        }
      }
      // an append table takes inserts only; the draw stays, so the inputs' values do too
      input.add(new Change(k, a, b, delete));
    }
    return input.get(offset++);
  }

  /** {@code b}, or {@code floor} when b orders before it (null first); no draw. */
  private static String atLeast(String b, String floor) {
    if (floor == null || floor.isEmpty()) {
      return b;
    }
    return b == null || b.compareTo(floor) < 0 ? floor : b;
  }

  private String write(int n) throws Exception {
    List<Change> written = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Change c = next();
      job.write(c);
      sinceBarrier.add(c);
      written.add(c);
    }
    return "wrote " + written;
  }

  /**
   * The barrier of the next checkpoint: the writer flushes (its messages form the window), the
   * committer takes the window into its state. The checkpoint then completes (its notice is queued)
   * or is declined.
   */
  private String barrier() throws Exception {
    long c = nextCheckpoint++;
    List<CommitMessage> messages = job.flush(c);
    Window w = new Window(c, List.copyOf(sinceBarrier), messages);
    sinceBarrier = new ArrayList<>();
    pending.put(c, w);
    Object state = job.snapshotState(c);
    if (rnd.nextInt(6) == 0) {
      return "barrier " + c + " (declined), " + messages.size() + " message(s)";
    }
    retained.add(new Checkpoint(c, offset, new TreeMap<>(pending), state, endedAfter >= 0));
    if (retained.size() > 4) {
      retained.remove(0);
    }
    notifications.add(c);
    return "barrier " + c + " (completed), " + describe(messages);
  }

  private final TreeMap<Long, Window> pending = new TreeMap<>();

  /**
   * The input ends: the writer sends the rest and closes. The rest is committed with the first
   * checkpoint taken after now that completes.
   */
  private String endInput() throws Exception {
    job.endInput();
    endedAfter = nextCheckpoint - 1;
    pending.put(Long.MAX_VALUE, new Window(Long.MAX_VALUE, List.copyOf(sinceBarrier), List.of()));
    String out = "input ended after " + sinceBarrier.size() + " more change(s)";
    sinceBarrier = new ArrayList<>();
    return out;
  }

  private String notifyComplete(long checkpoint) throws Exception {
    job.notifyComplete(checkpoint);
    List<Long> committed = new ArrayList<>();
    boolean last = endedAfter >= 0 && checkpoint > endedAfter; // taken after the end of input
    Map<Long, Window> upTo = last ? pending : pending.headMap(checkpoint, true);
    for (Window w : new ArrayList<>(upTo.values())) {
      committed(w);
      pending.remove(w.checkpoint);
      committed.add(w.checkpoint);
    }
    if (last) {
      done = true; // every task finished
      notifications.clear();
      return "notified of checkpoint "
          + checkpoint
          + " (after the end of input), committed windows "
          + committed
          + "; the job finished";
    }
    return "notified of checkpoint " + checkpoint + ", committed windows " + committed;
  }

  /** The job says the window's rows are in the table: the model has them once. */
  private void committed(Window w) {
    if (applied.put(w, Boolean.TRUE) == null) {
      model.apply(w.changes, writerIndex);
    }
  }

  private String crash() {
    job.crash();
    writerUp = false;
    committerUp = false;
    endedAfter = -1; // a restore replays the input from its checkpoint
    notifications.clear();
    pending.clear();
    sinceBarrier = new ArrayList<>();
    crashes++;
    return "crashed";
  }

  /**
   * Restores from a retained checkpoint (the latest; with rewinds, sometimes an older one, as an
   * operator restoring an older savepoint), or from nothing when none was taken. The writer may
   * start before the committer has committed its restored windows.
   */
  private String restore() throws Exception {
    Checkpoint from = null;
    if (!retained.isEmpty()) {
      int i = retained.size() - 1;
      if (rewinds && i > 0 && rnd.nextInt(3) == 0) {
        i = rnd.nextInt(i);
      }
      from = retained.get(i);
      // Checkpoints after the restored one are gone with the old run (Flink restarts its ids).
      retained.subList(i + 1, retained.size()).clear();
    }
    long id = from == null ? 0 : from.id();
    offset = from == null ? 0 : from.offset();
    nextCheckpoint = id + 1;
    // restored at the end of its input, the writer has nothing more to write
    boolean writerFirst =
        (from == null || !from.afterEnd()) && job.writerMayStartFirst() && rnd.nextBoolean();
    StringBuilder out = new StringBuilder("restored from checkpoint " + id);
    job.restoreWriter(id, from == null ? null : from.jobState());
    if (writerFirst) {
      job.startWriter();
      writerUp = true;
      int n = rnd.nextInt(4);
      if (n > 0) {
        out.append("; the writer ").append(write(n)).append(" before the committer restored");
      }
    }
    job.restoreCommitter(id, from == null ? null : from.jobState());
    List<Long> restored = new ArrayList<>();
    if (from != null) {
      for (Window w : from.windows().values()) {
        committed(w);
        restored.add(w.checkpoint);
      }
    }
    committerUp = true;
    out.append("; restored windows ").append(restored).append(" committed");
    if (!writerFirst) {
      job.startWriter();
      writerUp = true;
    }
    if (from != null && from.afterEnd()) {
      // restored at the end of its input: the source ends again at once, and a checkpoint after
      // that ends the job
      out.append("; ").append(endInput());
    }
    return out.toString();
  }

  private static String describe(List<CommitMessage> messages) {
    List<String> out = new ArrayList<>();
    for (CommitMessage m : messages) {
      out.add(m.toString());
    }
    return out.toString();
  }

  @Override
  public void finish() throws Exception {
    if (done) {
      return;
    }
    if (!committerUp) {
      restore();
      if (done) {
        return;
      }
    }
    if (job.endsWithFinalCheckpoint()) {
      if (endedAfter < 0) {
        endInput();
      }
      // Flink's final checkpoint: taken after the end of input, it completes
      long c = nextCheckpoint++;
      pending.put(c, new Window(c, List.of(), job.flush(c)));
      job.snapshotState(c);
      notifyComplete(c);
      return;
    }
    job.endInput();
    pending.put(Long.MAX_VALUE, new Window(Long.MAX_VALUE, List.copyOf(sinceBarrier), List.of()));
    sinceBarrier = new ArrayList<>();
    for (Window w : pending.values()) {
      committed(w);
    }
    pending.clear();
  }

  @Override
  public Set<String> inFlight() {
    return job.inFlight();
  }

  @Override
  public long oldestInFlightMillis() {
    return job.oldestInFlightMillis();
  }

  int crashes() {
    return crashes;
  }

  /** Changes not yet committed (for messages). */
  List<Change> uncommitted() {
    List<Change> out = new ArrayList<>();
    for (Window w : pending.values()) {
      out.addAll(w.changes);
    }
    out.addAll(sinceBarrier);
    return Collections.unmodifiableList(out);
  }

  static Set<String> names(List<CommitMessage> messages) {
    Set<String> out = new HashSet<>();
    for (CommitMessage m : messages) {
      out.addAll(m.outputFileNames());
    }
    return out;
  }
}
