package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.fill;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class CompactBatchJobTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void batchJobCompactsAppendTableIntoOneCompactSnapshot() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();

    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("nightly")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .build();
    CompactResult result = job.runBatch(StreamExecutionEnvironment.getExecutionEnvironment());

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> after = snapshots(t);
    assertThat(after).hasSize(snapshotsBefore + 1);
    Snapshot last = after.get(after.size() - 1);
    assertThat(last.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(last.commitUser()).startsWith("nightly-compact-").isEqualTo(job.commitUser());
    assertThat(result.snapshotId()).isEqualTo(last.id());
    assertThat(result.tasks()).isEqualTo(2);
    assertThat(result.filesBefore()).isEqualTo(12);
    assertThat(result.filesAfter()).isEqualTo(2);
    assertThat(result.rowsRead()).isEqualTo(240).isEqualTo(result.rowsWritten());
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(2);
    assertThat(FlinkTestSupport.unreferencedDataFiles(t, dir.resolve("db.db/t"))).hasSize(12);
  }

  @Test
  void withOperatorChainingDisabledTheRewriteRunsOnTheTaskThreadAndStillCompacts()
      throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");
    List<String> before = rows(table);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    // Reader and rewrite operator in separate tasks: no slot to hand over, the fallback runs.
    env.disableOperatorChaining();

    CompactResult result =
        CompactJob.builder(dir.toString(), "db.t")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .build()
            .runBatch(env);

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(result.tasks()).isEqualTo(2);
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(2);
    assertThat(snapshots(t).get(snapshots(t).size() - 1).commitKind())
        .isEqualTo(CommitKind.COMPACT);
    assertThat(FlinkTestSupport.markerFiles(dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void batchJobMergesSortedRunsOfAPrimaryKeyTable() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "pk",
            FlinkTestSupport.partitioned()
                .primaryKey("p", "id")
                .option("bucket", "2")
                .option("write-only", "true")
                .build());
    // Three commits upserting overlapping keys: three sorted runs per bucket.
    for (int c = 0; c < 3; c++) {
      List<org.apache.flink.table.data.RowData> batch = new java.util.ArrayList<>();
      for (long id = c * 10; id < c * 10 + 30; id++) {
        batch.add(TestTables.row(id, id % 2 == 0 ? "a" : "b", "v" + c));
      }
      TestTables.writeBatch(table, batch);
    }
    List<String> before = rows(table);
    assertThat(before).hasSize(50).contains("(0,a,v0)", "(25,b,v2)", "(15,b,v1)");
    int filesBefore = FlinkTestSupport.liveFiles(table).size();

    CompactResult result =
        CompactJob.builder(dir.toString(), "db.pk")
            .option("compaction.full", "true")
            .parallelism(2)
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());

    Table t = catalog.getTable("db.pk");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    Snapshot last = t.latestSnapshot().orElseThrow();
    assertThat(last.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(result.snapshotId()).isEqualTo(last.id());
    // One sorted run (one file here) per partition and bucket, at the top level.
    List<io.sediment.manifest.DataFileMeta> after = FlinkTestSupport.liveFileMetas(t);
    assertThat(after.size()).isLessThan(filesBefore).isLessThanOrEqualTo(4);
    assertThat(after).allMatch(f -> f.level() == t.options().numLevels() - 1);
    assertThat(result.rowsWritten()).isEqualTo(50);
  }

  @Test
  void partitionFilterLimitsTheJobAndNothingToDoCommitsNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 5, "a", "b");

    CompactResult r =
        CompactJob.builder(dir.toString(), "db.t")
            .partition(Map.of("p", "a"))
            .option("compaction.min.file-num", "3")
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
    assertThat(r.tasks()).isEqualTo(1);
    assertThat(r.filesBefore()).isEqualTo(6);

    int count = snapshots(catalog.getTable("db.t")).size();
    CompactResult again =
        CompactJob.builder(dir.toString(), "db.t")
            .where("{\"method\":\"equal\",\"field\":\"p\",\"literals\":[\"a\"]}")
            .option("compaction.min.file-num", "3")
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
    assertThat(again.tasks()).isZero();
    assertThat(again.snapshotId()).isNull();
    assertThat(snapshots(catalog.getTable("db.t"))).hasSize(count);
  }

  @Test
  void sqlWhereSelectsPartitionsAndABadOneIsRejectedAtBuild() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 5, "a", "b", "c");
    int snapshotsBefore = snapshots(table).size();

    assertThatThrownBy(() -> CompactJob.builder(dir.toString(), "db.t").where("note = 'x'").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("note = 'x'")
        .hasMessageContaining("p");
    assertThat(snapshots(table)).hasSize(snapshotsBefore);

    CompactResult r =
        CompactJob.builder(dir.toString(), "db.t")
            .where("p <> 'b'") // as in sys.compact(where => ...) and Paimon's --where
            .option("compaction.min.file-num", "3")
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
    assertThat(r.tasks()).isEqualTo(2);
    List<String> compacted =
        FlinkTestSupport.liveFileMetas(catalog.getTable("db.t")).stream()
            .map(f -> f.fileName())
            .toList();
    assertThat(compacted).hasSize(1 + 6 + 1); // a and c compacted into one file each, b untouched
  }

  @Test
  void failingRewriteTaskFailsJobLeavesNoSnapshotAndNoOutput() throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();
    AtomicReference<String> victim = new AtomicReference<>();
    victim.set(
        FlinkTestSupport.liveFileMetas(table).stream()
            .filter(f -> true)
            .findFirst()
            .orElseThrow()
            .fileName());
    FaultyFileSystem.failOpen(p -> p.endsWith(victim.get()));

    CompactJob job =
        CompactJob.builder(FaultyFileSystem.uri(dir), "db.t")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .build();
    assertThatThrownBy(() -> job.runBatch(StreamExecutionEnvironment.getExecutionEnvironment()))
        .satisfies(
            e ->
                assertThat(ExceptionUtils.findThrowableWithMessage(e, "Injected failure opening"))
                    .isPresent());
    FaultyFileSystem.reset();

    Table t = catalog.getTable("db.t");
    assertThat(snapshots(t)).hasSize(snapshotsBefore);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void rewriteLostAfterWritingItsOutputsIsRedoneAndLeavesNoOrphan() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();

    CompactResult result;
    try (InjectedFaults faults = InjectedFaults.create().failAfterRewriteOnce()) {
      result =
          CompactJob.builder(dir.toString(), "db.t")
              .option("compaction.min.file-num", "3")
              .parallelism(2)
              .listener(faults)
              .build()
              .runBatch(FlinkTestSupport.restartingEnv());
      assertThat(faults.allFired()).as("a rewrite attempt was lost").isTrue();
    }

    Snapshot compacted = assertCompactedOnceLeavingNothing(catalog, before, snapshotsBefore);
    assertThat(result.snapshotId()).isEqualTo(compacted.id());
  }

  @Test
  void committerRestartedBeforeItsCommitCommitsOnceAndLeavesNoOrphan() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();

    try (InjectedFaults faults = InjectedFaults.create().failBeforeCommitOnce()) {
      CompactJob.builder(dir.toString(), "db.t")
          .option("compaction.min.file-num", "3")
          .parallelism(2)
          .listener(faults)
          .build()
          .runBatch(FlinkTestSupport.restartingEnv());
      assertThat(faults.allFired()).as("the committer failed once").isTrue();
    }

    assertCompactedOnceLeavingNothing(catalog, before, snapshotsBefore);
  }

  /**
   * The table holds the same rows, one COMPACT snapshot more (returned) with one file per
   * partition, and no output of a lost attempt and no marker is left. Returns the new snapshot.
   */
  private Snapshot assertCompactedOnceLeavingNothing(
      FileSystemCatalog catalog, List<String> before, int snapshotsBefore) throws Exception {
    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> after = snapshots(t);
    assertThat(after).hasSize(snapshotsBefore + 1);
    Snapshot compacted = after.get(after.size() - 1);
    assertThat(compacted.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(FlinkTestSupport.liveFiles(t)).hasSize(2);
    // The lost attempt's outputs were deleted by the committer after its commit.
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
    assertThat(FlinkTestSupport.markerFiles(tableDir)).isEmpty();
    return compacted;
  }

  @Test
  void lostRewriteOfADeletionVectorTableLeavesNoDataOrDeletionVectorFile() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Map<String, String> cache =
        Map.of("local-cache.enabled", "true", "local-cache.dir", dir.resolve("cache").toString());
    Table table =
        TestTables.create(
            catalog,
            "dv",
            FlinkTestSupport.partitioned()
                .primaryKey("p", "id")
                .option("bucket", "1")
                .option("write-only", "true")
                .option("deletion-vectors.enabled", "true")
                .build());
    fill(table, 0, 1, 20, "a", "b");
    table.newCompactBuilder().withOptions(cache).execute(); // level-0 rows move up
    // Updates of some keys: compacting them marks the older versions deleted (a new vector).
    fill(table, 0, 1, 5, "a");
    List<String> before = rows(table);

    try (InjectedFaults faults = InjectedFaults.create().failAfterRewriteOnce()) {
      CompactJob.builder(dir.toString(), "db.dv")
          .options(cache)
          .strategy("minor") // keeps the old file and marks its replaced rows in a vector
          .parallelism(2)
          .listener(faults)
          .build()
          .runBatch(FlinkTestSupport.restartingEnv());
      assertThat(faults.allFired()).as("a rewrite attempt was lost").isTrue();
    }

    Table t = catalog.getTable("db.dv");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    assertThat(t.latestSnapshot().orElseThrow().indexManifest()).isNotNull();
    Path tableDir = dir.resolve("db.db/dv");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
    assertThat(FlinkTestSupport.orphanIndexFiles(t, tableDir)).isEmpty();
    assertThat(FlinkTestSupport.markerFiles(tableDir)).isEmpty();
  }

  /** Counts the committer's attempts at the batch commit (once per run without restarts). */
  static final class CountingListener implements CompactListener {
    static final AtomicInteger COMMIT_ATTEMPTS = new AtomicInteger();

    @Override
    public void beforeCommit(long checkpointId) {
      COMMIT_ATTEMPTS.incrementAndGet();
    }
  }

  /**
   * A task error no restart can fix fails a batch run at once, under a restart strategy that would
   * restart it five times: the committer tries its commit once (before, it was restarted until the
   * attempts ran out), the outputs are gone and nothing is committed.
   */
  @Test
  void anErrorNoRestartCanFixFailsTheBatchJobWithoutARestart() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 3, 20, "a", "b");
    int snapshotsBefore = snapshots(table).size();
    java.nio.file.Path victim = null;
    for (var split : table.newReadBuilder().newScan().plan().splits()) {
      var f = split.files().get(0);
      victim =
          java.nio.file.Paths.get(
              table.store().dataFilePath(split.partition(), split.bucket(), f.fileName()).toUri());
      break;
    }
    byte[] bytes = java.nio.file.Files.readAllBytes(victim);
    java.nio.file.Files.write(victim, java.util.Arrays.copyOf(bytes, bytes.length - 16));
    CountingListener.COMMIT_ATTEMPTS.set(0);

    assertThatThrownBy(
            () ->
                CompactJob.builder(dir.toString(), "db.t")
                    .parallelism(2)
                    .listener(new CountingListener())
                    .build()
                    .runBatch(restartingEnv()))
        .hasStackTraceContaining("Cannot read the Parquet footer");

    assertThat(CountingListener.COMMIT_ATTEMPTS).hasValue(1);
    Table t = catalog.getTable("db.t");
    assertThat(snapshots(t)).hasSize(snapshotsBefore);
    java.nio.file.Files.write(victim, bytes);
    Path tableDir = dir.resolve("db.db/t");
    assertThat(FlinkTestSupport.orphanDataFiles(t, tableDir)).isEmpty();
  }

  /** Which errors fail a job at once: not those with an I/O error on the way (maybe transient). */
  @Test
  void errorsNoRetryCanFixAreToldFromTransientOnes() {
    assertThat(UnrecoverableCompactionError.unfixable(new IllegalArgumentException("bad option")))
        .isTrue();
    assertThat(
            UnrecoverableCompactionError.unfixable(
                new RuntimeException(new IllegalStateException("needs local cache"))))
        .isTrue();
    assertThat(
            UnrecoverableCompactionError.unfixable(
                new io.sediment.catalog.CatalogException("Table db.t does not exist")))
        .isTrue();
    assertThat(
            UnrecoverableCompactionError.unfixable(
                new IllegalStateException("plan", new java.io.IOException("connection reset"))))
        .isFalse();
    assertThat(
            UnrecoverableCompactionError.unfixable(
                new java.io.UncheckedIOException(new java.io.IOException("timeout"))))
        .isFalse();
    assertThat(UnrecoverableCompactionError.unfixable(new RuntimeException("?"))).isFalse();
  }

  private static StreamExecutionEnvironment restartingEnv() {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    return StreamExecutionEnvironment.getExecutionEnvironment(conf);
  }
}
