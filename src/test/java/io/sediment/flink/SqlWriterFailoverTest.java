package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.markerFiles;
import static io.sediment.flink.FlinkTestSupport.orphanDataFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming {@code INSERT} whose writers die after creating data files past the last completed
 * checkpoint, as when their TaskManager is killed: the files they could not delete stay on disk
 * (deletes of data files fail while the attempt dies). The job restarts from its checkpoint and
 * goes on writing; with the job still running, every row is in the table once, no data file is
 * unreferenced, and no marker is left.
 */
class SqlWriterFailoverTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  private static final long ROWS = 300;

  static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final AtomicBoolean DYING = new AtomicBoolean();
  static final AtomicInteger ROWS_AFTER_CHECKPOINT = new AtomicInteger();

  @TempDir Path warehouse;

  /**
   * Passes ids below {@link #ROWS} (the generator runs on: the job never ends). Once, 40 rows after
   * a checkpoint completed, the attempt dies; until the next attempt opens, data files cannot be
   * deleted, so the writers' closing leaves their open files behind.
   */
  static final class FirstRowsThenDieOnce extends RichFilterFunction<Long>
      implements CheckpointListener {
    @Override
    public void open(OpenContext context) {
      if (FAILED.get()) {
        DYING.set(false);
      }
    }

    @Override
    public boolean filter(Long id) {
      if (id >= ROWS) {
        return false;
      }
      if (CHECKPOINTED.get()
          && ROWS_AFTER_CHECKPOINT.incrementAndGet() > 40
          && FAILED.compareAndSet(false, true)) {
        DYING.set(true);
        throw new IllegalStateException("injected failure: the writers' TaskManager is lost");
      }
      return true;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTED.set(true);
    }
  }

  @BeforeEach
  void injectFaults() {
    FaultyFileSystem.reset();
    FaultyFileSystem.failDelete(p -> DYING.get() && p.contains("/data-"));
  }

  @AfterEach
  void resetFaults() {
    FaultyFileSystem.reset();
  }

  @Test
  void writersKilledPastACheckpointLeaveNoDataFile() throws Exception {
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 200);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    String uri = FaultyFileSystem.uri(warehouse);
    tEnv.executeSql("CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + uri + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    tEnv.executeSql("CREATE TABLE c.db.s (id BIGINT, p INT) PARTITIONED BY (p)");

    // Ids 0.. from the first of two generator splits; the second split's ids are filtered out.
    DataStream<Long> ids =
        env.fromSource(
                new DataGeneratorSource<>(
                    x -> x, 1_000_000_000L, RateLimiterStrategy.perSecond(300), Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .filter(new FirstRowsThenDieOnce())
            .returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    TableResult insert =
        tEnv.executeSql("INSERT INTO c.db.s SELECT f0, CAST(f0 % 3 AS INT) FROM ids");
    JobClient job = insert.getJobClient().orElseThrow();
    Table table = new FileSystemCatalog(uri).getTable("db.s");
    Path tableDir = warehouse.resolve("db.db/s");
    try {
      await("all rows committed after the failover")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(200))
          .ignoreExceptions()
          .until(() -> FAILED.get() && TestTables.readAll(table).size() >= ROWS);
      // (>=: a duplicate past ROWS is named by the checks below, not by a timeout)
      // The writers get no more rows: what is on disk now stays, unless a cleanup removes it.
      await("nothing of the dead attempt left")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                assertThat(orphanDataFiles(table, tableDir))
                    .as("data files no snapshot references")
                    .isEmpty();
                assertThat(markerFiles(tableDir)).as("markers").isEmpty();
              });
      assertThat(job.getJobStatus().get()).as("the job still runs").isEqualTo(JobStatus.RUNNING);
    } finally {
      StreamingJobs.cancelAndWait(job);
    }

    assertThat(FaultyFileSystem.DELETE_FAILURES.get())
        .as("the dead attempt left data files it could not delete")
        .isPositive();
    List<RowData> rows = TestTables.readAll(table);
    Set<Long> seen = new HashSet<>();
    for (RowData r : rows) {
      assertThat(seen.add(r.getLong(0))).as("duplicate id %s", r.getLong(0)).isTrue();
    }
    assertThat(seen).hasSize((int) ROWS).allMatch(id -> id >= 0 && id < ROWS);
    assertThat(new RemoveOrphanFiles(table).olderThan(Long.MAX_VALUE).dryRun(true).execute())
        .as("nothing for remove_orphan_files")
        .noneMatch(p -> p.getName().startsWith("data-"));
  }
}
