package io.sediment.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The set-up of one simulated run, drawn from its seed: the table (deletion vectors or not, merge
 * engine, buckets) and the actors on it (stream writers with or without their own compaction, a
 * dedicated compaction job, in-process compactions, snapshot expiry, orphan removal).
 *
 * @param keys keys are {@code 0..keys-1}; writer {@code w} of {@code n} writes the keys {@code k %
 *     n == w} (a Flink job keyed by the primary key upstream of its writers)
 * @param ownCompaction per stream writer, whether it compacts its buckets (else {@code write-only})
 * @param smallBuffers whether writers flush every few rows (level-0 files while writing, and the
 *     stop-trigger compaction of tables without deletion vectors)
 * @param sharedKeys whether the writers' keys overlap (parallel writers fed by a source not keyed
 *     by the primary key): such keys have no defined last version and are checked for uniqueness
 *     only
 * @param alters whether a schema actor changes columns while the others run ({@code ALTER TABLE}:
 *     add, drop and move columns, widen {@code a}); the jobs keep the schema they loaded
 * @param lookupChangelog whether the table has {@code changelog-producer} = lookup: a stream that
 *     follows it from the start is then checked after every commit
 * @param stopTriggerWait whether {@code write-only} writers wait at a barrier for a compaction to
 *     take their buckets under the stop trigger ({@code write-only.stop-trigger-wait}, 1 s on a
 *     clock of their own): while one waits, the other actors (not writers) take its pauses' steps
 * @param partitions 0 for an unpartitioned table; else the table has a column {@code p INT NOT
 *     NULL}, its partition key and part of its primary key {@code (k, p)}, with {@code p = k mod
 *     partitions}, and the compactions sometimes take one partition only (a partition filter)
 * @param appendOnly whether the table is an append table (no primary key; {@code bucket} -1, or 2
 *     with {@code bucket-key} k): every committed row must be read exactly once, and {@code engine}
 *     is "append", without deletion vectors, changelog producer or writers' waits
 * @param sequenceField whether a deduplicating table has {@code sequence.field} = b: the version
 *     with the largest b wins (nulls first; ties by commit order), whatever order the versions
 *     arrive in. Writers keep each key's deletes winning and later versions at or above the last
 *     delete's b (after a compaction dropped a delete an older-by-field version would come back, a
 *     documented limit), so such tables have no savepoint rewinds, input changelog or upsert stream
 *     (which follow arrival order)
 */
record SimConfig(
    boolean deletionVectors,
    String engine,
    int buckets,
    int compactionTrigger,
    int keys,
    List<Boolean> ownCompaction,
    List<Boolean> sqlSink,
    boolean smallBuffers,
    boolean sharedKeys,
    boolean dedicatedJob,
    boolean compactBuilder,
    boolean maintenance,
    boolean alters,
    boolean lookupChangelog,
    boolean stopTriggerWait,
    int partitions,
    boolean appendOnly,
    boolean sequenceField) {

  /**
   * Whether the table has {@code changelog-producer} = input: a deduplicating primary-key table
   * without the lookup producer and an odd number of keys (derived, not drawn, so that the set-up
   * of every seed drawn before stays): its stream reads the writers' input as written.
   */
  boolean inputChangelog() {
    return !appendOnly
        && !lookupChangelog
        && !sequenceField
        && engine.equals("deduplicate")
        && keys % 2 == 1;
  }

  static SimConfig draw(Random rnd) {
    SimConfig c = drawPrimaryKey(rnd);
    // an append table in a quarter of the seeds, drawn after the rest for the same reason
    c = rnd.nextInt(4) == 0 ? c.appendTable() : c;
    // sequence.field on a third of the deduplicating tables without an input changelog (whose
    // set-up would change), drawn last for the same reason
    if (!c.appendOnly()
        && c.engine().equals("deduplicate")
        && !c.inputChangelog()
        && rnd.nextInt(3) == 0) {
      c = c.withSequenceField();
    }
    return c;
  }

  private SimConfig withSequenceField() {
    return withTable(deletionVectors, engine, lookupChangelog, stopTriggerWait, appendOnly, true);
  }

  /** This set-up on an append table: no merge engine, deletion vectors, changelog or waits. */
  private SimConfig appendTable() {
    return withTable(false, "append", false, false, true, false);
  }

  /** This set-up with the table drawn otherwise; its actors stay. */
  private SimConfig withTable(
      boolean deletionVectors,
      String engine,
      boolean lookupChangelog,
      boolean stopTriggerWait,
      boolean appendOnly,
      boolean sequenceField) {
    return new SimConfig(
        deletionVectors,
        engine,
        buckets,
        compactionTrigger,
        keys,
        ownCompaction,
        sqlSink,
        smallBuffers,
        sharedKeys,
        dedicatedJob,
        compactBuilder,
        maintenance,
        alters,
        lookupChangelog,
        stopTriggerWait,
        partitions,
        appendOnly,
        sequenceField);
  }

  private static SimConfig drawPrimaryKey(Random rnd) {
    boolean dv = rnd.nextBoolean();
    String engine =
        dv
            ? pick(rnd, "deduplicate", "deduplicate", "first-row")
            : pick(
                rnd,
                "deduplicate",
                "partial-update",
                "aggregation",
                "aggregation-remove", // aggregation.remove-record-on-delete: deletes remove rows
                "first-row");
    int writers = 1 + (rnd.nextInt(3) == 0 ? 1 : 0);
    List<Boolean> own = new ArrayList<>();
    List<Boolean> sql = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      own.add(rnd.nextInt(3) != 0);
      sql.add(rnd.nextInt(3) != 0);
    }
    return new SimConfig(
        dv,
        engine,
        rnd.nextInt(4) == 0 ? 2 : 1,
        2 + rnd.nextInt(3),
        4 + rnd.nextInt(8),
        own,
        sql,
        rnd.nextInt(3) == 0,
        writers > 1 && rnd.nextBoolean(),
        rnd.nextBoolean(),
        rnd.nextBoolean(),
        rnd.nextInt(3) != 0,
        // drawn last: the set-up of every seed drawn before schema changes were simulated stays
        rnd.nextInt(3) == 0,
        // drawn after alters, for the same reason
        rnd.nextInt(3) == 0,
        // write-only writers wait for the compaction job at the stop trigger; drawn last too
        rnd.nextBoolean(),
        // partitioned tables, drawn after the rest for the same reason
        rnd.nextInt(3) == 0 ? 2 + rnd.nextInt(2) : 0,
        false,
        false);
  }

  private static String pick(Random rnd, String... values) {
    return values[rnd.nextInt(values.length)];
  }
}
