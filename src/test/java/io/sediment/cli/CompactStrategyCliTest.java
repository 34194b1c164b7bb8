package io.sediment.cli;

import static io.sediment.cli.SedimentCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.cli.SedimentCliTest.Result;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StrategyTables;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code sediment compact --compact-strategy}, its batch default, and whole databases. */
class CompactStrategyCliTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void batchCompactionIsFullByDefault(StrategyTables kind) throws Exception {
    Table table = kind.create(TestTables.catalog(dir), "t");

    Result r = run("compact", "--warehouse", dir.toString(), "--table", "db.t");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterFull());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void minorStrategyRewritesOnlyTheTablesPicks(StrategyTables kind) throws Exception {
    Table table = kind.create(TestTables.catalog(dir), "t");

    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--compact-strategy",
            "minor");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterMinor());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @Test
  void dryRunShowsThePlanOfTheModesDefaultStrategy() throws Exception {
    StrategyTables.PRIMARY_KEY.create(TestTables.catalog(dir), "t");
    String w = dir.toString();

    Result batch = run("compact", "--warehouse", w, "--table", "db.t", "--dry-run");
    Result streaming =
        run("compact", "--warehouse", w, "--table", "db.t", "--dry-run", "--mode", "streaming");

    assertThat(batch.out()).as(batch.err()).contains("Plan: 1 task;");
    // the tasks as a table, not as toString()
    assertThat(batch.out())
        .contains("table  partition  bucket  files  bytes  rows  output")
        .containsPattern("db\\.t\\s+-\\s+0\\s+2\\s+\\d+\\s+\\d+\\s+level \\d")
        .doesNotContain("CompactTask{");
    assertThat(streaming.out()).as(streaming.err()).contains("Plan: nothing to compact: ");
  }

  @Test
  void badStrategyAndIdleTimeAreRejectedNamingWhatIsAllowed() throws Exception {
    StrategyTables.APPEND.create(TestTables.catalog(dir), "t");

    Result bad =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--compact-strategy",
            "major");
    assertThat(bad.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(bad.err()).contains("Unknown compact strategy 'major': allowed are 'full', 'minor'");

    Result badIdle =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--partition-idle-time",
            "soon");
    assertThat(badIdle.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badIdle.err()).contains("--partition-idle-time", "'soon'");
  }

  @Test
  void partitionIdleTimeOfADayLeavesFreshTablesAlone() throws Exception {
    Table table = StrategyTables.APPEND.create(TestTables.catalog(dir), "t");

    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--partition-idle-time",
            "1d");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Nothing to compact");
    assertThat(StrategyTables.liveFiles(table)).hasSize(3);
  }

  @Test
  void databaseBatchCompactionFollowsIncludingAndExcludingRegexes() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table orders = StrategyTables.APPEND.create(catalog, "orders");
    Table ordersTmp = StrategyTables.APPEND.create(catalog, "orders_tmp");
    Table users = StrategyTables.PRIMARY_KEY.create(catalog, "users");

    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--database",
            "db",
            "--including-tables",
            "orders.*|db\\.users",
            "--excluding-tables",
            ".*_tmp");

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(StrategyTables.liveFiles(orders)).hasSize(1);
    assertThat(StrategyTables.liveFiles(users)).hasSize(1);
    assertThat(StrategyTables.liveFiles(ordersTmp)).hasSize(3);
    // One COMPACT commit per compacted table, none for the excluded one.
    assertThat(compactSnapshots(orders)).hasSize(1);
    assertThat(compactSnapshots(users)).hasSize(1);
    assertThat(compactSnapshots(ordersTmp)).isEmpty();

    // no table matches: nothing to do, said as such (it failed with an index out of bounds)
    Result none =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--database",
            "db",
            "--including-tables",
            "nomatch");
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out()).contains("Nothing to compact: no table matched");
  }

  @Test
  void sortCompactionFromTheCommandLine() throws Exception {
    Table table = StrategyTables.APPEND.create(TestTables.catalog(dir), "t");
    String w = dir.toString();
    String[] sort = {"--order-strategy", "zorder", "--order-by", "v,id"};

    Result onlyBy = run("compact", "--warehouse", w, "--table", "db.t", "--order-by", "v");
    Result streaming =
        run(
            "compact",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--mode",
            "streaming",
            sort[0],
            sort[1],
            sort[2],
            sort[3]);
    Result badColumn =
        run(
            "compact",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--order-strategy",
            "hilbert",
            "--order-by",
            "nope");
    Result dryRun =
        run(
            "compact",
            "--warehouse",
            w,
            "--table",
            "db.t",
            "--dry-run",
            "--json",
            sort[0],
            sort[1],
            sort[2],
            sort[3]);
    assertThat(onlyBy.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(onlyBy.err()).contains("--order-strategy and --order-by go together");
    assertThat(streaming.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(streaming.err()).contains("batch mode only");
    assertThat(badColumn.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(badColumn.err()).contains("order_by column 'nope' is not a column of db.t");
    assertThat(dryRun.out()).as(dryRun.err()).contains("\"kind\":\"SORT_REWRITE\"", "\"files\":3");
    assertThat(compactSnapshots(table)).isEmpty();

    Result r =
        run("compact", "--warehouse", w, "--table", "db.t", sort[0], sort[1], sort[2], sort[3]);

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(compactSnapshots(table)).hasSize(1);
    assertThat(StrategyTables.liveFiles(table)).hasSize(1);
    assertThat(StrategyTables.rows(table)).isEqualTo(StrategyTables.APPEND.expectedRows());
  }

  static List<Snapshot> compactSnapshots(Table table) {
    List<Snapshot> out = new ArrayList<>();
    for (long id : table.snapshotManager().listIds()) {
      Snapshot s = table.snapshotManager().snapshot(id);
      if (s.commitKind() == CommitKind.COMPACT) {
        out.add(s);
      }
    }
    return out;
  }
}
