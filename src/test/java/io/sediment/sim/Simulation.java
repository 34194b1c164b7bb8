package io.sediment.sim;

import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * One deterministic run: a table and the actors of a {@link SimConfig} drawn from the seed, driven
 * one step at a time by a scheduler using the same seed. After every step the table is read and
 * compared with the {@link SimModel} of what was committed:
 *
 * <ul>
 *   <li>its logical content (every run of every bucket merged, deletion vectors applied) equals the
 *       model: no row lost, duplicated or resurrected, every value the last committed one;
 *   <li>what users read holds no key twice (deletion-vector tables read levels >= 1 without
 *       merging: two unmarked versions of a key there are a duplicate), and equals the model on
 *       tables without deletion vectors.
 *   <li>with {@code changelog-producer} = lookup, a stream following the table from its first
 *       snapshot receives a consistent changelog that, applied, is what users read ({@link
 *       ChangelogFollower}).
 *   <li>on an append table: users read every committed row exactly once, and so does a streaming
 *       read following the table from its first snapshot ({@link AppendFollower}); a Flink
 *       streaming read with a consumer that lags, checkpoints and crashes ({@link StreamReadActor})
 *       never emits a row more often than it was committed, and all of them once caught up.
 *   <li>a retained older snapshot reads as it did when it was the latest ({@link TimeTravelActor}).
 * </ul>
 *
 * At the end every actor comes to rest (crashed jobs are restored, everything in flight committed
 * or aborted), a full compaction makes a deletion-vector table's reads complete, and then what
 * users read equals the model, every listed snapshot is readable and no data or deletion-vector
 * file is left that no snapshot references.
 *
 * <p>Deterministic: the scheduler's choices, the inputs and the table's set-up come from the seed;
 * file names and times do not take part in any decision that changes rows.
 */
final class Simulation {

  /** Steps other actors took while a writer waited for a compaction (all seeds of the JVM). */
  static final java.util.concurrent.atomic.AtomicLong STEPS_WHILE_WAITING =
      new java.util.concurrent.atomic.AtomicLong();

  static final java.util.concurrent.ConcurrentHashMap<String, Long> STEP_NANOS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final long seed;
  private final Path dir;
  private final int steps;
  private long checkedSnapshot = -1;
  private long checkedModel = -1;
  private ChangelogFollower follower;
  private AppendFollower appendFollower;
  private StreamReadActor streamRead;

  /** What users read of each snapshot when it was the latest, by snapshot id. */
  private final Map<Long, List<String>> readAtSnapshot = new HashMap<>();

  // the actors are finishing: a writer's wait then takes no other actor's steps
  private boolean finishing;
  final Trace trace = new Trace();

  Simulation(long seed, Path dir, int steps) {
    this.seed = seed;
    this.dir = dir;
    this.steps = steps;
  }

  /** The random source the set-up of {@code seed} is drawn from. */
  static Random configRandom(long seed) {
    return new Random(scramble(seed));
  }

  /**
   * SplitMix64's finalizer. {@code java.util.Random}'s first outputs barely differ for nearby seeds
   * (drawn directly, seeds 1 to 4,000 all made a deletion-vector table), so seeds are scrambled
   * before they seed one.
   */
  static long scramble(long seed) {
    long z = seed + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Runs the seed; throws an {@link AssertionError} naming the seed, set-up and trace. */
  void run() {
    SimConfig config = SimConfig.draw(configRandom(seed));
    try {
      try {
        run(config);
      } finally {
        if (streamRead != null) {
          streamRead.close(); // its enumerator context's threads
        }
      }
    } catch (Throwable e) {
      AssertionError failure =
          new AssertionError(
              "Simulation seed "
                  + seed
                  + " failed: "
                  + e
                  + "\n set-up: "
                  + config
                  + "\n replay: mvn -B test -Dtest=InterleavingSimulationTest -Dsediment.sim.seed="
                  + seed
                  + "\n steps:\n  "
                  + trace,
              e);
      throw failure;
    }
  }

  private void run(SimConfig config) throws Exception {
    Random rnd = new Random(scramble(seed ^ 0x5851F42D4C957F2DL));
    long s0 = System.nanoTime();
    SimTable sim = new SimTable(config, dir);
    STEP_NANOS.merge("setup", System.nanoTime() - s0, Long::sum);
    SimModel model = new SimModel(config.engine(), config.sequenceField());
    follower = config.lookupChangelog() ? new ChangelogFollower() : null;
    appendFollower = config.appendOnly() ? new AppendFollower() : null;
    List<Actor> actors = new ArrayList<>();
    int writers = config.ownCompaction().size();
    for (int w = 0; w < writers; w++) {
      boolean sql = config.sqlSink().get(w);
      boolean own = config.ownCompaction().get(w);
      StreamWriterActor.WriteJob job =
          sql ? new SqlWriteJob(sim, "writer-" + w, own) : new ApiWriteJob(sim, "writer-" + w, own);
      String waiting = "writer-" + w;
      job.whileWaiting(() -> stepWhileWaiting(sim, model, actors, rnd, waiting));
      job.startWriter();
      actors.add(
          new StreamWriterActor(
              "writer-" + w,
              model,
              new Random(rnd.nextLong()),
              rnd.nextLong(),
              job,
              w,
              writers,
              config.keys(),
              config.sharedKeys(),
              sql && !config.sequenceField(), // a rewind replays versions a delete outranked
              config.appendOnly(),
              config.sequenceField()));
    }
    // INSERT OVERWRITE of a primary-key table in a third of the histories without a stream read
    // (overwrites are not streamed)
    boolean pkOverwrites = !config.appendOnly() && !config.lookupChangelog() && rnd.nextInt(3) == 0;
    // a deduplicating table without a changelog producer streams upserts: its level-0 files
    boolean upserts =
        !pkOverwrites
            && !config.appendOnly()
            && !config.lookupChangelog()
            && !config.sequenceField()
            && config.engine().equals("deduplicate");
    if (config.appendOnly() || config.lookupChangelog() || upserts) {
      streamRead = new StreamReadActor(sim, new Random(rnd.nextLong()), model::streamedRows);
      if (upserts) {
        streamRead.allowStatelessRestarts();
      }
      actors.add(streamRead);
    }
    if (config.dedicatedJob()) {
      actors.add(new DedicatedJobActor(sim, new Random(rnd.nextLong()), "compaction-job"));
    }
    if (config.compactBuilder()) {
      actors.add(new CompactBuilderActor(sim, new Random(rnd.nextLong())));
    }
    if (config.alters()) {
      actors.add(new SchemaActor(sim, new Random(rnd.nextLong())));
    }
    actors.add(new TimeTravelActor(sim, new Random(rnd.nextLong()), readAtSnapshot));
    if (config.appendOnly() || pkOverwrites) {
      actors.add(new OverwriteActor(sim, model, new Random(rnd.nextLong())));
    }
    if (config.maintenance()) {
      actors.add(
          new MaintenanceActor(
              sim,
              new Random(rnd.nextLong()),
              () -> {
                long min = Long.MAX_VALUE;
                for (Actor a : actors) {
                  min = Math.min(min, a.oldestInFlightMillis());
                }
                return min;
              }));
    }
    for (int i = 0; i < steps; i++) {
      List<String[]> choices = new ArrayList<>();
      for (Actor a : actors) {
        for (String s : a.enabled()) {
          choices.add(new String[] {String.valueOf(actors.indexOf(a)), s});
        }
      }
      if (choices.isEmpty()) {
        break; // every actor finished (a job whose input ended)
      }
      String[] c = choices.get(rnd.nextInt(choices.size()));
      Actor a = actors.get(Integer.parseInt(c[0]));
      trace.add(a.name(), c[1] + " ...");
      long t0 = System.nanoTime();
      String did = a.step(c[1]);
      long t1 = System.nanoTime();
      STEP_NANOS.merge(a.name().replaceAll("-\\d+", "") + ":" + c[1], t1 - t0, Long::sum);
      trace.replaceLast(a.name(), did);
      // Only a commit changes what a read returns (and the model only changes with one).
      long latest = sim.table().snapshotManager().latestId().orElse(0);
      if (latest != checkedSnapshot || model.version() != checkedModel) {
        check(sim, model, actors, false);
        checkedSnapshot = latest;
        checkedModel = model.version();
      }
      STEP_NANOS.merge("check", System.nanoTime() - t1, Long::sum);
    }
    long e0 = System.nanoTime();
    finishing = true;
    for (Actor a : actors) {
      if (!(a instanceof StreamWriterActor)) {
        a.finish();
        trace.add(a.name(), "finished");
      }
    }
    for (Actor a : actors) {
      if (a instanceof StreamWriterActor) {
        a.finish();
        trace.add(a.name(), "finished");
      }
    }
    STEP_NANOS.merge("finish", System.nanoTime() - e0, Long::sum);
    long f0 = System.nanoTime();
    check(sim, model, actors, false);
    long f1 = System.nanoTime();
    sim.latest().newCompactBuilder().withStrategy("full").execute();
    long f2 = System.nanoTime();
    trace.add("end", "full compaction");
    check(sim, model, actors, true);
    STEP_NANOS.merge("final-check1", f1 - f0, Long::sum);
    STEP_NANOS.merge("final-compact", f2 - f1, Long::sum);
    STEP_NANOS.merge("final-check2", System.nanoTime() - f2, Long::sum);
  }

  /**
   * A pause of writer {@code waiting}'s wait for a compaction job: one step of another actor than
   * the writers (the compaction job, in-process compactions, maintenance, schema changes), drawn as
   * the main loop draws, or nothing when none can step.
   */
  private void stepWhileWaiting(
      SimTable sim, SimModel model, List<Actor> actors, Random rnd, String waiting) {
    if (finishing) {
      return;
    }
    List<String[]> choices = new ArrayList<>();
    for (Actor a : actors) {
      if (!(a instanceof StreamWriterActor)) {
        for (String s : a.enabled()) {
          choices.add(new String[] {String.valueOf(actors.indexOf(a)), s});
        }
      }
    }
    if (choices.isEmpty()) {
      return;
    }
    String[] c = choices.get(rnd.nextInt(choices.size()));
    Actor a = actors.get(Integer.parseInt(c[0]));
    STEPS_WHILE_WAITING.incrementAndGet();
    trace.add(a.name(), c[1] + " while " + waiting + " waits ...");
    try {
      trace.replaceLast(a.name(), a.step(c[1]) + " (while " + waiting + " waits)");
      // checked as the main loop checks after a step (a streaming read follows every commit)
      long latest = sim.table().snapshotManager().latestId().orElse(0);
      if (latest != checkedSnapshot || model.version() != checkedModel) {
        check(sim, model, actors, false);
        checkedSnapshot = latest;
        checkedModel = model.version();
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(a.name() + " failed while " + waiting + " waited", e);
    }
  }

  /** The rows of keys with a defined last version (see {@link SimModel#isShared}), sorted. */
  private static List<String> exact(SimModel model, List<String> rows) {
    List<String> out = new ArrayList<>();
    for (String r : rows) {
      if (!model.isShared(SimModel.keyOf(r))) {
        out.add(r);
      }
    }
    out.sort(null);
    return out;
  }

  private void check(SimTable sim, SimModel model, List<Actor> actors, boolean end)
      throws Exception {
    Table t = sim.latest();
    List<String> expected = model.rows();
    Optional<Snapshot> snapshot = t.latestSnapshot();
    List<String> read = new ArrayList<>(sim.userRead(t));
    read.sort(null);
    if (sim.config.appendOnly()) {
      if (!read.equals(expected)) {
        throw new AssertionError(
            "users read other rows than the committed ones, each once\n   read:  "
                + read
                + "\n   model: "
                + expected);
      }
      // a streaming read does not see overwrites: it holds what the writers committed
      appendFollower.catchUp(t);
      appendFollower.check(model.streamedRows());
      streamRead.check(model.streamedRows(), end);
    } else {
      checkPrimaryKey(sim, model, t, expected, read, end);
    }
    // what users read of this snapshot, for reads of it later (TimeTravelActor)
    snapshot.ifPresent(s -> readAtSnapshot.putIfAbsent(s.id(), List.copyOf(read)));
    if (end) {
      Set<String> excused = new HashSet<>();
      for (Actor a : actors) {
        excused.addAll(a.inFlight());
      }
      TreeSet<String> orphans = sim.unreferencedFiles(t, excused);
      if (!orphans.isEmpty()) {
        throw new AssertionError("files no snapshot references once every actor ended: " + orphans);
      }
      List<String> markers = sim.markerFiles();
      if (!markers.isEmpty()) {
        throw new AssertionError("markers left once every job ended: " + markers);
      }
    }
  }

  private void checkPrimaryKey(
      SimTable sim, SimModel model, Table t, List<String> expected, List<String> read, boolean end)
      throws Exception {
    List<String> logical = exact(model, sim.logicalRead(t));
    if (!logical.equals(expected)) {
      throw new AssertionError(
          "the table's content differs from the committed model\n   table: "
              + logical
              + "\n   model: "
              + expected);
    }
    Set<Long> keys = new HashSet<>();
    for (String r : read) {
      long k = SimModel.keyOf(r);
      if (!keys.add(k)) {
        throw new AssertionError("key " + k + " is read twice: " + read);
      }
    }
    if (follower != null) {
      follower.catchUp(t, model);
      follower.check(t, read, model, sim.config.deletionVectors(), end);
      streamRead.checkChangelog(read, model, end);
    } else if (streamRead != null && end) {
      streamRead.checkUpserts(read, model);
    }
    if (!sim.config.deletionVectors() || end) {
      List<String> exact = exact(model, read);
      if (!exact.equals(expected)) {
        throw new AssertionError(
            "users read other rows than the committed model\n   read:  "
                + exact
                + "\n   model: "
                + expected);
      }
    }
  }
}
