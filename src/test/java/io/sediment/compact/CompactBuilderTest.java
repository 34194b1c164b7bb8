package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CompactBuilderTest {

  @TempDir Path dir;

  @AfterEach
  void resetFaults() {
    FaultyFileSystem.reset();
  }

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.STRING())
        .column("note", DataTypes.STRING());
  }

  /** {@code commits} commits, each one small file per partition of {@code perCommit} rows. */
  private static List<RowData> fill(Table table, int commits, int perCommit, String... partitions) {
    if (partitions.length == 0) {
      partitions = new String[] {"x"}; // unpartitioned table: p is an ordinary column
    }
    List<RowData> all = new ArrayList<>();
    long id = table.latestSnapshot().map(s -> s.totalRecordCount()).orElse(0L) * 1000;
    for (int c = 0; c < commits; c++) {
      List<RowData> batch = new ArrayList<>();
      for (String p : partitions) {
        for (int i = 0; i < perCommit; i++, id++) {
          batch.add(row(id, p, id % 5 == 0 ? null : "n" + id));
        }
      }
      TestTables.writeBatch(table, batch);
      all.addAll(batch);
    }
    return all;
  }

  private static List<String> rowsInReadOrder(Table table) {
    return TestTables.toStrings(table.rowType(), TestTables.readAll(table));
  }

  private static List<DataFileMeta> files(Table table) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  @Test
  void smallFilesAreMergedRowsUnchangedAndOneCompactSnapshotIsPublished() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema().build());
    List<RowData> written = fill(table, 12, 100);
    List<String> before = rowsInReadOrder(table);
    assertThat(files(table)).hasSize(12);

    CompactResult result = table.newCompactBuilder().execute();

    assertThat(result.tasks()).isEqualTo(1);
    assertThat(result.filesBefore()).isEqualTo(12);
    assertThat(result.filesAfter()).isEqualTo(1);
    assertThat(result.rowsRead()).isEqualTo(1200);
    assertThat(result.rowsWritten()).isEqualTo(1200);
    assertThat(result.bytesBefore()).isPositive();
    assertThat(result.bytesAfter()).isPositive();
    Snapshot s = table.latestSnapshot().orElseThrow();
    assertThat(result.snapshotId()).isEqualTo(s.id()).isEqualTo(13L);
    assertThat(s.commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(s.totalRecordCount()).isEqualTo(1200);
    List<DataFileMeta> after = files(table);
    assertThat(after).hasSize(1);
    assertThat(after.get(0).source()).isEqualTo(FileSource.COMPACT);
    // Same rows, same order (row order follows input order), nulls kept.
    assertThat(rowsInReadOrder(table)).containsExactlyElementsOf(before);
    assertThat(before).containsExactlyElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  /**
   * A deletion-vector table after many updates: the top-level file whose deletion vector covers 30%
   * of its rows is rewritten by a minor compaction that has nothing else to do (threshold 0.2, the
   * default), alone and into its level; rows are unchanged and its deletion vector is gone. Above
   * the file's ratio nothing is rewritten.
   */
  @Test
  void aMinorCompactionRewritesAFileMostlyDeletedByItsDeletionVector() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", deletionVectorSchema(1));
    Map<Long, String> model = new TreeMap<>();
    List<RowData> rows = new ArrayList<>();
    for (long k = 0; k < 1000; k++) {
      rows.add(row(k, "v" + k));
      model.put(k, "v" + k);
    }
    TestTables.writeBatch(table, rows);
    table.newCompactBuilder().execute(); // full: one file at the top level
    DataFileMeta top = single(files(table));
    for (int round = 0; round < 3; round++) {
      List<RowData> updates = new ArrayList<>();
      for (long k = round * 100; k < round * 100 + 100; k++) {
        updates.add(row(k, "u" + round + "-" + k));
        model.put(k, "u" + round + "-" + k);
      }
      TestTables.writeBatch(table, updates);
    }
    Snapshot s = table.latestSnapshot().orElseThrow();
    long deleted =
        new IndexManifest(table.store().fileIO(), table.store().paths())
            .read(s.indexManifest()).stream()
                .filter(e -> e.deletionFile().dataFile().equals(top.fileName()))
                .mapToLong(e -> e.deletionFile().cardinality())
                .sum();
    assertThat(deleted).as("the updates marked 300 rows of the top file").isEqualTo(300);

    CompactResult none =
        table
            .newCompactBuilder()
            .withStrategy("minor")
            .withOptions(Map.of("compaction.delete-ratio-threshold", "0.3"))
            .execute();
    assertThat(none.tasks()).as("0.3 is not above 0.3").isZero();
    CompactResult r = table.newCompactBuilder().withStrategy("minor").execute();
    assertThat(r.tasks()).isEqualTo(1);
    assertThat(r.filesBefore()).isEqualTo(1);
    List<DataFileMeta> after = files(table);
    assertThat(after).noneMatch(f -> f.fileName().equals(top.fileName()));
    DataFileMeta rewritten =
        after.stream().filter(f -> f.level() == top.level()).findFirst().orElseThrow();
    assertThat(rewritten.rowCount()).isEqualTo(700);
    Snapshot last = table.latestSnapshot().orElseThrow();
    assertThat(
            new IndexManifest(table.store().fileIO(), table.store().paths())
                .read(last.indexManifest()))
        .noneMatch(e -> e.deletionFile().dataFile().equals(rewritten.fileName()));
    List<String> expected = new ArrayList<>();
    model.forEach((k, v) -> expected.add("(" + k + "," + v + ")"));
    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(table.newCompactBuilder().withStrategy("minor").execute().tasks())
        .as("nothing above the threshold any more")
        .isZero();
  }

  /**
   * A full compaction of a deletion-vector table whose bucket is one run at the top level, with
   * rows its deletion vectors mark deleted (deletes and updates merged into the levels mark rows
   * instead of being written), rewrites that run without them, as Paimon's full compaction rewrites
   * the files that have deletion vectors: it planned nothing, and the rows stayed in the files for
   * good. Generated deletes and updates, one or two buckets.
   */
  @Test
  void aFullCompactionDropsTheRowsDeletionVectorsMark() throws Exception {
    for (int seed = 0; seed < 6; seed++) {
      Random random = new Random(seed);
      int buckets = 1 + seed / 3;
      Table table =
          TestTables.create(
              TestTables.catalog(dir.resolve("s" + seed)), "t", deletionVectorSchema(buckets));
      Map<Long, String> model = new TreeMap<>();
      List<RowData> rows = new ArrayList<>();
      for (long k = 0; k < 500; k++) {
        rows.add(row(k, "v" + k));
        model.put(k, "v" + k);
      }
      TestTables.writeBatch(table, rows);
      table.newCompactBuilder().execute();
      for (int round = 0; round < 3; round++) {
        List<RowData> changes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          long k = random.nextInt(500);
          GenericRowData r = row(k, "u" + round + "-" + k);
          // even seeds delete only: no row reaches the levels, the top run stays the only one
          if (seed % 2 == 0 || random.nextBoolean()) {
            r.setRowKind(RowKind.DELETE);
            model.remove(k);
          } else {
            model.put(k, "u" + round + "-" + k);
          }
          changes.add(r);
        }
        TestTables.writeBatch(table, changes);
      }
      assertThat(vectors(table)).as("seed %s: the changes marked rows deleted", seed).isNotEmpty();
      CompactResult full = table.newCompactBuilder().execute();
      assertThat(full.tasks()).as("seed %s", seed).isPositive();
      assertThat(vectors(table)).as("seed %s: no row left marked", seed).isEmpty();
      assertThat(files(table).stream().mapToLong(DataFileMeta::rowCount).sum())
          .as("seed %s: the files hold the live rows only", seed)
          .isEqualTo(model.size());
      List<String> expected = new ArrayList<>();
      model.forEach((k, v) -> expected.add("(" + k + "," + v + ")"));
      assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(table.newCompactBuilder().execute().tasks()).as("then nothing to do").isZero();
    }
  }

  /** Only the buckets whose files have deleted rows are rewritten by that rule. */
  @Test
  void aFullCompactionRewritesOnlyTheBucketsWithDeletedRows() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", deletionVectorSchema(4));
    List<RowData> rows = new ArrayList<>();
    for (long k = 0; k < 400; k++) {
      rows.add(row(k, "v" + k));
    }
    TestTables.writeBatch(table, rows);
    table.newCompactBuilder().execute();
    GenericRowData delete = row(7L, "v7");
    delete.setRowKind(RowKind.DELETE);
    TestTables.writeBatch(table, List.of(delete));
    assertThat(vectors(table)).hasSize(1);
    CompactResult full = table.newCompactBuilder().execute();
    assertThat(full.tasks()).as("the one bucket with a deletion vector").isEqualTo(1);
    assertThat(vectors(table)).isEmpty();
    assertThat(TestTables.readAll(table)).hasSize(399);
  }

  private static List<IndexManifest.Entry> vectors(Table table) throws Exception {
    Snapshot s = table.latestSnapshot().orElseThrow();
    return s.indexManifest() == null
        ? List.of()
        : new IndexManifest(table.store().fileIO(), table.store().paths()).read(s.indexManifest());
  }

  /**
   * {@code (k BIGINT NOT NULL, v STRING)}, primary key k, deletion vectors, {@code buckets}, and
   * {@code options} as key, value, key, value...
   */
  static Schema deletionVectorSchema(int buckets, String... options) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("k")
            .option("bucket", String.valueOf(buckets))
            .option("deletion-vectors.enabled", "true");
    for (int i = 0; i < options.length; i += 2) {
      b.option(options[i], options[i + 1]);
    }
    return b.build();
  }

  private static DataFileMeta single(List<DataFileMeta> files) {
    assertThat(files).hasSize(1);
    return files.get(0);
  }

  @Test
  void rowGroupsAreCopiedWhenTheCodecMatchesAndRowsReencodedWhenItChanged() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema().build());
    fill(table, 6, 100);
    List<String> before = rowsInReadOrder(table);
    table.newCompactBuilder().execute();
    // Row groups far below parquet.row-group-size are merged into one, not copied one by one
    // (CompactRowGroupSizeTest covers copying large ones).
    Path copied = dir.resolve("db.db/t/bucket-0/" + files(table).get(0).fileName());
    assertThat(footer(copied).getBlocks()).hasSize(1);
    assertThat(rowsInReadOrder(table)).containsExactlyElementsOf(before);

    // A compaction with another codec rewrites rows: one row group, snappy.
    fill(table, 5, 100);
    List<String> before2 = rowsInReadOrder(table);
    table
        .newCompactBuilder()
        .withOptions(Map.of("file.compression", "snappy", "compaction.full", "true"))
        .execute();
    assertThat(files(table)).hasSize(1);
    Path rewritten = dir.resolve("db.db/t/bucket-0/" + files(table).get(0).fileName());
    org.apache.parquet.hadoop.metadata.ParquetMetadata footer = footer(rewritten);
    assertThat(footer.getBlocks()).hasSize(1);
    assertThat(footer.getBlocks().get(0).getColumns().get(0).getCodec().name()).isEqualTo("SNAPPY");
    assertThat(rowsInReadOrder(table)).containsExactlyElementsOf(before2);
  }

  private static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(Path file)
      throws IOException {
    try (org.apache.parquet.hadoop.ParquetFileReader r =
        org.apache.parquet.hadoop.ParquetFileReader.open(
            org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()),
                new org.apache.hadoop.conf.Configuration()))) {
      return r.getFooter();
    }
  }

  @Test
  void nothingToCompactMakesNoCommit() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema().build());
    CompactResult empty = table.newCompactBuilder().execute();
    assertThat(empty.tasks()).isZero();
    assertThat(empty.snapshotId()).isNull();
    assertThat(table.latestSnapshot()).isEmpty();

    fill(table, 3, 10); // fewer than compaction.min.file-num (5)
    CompactResult result = table.newCompactBuilder().withStrategy("minor").execute();
    assertThat(result.tasks()).isZero();
    assertThat(result.snapshotId()).isNull();
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(3);
    // A full compaction, the batch default, takes them.
    CompactResult full = table.newCompactBuilder().execute();
    assertThat(full.tasks()).isEqualTo(1);
    assertThat(full.snapshotId()).isEqualTo(4L);
  }

  @Test
  void partitionFilterCompactsOnlyMatchingPartitions() throws Exception {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", schema().partitionKeys("p").build());
    fill(table, 6, 20, "a", "b");
    List<DataFileMeta> bBefore = partitionFiles(table, "b");
    List<DataFileMeta> aBefore = partitionFiles(table, "a");

    CompactBuilder builder =
        table
            .newCompactBuilder()
            .withPartitionFilter("{\"method\":\"equal\",\"field\":\"p\",\"literals\":[\"a\"]}");
    assertThat(builder.plan()).hasSize(1).allMatch(t -> t.partitionPath().equals("p=a"));
    CompactResult result = builder.execute();
    assertThat(result.tasks()).isEqualTo(1);

    assertThat(partitionFiles(table, "b")).containsExactlyElementsOf(bBefore);
    List<DataFileMeta> aAfter = partitionFiles(table, "a");
    assertThat(aAfter).hasSize(1);
    assertThat(aAfter).doesNotContainAnyElementsOf(aBefore);
    assertThat(TestTables.readAll(table)).hasSize(240);
  }

  private static List<DataFileMeta> partitionFiles(Table table, String p) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s :
        table
            .newReadBuilder()
            .withFilter(new PredicateBuilder(table.rowType()).equal("p", p))
            .newScan()
            .plan()
            .splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  @Test
  void repeatedPartitionFiltersCombineWithAnd() {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", schema().partitionKeys("p").build());
    fill(table, 6, 5, "a", "b", "c");
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    List<CompactTask> tasks =
        table
            .newCompactBuilder()
            .withPartitionFilter(pb.in("p", List.of("a", "b")))
            .withPartitionFilter(pb.notEqual("p", "a"))
            .plan();
    assertThat(tasks).extracting(CompactTask::partitionPath).containsExactly("p=b");
    assertThat(tasks.get(0).inputs()).hasSize(6);
    assertThat(tasks.get(0).inputBytes())
        .isEqualTo(tasks.get(0).inputs().stream().mapToLong(DataFileMeta::fileSize).sum());
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);
  }

  @Test
  void commitUserIsRecordedWithCompactSuffix() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema().build());
    fill(table, 5, 10);
    table.newCompactBuilder().withCommitUser("nightly").execute();
    String user = table.latestSnapshot().orElseThrow().commitUser();
    assertThat(user).matches("nightly-compact-[0-9a-f]{8}");
    fill(table, 5, 10);
    table.newCompactBuilder().withCommitUser("nightly").execute();
    assertThat(table.latestSnapshot().orElseThrow().commitUser())
        .startsWith("nightly-compact-")
        .isNotEqualTo(user);
    fill(table, 5, 10);
    table.newCompactBuilder().execute();
    assertThat(table.latestSnapshot().orElseThrow().commitUser()).startsWith("sediment-compact-");
  }

  @Test
  void invalidInputIsRejectedWhenSet() {
    Table table =
        TestTables.create(TestTables.catalog(dir), "t", schema().partitionKeys("p").build());
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    CompactBuilder b = table.newCompactBuilder();
    assertThatThrownBy(() -> b.withPartitionFilter(pb.equal("id", 1L)))
        .hasMessageContaining("only partition columns [p]")
        .hasMessageContaining("'id'");
    assertThatThrownBy(
            () ->
                b.withPartitionFilter(
                    "{\"method\":\"equal\",\"field\":\"nope\",\"literals\":[\"a\"]}"))
        .hasMessageContaining("nope");
    assertThatThrownBy(
            () ->
                b.withPartitionFilter(
                    "{\"method\":\"equal\",\"field\":\"id\",\"literals\":[\"x\"]}"))
        .hasMessageContaining("id");
    assertThatThrownBy(
            () -> b.withPartitionFilter("{\"method\":\"equal\",\"field\":\"id\",\"literals\":[1]}"))
        .hasMessageContaining("only partition columns");
    for (String bad : new String[] {"", ".", "..", " a", "a ", "a/b", "a\\b", "a\tb"}) {
      assertThatThrownBy(() -> b.withCommitUser(bad)).as(bad).hasMessageContaining("Commit user");
    }
    assertThatThrownBy(() -> b.withOptions(Map.of("compaction.min.file-num", "zero")))
        .hasMessageContaining("compaction.min.file-num");
    assertThatThrownBy(() -> b.withOptions(Map.of("no.such.option", "1")))
        .hasMessageContaining("no.such.option");
    assertThatThrownBy(() -> b.withOptions(Map.of("bucket", "4")))
        .hasMessageContaining("fixed when the table is created");
    assertThat(b.partitionFilter()).isNull();
    assertThat(b.commitUser()).isEqualTo(CompactBuilder.DEFAULT_COMMIT_USER);
  }

  @Test
  void aFailingTaskCommitsNothingAndLeavesNoOutput() throws Exception {
    Table table =
        TestTables.create(
            faultyCatalog(),
            "t",
            schema().partitionKeys("p").option("compaction.parallelism", "1").build());
    fill(table, 6, 20, "a", "b");
    Set<String> filesBefore = dataFileNames();
    long snapshotBefore = table.latestSnapshot().orElseThrow().id();
    // Partition b's third input fails to open: partition a's task has finished by then (one
    // worker, tasks in plan order), and b's task has written part of its output.
    List<CompactTask> plan = table.newCompactBuilder().plan();
    assertThat(plan).extracting(CompactTask::partitionPath).containsExactly("p=a", "p=b");
    String poisoned = plan.get(1).inputs().get(2).fileName();
    FaultyFileSystem.failOpen(p -> p.endsWith(poisoned));

    assertThatThrownBy(() -> table.newCompactBuilder().execute())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Injected failure opening")
        .hasMessageContaining(poisoned);

    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(snapshotBefore);
    assertThat(dataFileNames()).isEqualTo(filesBefore);
  }

  @ParameterizedTest(name = "cancelled through executeAsync: {0}")
  @ValueSource(booleans = {false, true})
  void interruptingExecuteStopsTheTasksDeletesEveryOutputAndCommitsNothing(boolean async)
      throws Exception {
    Table table =
        TestTables.create(
            faultyCatalog(),
            "t",
            schema().partitionKeys("p").option("compaction.parallelism", "1").build());
    List<RowData> written = fill(table, 6, 20, "a", "b");
    Set<String> filesBefore = dataFileNames();
    long snapshotBefore = table.latestSnapshot().orElseThrow().id();
    // One worker runs the tasks in plan order: a finishes, then b parks while opening its second
    // input, with part of its output written.
    List<CompactTask> plan = table.newCompactBuilder().plan();
    assertThat(plan).extracting(CompactTask::partitionPath).containsExactly("p=a", "p=b");
    String parkAt = plan.get(1).inputs().get(1).fileName();
    CountDownLatch parked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith(parkAt)) {
            parked.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          }
        });
    CompletableFuture<CompactResult> run = new CompletableFuture<>();
    Thread executing;
    if (async) {
      run = table.newCompactBuilder().executeAsync();
      executing = null;
    } else {
      CompletableFuture<CompactResult> result = run;
      executing =
          new Thread(
              () -> {
                try {
                  result.complete(table.newCompactBuilder().execute());
                } catch (Throwable e) {
                  result.completeExceptionally(e);
                }
              });
      executing.start();
    }
    CompletableFuture<CompactResult> running = run;
    Awaitility.await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> parked.getCount() == 0 || running.isDone());
    assertThat(run).isNotDone();
    assertThat(dataFileNames()).isNotEqualTo(filesBefore); // a's output is on disk

    String asyncThread = "sediment-compact-" + table.fullName();
    if (async) {
      run.cancel(true); // interrupts the thread executeAsync() runs execute() on
    } else {
      executing.interrupt();
    }
    release.countDown();
    if (async) {
      Awaitility.await()
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  Thread.getAllStackTraces().keySet().stream()
                      .noneMatch(th -> th.getName().equals(asyncThread)));
    } else {
      executing.join();
    }

    if (!async) {
      assertThatThrownBy(run::get).cause().isInstanceOf(InterruptedException.class);
    }
    // Once execute() has returned, no task writes any more and nothing of the run is left.
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(snapshotBefore);
    assertThat(dataFileNames()).isEqualTo(filesBefore);
    assertThat(rowsInReadOrder(table))
        .containsExactlyInAnyOrderElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  @Test
  void anInterruptThatArrivesDuringTheCommitDoesNotBreakIt() throws Exception {
    Table table =
        TestTables.create(
            faultyCatalog(),
            "t",
            schema().partitionKeys("p").option("compaction.parallelism", "1").build());
    List<RowData> written = fill(table, 6, 20, "a", "b");
    // Once the rewrites have read their inputs, the first manifest the commit opens interrupts
    // the thread that called execute(), as a cancel arriving mid-commit would. (The plan's reads
    // are forgotten, so that the commit reads its manifests from the files and not the cache.)
    Thread caller = Thread.currentThread();
    AtomicBoolean rewriting = new AtomicBoolean();
    AtomicBoolean interrupted = new AtomicBoolean();
    FaultyFileSystem.onOpen(
        p -> {
          if (p.contains("/data-")) {
            if (!rewriting.getAndSet(true)) {
              ManifestCache.clear();
            }
          } else if (p.contains("/manifest/")
              && rewriting.get()
              && interrupted.compareAndSet(false, true)) {
            caller.interrupt();
          }
        });

    CompactResult result;
    try {
      result = table.newCompactBuilder().execute();
    } finally {
      FaultyFileSystem.reset();
    }

    assertThat(interrupted).isTrue();
    assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
    assertThat(result.snapshotId()).isNotNull();
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(files(table)).hasSize(2);
    Set<String> live = new HashSet<>();
    files(table).forEach(f -> live.add(f.fileName()));
    assertThat(dataFileNames()).containsAll(live);
    assertThat(rowsInReadOrder(table))
        .containsExactlyInAnyOrderElementsOf(TestTables.toStrings(table.rowType(), written));
  }

  @Test
  void aFailingCleanupIsWarnedAndAttachedAsSuppressed() throws Exception {
    Table table =
        TestTables.create(
            faultyCatalog(),
            "t",
            schema().partitionKeys("p").option("compaction.parallelism", "1").build());
    fill(table, 6, 20, "a", "b");
    List<CompactTask> plan = table.newCompactBuilder().plan();
    String poisoned = plan.get(1).inputs().get(0).fileName();
    Set<String> inputs = CompactBuilder.inputNames(plan);
    FaultyFileSystem.failOpen(p -> p.endsWith(poisoned));
    // Deleting any compaction output fails.
    FaultyFileSystem.failDelete(
        p -> p.contains("/data-") && inputs.stream().noneMatch(p::endsWith));

    Throwable error = catchThrowable(() -> table.newCompactBuilder().execute());
    assertThat(error).isInstanceOf(IOException.class).hasMessageContaining(poisoned);
    assertThat(error.getSuppressed()).isNotEmpty();
    assertThat(error.getSuppressed()[0]).hasMessageContaining("Injected failure deleting");
    assertThat(FaultyFileSystem.DELETE_FAILURES.get()).isPositive();
    assertThat(table.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);
  }

  private static Throwable catchThrowable(org.assertj.core.api.ThrowableAssert.ThrowingCallable c) {
    return org.assertj.core.api.Assertions.catchThrowable(c);
  }

  @Test
  void concurrentCompactionsOfTheSameFilesOneWinsTheOtherLeavesNothing() throws Exception {
    Table table = TestTables.create(faultyCatalog(), "t", schema().build());
    fill(table, 8, 50);
    Set<String> inputs = dataFileNames();

    // B pauses when it opens its first input, after planning; A runs and commits meanwhile.
    CountDownLatch bReading = new CountDownLatch(1);
    CountDownLatch aDone = new CountDownLatch(1);
    String bThread = "compactor-b";
    FaultyFileSystem.onOpen(
        p -> {
          if (Thread.currentThread().getName().startsWith("sediment-compact-worker")
              && bReading.getCount() == 1
              && Thread.currentThread().getThreadGroup().getName().equals(bThread)) {
            bReading.countDown();
            try {
              aDone.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          }
        });
    CompletableFuture<CompactResult> b = new CompletableFuture<>();
    Thread t =
        new Thread(
            new ThreadGroup(bThread),
            () -> {
              try {
                b.complete(table.newCompactBuilder().withCommitUser("b").execute());
              } catch (Throwable e) {
                b.completeExceptionally(e);
              }
            });
    t.start();
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofMinutes(2))
        .until(() -> bReading.getCount() == 0 || b.isDone());
    if (b.isDone()) {
      b.get(); // surfaces an unexpected early failure of B
    }
    CompactResult a = table.newCompactBuilder().withCommitUser("a").execute();
    aDone.countDown();
    assertThat(a.snapshotId()).isNotNull();

    assertThatThrownBy(b::get)
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining(inputs.iterator().next().substring(0, 5));
    CommitConflictException conflict = (CommitConflictException) catchThrowable(b::get).getCause();
    assertThat(new HashSet<>(conflict.conflictingFiles())).isEqualTo(inputs);

    Snapshot latest = table.latestSnapshot().orElseThrow();
    assertThat(latest.id()).isEqualTo(a.snapshotId());
    assertThat(latest.commitUser()).startsWith("a-compact-");
    // On disk: the inputs (still referenced by older snapshots) and A's output only.
    Set<String> expected = new HashSet<>(inputs);
    files(table).forEach(f -> expected.add(f.fileName()));
    assertThat(dataFileNames()).isEqualTo(expected);
    assertThat(TestTables.readAll(table)).hasSize(400);
  }

  @Test
  void fixedBucketTablesKeepSequenceOrderAndCompactPerBucket() throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            schema().option("bucket", "2").option("bucket-key", "id").build());
    fill(table, 6, 40);
    CompactResult result = table.newCompactBuilder().execute();
    assertThat(result.tasks()).isEqualTo(2);
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      assertThat(s.files()).hasSize(1);
      DataFileMeta f = s.files().get(0);
      assertThat(f.minSequenceNumber()).isZero();
      assertThat(f.maxSequenceNumber()).isEqualTo(f.rowCount() - 1);
    }
    // A group split over several outputs gives each output its own slice of the sequence.
    Table small = table.copy(Map.of("target-file-size", "2 kb"));
    fill(small, 6, 200);
    small.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    assertThat(table.newReadBuilder().newScan().plan().splits())
        .anyMatch(s -> s.files().size() > 1);
    for (DataSplit s : table.newReadBuilder().newScan().plan().splits()) {
      for (int i = 1; i < s.files().size(); i++) {
        assertThat(s.files().get(i).minSequenceNumber())
            .isGreaterThan(s.files().get(i - 1).maxSequenceNumber());
      }
    }
  }

  @Test
  void groupsArePackedToTheTargetSizeAndRunInParallel() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema().build());
    fill(table, 20, 200);
    long fileSize = files(table).get(0).fileSize();
    Map<String, String> opts =
        Map.of("target-file-size", (fileSize * 5 + 10) + " b", "compaction.parallelism", "3");
    List<CompactTask> plan = table.newCompactBuilder().withOptions(opts).plan();
    assertThat(plan).hasSizeGreaterThan(1);
    assertThat(plan).allMatch(t -> t.inputBytes() <= fileSize * 5 + 10);
    CompactResult r = table.newCompactBuilder().withOptions(opts).executeAsync().get();
    assertThat(r.tasks()).isEqualTo(plan.size());
    assertThat(TestTables.readAll(table)).hasSize(4000);
    assertThat(files(table).size()).isLessThan(20);
  }

  private FileSystemCatalog faultyCatalog() {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    return catalog;
  }

  private Set<String> dataFileNames() {
    return TestTables.dataFiles(dir.resolve("db.db/t")).stream()
        .map(p -> p.getFileName().toString())
        .collect(Collectors.toSet());
  }
}
