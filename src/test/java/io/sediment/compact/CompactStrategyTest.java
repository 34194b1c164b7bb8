package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import io.sediment.testutil.StrategyTables;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

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
    ManualClock clock = new ManualClock();
    FileSystemCatalog catalog = TestTables.catalog(dir).withClock(clock);
    Table table = TestTables.create(catalog, "t", appendPartitioned());
    write(table, "cold", 0);
    write(table, "cold", 10);
    long coldWritten = newestFile(table);
    // Two seconds between the partitions' last writes, on the table's clock.
    clock.advance(Duration.ofSeconds(2));
    write(table, "hot", 20);
    write(table, "hot", 30);
    long hotWritten = newestFile(table);
    assertThat(hotWritten - coldWritten).isEqualTo(2_000);

    // Everything was written within a day: nothing is idle; nor within a time longer than the
    // milliseconds of a long hold (it does not overflow).
    assertThat(table.newCompactBuilder().withPartitionIdleTime(Duration.ofDays(1)).plan())
        .isEmpty();
    assertThat(
            table
                .newCompactBuilder()
                .withPartitionIdleTime(Duration.ofSeconds(Long.MAX_VALUE / 10))
                .plan())
        .isEmpty();

    // An idle time in the middle of the gap: the cold partition is idle, the hot one is not.
    Duration idle = Duration.ofMillis(clock.millis() - (coldWritten + hotWritten) / 2);
    CompactResult result = table.newCompactBuilder().withPartitionIdleTime(idle).execute();

    assertThat(result.tasks()).isEqualTo(1);
    assertThat(filesByPartition(table)).isEqualTo(Map.of("p=cold", 1L, "p=hot", 2L));
  }

  /**
   * Generated (seeds): partitions written at random times on the table's clock; each is planned
   * exactly from the millisecond the clock reaches its newest file's time plus the idle time, and
   * left alone the millisecond before.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6})
  void aPartitionIsPlannedExactlyOnceTheClockPassesItsNewestFilePlusTheIdleTime(int seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ManualClock clock = new ManualClock();
    Table table =
        TestTables.create(
            TestTables.catalog(dir.resolve("wh-" + seed)).withClock(clock),
            "t",
            appendPartitioned());
    int partitions = 2 + r.nextInt(3);
    List<String> writes = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      writes.add("p" + p); // two files each: a full compaction merges them
      writes.add("p" + p);
    }
    Collections.shuffle(writes, new Random(seed));
    long id = 0;
    for (String p : writes) {
      clock.advance(Duration.ofMillis(r.nextInt(5_000)));
      write(table, p, id);
      id += 2;
    }
    Map<String, Long> newest = new TreeMap<>();
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      newest.merge(
          table.store().partitionPath(e.partition()), e.file().creationTimeMillis(), Math::max);
    }
    assertThat(newest).hasSize(partitions);
    Duration idle = Duration.ofMillis(1 + r.nextInt(20_000));

    for (long eligibleAt : newest.values()) {
      for (long now : new long[] {eligibleAt + idle.toMillis() - 1, eligibleAt + idle.toMillis()}) {
        clock.set(now);
        Set<String> expected = new TreeSet<>();
        newest.forEach(
            (p, t) -> {
              if (now >= t + idle.toMillis()) {
                expected.add(p);
              }
            });
        Set<String> planned = new TreeSet<>();
        for (CompactTask t : table.newCompactBuilder().withPartitionIdleTime(idle).plan()) {
          planned.add(t.partitionPath());
        }
        assertThat(planned)
            .as("seed %s, idle %s, newest files %s, now %s", seed, idle, newest, now)
            .isEqualTo(expected);
      }
    }
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
