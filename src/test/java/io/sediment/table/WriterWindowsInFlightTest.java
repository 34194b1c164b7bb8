package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.io.OutputObserver;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A primary-key writer remembers each window it sent until it sees the window committed: memory
 * that must stay bounded over a streaming job's life. A writer that compacts, or waits for a
 * compaction job, resolves its windows as the snapshots show them; a write-only writer that does
 * neither never looks, so it must keep none (it kept every one before: a leak of a few file names
 * per bucket and checkpoint, for as long as the job ran).
 */
class WriterWindowsInFlightTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "write-only {0}, wait {1}")
  @CsvSource({"true, 0 s", "true, 1 min", "false, 0 s"})
  void windowsSentAndCommittedAreForgotten(boolean writeOnly, String wait) throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "3")
                .option("write-only", Boolean.toString(writeOnly))
                .option("write-only.stop-trigger-wait", wait)
                // room for every window: the writer never waits here
                .option("num-sorted-run.stop-trigger", "1000")
                .build());
    PrimaryKeyTableWrite write = new PrimaryKeyTableWrite(table.store(), OutputObserver.NONE);
    TableCommit commit = table.newStreamWriteBuilder().withCommitUser("w").newCommit();
    Random rnd = new Random(42);
    for (long window = 1; window <= 40; window++) {
      for (int i = 0; i < 10; i++) {
        write.write(row((long) rnd.nextInt(100), "v" + i));
      }
      commit.commit(window, write.prepareCommit());
      // at most the windows of the last prepareCommit, one per bucket, are not seen yet; a writer
      // that never looks keeps none
      assertThat(write.windowsInFlight())
          .as("after window %s", window)
          .isLessThanOrEqualTo(writeOnly && wait.startsWith("0") ? 0 : 3);
    }
    assertThat(TestTables.readAll(table)).hasSizeLessThanOrEqualTo(100).isNotEmpty();
    write.close();
  }
}
