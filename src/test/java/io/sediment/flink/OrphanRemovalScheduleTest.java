package io.sediment.flink;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code compaction.remove-orphans.interval} on the table's clock: the first commit removes the
 * orphans, a commit within the interval of that run does not, the first commit at the interval
 * does. The clock is moved, nothing waits.
 */
class OrphanRemovalScheduleTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5})
  void orphansAreRemovedAfterTheFirstCommitThenOncePerInterval(int seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Duration interval = Duration.ofMillis(1 + r.nextInt(7_200_000));
    Table table =
        TestTables.create(
            TestTables.catalog(dir).withClock(clock),
            "t",
            Schema.newBuilder()
                .column("k", DataTypes.BIGINT())
                .option("compaction.remove-orphans.interval", interval.toMillis() + " ms")
                .build());
    TestTables.writeBatch(table, List.of(row(1L)));
    OrphanRemovalSchedule schedule = new OrphanRemovalSchedule();

    Path first = orphan(clock, 0);
    schedule.afterCommit(table); // the first commit of the attempt runs it
    assertThat(first).doesNotExist();
    long ranAt = clock.millis();

    clock.set(ranAt + r.nextLong(interval.toMillis()));
    Path second = orphan(clock, 1);
    schedule.afterCommit(table);
    assertThat(second).as("seed %s, interval %s: within it", seed, interval).exists();

    clock.set(ranAt + interval.toMillis());
    schedule.afterCommit(table);
    assertThat(second).as("seed %s, interval %s: at it", seed, interval).doesNotExist();
    assertThat(TestTables.readAll(table)).hasSize(1);
  }

  /** An orphan data file two days older than the clock's now. */
  private Path orphan(ManualClock clock, int n) throws Exception {
    Path p = dir.resolve("db.db/t/bucket-0/data-failed-job-" + n + ".parquet");
    Files.write(p, new byte[] {1});
    Files.setLastModifiedTime(
        p, FileTime.fromMillis(clock.millis() - Duration.ofDays(2).toMillis()));
    return p;
  }
}
