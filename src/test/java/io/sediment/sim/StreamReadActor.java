package io.sediment.sim;

import io.sediment.flink.sql.StreamReadHarness;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * A Flink streaming read with a {@code consumer-id}, as Flink runs its source ({@link
 * StreamReadHarness}): planning rounds, polls of a few rows, checkpoints (completed, or declined)
 * and crashes restored from the last completed checkpoint, which roll back what it emitted since.
 * It lags behind the writers while expiry runs: the consumer's position, recorded at each completed
 * checkpoint, must keep every snapshot it still needs.
 *
 * <ul>
 *   <li>A deduplicating primary-key table without a changelog producer: what it emitted, applied in
 *       order as upserts, must at the end be what users read.
 *   <li>An append table: what it emitted must never hold a row more often than it was committed,
 *       and at the end, once it caught up, exactly the committed rows.
 *   <li>A primary-key table with {@code changelog-producer} = lookup: what it emitted, applied in
 *       order, must be a consistent changelog (a {@code +I}/{@code +U} only for a key it does not
 *       hold, a {@code -U}/{@code -D} only of the row it holds), and at the end what users read.
 * </ul>
 */
final class StreamReadActor implements Actor, AutoCloseable {

  private static final String CONSUMER = "sim-reader";

  private final SimTable sim;
  private final Random rnd;
  private StreamReadHarness read;
  // the table as the job loaded it: a restart for a newer schema loads the latest
  private Table table;
  private final List<String> emitted = new ArrayList<>();
  private StreamReadHarness.Checkpoint completed;
  private int emittedAtCompleted;
  private long nextCheckpoint = 1;

  /**
   * Whether the read starts later, as configured (the latest snapshot in full, then its changes),
   * with its reader's reports to the enumerator delayed across checkpoints, as Flink's are.
   */
  private final boolean startsLater;

  /** Whether the read (this job, or a later one) started as configured: restores likewise. */
  private boolean asConfigured;

  /**
   * Whether the read is also restarted without state (a new job with the same {@code consumer-id},
   * resuming where the consumer left off): on tables whose stream is checked as upserts, which a
   * replay from the consumer's position keeps exact.
   */
  private boolean statelessRestarts;

  /** What the writers committed so far (an append table's, sorted), from the model. */
  private final Supplier<List<String>> streamedRows;

  /** A later start's rows, and what the writers had committed by then. */
  private List<String> startRows = List.of();

  private List<String> streamedAtStart = List.of();

  /**
   * Starts the read before anything is committed, with a completed first checkpoint; or, in half
   * the histories, later ({@link #startsLater}).
   */
  StreamReadActor(SimTable sim, Random rnd, Supplier<List<String>> streamedRows) throws Exception {
    this.sim = sim;
    this.rnd = rnd;
    this.streamedRows = streamedRows;
    table = sim.table();
    startsLater = rnd.nextBoolean();
    asConfigured = startsLater;
    if (!startsLater) {
      read = StreamReadHarness.start(table, CONSUMER);
      checkpoint(true);
    }
  }

  /** The later start: the latest snapshot in full, then a completed checkpoint (the consumer). */
  private String start() throws Exception {
    // An append table's start holds the table as it is (overwrites too), its changes what the
    // writers commit from now on.
    table = sim.latest(); // a job started now loads the latest schema
    startRows = sim.config.appendOnly() ? sim.userRead(table) : List.of();
    streamedAtStart = streamedRows.get();
    read = StreamReadHarness.startAsConfigured(table, CONSUMER, true);
    checkpoint(true);
    return "started with the latest snapshot in full";
  }

  @Override
  public String name() {
    return "stream-read";
  }

  @Override
  public List<String> enabled() {
    List<String> s = new ArrayList<>();
    if (read == null) {
      s.add("start");
      return s;
    }
    // polls a few rows at a time, and rarely: the read lags, so splits wait while expiry runs
    StreamWriterActor.add(s, "discover", 2);
    s.add("poll");
    s.add("checkpoint");
    s.add("crash");
    s.add("reader-failover");
    if (asConfigured) {
      s.add("deliver-reports");
    }
    if (statelessRestarts) {
      s.add("restart-stateless");
    }
    return s;
  }

  @Override
  public String step(String step) throws Exception {
    switch (step) {
      case "discover" -> {
        read.discover();
        return "planned new snapshots";
      }
      case "poll" -> {
        try {
          List<String> rows = read.poll(1 + rnd.nextInt(3));
          emitted.addAll(rows);
          return "emitted " + rows;
        } catch (IllegalArgumentException e) {
          return restartForNewerSchema(e);
        }
      }
      case "checkpoint" -> {
        boolean complete = rnd.nextInt(6) != 0;
        long id = checkpoint(complete);
        return "checkpoint " + id + (complete ? " (completed)" : " (declined)");
      }
      case "start" -> {
        return start();
      }
      case "deliver-reports" -> {
        return "delivered " + read.deliverReports(1 + rnd.nextInt(3)) + " reader report(s)";
      }
      case "reader-failover" -> {
        // the reader alone, restored from the last completed checkpoint; its reports on the way
        // are lost
        read.failReader(completed);
        int again = emitted.size() - emittedAtCompleted;
        emitted.subList(emittedAtCompleted, emitted.size()).clear();
        return "reader failed over to checkpoint "
            + completed.id()
            + ", "
            + again
            + " row(s) again";
      }
      case "restart-stateless" -> {
        // a new job without the old one's state (what it emitted stays emitted), on the latest
        // schema; its first checkpoint completes at once
        read.close();
        table = sim.latest();
        read = StreamReadHarness.startAsConfigured(table, CONSUMER, true);
        asConfigured = true;
        long id = checkpoint(true);
        return "restarted without state from consumer " + CONSUMER + "; checkpoint " + id;
      }
      case "crash" -> {
        int again = restore();
        return "crashed; restored from checkpoint "
            + completed.id()
            + ", "
            + again
            + " row(s) again";
      }
      default -> throw new IllegalArgumentException(step);
    }
  }

  /** A new attempt from the last completed checkpoint; returns the rows it takes back. */
  private int restore() throws Exception {
    read.close();
    read =
        asConfigured
            ? StreamReadHarness.restoreAsConfigured(table, CONSUMER, completed, true)
            : StreamReadHarness.restore(table, CONSUMER, completed);
    int again = emitted.size() - emittedAtCompleted;
    emitted.subList(emittedAtCompleted, emitted.size()).clear();
    return again;
  }

  /**
   * A file of a newer schema than the job loaded (a compaction's, after {@code ALTER TABLE} widened
   * a column) fails the read with a request to restart it; the user does, and the job loads the
   * latest schema and goes on from its last completed checkpoint.
   */
  private String restartForNewerSchema(IllegalArgumentException e) throws Exception {
    if (e.getMessage() == null || !e.getMessage().contains("restart it to read")) {
      throw e;
    }
    table = sim.latest();
    int again = restore();
    return "failed ("
        + e.getMessage()
        + "); restarted on the latest schema from checkpoint "
        + completed.id()
        + ", "
        + again
        + " row(s) again";
  }

  private long checkpoint(boolean complete) throws Exception {
    long id = nextCheckpoint++;
    StreamReadHarness.Checkpoint c = read.checkpoint(id);
    if (complete) {
      read.complete(id);
      completed = c;
      emittedAtCompleted = emitted.size();
    }
    return id;
  }

  /** At the end: reads everything committed. */
  private void catchUp() throws Exception {
    if (read == null) {
      start();
    }
    for (int quiet = 0; quiet < 3; ) {
      read.deliverReports(Integer.MAX_VALUE);
      read.discover();
      List<String> rows;
      try {
        rows = read.poll(Integer.MAX_VALUE);
      } catch (IllegalArgumentException e) {
        restartForNewerSchema(e);
        quiet = 0;
        continue;
      }
      emitted.addAll(rows);
      quiet = rows.isEmpty() ? quiet + 1 : 0;
    }
  }

  /**
   * A primary-key table's changelog: fails unless what the read emitted, applied in order, is
   * consistent; {@code end}: first reads everything committed, then fails unless it holds what
   * users {@code read}. Keys several writers wrote ({@link SimModel#isShared}) are left out, as
   * {@link ChangelogFollower} leaves them.
   */
  void checkChangelog(List<String> read, SimModel model, boolean end) throws Exception {
    if (end) {
      catchUp();
    }
    Map<Long, String> held = new HashMap<>();
    for (String e : emitted) {
      String value = e.substring(2);
      ChangelogFollower.apply(
          held, model, e.substring(0, 2), SimModel.keyOf(value), value, "the stream read");
    }
    if (end) {
      ChangelogFollower.compare(held, read, model);
    }
  }

  /** Lets the read be restarted without state ({@link #statelessRestarts}). */
  void allowStatelessRestarts() {
    statelessRestarts = true;
  }

  /**
   * A deduplicating table without a changelog producer, at the end: first reads everything
   * committed, then fails unless what the read emitted, applied in order as upserts (a {@code
   * +I}/{@code +U} puts its key's row, a {@code -U}/{@code -D} removes its key), holds what users
   * {@code read}, as Flink's normalization of such a stream does. Keys several writers wrote are
   * left out ({@link SimModel#isShared}).
   */
  void checkUpserts(List<String> read, SimModel model) throws Exception {
    catchUp();
    Map<Long, String> held = new HashMap<>();
    for (String e : emitted) {
      String value = e.substring(2);
      if (e.startsWith("+")) {
        held.put(SimModel.keyOf(value), value);
      } else {
        held.remove(SimModel.keyOf(value));
      }
    }
    ChangelogFollower.compare(held, read, model);
  }

  /**
   * An append table: fails if the read emitted a row more often than it was committed ({@code
   * committed}: the model's rows, sorted), or anything but inserts; {@code end}: first reads
   * everything committed, then fails unless it emitted exactly the committed rows.
   */
  void check(List<String> committed, boolean end) throws Exception {
    if (end) {
      catchUp();
    }
    Map<String, Integer> left = new HashMap<>();
    committed.forEach(r -> left.merge("+I" + r, 1, Integer::sum));
    if (startsLater) { // the start's rows, then what was committed after it
      streamedAtStart.forEach(r -> left.merge("+I" + r, -1, Integer::sum));
      startRows.forEach(r -> left.merge("+I" + r, 1, Integer::sum));
    }
    for (String r : emitted) {
      Integer n = left.get(r);
      if (n == null || n == 0) {
        throw new AssertionError(
            "the streaming read emitted " + r + " more often than it was committed: " + emitted);
      }
      left.put(r, n - 1);
    }
    if (end) {
      List<String> missing = new ArrayList<>();
      left.forEach(
          (r, n) -> {
            for (int i = 0; i < n; i++) {
              missing.add(r);
            }
          });
      if (!missing.isEmpty()) {
        missing.sort(null);
        throw new AssertionError(
            "the streaming read, caught up, never emitted committed rows " + missing);
      }
    }
  }

  @Override
  public void close() throws Exception {
    if (read != null) {
      read.close();
    }
  }

  @Override
  public void finish() throws Exception {
    // stays running: the final check reads what the writers commit when they finish
  }
}
