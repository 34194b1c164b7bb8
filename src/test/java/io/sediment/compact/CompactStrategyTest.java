package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.StrategyTables;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.table.api.DataTypes;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code compact_strategy} and {@code partition_idle_time} through the Java API. */
class CompactStrategyTest {

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void batchCompactionIsFullByDefault(StrategyTables kind) throws Exception {
    Table table = kind.create(TestTables.catalog(dir), "t");

    CompactResult result = table.newCompactBuilder().execute();

    assertThat(result.snapshotId()).isNotNull();
    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterFull());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @ParameterizedTest
  @EnumSource(StrategyTables.class)
  void minorCompactionRewritesOnlyTheTablesPicks(StrategyTables kind) throws Exception {
    Table table = kind.create(TestTables.catalog(dir), "t");

    table.newCompactBuilder().withStrategy(CompactStrategy.MINOR).execute();

    assertThat(StrategyTables.liveFiles(table)).hasSize(kind.filesAfterMinor());
    assertThat(StrategyTables.rows(table)).isEqualTo(kind.expectedRows());
  }

  @Test
  void writeOnlyPrimaryKeyTableWithTwoSortedRunsEndsWithOneTopLevelFile() throws Exception {
    Table table = StrategyTables.PRIMARY_KEY.create(TestTables.catalog(dir), "t");
    assertThat(StrategyTables.liveFiles(table)).hasSize(2);

    table.newCompactBuilder().execute();

    List<DataFileMeta> files = StrategyTables.liveFiles(table);
    assertThat(files).hasSize(1);
    assertThat(files.get(0).level()).isEqualTo(table.options().numLevels() - 1);
  }

  @Test
  void compactionFullIsAnAliasOfTheFullStrategyThatAnExplicitStrategyBeats() throws Exception {
    Table table = StrategyTables.APPEND.create(TestTables.catalog(dir), "t");
    Map<String, String> full = Map.of("compaction.full", "true");

    CompactBuilder minor = table.newCompactBuilder().withOptions(full).withStrategy("minor");
    assertThat(minor.plan()).isEmpty();
    assertThat(minor.spec().strategy(minor.effectiveStore().options(), ExecutionMode.STREAMING))
        .isEqualTo(CompactStrategy.MINOR);
    // Without a strategy the alias makes even the streaming job full.
    CompactBuilder alias = table.newCompactBuilder().withOptions(full);
    assertThat(alias.spec().strategy(alias.effectiveStore().options(), ExecutionMode.STREAMING))
        .isEqualTo(CompactStrategy.FULL);
    assertThat(alias.plan()).hasSize(1);
  }

  @Test
  void unknownStrategyIsRejectedNamingTheAllowedOnes() {
    Table table = TestTables.create(TestTables.catalog(dir), "t", appendPartitioned());
    assertThatThrownBy(() -> table.newCompactBuilder().withStrategy("major"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown compact strategy 'major': allowed are 'full', 'minor'");
    assertThatThrownBy(() -> CompactStrategy.parse(null))
        .hasMessageContaining("allowed are 'full', 'minor'");
    assertThat(CompactStrategy.parse(" FULL ")).isEqualTo(CompactStrategy.FULL);
  }

  @Test
  void partitionIdleTimeMustBePositive() {
    Table table = TestTables.create(TestTables.catalog(dir), "t", appendPartitioned());
    assertThatThrownBy(() -> table.newCompactBuilder().withPartitionIdleTime(Duration.ZERO))
        .hasMessageContaining("Partition idle time must be a positive duration");
  }

  @Test
  void partitionIdleTimeLeavesRecentlyWrittenPartitionsAlone() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", appendPartitioned());
    write(table, "cold", 0);
    write(table, "cold", 10);
    long coldWritten = newestFile(table);
    // Two seconds between the partitions' last writes; the idle time is chosen right before the
    // compaction to fall in the middle of that gap, so however slow the machine, the cold
    // partition is idle and the hot one is not (unless planning starts a second after this).
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> System.currentTimeMillis() > coldWritten + 2_000);
    write(table, "hot", 20);
    write(table, "hot", 30);
    long hotWritten = newestFile(table);

    // Everything was written within a day: nothing is idle.
    assertThat(table.newCompactBuilder().withPartitionIdleTime(Duration.ofDays(1)).plan())
        .isEmpty();

    Duration idle = Duration.ofMillis(System.currentTimeMillis() - (coldWritten + hotWritten) / 2);
    CompactResult result = table.newCompactBuilder().withPartitionIdleTime(idle).execute();

    assertThat(result.tasks()).isEqualTo(1);
    assertThat(filesByPartition(table)).isEqualTo(Map.of("p=cold", 1L, "p=hot", 2L));
  }

  private static Schema appendPartitioned() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.STRING())
        .partitionKeys("p")
        .build();
  }

  private static void write(Table table, String partition, long firstId) {
    TestTables.writeBatch(table, List.of(row(firstId, partition), row(firstId + 1, partition)));
  }

  private static long newestFile(Table table) {
    return StrategyTables.liveFiles(table).stream()
        .mapToLong(DataFileMeta::creationTimeMillis)
        .max()
        .orElseThrow();
  }

  private static Map<String, Long> filesByPartition(Table table) {
    return table.store().newScan().plan(table.latestSnapshot().orElseThrow()).stream()
        .collect(
            Collectors.groupingBy(
                e -> table.store().partitionPath(e.partition()), Collectors.counting()));
  }
}
