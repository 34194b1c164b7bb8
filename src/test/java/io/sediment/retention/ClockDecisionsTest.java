package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.compact.CompactStrategy;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decisions on time follow the table's clock ({@code FileStore#clock()}), to the millisecond:
 * snapshot retention, the compaction trigger's max-delay, orphan age and the abandon age of an
 * expiry record. Each case is generated from a seed; the clock is moved, nothing waits.
 */
class ClockDecisionsTest {

  @TempDir Path dir;

  private Table create(int seed, ManualClock clock, Map<String, String> options) {
    Schema.Builder schema = TestTables.idPartitionSchema();
    options.forEach(schema::option);
    return TestTables.create(
        TestTables.catalog(dir.resolve("wh-" + seed)).withClock(clock), "t", schema.build());
  }

  private static void write(Table t, long id) {
    TestTables.writeBatch(t, List.of(row(id, "a")));
  }

  /**
   * A snapshot other than the latest expires exactly once the clock passes its time plus {@code
   * snapshot.time-retained}: kept at that millisecond, expired the next.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void aSnapshotExpiresExactlyWhenTheClockPassesItsTimePlusTheTimeRetained(int seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Duration retained = Duration.ofMillis(1 + r.nextInt(60_000));
    // Written within a minute, with a day retained: the expiry after each commit keeps them all.
    Table t =
        create(
            seed, clock, Map.of("snapshot.num-retained.min", "1", "snapshot.time-retained", "1 d"));
    int commits = 3 + r.nextInt(5);
    for (int i = 0; i < commits; i++) {
      clock.advance(Duration.ofMillis(r.nextInt(10_000)));
      write(t, i);
    }
    List<Snapshot> snapshots = new ArrayList<>();
    for (long id : t.snapshotManager().listIds()) {
      snapshots.add(t.snapshotManager().snapshot(id));
    }
    assertThat(snapshots).hasSize(commits);
    long latest = snapshots.get(snapshots.size() - 1).id();
    Table expiring = t.copy(Map.of("snapshot.time-retained", retained.toMillis() + " ms"));

    for (Snapshot s : snapshots.subList(0, snapshots.size() - 1)) {
      long passes = s.timeMillis() + retained.toMillis();
      for (long now : new long[] {passes, passes + 1}) {
        clock.set(now);
        new SnapshotRetention(expiring.store(), expiring.fullName()).expireAfterCommit();
        List<Long> expected = new ArrayList<>();
        for (Snapshot k : snapshots) {
          if (k.id() == latest || k.timeMillis() + retained.toMillis() >= now) {
            expected.add(k.id());
          }
        }
        assertThat(t.snapshotManager().listIds())
            .as("seed %s, retained %s, snapshot %s at %s, now %s", seed, retained, s.id(), s, now)
            .isEqualTo(expected);
      }
    }
    assertThat(t.snapshotManager().listIds()).containsExactly(latest);
  }

  /**
   * {@code compaction.trigger.max-delay}: a minor compaction picks up a bucket's small files
   * exactly from the millisecond the clock reaches the oldest file's time plus the delay.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void theMaxDelayTriggerFiresExactlyWhenTheClockReachesTheOldestFilePlusTheDelay(int seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Duration delay = Duration.ofMillis(1 + r.nextInt(3_600_000));
    Table t =
        create(
            seed,
            clock,
            Map.of(
                "compaction.min.file-num",
                "100",
                "compaction.trigger.max-delay",
                delay.toMillis() + " ms"));
    int files = 2 + r.nextInt(4);
    for (int i = 0; i < files; i++) {
      write(t, i);
      clock.advance(Duration.ofMillis(r.nextInt(10_000)));
    }
    long oldest = Long.MAX_VALUE;
    for (ManifestEntry e : t.store().newScan().plan(t.latestSnapshot().orElseThrow())) {
      oldest = Math.min(oldest, e.file().creationTimeMillis());
    }

    clock.set(oldest + delay.toMillis() - 1);
    assertThat(t.newCompactBuilder().withStrategy(CompactStrategy.MINOR).plan())
        .as("seed %s, delay %s: a millisecond early", seed, delay)
        .isEmpty();
    clock.set(oldest + delay.toMillis());
    assertThat(t.newCompactBuilder().withStrategy(CompactStrategy.MINOR).plan())
        .as("seed %s, delay %s: on time", seed, delay)
        .singleElement()
        .satisfies(task -> assertThat(task.inputs()).hasSize(files));
  }

  /** A primary-key table whose runs move up only by {@code compaction.trigger.max-delay}. */
  private Table maxDelayTable(String name, ManualClock clock, Duration delay, int buckets) {
    return TestTables.create(
        TestTables.catalog(dir.resolve(name)).withClock(clock),
        "t",
        TestTables.idValueSchema()
            .primaryKey("id")
            .option("bucket", String.valueOf(buckets))
            .option("num-sorted-run.compaction-trigger", "100")
            .option("compaction.trigger.max-delay", delay.toMillis() + " ms")
            .option("local-cache.dir", dir.resolve(name + "-cache").toString())
            .build());
  }

  /**
   * {@code compaction.trigger.max-delay} on a primary-key writer's own compaction, over the
   * writer's life: a writer keeps its compaction strategy from its first window, and the trigger
   * fires on the clock when the runs are checked, not when the strategy was made.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void aLongLivedPrimaryKeyWritersMaxDelayFiresOnTime(int seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Duration delay = Duration.ofMillis(60_000 + r.nextInt(3_600_000));
    Table t = maxDelayTable("pk-" + seed, clock, delay, 1);
    var wb = t.newStreamWriteBuilder().withCommitUser("writer");
    var commit = wb.newCommit();
    try (var w = wb.newWrite()) {
      long window = 0;
      w.write(row((long) r.nextInt(10), "first"));
      commit.commit(++window, w.prepareCommit()); // the writer's strategy is made here
      long firstWritten = clock.millis();
      clock.advance(Duration.ofMillis(1 + r.nextInt(1000)));
      w.write(row((long) r.nextInt(10), "second"));
      var early = w.prepareCommit();
      assertThat(early).allSatisfy(m -> assertThat(m.compactAfter()).isEmpty());
      commit.commit(++window, early);

      clock.set(firstWritten + delay.toMillis());
      w.write(row((long) r.nextInt(10), "on time"));
      var onTime = w.prepareCommit();
      assertThat(onTime)
          .as("seed %s, delay %s", seed, delay)
          .anySatisfy(m -> assertThat(m.compactAfter()).isNotEmpty());
      commit.commit(++window, onTime);
    }
  }

  /**
   * A bucket the writer no longer writes into keeps its level-0 runs in the writer until {@code
   * compaction.trigger.max-delay} moves them up: the writer releases idle buckets, but not one
   * whose runs wait for the clock (else they would stay at level 0 until the bucket is written
   * again).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void anIdleBucketsLevel0RunsStillMoveUpAtTheMaxDelay(int seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Duration delay = Duration.ofMillis(60_000 + r.nextInt(3_600_000));
    Table t = maxDelayTable("idle-" + seed, clock, delay, 2);
    var wb = t.newStreamWriteBuilder().withCommitUser("writer");
    var commit = wb.newCommit();
    try (var w = wb.newWrite()) {
      long window = 0;
      long firstWritten = clock.millis();
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        w.write(row((long) r.nextInt(10), "v" + i));
        commit.commit(++window, w.prepareCommit());
      }
      // idle windows before the delay: nothing to do, and the runs still wait
      for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
        clock.advance(Duration.ofMillis(1 + r.nextInt(1000)));
        commit.commit(++window, w.prepareCommit());
      }
      clock.set(firstWritten + delay.toMillis());
      var onTime = w.prepareCommit();
      assertThat(onTime)
          .as("seed %s, delay %s", seed, delay)
          .anySatisfy(m -> assertThat(m.compactAfter()).isNotEmpty());
      commit.commit(++window, onTime);
      // moved up and seen committed: now the buckets are released
      commit.commit(++window, w.prepareCommit());
      assertThat(w.openBuckets()).isZero();
    }
  }

  /**
   * {@link RemoveOrphanFiles} with its default age: an orphan is removed exactly once the clock
   * passes its modification time plus a day; a dry run a millisecond before finds nothing.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void anOrphanIsRemovedExactlyWhenTheClockPassesItsModificationTimePlusTheDefaultAge(int seed)
      throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Table t = create(seed, clock, Map.of());
    write(t, 0);
    Path orphan = dir.resolve("wh-" + seed + "/db.db/t/p=a/bucket-0/data-failed-job-0.parquet");
    Files.write(orphan, new byte[] {1, 2, 3});
    // whole seconds: every file system keeps them exactly
    long modified = (clock.millis() / 1000 - r.nextInt(30 * 86_400)) * 1000;
    Files.setLastModifiedTime(orphan, FileTime.fromMillis(modified));
    long passes = modified + RemoveOrphanFiles.DEFAULT_OLDER_THAN_MILLIS;

    clock.set(passes);
    assertThat(new RemoveOrphanFiles(t).dryRun(true).execute()).as("seed %s", seed).isEmpty();
    clock.set(passes + 1);
    assertThat(new RemoveOrphanFiles(t).execute())
        .as("seed %s", seed)
        .extracting(p -> p.getName())
        .containsExactly(orphan.getFileName().toString());
    assertThat(orphan).doesNotExist();
    assertThat(TestTables.readAll(t)).hasSize(1);
  }

  /**
   * An expiry record that no failed run marked abandoned is left alone by the automatic expiry
   * while the clock is within {@link RecordedExpiration#ABANDONED_AFTER} of its modification time,
   * and finished once the clock is past it.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void anUnfinishedExpiryRecordIsTakenOverExactlyOnceItIsOlderThanTheAbandonAge(int seed)
      throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Table t =
        create(
            seed,
            clock,
            Map.of("snapshot.num-retained.min", "1", "snapshot.num-retained.max", "2"));
    write(t, 0);
    write(t, 1);
    ExpiryRecord other =
        ExpiryRecord.of(List.of(TableFiles.Retired.of(t.snapshotManager().snapshot(1))));
    assertThat(other.create(t.store(), t.store().paths().expiryRecord())).isTrue();
    Path record = dir.resolve("wh-" + seed + "/db.db/t/snapshot/EXPIRING");
    assertThat(record).exists();
    long modified = (clock.millis() / 1000 - r.nextInt(86_400)) * 1000;
    Files.setLastModifiedTime(record, FileTime.fromMillis(modified));
    long abandonedAt = modified + RecordedExpiration.ABANDONED_AFTER.toMillis();

    clock.set(abandonedAt);
    SnapshotRetention retention = new SnapshotRetention(t.store(), t.fullName());
    assertThat(retention.expireAfterCommit().skipped()).as("seed %s: at the age", seed).isTrue();
    assertThat(record).exists();
    clock.set(abandonedAt + 1);
    assertThat(retention.expireAfterCommit().skipped()).as("seed %s: past it", seed).isFalse();
    assertThat(record).doesNotExist();
    assertThat(t.snapshotManager().listIds()).containsExactly(2L);
  }
}
