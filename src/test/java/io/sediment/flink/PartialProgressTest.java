package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.fill;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactBudget;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Budgets and partial progress ({@code compaction.max-rewrite-bytes}, {@code
 * partial-progress.enabled}, {@code partial-progress.max-commits}): a batch compaction of a backlog
 * commits in several COMPACT snapshots, each within the budget, and a failure in a later commit
 * keeps the earlier ones, in-process and as a Flink job.
 */
class PartialProgressTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private static final String[] PARTITIONS = {"a", "b", "c", "d", "e", "f"};

  /**
   * Generated: partitions, commits, budget and max-commits drawn per seed. Every COMPACT commit
   * rewrites at most the budget (or one task alone), there are at most max-commits of them, rows
   * never change, and the partitions the commits reached hold one file each.
   */
  @Test
  void eachCommitStaysWithinTheBudgetAndTheRowsAreKept() throws Exception {
    for (int seed = 0; seed < 12; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      Path warehouse = dir.resolve("s" + seed);
      FileSystemCatalog catalog = TestTables.catalog(warehouse);
      Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
      String[] partitions = Arrays.copyOf(PARTITIONS, 2 + r.nextInt(5));
      fill(table, 0, 2 + r.nextInt(3), 10 + r.nextInt(30), partitions);
      List<String> before = rows(table);
      int maxCommits = 1 + r.nextInt(5);
      Map<String, String> options = new HashMap<>();
      options.put("partial-progress.enabled", "true");
      options.put("partial-progress.max-commits", Integer.toString(maxCommits));
      List<CompactTask> plan = table.newCompactBuilder().withOptions(options).plan();
      long total = CompactBudget.replacedBytes(plan);
      long budget = (total + maxCommits - 1) / maxCommits;
      boolean explicit = r.nextBoolean();
      if (explicit) {
        budget = Math.max(1, total / (1 + r.nextInt(partitions.length + 2)));
        options.put("compaction.max-rewrite-bytes", budget + " b");
      }
      long largestTask = 0;
      for (CompactTask t : plan) {
        largestTask = Math.max(largestTask, CompactBudget.replacedBytes(List.of(t)));
      }
      int snapshotsBefore = snapshots(table).size();

      CompactResult result = table.newCompactBuilder().withOptions(options).execute();

      Table t = catalog.getTable("db.t");
      List<Snapshot> compacts = new ArrayList<>();
      for (Snapshot s : snapshots(t).subList(snapshotsBefore, snapshots(t).size())) {
        assertThat(s.commitKind()).isEqualTo(CommitKind.COMPACT);
        compacts.add(s);
      }
      assertThat(compacts).as("seed %s", seed).hasSizeBetween(1, maxCommits);
      assertThat(result.snapshotId()).isEqualTo(compacts.get(compacts.size() - 1).id());
      assertThat(rows(t)).as("seed %s", seed).containsExactlyInAnyOrderElementsOf(before);
      long perCommit = Math.max(budget, largestTask);
      Snapshot previous = snapshots(t).get(snapshotsBefore - 1);
      for (int i = 0; i < compacts.size(); i++) {
        Snapshot s = compacts.get(i);
        long removed = removedBytes(t, previous, s);
        // without an explicit budget the last allowed commit takes what is left
        if (explicit || i < maxCommits - 1) {
          assertThat(removed)
              .as("seed %s, snapshot %s", seed, s.id())
              .isLessThanOrEqualTo(perCommit);
        }
        previous = s;
      }
      if (!explicit || compacts.size() < maxCommits) {
        assertThat(filesPerPartition(t).values()).as("seed %s: all done", seed).containsOnly(1);
      }
    }
  }

  /**
   * A sort compaction with partial progress sorts each partition once: later rounds leave alone the
   * buckets earlier rounds sorted (in-process and as Flink jobs), so every original file is
   * replaced once and no sorted file again.
   */
  @Test
  void aSortCompactionInRoundsSortsEachPartitionOnce() throws Exception {
    for (boolean flink : new boolean[] {false, true}) {
      Path warehouse = dir.resolve(flink ? "flink" : "in-process");
      FileSystemCatalog catalog = TestTables.catalog(warehouse);
      Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
      fill(table, 0, 3, 20, "a", "b", "c");
      List<String> before = rows(table);
      int snapshotsBefore = snapshots(table).size();
      CompactResult result;
      if (flink) {
        result =
            CompactJob.builder(warehouse.toString(), "db.t")
                .sortOrder("zorder", "id,note")
                .option("partial-progress.enabled", "true")
                .option("partial-progress.max-commits", "3")
                .parallelism(2)
                .build()
                .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
      } else {
        result =
            table
                .newCompactBuilder()
                .withSortOrder("zorder", "id,note")
                .withOptions(
                    Map.of("partial-progress.enabled", "true", "partial-progress.max-commits", "3"))
                .execute();
      }
      Table t = catalog.getTable("db.t");
      assertThat(snapshots(t)).as("flink %s", flink).hasSize(snapshotsBefore + 3);
      assertThat(result.filesBefore()).as("flink %s: originals replaced once", flink).isEqualTo(9);
      assertThat(filesPerPartition(t).values()).containsOnly(1);
      assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    }
  }

  /** Partial progress asked of the streaming job is refused before it starts, not ignored. */
  @Test
  void theStreamingJobRefusesPartialProgress() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .option("partial-progress.enabled", "true")
            .parallelism(1)
            .build();
    assertThatThrownBy(
            () -> job.submitStreaming(StreamExecutionEnvironment.getExecutionEnvironment()))
        .hasMessageContaining("partial-progress.enabled applies to batch compactions");
  }

  /** A failure in the second commit's rewrite keeps the first commit (in-process). */
  @Test
  void aFailureAfterTheFirstCommitKeepsIt() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 3, 20, "a", "b", "c", "d");
    List<String> before = rows(table);
    Damage damage = corruptAFileOf(table, "b");
    Map<String, String> options =
        Map.of("partial-progress.enabled", "true", "partial-progress.max-commits", "4");

    assertThatThrownBy(() -> table.newCompactBuilder().withOptions(options).execute())
        .hasStackTraceContaining("Cannot read the Parquet footer");

    assertKeptTheFirstCommitOnly(catalog, before, damage);
  }

  /** The same through the Flink batch job: one bounded job and one COMPACT commit per round. */
  @Test
  void aFlinkBatchJobCommitsInRoundsAndKeepsThemOnAFailure() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 3, 20, "a", "b", "c", "d");
    List<String> before = rows(table);
    int snapshotsBefore = snapshots(table).size();

    CompactResult result =
        CompactJob.builder(dir.toString(), "db.t")
            .option("partial-progress.enabled", "true")
            .option("partial-progress.max-commits", "2")
            .parallelism(2)
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());

    Table t = catalog.getTable("db.t");
    List<Snapshot> after = snapshots(t);
    assertThat(after).hasSize(snapshotsBefore + 2);
    assertThat(after.subList(snapshotsBefore, after.size()))
        .allMatch(s -> s.commitKind() == CommitKind.COMPACT);
    assertThat(result.snapshotId()).isEqualTo(after.get(after.size() - 1).id());
    assertThat(result.filesBefore()).isEqualTo(12);
    assertThat(filesPerPartition(t).values()).containsOnly(1);
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);

    // a second table: its second round fails on a corrupt file, its first commit stays
    Path other = dir.resolve("other");
    FileSystemCatalog catalog2 = TestTables.catalog(other);
    Table t2 = TestTables.create(catalog2, "t", FlinkTestSupport.partitioned().build());
    fill(t2, 0, 3, 20, "a", "b", "c", "d");
    List<String> before2 = rows(t2);
    Damage damage = corruptAFileOf(t2, "b");
    assertThatThrownBy(
            () ->
                CompactJob.builder(other.toString(), "db.t")
                    .option("partial-progress.enabled", "true")
                    .option("partial-progress.max-commits", "4")
                    .parallelism(2)
                    .build()
                    .runBatch(StreamExecutionEnvironment.getExecutionEnvironment()))
        .hasStackTraceContaining("Cannot read the Parquet footer");
    assertKeptTheFirstCommitOnly(catalog2, before2, damage);
  }

  private void assertKeptTheFirstCommitOnly(
      FileSystemCatalog catalog, List<String> before, Damage damage) throws Exception {
    Table t = catalog.getTable("db.t");
    List<Snapshot> all = snapshots(t);
    assertThat(all.get(all.size() - 1).commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(all.get(all.size() - 2).commitKind()).isEqualTo(CommitKind.APPEND);
    Map<String, Integer> files = filesPerPartition(t);
    assertThat(files).containsEntry("a", 1).containsEntry("b", 3);
    // the failed round's outputs are gone: on disk, partition b holds its three inputs only
    Path bucket = Paths.get(t.store().bucketDir(partition(t, "b"), 0).toUri());
    try (Stream<Path> s = Files.list(bucket)) {
      assertThat(s.filter(f -> f.getFileName().toString().startsWith("data-"))).hasSize(3);
    }
    damage.repair();
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
  }

  /** A file's original bytes, to put back. */
  private record Damage(Path path, byte[] bytes) {
    void repair() throws Exception {
      Files.write(path, bytes);
    }
  }

  /** Cuts the footer off the first data file of partition {@code p}. */
  private static Damage corruptAFileOf(Table table, String p) throws Exception {
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      if (s.partition().getString(0).toString().equals(p)) {
        DataFileMeta f = s.files().get(0);
        Path path =
            Paths.get(table.store().dataFilePath(s.partition(), s.bucket(), f.fileName()).toUri());
        byte[] bytes = Files.readAllBytes(path);
        Files.write(path, Arrays.copyOf(bytes, bytes.length - 16));
        return new Damage(path, bytes);
      }
    }
    throw new IllegalStateException("no partition " + p);
  }

  private static BinaryRowData partition(Table t, String p) {
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      if (s.partition().getString(0).toString().equals(p)) {
        return s.partition();
      }
    }
    throw new IllegalStateException("no partition " + p);
  }

  private static Map<String, Integer> filesPerPartition(Table t) {
    Map<String, Integer> out = new TreeMap<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      out.merge(s.partition().getString(0).toString(), s.files().size(), Integer::sum);
    }
    return out;
  }

  /** Bytes of the files live in {@code from} and gone in {@code to}. */
  private static long removedBytes(Table t, Snapshot from, Snapshot to) {
    Set<String> now = new HashSet<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan(to).splits()) {
      s.files().forEach(f -> now.add(f.fileName()));
    }
    long bytes = 0;
    for (DataSplit s : t.newReadBuilder().newScan().plan(from).splits()) {
      for (DataFileMeta f : s.files()) {
        if (!now.contains(f.fileName())) {
          bytes += f.fileSize();
        }
      }
    }
    return bytes;
  }
}
