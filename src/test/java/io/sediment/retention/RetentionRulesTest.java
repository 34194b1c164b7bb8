package io.sediment.retention;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The retention rules of an expiration, on generated histories and settings, against their
 * definition: the oldest snapshots beyond {@code retainMax} expire, then older ones than {@code
 * olderThan} while more than {@code retainMin} stay, never more than {@code limit} in one run and
 * never the latest. The settings are drawn at and around their boundaries (a count equal to the
 * number of snapshots, a time equal to a snapshot's), and half of the runs follow a commit ({@code
 * afterCommitOf} with {@code skipLiveExpiration}, the automatic expiry's shortcut that decides from
 * the {@code EARLIEST} hint without listing): the shortcut must never keep what the rules expire.
 */
class RetentionRulesTest {

  @TempDir Path dir;

  static IntStream seeds() {
    return IntStream.range(0, 120);
  }

  // one test per seed: a mutation-testing run stops at the first history that fails, and times
  // one history rather than all of them
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyRunExpiresExactlyTheSnapshotsTheRulesName(int seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Table t =
        TestTables.create(
            TestTables.catalog(dir.resolve("wh-" + seed)).withClock(clock),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                // the automatic expiry after each commit keeps everything
                .option("snapshot.num-retained.max", "1000")
                .option("snapshot.time-retained", "1000 d")
                .build());
    int n = 1 + r.nextInt(9);
    List<Long> times = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      clock.advance(Duration.ofMillis(r.nextInt(3) * 1000L)); // equal times happen too
      TestTables.writeBatch(t, List.of(row((long) i)));
      times.add(clock.millis());
    }
    SnapshotManager sm = t.snapshotManager();
    List<Long> ids = sm.listIds();
    assertThat(ids).hasSize(n);

    int retainMin = 1 + r.nextInt(n + 1);
    int retainMax = retainMin + r.nextInt(3) * r.nextInt(n + 1);
    long olderThan = times.get(r.nextInt(n)) + r.nextInt(3) - 1;
    int limit = 1 + r.nextInt(n + 1);
    boolean afterCommit = r.nextBoolean();
    int k = Math.min(limit, Math.max(0, n - retainMax));
    while (k < limit && k < n - retainMin && times.get(k) < olderThan) {
      k++;
    }
    String settings =
        String.format(
            "seed %d: %d snapshots at %s, min %d, max %d, older than %d, limit %d, after commit %s",
            seed, n, times, retainMin, retainMax, olderThan, limit, afterCommit);

    SnapshotExpiration expiration =
        new SnapshotExpiration(t.store(), "t")
            .retainMin(retainMin)
            .retainMax(retainMax)
            .olderThan(olderThan)
            .limit(limit);
    if (afterCommit) {
      expiration.skipLiveExpiration(true).afterCommitOf(ids.get(n - 1));
    }
    SnapshotExpiration.Result result = expiration.execute();

    assertThat(result.expiredSnapshots()).as(settings).isEqualTo(ids.subList(0, k));
    assertThat(sm.listIds()).as(settings).isEqualTo(ids.subList(k, n));
    assertThat(TestTables.readAll(t)).as(settings).hasSize(n);
  }
}
