package io.sediment.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.util.FileUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the {@link Simulation} for many seeds: {@code sediment.sim.seeds} seeds from {@code
 * sediment.sim.first} (default 1), or only {@code sediment.sim.seed} when given (replaying a
 * failure), or as many as fit in {@code sediment.sim.minutes}. Seeds run on one thread per core;
 * each run is deterministic on its own. Fails with the smallest failing seed's set-up and trace,
 * and says how many failed.
 */
class InterleavingSimulationTest {

  @TempDir Path dir;

  @Test
  void everyInterleavingKeepsTheTableExact() throws Exception {
    String one = System.getProperty("sediment.sim.seed");
    long first = one != null ? Long.parseLong(one) : Long.getLong("sediment.sim.first", 1);
    long seeds = one != null ? 1 : Long.getLong("sediment.sim.seeds", 2000);
    double minutes = Double.parseDouble(System.getProperty("sediment.sim.minutes", "0"));
    int steps = Integer.getInteger("sediment.sim.steps", 40);
    boolean summary = Boolean.getBoolean("sediment.sim.summary");
    long deadline = minutes > 0 ? System.nanoTime() + (long) (minutes * 60e9) : Long.MAX_VALUE;
    if (minutes > 0 && !Long.getLong("sediment.sim.seeds", -1L).equals(-1L)) {
      seeds = Long.getLong("sediment.sim.seeds");
    } else if (minutes > 0) {
      seeds = Long.MAX_VALUE - first;
    }
    // the smallest failing seeds, with their directories; a long run keeps no more than this
    TreeMap<Long, AssertionError> failures = new TreeMap<>();
    AtomicLong failed = new AtomicLong();
    AtomicLong next = new AtomicLong(first);
    AtomicLong ran = new AtomicLong();
    long last = first + seeds;
    long start = System.nanoTime();
    int threads = one != null ? 1 : Runtime.getRuntime().availableProcessors();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    for (int t = 0; t < threads; t++) {
      pool.submit(
          () -> {
            for (long seed = next.getAndIncrement();
                seed < last && System.nanoTime() < deadline;
                seed = next.getAndIncrement()) {
              Path seedDir = dir.resolve("seed-" + seed);
              AssertionError failure = null;
              try {
                new Simulation(seed, seedDir, steps).run();
              } catch (AssertionError e) {
                failure = e;
                if (summary) {
                  String m = e.getMessage();
                  System.out.println(
                      "SIM seed "
                          + seed
                          + ": "
                          + m.substring(m.indexOf("failed: ") + 8, m.indexOf('\n'))
                          + " | "
                          + m.substring(m.indexOf("set-up: "), m.indexOf("\n replay")));
                }
              } catch (Throwable e) {
                failure = new AssertionError("seed " + seed + ": " + e, e);
              }
              ran.incrementAndGet();
              if (!keep(failures, seed, failure)) {
                // a passing seed, or a failing one past those kept: its files go now, so that a
                // long run's disk use does not grow with its seeds (a 35-minute run filled 12 GB)
                FileUtils.deleteDirectoryQuietly(seedDir.toFile());
              }
              if (failure != null && failed.incrementAndGet() >= KEPT_FAILURES && !summary) {
                return;
              }
            }
          });
    }
    pool.shutdown();
    pool.awaitTermination(7, TimeUnit.DAYS);
    System.out.printf(
        "Simulated %d seed(s) from %d in %.1f s on %d thread(s); %d failed; %d step(s) taken while"
            + " a writer waited for a compaction; %d sort compaction(s) of append tables%n",
        ran.get(),
        first,
        (System.nanoTime() - start) / 1e9,
        threads,
        failed.get(),
        Simulation.STEPS_WHILE_WAITING.get(),
        CompactBuilderActor.SORTS.get());
    if (!failures.isEmpty()) {
      Map.Entry<Long, AssertionError> firstFailure = failures.firstEntry();
      throw new AssertionError(
          failed.get()
              + " seed(s) failed, the smallest: "
              + new ArrayList<>(failures.keySet())
              + "\n"
              + firstFailure.getValue().getMessage(),
          firstFailure.getValue());
    }
  }

  /** Failing seeds kept with their files (the smallest), and failures that end a run. */
  private static final int KEPT_FAILURES = 20;

  /**
   * Keeps {@code seed}'s failure among the {@link #KEPT_FAILURES} smallest failing seeds; false
   * when its files can go (it passed, or it is not among them). A seed that drops out of them loses
   * its files too.
   */
  private boolean keep(TreeMap<Long, AssertionError> failures, long seed, AssertionError failure) {
    if (failure == null) {
      return false;
    }
    Long dropped;
    synchronized (failures) {
      failures.put(seed, failure);
      if (failures.size() <= KEPT_FAILURES) {
        return true;
      }
      dropped = failures.lastKey();
      failures.remove(dropped);
    }
    if (dropped == seed) {
      return false;
    }
    FileUtils.deleteDirectoryQuietly(dir.resolve("seed-" + dropped).toFile());
    return true;
  }

  /**
   * The seeds of one run spread over every set-up: each kind of table (deletion vectors or not, by
   * merge engine) and each kind of actor is drawn often within the first 2,000 seeds, the default
   * count in verify.
   */
  @Test
  void theSeedsOfARunCoverEverySetUp() {
    Map<String, Integer> drawn = new TreeMap<>();
    int levelsWithSequenceField = 0;
    for (long seed = 1; seed <= 2000; seed++) {
      SimConfig c = SimConfig.draw(Simulation.configRandom(seed));
      drawn.merge((c.deletionVectors() ? "dv " : "") + c.engine(), 1, Integer::sum);
      drawn.merge("writers " + c.ownCompaction().size(), 1, Integer::sum);
      drawn.merge("own compaction " + c.ownCompaction().get(0), 1, Integer::sum);
      drawn.merge("sql sink " + c.sqlSink().get(0), 1, Integer::sum);
      drawn.merge("small buffers " + c.smallBuffers(), 1, Integer::sum);
      drawn.merge("dedicated job " + c.dedicatedJob(), 1, Integer::sum);
      drawn.merge("maintenance " + c.maintenance(), 1, Integer::sum);
      drawn.merge("alters " + c.alters(), 1, Integer::sum);
      drawn.merge("lookup changelog " + c.lookupChangelog(), 1, Integer::sum);
      drawn.merge("sequence field " + c.sequenceField(), 1, Integer::sum);
      if (c.sequenceField() && !c.deletionVectors()) {
        levelsWithSequenceField++;
      }
      if (c.ownCompaction().contains(false) && (c.dedicatedJob() || c.compactBuilder())) {
        drawn.merge("write-only with compactions, waiting " + c.stopTriggerWait(), 1, Integer::sum);
      }
    }
    assertThat(drawn)
        .containsKeys(
            "dv deduplicate",
            "dv first-row",
            "deduplicate",
            "partial-update",
            "aggregation",
            "aggregation-remove",
            "first-row",
            "writers 1",
            "writers 2",
            "own compaction true",
            "own compaction false",
            "sql sink true",
            "sql sink false",
            "small buffers true",
            "small buffers false",
            "dedicated job true",
            "dedicated job false",
            "maintenance true",
            "maintenance false",
            "alters true",
            "alters false",
            "lookup changelog true",
            "lookup changelog false",
            "write-only with compactions, waiting true",
            "write-only with compactions, waiting false",
            "sequence field true",
            "sequence field false");
    assertThat(drawn.values()).as("%s", drawn).allSatisfy(n -> assertThat(n).isGreaterThan(100));
    assertThat(levelsWithSequenceField)
        .as("sequence.field without deletion vectors")
        .isGreaterThan(20);
  }
}
