package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What operators do to live SQL write jobs, on a MiniCluster: restore from an older savepoint
 * (issue 24, case 1), remove orphans while a commit waits (issue 24, case 2), and a batch INSERT
 * whose commit is refused (issue 21, case 4).
 */
class SinkLiveOperationsTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private StreamTableEnvironment env(
      RuntimeExecutionMode mode, String warehouse, String savepoint, int rate, long ids) {
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    if (savepoint != null) {
      conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setRuntimeMode(mode);
    env.setParallelism(1);
    if (mode == RuntimeExecutionMode.STREAMING) {
      env.enableCheckpointing(300);
    }
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse + "')");
    tEnv.executeSql("CREATE DATABASE IF NOT EXISTS c.db");
    tEnv.executeSql("CREATE TABLE IF NOT EXISTS c.db.s (id BIGINT, p INT)");
    DataStream<Long> source =
        env.fromSource(
                new DataGeneratorSource<>(
                    x -> x, ids, RateLimiterStrategy.perSecond(rate), Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .uid("ids");
    tEnv.createTemporaryView("ids", source);
    return tEnv;
  }

  private static TableResult insert(StreamTableEnvironment tEnv) {
    return tEnv.executeSql("INSERT INTO c.db.s SELECT f0, CAST(f0 % 3 AS INT) FROM ids");
  }

  private static Map<Long, Integer> counts(Table t) {
    Map<Long, Integer> out = new HashMap<>();
    for (RowData r : TestTables.readAll(t)) {
      out.merge(r.getLong(0), 1, Integer::sum);
    }
    return out;
  }

  private static List<Path> files(Path tableDir, String prefix) throws IOException {
    if (!Files.exists(tableDir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(tableDir)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> p.getFileName().toString().startsWith(prefix))
          .filter(p -> !p.toString().contains("/.markers/") || prefix.equals("marker-"))
          .toList();
    }
  }

  /**
   * A streaming INSERT is restored from a savepoint taken five commits before it was cancelled: the
   * new run reuses the checkpoint ids those commits landed with. Every window of the new run lands
   * once: the table holds what the first run committed plus the input replayed from the savepoint,
   * each replayed id once, none lost, and no file is left uncommitted.
   */
  @Test
  void aRestoreFromAnOlderSavepointCommitsEveryNewWindowOnce() throws Exception {
    long n = 2000;
    String warehouse = dir.resolve("wh").toUri().toString();
    JobClient first =
        insert(env(RuntimeExecutionMode.STREAMING, warehouse, null, 200, n))
            .getJobClient()
            .orElseThrow();
    FileSystemCatalog catalog = new FileSystemCatalog(dir.resolve("wh").toString());
    await().atMost(Duration.ofSeconds(60)).until(() -> snapshots(catalog) >= 3);
    String savepoint =
        first
            .triggerSavepoint(dir.resolve("sp").toUri().toString(), SavepointFormatType.CANONICAL)
            .get();
    int atSavepoint = snapshots(catalog);
    await().atMost(Duration.ofSeconds(60)).until(() -> snapshots(catalog) >= atSavepoint + 5);
    StreamingJobs.cancelAndWait(first);
    Table t = catalog.getTable("db.s");
    Map<Long, Integer> before = counts(t);

    // The restored run reads faster: its windows hold more ids than the ones they reuse the ids of.
    insert(env(RuntimeExecutionMode.STREAMING, warehouse, savepoint, 2000, n)).await();

    Map<Long, Integer> after = counts(catalog.getTable("db.s"));
    List<Long> replayed = new ArrayList<>();
    for (long id = 0; id < n; id++) {
      int added = after.getOrDefault(id, 0) - before.getOrDefault(id, 0);
      assertThat(added).as("id %s added by the restored run", id).isBetween(0, 1);
      if (added == 1) {
        replayed.add(id);
      }
    }
    assertThat(replayed).isNotEmpty();
    long from = replayed.get(0);
    assertThat(replayed)
        .as("the restored run wrote every id from its savepoint's position on, once")
        .hasSize((int) (n - from));
    for (long id = 0; id < from; id++) {
      assertThat(before).as("id %s, before the savepoint's position", id).containsKey(id);
    }
    Path tableDir = dir.resolve("wh/db.db/s");
    assertThat(
            new RemoveOrphanFiles(catalog.getTable("db.s"))
                .olderThan(Long.MAX_VALUE)
                .dryRun(true)
                .execute())
        .as("no file left uncommitted")
        .noneMatch(p -> p.getName().startsWith("data-"));
    assertThat(files(tableDir, "marker-")).as("no marker left").isEmpty();
  }

  private static int snapshots(FileSystemCatalog catalog) {
    try {
      return catalog.getTable("db.s").snapshotManager().listIds().size();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /**
   * Orphan removal with {@code older_than} = now runs while a streaming INSERT's commit is about to
   * publish: the window's data files are still marked (the committer deletes the markers after its
   * publish) and the commit's own manifests are younger than a day, so nothing of the commit is
   * removed, and the table reads every row.
   */
  @Test
  void orphanRemovalDuringACommitRemovesNothingOfIt() throws Exception {
    long n = 300;
    Path whDir = dir.resolve("wh");
    String warehouse = FaultyFileSystem.uri(whDir);
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    AtomicBoolean removed = new AtomicBoolean();
    FaultyFileSystem.onRename(
        target -> {
          // The second snapshot's publish, in the committer: the window's files wait for it.
          if (target.endsWith("/db.db/s/snapshot/snapshot-2")
              && removed.compareAndSet(false, true)) {
            Path tableDir = whDir.resolve("db.db/s");
            try {
              // The writers hear of the checkpoint meanwhile, in any order: give a writer that
              // deletes its own markers then (as before issue 24) the time to.
              try {
                await()
                    .atMost(Duration.ofSeconds(2))
                    .until(() -> files(tableDir, "marker-").isEmpty());
              } catch (ConditionTimeoutException stillMarked) {
                // the markers stay until the committer has published: as it should be
              }
              new RemoveOrphanFiles(catalog.getTable("db.s"))
                  .olderThan(System.currentTimeMillis())
                  .execute();
            } catch (RuntimeException e) {
              throw new IOException(e);
            }
            assertThat(files(tableDir, "data-")).isNotEmpty();
          }
        });

    insert(env(RuntimeExecutionMode.STREAMING, warehouse, null, 300, n)).await();

    assertThat(removed).isTrue();
    Map<Long, Integer> rows = counts(catalog.getTable("db.s"));
    assertThat(rows).hasSize((int) n);
    assertThat(rows.values()).allMatch(c -> c == 1);
  }

  /**
   * Issue 21, case 4: a batch INSERT whose commit is refused (the next snapshot id holds garbage)
   * fails with the reason, without restarts, and leaves neither its data files nor their markers.
   */
  @Test
  void aRefusedBatchInsertLeavesNoFile() throws Exception {
    Path whDir = dir.resolve("wh");
    String warehouse = whDir.toUri().toString();
    StreamTableEnvironment tEnv = env(RuntimeExecutionMode.BATCH, warehouse, null, 100_000, 10);
    insert(tEnv).await();
    Path tableDir = whDir.resolve("db.db/s");
    Files.writeString(
        tableDir.resolve("snapshot/snapshot-2"), "not a snapshot", StandardCharsets.UTF_8);
    List<Path> dataBefore = files(tableDir, "data-");

    StreamTableEnvironment again = env(RuntimeExecutionMode.BATCH, warehouse, null, 100_000, 10);
    assertThatThrownBy(() -> insert(again).await())
        .hasStackTraceContaining("was not committed, and the files it wrote were deleted")
        .hasStackTraceContaining("snapshot-2");

    assertThat(files(tableDir, "data-")).as("no new data file").isEqualTo(dataBefore);
    assertThat(files(tableDir, "marker-")).as("no marker").isEmpty();
  }
}
