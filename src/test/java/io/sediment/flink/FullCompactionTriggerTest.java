package io.sediment.flink;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.FileStoreCommit;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.ExecutionMode;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.marker.ReleaseRecords;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The full-compaction triggers of a dedicated job (Paimon's {@code full-compaction.delta-commits}
 * and {@code compaction.optimization-interval}), on the task source's enumerator alone with a
 * manual clock: generated histories of appends, clock moves, compactions by another job and
 * planning rounds, each round checked against the rule. A round plans a full compaction of the
 * bucket exactly when, since the last full compaction this job planned (before that: since the
 * table's last COMPACT snapshot, counting at most the commits needed, and since the job first
 * looked at the table), either {@code delta-commits} APPEND commits landed, or the interval passed
 * and at least one landed; and not while the bucket's files are held by an unfinished task (then it
 * is planned as soon as they are released). The minor rounds never compact here (compaction trigger
 * 100), so every task handed out is a full compaction.
 */
class FullCompactionTriggerTest {

  private static final String USER = "dedicated";

  @TempDir Path dir;

  static Stream<Long> seeds() {
    return LongStream.range(0, 24).boxed();
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void aFullCompactionIsPlannedExactlyWhenATriggerFires(long seed) throws Throwable {
    Random random = new Random(seed);
    Integer every = random.nextInt(3) > 0 ? 1 + random.nextInt(4) : null;
    Duration interval =
        every == null || random.nextBoolean() ? Duration.ofMinutes(1 + random.nextInt(5)) : null;
    Schema.Builder schema =
        FlinkTestSupport.oneKeyBucket().option("num-sorted-run.compaction-trigger", "100");
    if (every != null) {
      schema.option("full-compaction.delta-commits", every.toString());
    }
    if (interval != null) {
      schema.option("compaction.optimization-interval", interval.toMillis() + " ms");
    }
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema.build());
    ManualClock clock = new ManualClock();
    CompactTargets targets =
        new CompactTargets(dir.toString(), CompactSpec.forTable("db.t", table.store()).build())
            .withClock(clock);
    String where = "seed " + seed + " (every " + every + ", interval " + interval + ")";

    // history before the job starts: appends, now and then a compaction by another job
    long key = 0;
    long idle = 0; // the idle writer's checkpoints
    for (int i = random.nextInt(6); i > 0; i--) {
      if (random.nextInt(4) == 0 && table.latestSnapshot().isPresent()) {
        table.newCompactBuilder().withCommitUser("other").execute();
      } else if (random.nextInt(4) == 0 && table.latestSnapshot().isPresent()) {
        new FileStoreCommit(table.store(), "idle-writer").commitEmpty(++idle, null);
      } else {
        TestTables.writeBatch(table, List.of(row(key++, "v")));
      }
    }

    Model model = new Model(every, interval);
    try (var context = new MockSplitEnumeratorContext<CompactTaskSplit>(1)) {
      context.registerReader(new ReaderInfo(0, "localhost"));
      CompactTaskEnumerator e =
          new CompactTaskEnumerator(context, targets, ExecutionMode.STREAMING, 0, USER, null);
      e.start();
      e.snapshotState(1);
      e.notifyCheckpointComplete(1);
      e.handleSplitRequest(0, "localhost");
      int handedOut = 0;
      CompactTaskSplit held = null;
      for (int step = 0; step < 30; step++) {
        int op = random.nextInt(10);
        if (op < 4 && random.nextInt(4) == 0 && table.latestSnapshot().isPresent()) {
          // an idle streaming writer's empty snapshot for automatic tags: not a delta commit
          new FileStoreCommit(table.store(), "idle-writer").commitEmpty(++idle, null);
        } else if (op < 4 && key > 0 && random.nextInt(3) == 0) {
          // a window of deletes alone: no net rows, but a delta commit all the same
          var delete = row((long) random.nextInt((int) key), "v");
          delete.setRowKind(org.apache.flink.types.RowKind.DELETE);
          TestTables.writeBatch(table, List.of(delete));
        } else if (op < 4) {
          TestTables.writeBatch(table, List.of(row(key++, "v")));
        } else if (op < 6) {
          // steps of 30 s: the time since the last full round often equals the interval exactly
          clock.advance(Duration.ofSeconds(30L * random.nextInt(5)));
        } else if (op < 7 && held == null && table.latestSnapshot().isPresent()) {
          table.newCompactBuilder().withCommitUser("other").execute();
        } else {
          boolean expectFull = model.round(table, clock.millis(), held != null);
          context.runPeriodicCallable(0);
          List<CompactTaskSplit> assigned = assigned(context);
          boolean planned = assigned.size() > handedOut;
          assertThat(planned)
              .as("%s, step %d: a full compaction planned (%s)", where, step, model)
              .isEqualTo(expectFull && needsWork(table));
          if (held != null) {
            held = null; // this round took the release: the next one may plan the bucket
          }
          if (planned) {
            handedOut = assigned.size();
            held = assigned.get(handedOut - 1);
            // the job aborts it (its window fails): the task is released, its files stay
            ReleaseRecords.write(table.store(), USER, step, List.of(held.splitId()));
            e.handleSplitRequest(0, "localhost");
          }
        }
      }
    }
  }

  /** Whether a full compaction of the bucket has anything to do: not one file at the top level. */
  private static boolean needsWork(Table table) {
    var files = FlinkTestSupport.liveFileMetas(table);
    return files.size() > 1 || (files.size() == 1 && files.get(0).level() == 0);
  }

  private static List<CompactTaskSplit> assigned(
      MockSplitEnumeratorContext<CompactTaskSplit> context) {
    List<CompactTaskSplit> out = new ArrayList<>();
    for (SplitsAssignment<CompactTaskSplit> a : context.getSplitsAssignmentSequence()) {
      a.assignment().values().forEach(out::addAll);
    }
    return out;
  }

  /** The triggers' rule, from the table's snapshots and the times of the job's rounds. */
  private static final class Model {
    private final Integer every;
    private final Duration interval;
    private long lookedAt = -1; // the latest snapshot id at the last round that saw one
    private int deltas; // APPEND commits counted since the last full compaction
    private long since = -1; // time of the last full compaction, or of the first look

    Model(Integer every, Duration interval) {
      this.every = every;
      this.interval = interval;
    }

    /** A delta commit: rows written (deletes alone too), not a compaction or an empty APPEND. */
    private static boolean isDelta(Snapshot s) {
      return s.commitKind() != CommitKind.COMPACT && !"idle-writer".equals(s.commitUser());
    }

    /** Whether the round at {@code now} plans a full compaction (when the bucket is not held). */
    boolean round(Table table, long now, boolean held) {
      List<Snapshot> snapshots = FlinkTestSupport.snapshots(table);
      if (snapshots.isEmpty()) {
        return false;
      }
      long latest = snapshots.get(snapshots.size() - 1).id();
      if (lookedAt < 0) {
        // the first look: the delta commits since the last COMPACT, at most as many as needed
        since = now;
        int needed = every == null ? 1 : every;
        for (int i = snapshots.size() - 1; i >= 0 && deltas < needed; i--) {
          if (snapshots.get(i).commitKind() == CommitKind.COMPACT) {
            break;
          }
          if (isDelta(snapshots.get(i))) {
            deltas++;
          }
        }
      } else {
        for (Snapshot s : snapshots) {
          if (s.id() > lookedAt && isDelta(s)) {
            deltas++;
          }
        }
      }
      lookedAt = latest;
      boolean due =
          (every != null && deltas >= every)
              || (interval != null && deltas > 0 && now - since >= interval.toMillis());
      if (due && !held) {
        deltas = 0;
        since = now;
        return true;
      }
      return false;
    }

    @Override
    public String toString() {
      return deltas + " delta commit(s) counted, last full at " + since;
    }
  }
}
