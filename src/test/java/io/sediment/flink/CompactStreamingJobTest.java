package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.filesPerPartition;
import static io.sediment.flink.FlinkTestSupport.rows;
import static io.sediment.flink.FlinkTestSupport.snapshots;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class CompactStreamingJobTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  private JobClient client;
  private final InjectedFaults faults = InjectedFaults.create();

  @AfterEach
  void stop() throws Exception {
    faults.close();
    if (client != null) {
      StreamingJobs.cancelAndWait(client);
    }
  }

  @Test
  void dedicatedJobKeepsTableCompactWhileWriterAppends() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    CompactJob job = FlinkTestSupport.dedicatedJob(dir);
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());

    List<RowData> written = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger commits = new AtomicInteger();
    Thread writer =
        new Thread(
            () -> {
              long id = 0;
              // Until the job has compacted several times, however slow the machine: the writer
              // races the job's checkpoints, so a fixed number of commits proves nothing.
              while (!stop.get()) {
                List<RowData> batch = new ArrayList<>();
                for (String p : new String[] {"a", "b"}) {
                  for (int i = 0; i < 5; i++, id++) {
                    batch.add(row(id, p, "n" + id));
                  }
                }
                TestTables.writeBatch(table, batch);
                written.addAll(batch);
                commits.incrementAndGet();
                // Up to about 100 commits a second, far above any checkpoint-driven writer: an
                // uncapped loop on a loaded 2-core machine can still win every race for 101
                // attempts of a compaction commit (a known limit, see docs/operations.md).
                LockSupport.parkNanos(10_000_000L);
              }
            },
            "test-writer");
    writer.setDaemon(true);
    writer.start();

    // Three compactions with a commit of the writer after each (the writer may stop right after
    // the third compaction landed, before its next commit).
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> commits.get() >= 30 && compactionsBetweenAppends(table) >= 3);
    stop.set(true);
    writer.join();
    // With the writer stopped, the job compacts what is left until its own plan finds nothing.
    // Not "fewer than min.file-num files": with size tiers a larger file waits beside fewer than
    // min.file-num smaller ones for files of its size, so a partition may keep three or more.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                catalog
                    .getTable("db.t")
                    .newCompactBuilder()
                    .withStrategy("minor")
                    .withOptions(Map.of("compaction.min.file-num", "3"))
                    .plan()
                    .isEmpty());
    // Each commit added a file to each partition; size tiers keep about two per tier of them.
    assertThat(filesPerPartition(catalog.getTable("db.t")).values())
        .allSatisfy(n -> assertThat(n).isLessThan(commits.get() / 2));
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t))
        .containsExactlyInAnyOrderElementsOf(TestTables.toStrings(t.rowType(), written));
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    // Compacted while the writer appended: compactions landed between the writer's commits.
    assertThat(compactionsBetweenAppends(t)).isGreaterThanOrEqualTo(3);
    assertThat(compacts).allSatisfy(s -> assertThat(s.commitUser()).isEqualTo(job.commitUser()));
    assertThat(compacts.stream().map(Snapshot::commitIdentifier))
        .doesNotHaveDuplicates()
        .allSatisfy(id -> assertThat(id).isPositive().isLessThan(Long.MAX_VALUE));
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("db.db/t"))).isEmpty();
  }

  /**
   * ALTER TABLE reaches a running dedicated job: it plans each round from the table's latest
   * schema, and its rewrites load the table again after each checkpoint. 4 small files never
   * compact with a minimum of 100; after an ALTER to 3 the job compacts them. A second ALTER adds
   * and renames columns while a writer that loaded the table before it goes on writing: the job's
   * next outputs carry the new schema and every row reads by field id.
   */
  @Test
  void aRunningDedicatedJobFollowsAlterTable() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    Table table =
        TestTables.create(
            catalog,
            "t",
            FlinkTestSupport.partitioned().option("compaction.min.file-num", "100").build());
    for (int i = 0; i < 4; i++) {
      TestTables.writeBatch(table, List.of(row((long) i, "a", "v" + i)));
    }
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("dedicated")
            .option("compaction.discovery-interval", "100ms")
            .parallelism(1) // one rewrite operator: the one that loaded the table first
            .build();
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    catalog.alterTable(id, List.of(SchemaChange.setOption("compaction.min.file-num", "3")));
    await()
        .atMost(Duration.ofMinutes(2))
        .until(
            () ->
                FlinkTestSupport.snapshots(table).stream()
                    .anyMatch(s -> s.commitKind() == CommitKind.COMPACT));

    catalog.alterTable(
        id,
        List.of(
            SchemaChange.addColumn("extra", DataTypes.INT().getLogicalType()),
            SchemaChange.renameColumn("note", "label"),
            SchemaChange.setOption("compaction.min.file-num", "100")));
    long newSchema = catalog.getTable(id).schema().id();
    for (int i = 4; i < 8; i++) {
      TestTables.writeBatch(table, List.of(row((long) i, "a", "v" + i))); // the old schema
    }
    catalog.alterTable(id, List.of(SchemaChange.setOption("compaction.min.file-num", "3")));
    await()
        .atMost(Duration.ofMinutes(2))
        .until(() -> FlinkTestSupport.liveFileMetas(catalog.getTable(id)).size() == 1);
    assertThat(FlinkTestSupport.liveFileMetas(catalog.getTable(id)).get(0).schemaId())
        .as("the job's output carries the new schema, although it loaded the old one")
        .isGreaterThanOrEqualTo(newSchema);
    StreamingJobs.cancelAndWait(client);
    client = null;
    Table now = catalog.getTable(id);
    assertThat(now.schema().fieldNames()).containsExactly("id", "p", "label", "extra");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      expected.add("(" + i + ",a,v" + i + ",null)");
    }
    assertThat(FlinkTestSupport.rows(now)).containsExactlyInAnyOrderElementsOf(expected);
  }

  /**
   * {@code full-compaction.delta-commits = 3}: a dedicated job whose minor rounds never compact
   * (compaction trigger 10) compacts the bucket fully after every third commit (the first two made
   * before the job started), and at no other time: each COMPACT snapshot follows at least three
   * APPEND snapshots since the one before.
   */
  @Test
  void aFullCompactionEveryThreeDeltaCommits() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = oneBucketTable(catalog, "full-compaction.delta-commits", "3");
    CompactJob job = dedicatedJob();
    // two commits before the job starts: its first look counts them (since the last COMPACT)
    TestTables.writeBatch(table, List.of(row(0L, "v0")));
    TestTables.writeBatch(table, List.of(row(1L, "v1")));
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    long k = 2;
    for (int round = 1; round <= 2; round++) {
      for (int i = round == 1 ? 2 : 0; i < 3; i++, k++) {
        TestTables.writeBatch(table, List.of(row(k, "v" + k)));
      }
      int compacts = round;
      await()
          .atMost(Duration.ofMinutes(2))
          .until(
              () ->
                  FlinkTestSupport.snapshots(table).stream()
                          .filter(s -> s.commitKind() == CommitKind.COMPACT)
                          .count()
                      == compacts);
    }
    StreamingJobs.cancelAndWait(client);
    client = null;
    int appendsSince = 0;
    for (Snapshot s : FlinkTestSupport.snapshots(table)) {
      if (s.commitKind() == CommitKind.COMPACT) {
        assertThat(appendsSince)
            .as("appends before COMPACT snapshot %s", s.id())
            .isGreaterThanOrEqualTo(3);
        appendsSince = 0;
      } else {
        appendsSince++;
      }
    }
    List<DataFileMeta> live = FlinkTestSupport.liveFileMetas(catalog.getTable("db.t"));
    assertThat(live).hasSize(1);
    assertThat(live.get(0).level()).as("a full compaction writes the top level").isEqualTo(10);
    assertThat(FlinkTestSupport.rows(catalog.getTable("db.t"))).hasSize(6);
  }

  /**
   * A primary-key bucket's next merge waits for the commit of its previous one; the job plans it as
   * soon as that commit released the bucket, not at the next discovery (an hour here): two runs
   * written while the first merge waits for its commit are merged right after it.
   */
  @Test
  void aBucketIsPlannedAgainAsSoonAsItsMergeIsCommitted() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = oneBucketTable(catalog, "num-sorted-run.compaction-trigger", "2");
    TestTables.writeBatch(table, List.of(row(0L, "v0")));
    TestTables.writeBatch(table, List.of(row(1L, "v1")));
    CountDownLatch commitDue = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("dedicated")
            .option("compaction.discovery-interval", "1h")
            .listener(faults.holdCommitOnce(commitDue, go))
            .parallelism(1)
            .build();
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    assertThat(commitDue.await(2, TimeUnit.MINUTES)).isTrue();
    TestTables.writeBatch(table, List.of(row(2L, "v2")));
    TestTables.writeBatch(table, List.of(row(3L, "v3")));
    go.countDown();
    // the last: the second merge takes every run by the size ratio and leaves one top-level run
    await().atMost(Duration.ofMinutes(2)).until(() -> compactSnapshots(table) == 2);
    await()
        .atMost(Duration.ofMinutes(1))
        .until(
            () ->
                FlinkTestSupport.liveFileMetas(catalog.getTable("db.t")).stream()
                    .noneMatch(f -> f.level() == 0));
    StreamingJobs.cancelAndWait(client);
    client = null;
    assertThat(FlinkTestSupport.rows(catalog.getTable("db.t"))).hasSize(4);
  }

  /**
   * {@code compaction.trigger.min-bytes}: with a file count that never triggers (100), the
   * dedicated job leaves two small files alone through many rounds and compacts the bucket once a
   * third brings its small files past the bytes.
   */
  @Test
  void theDedicatedJobCompactsWhenTheByteTriggerFiresAndNotBefore() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("k", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .option("compaction.min.file-num", "100")
                .build());
    TestTables.writeBatch(table, List.of(row(0L, "v0")));
    long size = FlinkTestSupport.liveFileMetas(catalog.getTable("db.t")).get(0).fileSize();
    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("dedicated")
            .option("compaction.discovery-interval", "100ms")
            .option("compaction.trigger.min-bytes", (size * 5 / 2) + " b")
            .parallelism(1)
            .build();
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    TestTables.writeBatch(table, List.of(row(1L, "v1")));
    // rounds every 100 ms see two small files, below the bytes: none compacts them
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(10))
        .until(() -> compactSnapshots(table) == 0);
    TestTables.writeBatch(table, List.of(row(2L, "v2")));
    // the last: the three files become one, and one file is never planned again
    await().atMost(Duration.ofMinutes(2)).until(() -> compactSnapshots(table) == 1);
    StreamingJobs.cancelAndWait(client);
    client = null;
    assertThat(FlinkTestSupport.liveFileMetas(catalog.getTable("db.t"))).hasSize(1);
    assertThat(FlinkTestSupport.rows(catalog.getTable("db.t"))).hasSize(3);
    assertThat(compactSnapshots(table)).isEqualTo(1);
  }

  private static long compactSnapshots(Table table) {
    return FlinkTestSupport.snapshots(table).stream()
        .filter(s -> s.commitKind() == CommitKind.COMPACT)
        .count();
  }

  /**
   * A write-only primary-key table of one bucket whose minor rounds never compact (trigger 10
   * runs), unless {@code option} = {@code value} says otherwise (a full-round trigger, or the run
   * trigger itself).
   */
  private static Table oneBucketTable(FileSystemCatalog catalog, String option, String value) {
    return TestTables.create(
        catalog,
        "t",
        FlinkTestSupport.oneKeyBucket()
            .option("num-sorted-run.compaction-trigger", "10")
            .option(option, value)
            .build());
  }

  /** The dedicated job of db.t, looking for snapshots every 100 ms. */
  private CompactJob dedicatedJob() {
    return CompactJob.builder(dir.toString(), "db.t")
        .commitUser("dedicated")
        .option("compaction.discovery-interval", "100ms")
        .parallelism(1)
        .build();
  }

  @Test
  void failoverCommitsRestoredWindowOnceAndLeavesNoOrphans() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 8, 10, "a", "b");
    List<String> before = rows(table);
    faults.failAfterRewriteOnce().failBeforeCommitOnce();

    CompactJob job = FlinkTestSupport.dedicatedJob(dir, faults);
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                faults.allFired()
                    && filesPerPartition(table).values().stream().allMatch(n -> n <= 2));
    StreamingJobs.cancelAndWait(client);
    client = null;

    Table t = catalog.getTable("db.t");
    assertThat(rows(t)).containsExactlyInAnyOrderElementsOf(before);
    List<Snapshot> compacts =
        snapshots(t).stream().filter(s -> s.commitKind() == CommitKind.COMPACT).toList();
    assertThat(compacts).isNotEmpty();
    assertThat(compacts.stream().map(Snapshot::commitIdentifier)).doesNotHaveDuplicates();
    assertThat(FlinkTestSupport.orphanDataFiles(t, dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void committedWindowsLeaveNoMarkersWhileTheJobRuns() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    FlinkTestSupport.fill(table, 0, 8, 10, "a", "b");
    Path tableDir = dir.resolve("db.db/t");

    CompactJob job = FlinkTestSupport.dedicatedJob(dir);
    client = job.submitStreaming(FlinkTestSupport.restartingStreamEnv());
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> filesPerPartition(table).values().stream().allMatch(n -> n <= 2));

    // The committer deletes the markers of the outputs it committed (no restart cleanup ran), so
    // remove_orphan_files does not count the job as live on their account.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                FlinkTestSupport.markerFiles(tableDir).stream()
                    .noneMatch(m -> m.getFileName().toString().startsWith("marker-")));
    StreamingJobs.cancelAndWait(client);
    client = null;
    assertThat(snapshots(table).stream().filter(s -> s.commitKind() == CommitKind.COMPACT))
        .isNotEmpty();
    assertThat(FlinkTestSupport.orphanDataFiles(table, tableDir)).isEmpty();
  }

  /** The COMPACT snapshots older than the latest APPEND one. */
  private static long compactionsBetweenAppends(Table table) throws Exception {
    List<Snapshot> all = snapshots(table);
    long lastAppend =
        all.stream()
            .filter(s -> s.commitKind() == CommitKind.APPEND)
            .mapToLong(Snapshot::id)
            .max()
            .orElse(0);
    return all.stream()
        .filter(s -> s.commitKind() == CommitKind.COMPACT && s.id() < lastAppend)
        .count();
  }
}
