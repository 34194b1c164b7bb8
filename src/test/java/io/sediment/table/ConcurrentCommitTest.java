package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.testutil.ChildJvm;
import io.sediment.testutil.TestTables;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrentCommitTest {

  static final int COMMITS_PER_WRITER = 15;

  @TempDir Path dir;

  static Schema schema() {
    return Schema.newBuilder()
        .column("writer", DataTypes.STRING().notNull())
        .column("n", DataTypes.INT().notNull())
        .option("manifest.merge-min-count", "5")
        .build();
  }

  /** Commits {@code count} single-row batches as {@code writer}. Also the child process entry. */
  static void commitMany(String warehouse, String writer, int count) {
    Table table = new FileSystemCatalog(warehouse).getTable("db.t");
    for (int i = 0; i < count; i++) {
      TestTables.writeBatch(table, List.of(row(writer, i)));
    }
  }

  public static void main(String[] args) {
    commitMany(args[0], args[1], Integer.parseInt(args[2]));
  }

  @Test
  void threadsAndProcessesCommittingAtOnceLoseNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema());
    String warehouse = dir.toString();

    List<Process> processes = new ArrayList<>();
    for (String name : List.of("proc-1", "proc-2")) {
      ProcessBuilder pb =
          new ProcessBuilder(
              ChildJvm.java(
                  "-cp",
                  System.getProperty("java.class.path"),
                  ConcurrentCommitTest.class.getName(),
                  warehouse,
                  name,
                  Integer.toString(COMMITS_PER_WRITER)));
      pb.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
      processes.add(pb.start());
    }
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<?>> futures = new ArrayList<>();
    for (String name : List.of("thread-1", "thread-2")) {
      futures.add(pool.submit(() -> commitMany(warehouse, name, COMMITS_PER_WRITER)));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    for (Process p : processes) {
      p.waitFor();
      assertThat(p.exitValue())
          .as("child log: %s", Files.readString(dir.resolve("proc-1.log")))
          .isZero();
    }

    int total = 4 * COMMITS_PER_WRITER;
    List<Long> ids = table.snapshotManager().listIds();
    assertThat(ids).hasSize(total);
    assertThat(ids.get(ids.size() - 1)).isEqualTo(total);
    Set<String> rows =
        new HashSet<>(TestTables.toStrings(table.rowType(), TestTables.readAll(table)));
    for (String w : List.of("thread-1", "thread-2", "proc-1", "proc-2")) {
      for (int i = 0; i < COMMITS_PER_WRITER; i++) {
        assertThat(rows).contains("(" + w + "," + i + ")");
      }
    }
    // Every snapshot in between is readable and holds exactly its record count.
    for (long id : ids) {
      Snapshot s = table.snapshotManager().snapshot(id);
      TableScan.Plan plan = table.newReadBuilder().newScan().plan(s);
      List<RowData> read = table.newReadBuilder().newRead().readAll(plan.splits());
      assertThat(read).hasSize((int) id);
      assertThat(s.totalRecordCount()).isEqualTo(id);
    }
    // No temporary files left in the snapshot directory.
    File[] left = dir.resolve("db.db/t/snapshot").toFile().listFiles((d, n) -> n.endsWith(".tmp"));
    assertThat(left).isEmpty();
  }

  @Test
  void commitDeletingAFileAlreadyDeletedFailsAndRemovesItsOwnFiles() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema());
    TestTables.writeBatch(table, List.of(row("w", 1), row("w", 2)));
    DataFileMeta original = table.newReadBuilder().newScan().plan().splits().get(0).files().get(0);

    // Two "compactions" of the same file, each with its own output file.
    CommitMessage first = rewrite(table, original, "first");
    CommitMessage second = rewrite(table, original, "second");
    table.newStreamWriteBuilder().withCommitUser("c1").newCommit().commit(1, List.of(first));
    Snapshot afterFirst = table.latestSnapshot().orElseThrow();
    assertThat(afterFirst.commitKind()).isEqualTo(CommitKind.COMPACT);

    Path secondOutput = dir.resolve("db.db/t/bucket-0/" + second.compactAfter().get(0).fileName());
    assertThat(secondOutput).exists();
    TableCommit loser = table.newStreamWriteBuilder().withCommitUser("c2").newCommit();
    assertThatThrownBy(() -> loser.commit(1, List.of(second)))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining(original.fileName());
    assertThat(secondOutput).doesNotExist();
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(afterFirst.id());
    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactlyInAnyOrder("(first,1)", "(first,2)");
  }

  /** A compaction-like message: replace {@code input} with a newly written file. */
  private static CommitMessage rewrite(Table table, DataFileMeta input, String tag)
      throws Exception {
    WriteBuilder wb = table.newBatchWriteBuilder();
    try (TableWrite w = wb.newWrite()) {
      w.write(row(tag, 1));
      w.write(row(tag, 2));
      CommitMessage m = w.prepareCommit().get(0);
      return CommitMessage.compact(
          m.partition(), m.bucket(), m.totalBuckets(), List.of(input), m.newFiles());
    }
  }

  @Test
  void planningOnePartitionOfTwoHundredReadsOnlyItsManifest() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "parts",
            Schema.newBuilder()
                .column("dt", DataTypes.STRING())
                .column("n", DataTypes.INT())
                .partitionKeys("dt")
                // Small manifests, so merges leave many manifests with narrow partition ranges.
                .option("manifest.target-file-size", "8 kb")
                .build());
    for (int p = 0; p < 200; p++) {
      TestTables.writeBatch(
          table, List.of(row(String.format("d%03d", p), p), row(String.format("d%03d", p), p + 1)));
    }
    TableScan.Plan all = table.newReadBuilder().newScan().plan();
    assertThat(all.splits()).hasSize(200);
    int manifestsTotal = all.manifestsRead() + all.manifestsSkipped();

    TableScan.Plan one =
        table
            .newReadBuilder()
            .withFilter("{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"d123\"]}")
            .newScan()
            .plan();
    assertThat(one.splits()).hasSize(1);
    assertThat(TestTables.toStrings(table.rowType(), readSplits(table, one)))
        .containsExactlyInAnyOrder("(d123,123)", "(d123,124)");
    assertThat(manifestsTotal).isGreaterThan(10);
    assertThat(one.manifestsRead()).isBetween(1, 2);
    assertThat(one.manifestsSkipped()).isEqualTo(manifestsTotal - one.manifestsRead());
  }

  private static List<RowData> readSplits(Table table, TableScan.Plan plan) {
    try {
      return table.newReadBuilder().newRead().readAll(plan.splits());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void manifestsAreMergedAfterManyCommits() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema());
    for (int i = 0; i < 40; i++) {
      TestTables.writeBatch(table, List.of(row("w", i)));
    }
    TableScan.Plan plan = table.newReadBuilder().newScan().plan();
    assertThat(plan.manifestsRead()).isLessThan(10);
    assertThat(TestTables.readAll(table)).hasSize(40);
  }
}
