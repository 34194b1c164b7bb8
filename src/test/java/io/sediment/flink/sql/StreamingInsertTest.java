package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.StreamingJobs.FailOnce;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Streaming INSERT with checkpoints, a failure after a committed checkpoint, and a restore. */
class StreamingInsertTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path warehouse;

  @Test
  void exactlyOnceAcrossAFailover() throws Exception {
    long n = 600;
    FailOnce.reset(true);
    StreamExecutionEnvironment env = StreamingJobs.restarting(2, 100);
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
            .map(new FailOnce<Long>())
            .returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    tEnv.executeSql("INSERT INTO c.db.s SELECT f0, CAST(f0 % 3 AS INT) FROM ids").await();

    assertThat(FailOnce.FAILED).isTrue();
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
