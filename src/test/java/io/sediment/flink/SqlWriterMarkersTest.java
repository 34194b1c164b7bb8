package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.markerFiles;
import static io.sediment.flink.FlinkTestSupport.orphanDataFiles;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.flink.sql.SedimentWriteOperator;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SQL write job whose first attempt died without closing (a killed TaskManager) after its
 * checkpoint 1, with a window of that checkpoint not yet committed and files written after it; the
 * second attempt restores from checkpoint 1 and its writer writes while its committer restores.
 * Each step is driven by hand, in the order Flink may take it, so the race is exact: the cleanup of
 * the dead attempt's files must spare the files the live writer created before the committer
 * restored, those it created after the cleanup's checkpoint, and the restored window's.
 */
class SqlWriterMarkersTest {

  private static final String USER = "sql-job";

  /** The commit user a new planning of the same INSERT picks (resumed from a savepoint). */
  private static final String REPLANNED = "sql-job-replanned";

  @TempDir Path dir;

  @Test
  void deadWritersFilesGoWhileLiveWritersAndRestoredWindowsStay() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
    Path tableDir = dir.resolve("db.db/t");

    // Attempt 1: window 1 reaches the committer's checkpoint 1, which completes, but the
    // committer dies before committing it. The writer goes on: a window for checkpoint 2 that no
    // checkpoint holds, then a file still open when the TaskManager is killed.
    OperatorSubtaskState writerState;
    OperatorSubtaskState committerState;
    var writer1 = writer(table, USER);
    var committer1 = committer(table, USER);
    writer1.open();
    committer1.open();
    writer1.processElement(row(1L, "a", "x"), 0);
    writer1.processElement(row(2L, "b", "y"), 0);
    writerState = barrier(writer1, 1);
    forward(writer1, committer1);
    committerState = committer1.snapshot(1, 1);
    writer1.processElement(row(3L, "a", "dead"), 0);
    writer1.prepareSnapshotPreBarrier(2);
    writer1.processElement(row(4L, "b", "dead"), 0);
    // killed: neither operator is closed, nothing is committed
    assertThat(rows(table)).isEmpty();
    assertThat(TestTables.dataFiles(tableDir)).hasSize(4);

    // Attempt 2, restored from checkpoint 1 by a newly planned job (another commit user): writers
    // and committer keep marking and cleaning under the restored one. Its writer writes before
    // its committer restores.
    var writer2 = writer(table, REPLANNED);
    writer2.initializeState(writerState);
    writer2.open();
    writer2.processElement(row(10L, "a", "live"), 0);
    var committer2 = committer(table, REPLANNED);
    committer2.initializeState(committerState);
    committer2.open(); // commits the restored window 1
    writer2.processElement(row(11L, "b", "live"), 0);
    barrier(writer2, 3); // the first checkpoint of attempt 2
    forward(writer2, committer2);
    committer2.snapshot(3, 3);
    // Past barrier 3 the writer opens a file the cleanup at checkpoint 3 must not touch.
    writer2.processElement(row(12L, "a", "after"), 0);
    writer2.notifyOfCompletedCheckpoint(3);
    committer2.notifyOfCompletedCheckpoint(3); // commits window 3, then cleans

    assertThat(TestTables.dataFiles(tableDir))
        .as("the dead attempt's two files are gone; the live writer's open file is not")
        .hasSize(4 + 1);
    barrier(writer2, 4);
    forward(writer2, committer2);
    committer2.snapshot(4, 4);
    writer2.notifyOfCompletedCheckpoint(4);
    committer2.notifyOfCompletedCheckpoint(4);

    assertThat(rows(table))
        .containsExactlyInAnyOrderElementsOf(
            TestTables.toStrings(
                table.rowType(),
                List.of(
                    row(1L, "a", "x"),
                    row(2L, "b", "y"),
                    row(10L, "a", "live"),
                    row(11L, "b", "live"),
                    row(12L, "a", "after"))));
    assertThat(orphanDataFiles(table, tableDir)).as("data files no snapshot references").isEmpty();
    assertThat(markerFiles(tableDir)).as("markers left").isEmpty();
    assertThat(snapshots(table)).extracting(Snapshot::commitUser).containsOnly(USER);
    writer2.close();
    committer2.close();
  }

  @Test
  void batchEndOfInputDeletesFilesOfARestartedWriter() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", FlinkTestSupport.partitioned().build());
    Path tableDir = dir.resolve("db.db/t");
    // A first writer attempt of the batch job died with an open file (no close ran).
    var lost = writer(table, USER);
    lost.open();
    lost.processElement(row(1L, "a", "lost"), 0);

    var writer = writer(table, USER);
    var committer =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, false, false, null, USER));
    writer.open();
    committer.open();
    writer.processElement(row(1L, "a", "x"), 0);
    writer.endInput();
    forward(writer, committer);
    committer.endInput();

    assertThat(rows(table))
        .containsExactlyInAnyOrderElementsOf(
            TestTables.toStrings(table.rowType(), List.of(row(1L, "a", "x"))));
    assertThat(orphanDataFiles(table, tableDir)).isEmpty();
    assertThat(markerFiles(tableDir)).isEmpty();
    writer.close();
    committer.close();
  }

  /**
   * A writer sends nothing after its end of input: a barrier after it (the final checkpoint's) does
   * not flush again, though a late completion notice resolved the windows that held its compaction
   * back (a compaction there would reach the committer after its end of input, and race with its
   * final clean-up). The rows land once with the final checkpoint; no file or marker is left.
   */
  @Test
  void aWriterSendsNothingAfterItsEndOfInput() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            FlinkTestSupport.oneKeyBucket()
                .option("write-only", "false")
                .option("num-sorted-run.compaction-trigger", "2")
                .build());
    Path tableDir = dir.resolve("db.db/t");
    var writer = writer(table, USER);
    var committer = committer(table, USER);
    committer
        .getEnvironment()
        .getJobConfiguration()
        .set(
            org.apache.flink.configuration.CheckpointingOptions.CHECKPOINTING_INTERVAL,
            java.time.Duration.ofSeconds(1));
    writer.open();
    committer.open();
    for (long checkpoint = 1; checkpoint <= 2; checkpoint++) {
      writer.processElement(TestTables.row(checkpoint, "v" + checkpoint), 0);
      barrier(writer, checkpoint);
      forward(writer, committer);
      committer.snapshot(checkpoint, checkpoint);
    }
    writer.endInput(); // nothing new; the compaction waits for windows 1 and 2
    forward(writer, committer);
    committer.endInput();
    committer.notifyOfCompletedCheckpoint(2); // late: windows 1 and 2 land now
    writer.notifyOfCompletedCheckpoint(2);
    assertThat(snapshots(table)).hasSize(2);

    writer.prepareSnapshotPreBarrier(3); // the final checkpoint
    assertThat(writer.extractOutputValues()).as("records after the end of input").isEmpty();
    writer.snapshot(3, 3);
    committer.snapshot(3, 3);
    writer.notifyOfCompletedCheckpoint(3);
    committer.notifyOfCompletedCheckpoint(3);
    writer.close();
    committer.close();

    assertThat(rows(table)).containsExactlyInAnyOrder("(1,v1)", "(2,v2)");
    assertThat(orphanDataFiles(table, tableDir)).as("data files no snapshot references").isEmpty();
    assertThat(markerFiles(tableDir)).as("markers left").isEmpty();
  }

  private static OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>> writer(
      Table table, String plannedUser) throws Exception {
    return new OneInputStreamOperatorTestHarness<>(new SedimentWriteOperator(table, plannedUser));
  }

  private static OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void> committer(
      Table table, String plannedUser) throws Exception {
    return new OneInputStreamOperatorTestHarness<>(
        new SedimentCommitOperator(table, true, false, null, plannedUser));
  }

  /** What Flink does at a writer when a checkpoint barrier passes it. */
  private static OperatorSubtaskState barrier(
      OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>> writer, long checkpoint)
      throws Exception {
    writer.prepareSnapshotPreBarrier(checkpoint);
    return writer.snapshot(checkpoint, checkpoint);
  }

  /** Hands the writer's records emitted so far to the committer. */
  private static void forward(
      OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>> writer,
      OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void> committer)
      throws Exception {
    for (Tuple2<Long, byte[]> record : writer.extractOutputValues()) {
      committer.processElement(record, 0);
    }
    writer.getOutput().clear();
  }
}
