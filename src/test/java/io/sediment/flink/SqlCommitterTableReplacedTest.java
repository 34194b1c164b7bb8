package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.flink.sql.SedimentCommitOperator;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A SQL write whose table was dropped and created again, or renamed, while the job ran commits
 * nothing more, and fails the job without restarts: its commits put files of the old schema into
 * the table at the path (reads of it then failed on a schema it does not have, or mapped the old
 * columns onto new ones by field id). The compaction committer already checked this.
 */
class SqlCommitterTableReplacedTest {

  @TempDir Path dir;

  enum Change {
    DROPPED_AND_CREATED_AGAIN,
    RENAMED
  }

  @ParameterizedTest
  @EnumSource(Change.class)
  void aStreamingWriteStopsCommitting(Change change) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    try (var harness =
        new OneInputStreamOperatorTestHarness<Tuple2<Long, byte[]>, Void>(
            new SedimentCommitOperator(table, true, false, null, "u-1"))) {
      harness.open();
      harness.processElement(SqlCommitterRestores.window(table, 1, 1), 0);
      harness.snapshot(1, 1);
      harness.notifyOfCompletedCheckpoint(1);
      assertThat(TestTables.readAll(table)).hasSize(1);

      Tuple2<Long, byte[]> window2 = SqlCommitterRestores.window(table, 2, 2);
      Identifier t = new Identifier("db", "t");
      if (change == Change.RENAMED) {
        catalog.renameTable(t, new Identifier("db", "u"));
      } else {
        catalog.dropTable(t, false);
      }
      Table now =
          TestTables.create(catalog, "t", TestTables.idValueSchema().build()); // another table
      harness.processElement(window2, 0);
      harness.snapshot(2, 2);
      assertThatThrownBy(() -> harness.notifyOfCompletedCheckpoint(2))
          .isInstanceOf(TableReplacedException.class)
          .hasMessageStartingWith("db.t was dropped, replaced or renamed since this job loaded it");
      assertThat(now.snapshotManager().listIds()).isEmpty();
      if (change == Change.RENAMED) {
        assertThat(TestTables.readAll(catalog.getTable("db.u"))).hasSize(1);
      }
    }
    assertThat(
            TableReplacedException.class
                .getAnnotation(org.apache.flink.runtime.throwable.ThrowableAnnotation.class)
                .value())
        .isEqualTo(org.apache.flink.runtime.throwable.ThrowableType.NonRecoverableError);
  }
}
