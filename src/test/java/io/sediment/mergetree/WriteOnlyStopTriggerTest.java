package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DataFileMeta;
import io.sediment.table.DataSplit;
import io.sediment.table.PrimaryKeyTableWrite;
import io.sediment.table.StopTriggerWait;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.TestTables;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code write-only.stop-trigger-wait}: a write-only writer under a compaction job never makes a
 * bucket pass {@code num-sorted-run.stop-trigger}. The invariant: every snapshot's buckets hold at
 * most stop-trigger sorted runs, when no window alone could pass it (see the writer's rule). The
 * cases are generated: per seed the triggers, buckets, keys and deletes, when the compaction job
 * commits (between windows, or while the writer waits), and windows prepared before the one before
 * them is committed (a late checkpoint notice). The writer's wait runs on a clock the test moves,
 * and each pause is a step of the compaction job, so the run is the same for a seed every time.
 */
class WriteOnlyStopTriggerTest {

  @TempDir Path dir;

  /** One generated run; returns how often the writer paused, and the peak runs of any bucket. */
  private record Outcome(int pauses, int peakRuns, int stopTrigger) {}

  @Test
  void generatedRunsNeverPassTheStopTriggerAndReadEveryKeysLastWrite() throws Exception {
    int paused = 0;
    for (int seed = 0; seed < 8; seed++) {
      Outcome o = run(seed, "1 h");
      assertThat(o.peakRuns())
          .as("seed %s: peak sorted runs", seed)
          .isLessThanOrEqualTo(o.stopTrigger());
      paused += o.pauses();
    }
    assertThat(paused).as("pauses of the writers over all seeds").isGreaterThan(8);
  }

  /**
   * The same runs without the wait (Paimon's write-only writers) do pass it: the check can fail.
   */
  @Test
  void withoutTheWaitTheSameRunsPassTheStopTrigger() throws Exception {
    boolean passed = false;
    for (int seed = 0; seed < 8 && !passed; seed++) {
      Outcome o = run(seed, "0 s");
      assertThat(o.pauses()).as("a writer that does not wait never pauses").isZero();
      passed = o.peakRuns() > o.stopTrigger();
    }
    assertThat(passed).as("some seed passes the stop trigger without the wait").isTrue();
  }

  private Outcome run(int seed, String wait) throws Exception {
    Random rnd = new Random(seed);
    int compactionTrigger = 2 + rnd.nextInt(3);
    // a merge leaves compaction-trigger runs: room for a late window's run and the next one's
    int stopTrigger = compactionTrigger + 2 + rnd.nextInt(2);
    int buckets = 1 + rnd.nextInt(2);
    ManualClock clock = new ManualClock();
    FileSystemCatalog catalog =
        TestTables.catalog(dir.resolve("seed-" + seed + "-" + wait.charAt(0)));
    Table table =
        TestTables.create(
                catalog,
                "t",
                PrimaryKeyTableTest.schema()
                    .option("bucket", Integer.toString(buckets))
                    .option("write-only", "true")
                    .option("write-only.stop-trigger-wait", wait)
                    .option(
                        "num-sorted-run.compaction-trigger", Integer.toString(compactionTrigger))
                    .option("num-sorted-run.stop-trigger", Integer.toString(stopTrigger))
                    .build())
            .withClock(clock);
    Map<Long, String> model = new TreeMap<>();
    int[] pauses = {0};
    int[] peak = {0};
    int[] pausesThisWindow = {0};
    PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
    write
        .stopTriggerWait()
        .pauseWith(
            millis -> {
              pauses[0]++;
              assertThat(++pausesThisWindow[0])
                  .as("seed %s: the writer waits for ever", seed)
                  .isLessThan(200);
              clock.advance(Duration.ofMillis(millis));
              if (rnd.nextInt(3) > 0) {
                compact(table);
                peak[0] = Math.max(peak[0], peakRuns(table));
              }
            });
    TableCommit commit = table.newStreamWriteBuilder().withCommitUser("writer").newCommit();
    List<CommitMessage> late = null; // a window prepared but not committed yet
    long lateId = 0;
    for (long window = 1; window <= 30; window++) {
      int rows = 1 + rnd.nextInt(20);
      for (int i = 0; i < rows; i++) {
        long key = rnd.nextInt(60);
        if (rnd.nextInt(6) == 0) {
          write.write(PrimaryKeyTableTest.kind(RowKind.DELETE, row(key, null, null)));
          model.remove(key);
        } else {
          String name = "w" + window + "-" + i;
          write.write(row(key, name, i));
          model.put(key, name);
        }
      }
      pausesThisWindow[0] = 0;
      List<CommitMessage> messages = write.prepareCommit();
      if (late != null) {
        commit.commit(lateId, late);
        peak[0] = Math.max(peak[0], peakRuns(table));
        late = null;
      }
      if (rnd.nextInt(5) == 0) {
        late = messages; // its checkpoint's notice comes after the next barrier
        lateId = window;
      } else {
        commit.commit(window, messages);
        peak[0] = Math.max(peak[0], peakRuns(table));
      }
      if (rnd.nextInt(4) == 0) {
        compact(table);
      }
    }
    if (late != null) {
      commit.commit(lateId, late);
      peak[0] = Math.max(peak[0], peakRuns(table));
    }
    write.close();
    assertThat(keysAndNames(table)).as("seed %s: every key's last write", seed).isEqualTo(model);
    return new Outcome(pauses[0], peak[0], stopTrigger);
  }

  /**
   * A window whose level-0 files pass the trigger even over a bucket a merge left at {@code
   * num-sorted-run.compaction-trigger} runs waits only for that merge, then goes (counted as
   * passed); a window a merge made room for does not count.
   */
  @Test
  void aWindowTooLargeForTheTriggerWaitsOnlyForAMerge() throws Exception {
    Table table = writeOnlyTable(new ManualClock(), "1 h", 2, 4, "4 kb");
    PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
    int[] pauses = {0};
    write
        .stopTriggerWait()
        .pauseWith(
            millis -> {
              pauses[0]++;
              compact(table);
            });
    TableCommit commit = table.newStreamWriteBuilder().newCommit();
    for (long w = 1; w <= 3; w++) {
      write.write(row(1000 + w, "n", 0));
      commit.commit(w, write.prepareCommit()); // three runs: room for one more
    }
    assertThat(pauses[0]).isZero();
    for (long i = 0; i < 400; i++) {
      write.write(row(i, "n" + i, (int) i)); // several level-0 files
    }
    List<CommitMessage> messages = write.prepareCommit();
    int newFiles = messages.get(0).newFiles().size();
    assertThat(newFiles).isGreaterThan(3);
    assertThat(pauses[0]).as("waited for one merge").isEqualTo(1);
    commit.commit(4, messages);
    // the merge left at most the compaction trigger's two runs (all three merged, by size, is one)
    assertThat(peakRuns(table)).isBetween(1 + newFiles, 2 + newFiles);
    assertThat(write.stopTriggerWait().passed()).isEqualTo(1);
    write.close();
  }

  /**
   * No compaction job: the writer waits the whole wait, on its clock, then commits anyway and
   * counts the window as passed; an interrupt ends the wait with an error and sends nothing.
   */
  @Test
  void theWaitEndsAndTheWindowGoesAnywayOrAnInterruptFailsIt() throws Exception {
    ManualClock clock = new ManualClock();
    Table table = writeOnlyTable(clock, "2 s", 2, 3, "64 mb");
    PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
    List<Long> pauses = new ArrayList<>();
    write
        .stopTriggerWait()
        .pauseWith(
            millis -> {
              pauses.add(millis);
              clock.advance(Duration.ofMillis(millis));
            });
    TableCommit commit = table.newStreamWriteBuilder().newCommit();
    for (long w = 1; w <= 4; w++) {
      write.write(row(w, "n" + w, (int) w));
      commit.commit(w, write.prepareCommit());
    }
    // windows 1-3 fill the bucket to the trigger; window 4 waited 2 s in polls, then went
    assertThat(pauses).hasSize(20).allMatch(m -> m == 100);
    assertThat(write.stopTriggerWait().waitedMillis()).isEqualTo(2_000);
    assertThat(write.stopTriggerWait().passed()).isEqualTo(1);
    assertThat(peakRuns(table)).isEqualTo(4);
    assertThat(keysAndNames(table)).hasSize(4);

    write
        .stopTriggerWait()
        .pauseWith(
            millis -> {
              throw new InterruptedException();
            });
    write.write(row(5L, "n5", 5));
    assertThatThrownBy(write::prepareCommit)
        .isInstanceOf(InterruptedIOException.class)
        .hasMessageContaining("waiting for a compaction");
    assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
    write.close();
    assertThat(keysAndNames(table)).hasSize(4);
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).hasSize(4);
  }

  /**
   * A wait lowered for a Flink writer's checkpoint timeout ends at the lower limit; a higher limit
   * changes nothing, and a limit under 1 ms is refused.
   */
  @Test
  void aLoweredWaitEndsAtItsLimit() throws Exception {
    ManualClock clock = new ManualClock();
    Table table = writeOnlyTable(clock, "1 h", 2, 3, "64 mb");
    PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
    StopTriggerWait wait = write.stopTriggerWait();
    assertThat(wait.limitTo(Duration.ofHours(2).toMillis())).isFalse();
    assertThat(wait.maxWaitMillis()).isEqualTo(Duration.ofHours(1).toMillis());
    assertThat(wait.limitTo(500)).isTrue();
    assertThat(wait.maxWaitMillis()).isEqualTo(500);
    assertThatThrownBy(() -> wait.limitTo(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 ms");
    wait.pauseWith(millis -> clock.advance(Duration.ofMillis(millis)));
    TableCommit commit = table.newStreamWriteBuilder().newCommit();
    for (long w = 1; w <= 4; w++) {
      write.write(row(w, "n" + w, (int) w));
      commit.commit(w, write.prepareCommit());
    }
    assertThat(wait.waitedMillis()).isEqualTo(500);
    assertThat(wait.passed()).isEqualTo(1);
    assertThat(keysAndNames(table)).hasSize(4);
    write.close();
  }

  /** Table "t" of this test's directory: write-only, waiting {@code wait}, on {@code clock}. */
  private Table writeOnlyTable(
      ManualClock clock, String wait, int compactionTrigger, int stopTrigger, String writeBuffer) {
    return TestTables.create(
            TestTables.catalog(dir),
            "t",
            PrimaryKeyTableTest.schema()
                .option("write-only", "true")
                .option("write-only.stop-trigger-wait", wait)
                .option("write-buffer-size", writeBuffer)
                .option("num-sorted-run.compaction-trigger", Integer.toString(compactionTrigger))
                .option("num-sorted-run.stop-trigger", Integer.toString(stopTrigger))
                .build())
        .withClock(clock);
  }

  /** Minor compaction by the universal rules, as a compaction job's round commits it. */
  private static void compact(Table table) {
    try {
      table.newCompactBuilder().execute();
    } catch (Exception e) {
      throw new AssertionError("compaction failed", e);
    }
  }

  /** The most sorted runs of any bucket in the latest snapshot. */
  static int peakRuns(Table table) {
    Map<String, List<DataFileMeta>> byBucket = new HashMap<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      byBucket
          .computeIfAbsent(s.partition() + "/" + s.bucket(), k -> new ArrayList<>())
          .addAll(s.files());
    }
    int peak = 0;
    for (List<DataFileMeta> files : byBucket.values()) {
      int runs = 0;
      Set<Integer> levels = new HashSet<>();
      for (DataFileMeta f : files) {
        if (f.level() == 0) {
          runs++;
        } else {
          levels.add(f.level());
        }
      }
      peak = Math.max(peak, runs + levels.size());
    }
    return peak;
  }

  private static Map<Long, String> keysAndNames(Table table) {
    Map<Long, String> out = new TreeMap<>();
    for (RowData r : TestTables.readAll(table)) {
      out.put(r.getLong(0), r.getString(1).toString());
    }
    return out;
  }
}
