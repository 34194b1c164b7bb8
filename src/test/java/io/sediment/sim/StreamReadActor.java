package io.sediment.sim;

import io.sediment.flink.sql.StreamReadHarness;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A Flink streaming read of an append table with a {@code consumer-id}, as Flink runs its source
 * ({@link StreamReadHarness}): planning rounds, polls of a few rows, checkpoints (completed, or
 * declined) and crashes restored from the last completed checkpoint, which roll back what it
 * emitted since. It lags behind the writers while expiry runs: the consumer's position, recorded at
 * each completed checkpoint, must keep every snapshot it still needs. What it emitted must never
 * hold a row more often than it was committed, and at the end, once it caught up, exactly the
 * committed rows.
 */
final class StreamReadActor implements Actor {

  private static final String CONSUMER = "sim-reader";

  private final SimTable sim;
  private final Random rnd;
  private StreamReadHarness read;
  private final List<String> emitted = new ArrayList<>();
  private StreamReadHarness.Checkpoint completed;
  private int emittedAtCompleted;
  private long nextCheckpoint = 1;
  private int crashes;

  /** Starts the read before anything is committed, with a completed first checkpoint. */
  StreamReadActor(SimTable sim, Random rnd) throws Exception {
    this.sim = sim;
    this.rnd = rnd;
    read = StreamReadHarness.start(sim.table(), CONSUMER);
    checkpoint(true);
  }

  @Override
  public String name() {
    return "stream-read";
  }

  @Override
  public List<String> enabled() {
    List<String> s = new ArrayList<>();
    // polls a few rows at a time, and rarely: the read lags, so splits wait while expiry runs
    StreamWriterActor.add(s, "discover", 2);
    s.add("poll");
    s.add("checkpoint");
    s.add("crash");
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
        List<String> rows = read.poll(1 + rnd.nextInt(3));
        emitted.addAll(rows);
        return "emitted " + rows;
      }
      case "checkpoint" -> {
        boolean complete = rnd.nextInt(6) != 0;
        long id = checkpoint(complete);
        return "checkpoint " + id + (complete ? " (completed)" : " (declined)");
      }
      case "crash" -> {
        read.close();
        read = StreamReadHarness.restore(sim.table(), CONSUMER, completed);
        int lost = emitted.size() - emittedAtCompleted;
        emitted.subList(emittedAtCompleted, emitted.size()).clear();
        crashes++;
        return "crashed; restored from checkpoint "
            + completed.id()
            + ", "
            + lost
            + " row(s) again";
      }
      default -> throw new IllegalArgumentException(step);
    }
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

  /**
   * Fails if the read emitted a row more often than it was committed ({@code committed}: the
   * model's rows, sorted), or anything but inserts; {@code end}: first reads everything committed,
   * then fails unless it emitted exactly the committed rows.
   */
  void check(List<String> committed, boolean end) throws Exception {
    if (end) {
      for (int quiet = 0; quiet < 3; ) {
        read.discover();
        List<String> rows = read.poll(Integer.MAX_VALUE);
        emitted.addAll(rows);
        quiet = rows.isEmpty() ? quiet + 1 : 0;
      }
    }
    Map<String, Integer> left = new HashMap<>();
    committed.forEach(r -> left.merge("+I" + r, 1, Integer::sum));
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
  public void finish() throws Exception {
    // stays running: the final check reads what the writers commit when they finish
  }
}
