package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming {@code SELECT} while a writer commits and compactions rewrite the table, with one
 * failover of the reading job: every committed row arrives once (append), the changelog rebuilds
 * the table exactly (primary key), and no COMPACT snapshot adds a row.
 */
class StreamingReadTest {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();

  @TempDir Path warehouse;

  /** Throws once, on the first row after a checkpoint completed. */
  static final class FailOnce implements MapFunction<Row, Row>, CheckpointListener {
    @Override
    public Row map(Row value) {
      if (CHECKPOINTED.get() && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure");
      }
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTED.set(true);
    }
  }

  private StreamTableEnvironment streaming() {
    FAILED.set(false);
    CHECKPOINTED.set(false);
    Configuration conf = new Configuration();
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    env.setParallelism(2);
    env.enableCheckpointing(100);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    return tEnv;
  }

  private Table table(String name) {
    return new FileSystemCatalog(warehouse.toString()).getTable("db." + name);
  }

  private CloseableIterator<Row> stream(StreamTableEnvironment tEnv, String name) throws Exception {
    return tEnv.toChangelogStream(
            tEnv.sqlQuery(
                "SELECT * FROM c.db."
                    + name
                    + " /*+ OPTIONS('continuous.discovery-interval' = '50 ms') */"))
        .map(new FailOnce())
        .executeAndCollect();
  }

  private static void compactFully(Table table) throws Exception {
    table.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
  }

  @Test
  void everyAppendedRowArrivesOnceThroughCompactionsAndAFailover() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql("CREATE TABLE c.db.a (id BIGINT, p INT) PARTITIONED BY (p)");
    Table a = table("a");
    TestTables.writeBatch(a, List.of(row(0L, 0), row(1L, 1)));
    List<Long> ids = new ArrayList<>();
    try (CloseableIterator<Row> it = stream(tEnv, "a")) {
      long id = 2;
      for (int round = 0; round < 12; round++) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < 25; i++, id++) {
          rows.add(row(id, (int) (id % 3)));
        }
        TestTables.writeBatch(a, rows);
        if (round % 3 == 2) {
          compactFully(a);
        }
      }
      TestTables.writeBatch(a, List.of(row(-1L, 0))); // the end
      while (true) {
        Row r = it.next();
        assertThat(r.getKind()).isEqualTo(RowKind.INSERT);
        long got = (Long) r.getField(0);
        if (got == -1) {
          break;
        }
        ids.add(got);
      }
      assertThat(ids).as("every id once").doesNotHaveDuplicates().hasSize((int) id);
    }
    assertThat(FAILED).as("the injected failure happened").isTrue();
    assertThat(a.snapshotManager().listIds().stream().map(i -> a.snapshotManager().snapshot(i)))
        .extracting(Snapshot::commitKind)
        .contains(CommitKind.COMPACT);
  }

  @Test
  void theChangelogOfAPrimaryKeyTableRebuildsItThroughCompactionsAndAFailover() throws Exception {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.k (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2', 'write-only' = 'true')");
    Table k = table("k");
    Random random = new Random(42);
    TestTables.writeBatch(k, List.of(row(0L, "start")));
    Map<Long, String> view = new TreeMap<>();
    try (CloseableIterator<Row> it = stream(tEnv, "k")) {
      for (int round = 0; round < 12; round++) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          GenericRowData r = row((long) random.nextInt(30), "v" + round + "." + i);
          if (random.nextInt(6) == 0) {
            r.setRowKind(RowKind.DELETE);
          }
          rows.add(r);
        }
        TestTables.writeBatch(k, rows);
        if (round % 3 == 2) {
          compactFully(k);
        }
      }
      TestTables.writeBatch(k, List.of(row(-1L, "end")));
      Map<Long, Integer> inserts = new HashMap<>();
      while (true) {
        Row r = it.next();
        long id = (Long) r.getField(0);
        switch (r.getKind()) {
          case INSERT, UPDATE_AFTER -> view.put(id, (String) r.getField(1));
          case DELETE -> view.remove(id);
          default -> {} // UPDATE_BEFORE: the +U that follows replaces it
        }
        if (r.getKind() == RowKind.INSERT) {
          inserts.merge(id, 1, Integer::sum);
        }
        if (id == -1) {
          break;
        }
      }
      view.remove(-1L);
    }
    Map<Long, String> table = new TreeMap<>();
    for (var r : TestTables.readAll(k)) {
      if (r.getLong(0) != -1) {
        table.put(r.getLong(0), r.getString(1).toString());
      }
    }
    assertThat(view).isEqualTo(table);
    assertThat(FAILED).as("the injected failure happened").isTrue();
  }

  @Test
  void aStreamingReadOfAnEngineWithoutAChangelogIsRefusedAtPlanning() {
    StreamTableEnvironment tEnv = streaming();
    tEnv.executeSql(
        "CREATE TABLE c.db.pu (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'merge-engine' = 'partial-update')");
    assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM c.db.pu").execute())
        .hasStackTraceContaining("A streaming read of db.pu (merge-engine partial-update)")
        .hasStackTraceContaining("'execution.runtime-mode' = 'batch'");
  }
}
