package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streaming read's enumerator on Flink's mock context: what it records for a consumer at a
 * completed checkpoint while splits are not yet read.
 */
class StreamSplitEnumeratorTest {

  @TempDir Path dir;

  /**
   * A changelog split not yet read holds the consumer at its snapshot (it is a snapshot's changes,
   * not a full read, which would hold nothing back and record no position).
   */
  @Test
  void aPendingChangelogSplitHoldsTheConsumerAtItsSnapshot() throws Throwable {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .option("changelog-producer", "lookup")
                .option("local-cache.dir", dir.resolve("cache").toString())
                .build());
    TestTables.writeBatch(table, List.of(row(1L, "a"))); // APPEND, then the writer's COMPACT
    Snapshot compact = table.latestSnapshot().orElseThrow();
    assertThat(compact.changelogManifestList()).isNotNull();
    ConsumerManager consumers = new ConsumerManager(table.store().fileIO(), table.store().paths());
    try (MockSplitEnumeratorContext<StreamSplit> context = new MockSplitEnumeratorContext<>(1)) {
      StreamSplitEnumerator enumerator =
          new StreamSplitEnumerator(
              context,
              table.newReadBuilder().newStreamScan(),
              true,
              50,
              new StreamEnumeratorState(1, 0, List.of(), Map.of()),
              consumers,
              "c");
      enumerator.start();
      context.runPeriodicCallable(0); // plans snapshots 1 and 2; no reader registered yet
      StreamEnumeratorState state = enumerator.snapshotState(1);
      assertThat(state.pending())
          .singleElement()
          .satisfies(s -> assertThat(s.split().isChangelog()).isTrue());
      enumerator.notifyCheckpointComplete(1);
      assertThat(consumers.nextSnapshot("c")).hasValue(compact.id());
    }
  }
}
