package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Streaming INSERT with checkpoints, a failure after a committed checkpoint, and a restore. */
class StreamingInsertTest {

  @RegisterExtension
  static final MiniClusterExtension MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();

  @TempDir Path warehouse;

  /** Throws once, on the first row after a checkpoint has completed. */
  static final class FailOnce implements MapFunction<Long, Long>, CheckpointListener {
    @Override
    public Long map(Long value) {
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

  @Test
  void exactlyOnceAcrossAFailover() throws Exception {
    long n = 600;
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
    tEnv.executeSql("CREATE TABLE c.db.s (id BIGINT, p INT)");

    DataStream<Long> ids =
        env.fromSource(
                new DataGeneratorSource<>(
                    x -> x, n, RateLimiterStrategy.perSecond(400), Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .map(new FailOnce())
            .returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    tEnv.executeSql("INSERT INTO c.db.s SELECT f0, CAST(f0 % 3 AS INT) FROM ids").await();

    assertThat(FAILED).isTrue();
    Table table = new FileSystemCatalog(warehouse.toString()).getTable("db.s");
    List<RowData> rows = TestTables.readAll(table);
    Set<Long> seen = new HashSet<>();
    for (RowData r : rows) {
      assertThat(seen.add(r.getLong(0))).as("duplicate id %s", r.getLong(0)).isTrue();
    }
    assertThat(rows).hasSize((int) n);
    assertThat(seen).hasSize((int) n);
    List<Long> snapshotIds = table.snapshotManager().listIds();
    assertThat(snapshotIds.size())
        .isGreaterThan(1); // one commit per checkpoint, not one at the end
    for (long id : snapshotIds) {
      Snapshot s = table.snapshotManager().snapshot(id);
      assertThat(s.commitKind()).isEqualTo(CommitKind.APPEND);
      assertThat(s.commitUser())
          .isEqualTo(table.snapshotManager().snapshot(snapshotIds.get(0)).commitUser());
    }
  }
}
