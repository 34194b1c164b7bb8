package io.sediment.flink.sql;

import static io.sediment.flink.sql.SedimentSqlTest.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StrategyTables;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code sys.compact(compact_strategy => ...)} and {@code sys.compact_database}. */
class CompactStrategySqlTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path warehouse;
  FileSystemCatalog catalog;
  TableEnvironment tEnv;

  @BeforeEach
  void setUp() {
    catalog = TestTables.catalog(warehouse);
    tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    tEnv.getConfig().set("parallelism.default", "2");
    tEnv.getConfig().set("execution.checkpointing.interval", "300ms");
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
  }

  List<String> call(String sql) {
    return rows(tEnv.executeSql(sql));
  }

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void compactIsFullByDefault(StrategyTables kind) throws Exception {
    Table table = kind.create(catalog, "t");

    call("CALL c.sys.compact(`table` => 'db.t')");

    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterFull());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void compactWithMinorStrategyRewritesOnlyTheTablesPicks(StrategyTables kind) throws Exception {
    Table table = kind.create(catalog, "t");

    call("CALL c.sys.compact(`table` => 'db.t', compact_strategy => 'minor')");

    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterMinor());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @Test
  void badStrategyIdleTimeAndDatabaseArgumentsNameTheArgument() throws Exception {
    StrategyTables.APPEND.create(catalog, "t");
    assertThatThrownBy(
            () -> call("CALL c.sys.compact(`table` => 'db.t', compact_strategy => 'major')"))
        .hasStackTraceContaining(
            "Argument 'compact_strategy': Unknown compact strategy 'major': allowed are 'full',"
                + " 'minor'");
    assertThatThrownBy(
            () -> call("CALL c.sys.compact(`table` => 'db.t', partition_idle_time => 'soon')"))
        .hasStackTraceContaining("Argument 'partition_idle_time'")
        .hasStackTraceContaining("'soon'");
    assertThatThrownBy(() -> call("CALL c.sys.compact_database(compact_strategy => 'major')"))
        .hasStackTraceContaining("Argument 'compact_strategy'");
    assertThatThrownBy(() -> call("CALL c.sys.compact_database(including_tables => 't[')"))
        .hasStackTraceContaining("Argument 'including_tables'")
        .hasStackTraceContaining("'t['");
    assertThatThrownBy(() -> call("CALL c.sys.compact_database(including_databases => 'nope')"))
        .hasStackTraceContaining("Argument 'including_databases'")
        .hasStackTraceContaining("no database");
    assertThatThrownBy(() -> call("CALL c.sys.compact_database(mode => 'sometimes')"))
        .hasStackTraceContaining("Argument 'mode'")
        .hasStackTraceContaining("'combined', 'divided'");
  }

  @Test
  void partitionIdleTimeOfADayLeavesFreshTablesAlone() throws Exception {
    Table table = StrategyTables.APPEND.create(catalog, "t");

    call("CALL c.sys.compact(`table` => 'db.t', partition_idle_time => '1 d')");

    assertThat(StrategyTables.liveFiles(table)).hasSize(3);
  }

  @Test
  void compactDatabaseFollowsIncludingAndExcludingRegexes() throws Exception {
    catalog.createDatabase("other", false);
    Table orders = StrategyTables.APPEND.create(catalog, "orders");
    Table ordersTmp = StrategyTables.APPEND.create(catalog, "orders_tmp");
    Table users = StrategyTables.DELETION_VECTORS.create(catalog, "users");

    List<String> result =
        call(
            "CALL c.sys.compact_database(including_databases => 'db|other',"
                + " including_tables => 'db\\.orders.*|users', excluding_tables => '.*_tmp')");

    // One row per table, each with its own task and its own COMPACT snapshot.
    assertThat(result).hasSize(2);
    assertThat(result)
        .anySatisfy(
            r ->
                assertThat(r)
                    .startsWith("+I[1, " + orders.latestSnapshot().orElseThrow().id() + ", ")
                    .endsWith(", null, db.orders]"))
        .anySatisfy(
            r ->
                assertThat(r)
                    .startsWith("+I[1, " + users.latestSnapshot().orElseThrow().id() + ", ")
                    .endsWith(", null, db.users]"));
    assertThat(StrategyTables.liveFiles(orders)).hasSize(1);
    assertThat(StrategyTables.liveFiles(users)).hasSize(1);
    assertThat(StrategyTables.liveFiles(ordersTmp)).hasSize(3);
    assertThat(StrategyTables.rows(users))
        .isEqualTo(StrategyTables.DELETION_VECTORS.expectedRows());
  }

  @Test
  void compactDatabaseInStreamingModeRunsTheDedicatedJobMinorByDefault(
      @InjectClusterClient ClusterClient<?> cluster) throws Exception {
    Table orders = StrategyTables.APPEND.create(catalog, "orders");
    Table ordersTmp = StrategyTables.APPEND.create(catalog, "orders_tmp");
    Table users = StrategyTables.DELETION_VECTORS.create(catalog, "users");

    List<String> result =
        call(
            "CALL c.sys.compact_database(including_databases => 'db', mode => 'streaming',"
                + " excluding_tables => 'orders_tmp',"
                + " table_options => 'compaction.min.file-num=3,compaction.discovery-interval=100ms')");
    JobID job = JobID.fromHexString(result.get(0).replaceAll(".*, ([0-9a-f]{32}), null]$", "$1"));
    try {
      // the last: three files become one, and one file is never planned again
      await().atMost(Duration.ofSeconds(60)).until(() -> compactCommits(orders) == 1);
      // Minor, the streaming default: the level-0 file moves up, not merged with the top (a full
      // compaction would merge both into one file and stop there). Its keys mark half the top
      // file's rows deleted, past compaction.delete-ratio-threshold (0.2), so a later round
      // rewrites the top file alone: three COMPACT commits (the first is the fill's), two files.
      // Waiting for two instead raced with that third commit.
      await().atMost(Duration.ofSeconds(60)).until(() -> compactCommits(users) == 3);
      assertThat(StrategyTables.liveFiles(orders)).hasSize(1);
      assertThat(StrategyTables.liveFiles(users)).hasSize(2);
      assertThat(StrategyTables.rows(users))
          .isEqualTo(StrategyTables.DELETION_VECTORS.expectedRows());
      assertThat(compactCommits(ordersTmp)).isZero();
    } finally {
      cluster.cancel(job).get();
    }
  }

  private static long compactCommits(Table table) {
    return table.snapshotManager().listIds().stream()
        .map(id -> table.snapshotManager().snapshot(id).commitKind())
        .filter(k -> k == CommitKind.COMPACT)
        .count();
  }
}
