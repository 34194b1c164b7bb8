package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.compact.CompactResult;
import io.sediment.flink.CompactJob;
import io.sediment.fs.FileIO;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.maintenance.Rollback;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.TagManager;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The life of a table on S3 (S3Proxy through Flink's S3 file system): writes, an in-process
 * compaction (CompactBuilder), the batch compaction job on a Flink MiniCluster, snapshot expiry and
 * orphan removal, each committing under the commit lock; the rows stay, and what is left on the
 * store is exactly the live files. And SQL INSERT and SELECT on S3.
 */
class S3MaintenanceTest {

  /**
   * The jobs run in this JVM and share its cached S3 file system with the test thread. S3A's upload
   * threads, started while a job's task closed a file, keep that job's class loader as their
   * context class loader after the job ended; Flink's leak check then fails their next upload. A
   * test artifact of one JVM running both; so the check is off here.
   */
  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER =
      new SharedMiniCluster(
          new MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .setConfiguration(
                  Configuration.fromMap(
                      Map.of(CoreOptions.CHECK_LEAKED_CLASSLOADER.key(), "false")))
              .build());

  @TempDir static java.nio.file.Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  private static void writeBatches(Table t, long from, long to) {
    for (long i = from; i < to; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
  }

  private static List<Long> ids(Table t) {
    List<Long> ids = new ArrayList<>();
    for (RowData r : TestTables.readAll(t)) {
      ids.add(r.getLong(0));
    }
    return ids;
  }

  private static List<String> liveFiles(Table t) throws IOException {
    List<String> names = new ArrayList<>();
    for (DataSplit split : t.newReadBuilder().newScan().plan().splits()) {
      for (DataFileMeta f : split.files()) {
        names.add(f.fileName());
      }
    }
    return names;
  }

  /** Names of the data files stored under the table's bucket directories. */
  private static List<String> storedDataFiles(Table t) throws IOException {
    FileIO io = t.store().fileIO();
    List<String> names = new ArrayList<>();
    for (FileStatus bucket : io.list(t.store().paths().root())) {
      if (bucket.getPath().getName().startsWith("bucket-")) {
        for (FileStatus f : io.list(bucket.getPath())) {
          names.add(f.getPath().getName());
        }
      }
    }
    return names;
  }

  /** db.t (id, v) with the commit lock in SQLite file {@code lockFile} and one more option. */
  private Table lockedTable(FileSystemCatalog catalog, String lockFile, String key, String value) {
    catalog.createDatabase("db", true);
    return TestTables.create(
        catalog,
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .options(
                Map.of(
                    "lock.enabled",
                    "true",
                    "lock.jdbc.url",
                    "jdbc:sqlite:" + dir.resolve(lockFile),
                    key,
                    value))
            .build());
  }

  @Test
  void writeCompactExpireAndRemoveOrphansOnS3() throws Exception {
    String warehouse = "s3://lake/maintenance";
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    Table t = lockedTable(catalog, "locks.db", "compaction.full", "true");

    writeBatches(t, 0, 4);
    // a tag (created under the commit lock) keeps the four small files through what follows; its
    // name has a space, as hourly automatic tags' names do
    List<String> tagged = liveFiles(t);
    new Tags(t).create("before 1", OptionalLong.empty());
    CompactResult inProcess = t.newCompactBuilder().execute();
    assertThat(inProcess.snapshotId()).isNotNull();
    assertThat(liveFiles(t)).hasSize(1);

    writeBatches(t, 4, 7);
    CompactResult job =
        CompactJob.builder(warehouse, "db.t")
            .parallelism(2)
            .build()
            .runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
    assertThat(job.snapshotId()).isNotNull();
    assertThat(liveFiles(t)).hasSize(1);
    assertThat(ids(t)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L);

    // a rollback to the tag, past both compactions (its four files copied back), and forward
    // again to the job's snapshot; refused without the commit lock before anything is copied
    int stored = storedDataFiles(t).size();
    Table unlocked = t.copy(Map.of("lock.enabled", "false"));
    assertThatThrownBy(() -> new Rollback(unlocked).toTag("before 1"))
        .hasMessageContaining("Refusing to commit to");
    assertThat(storedDataFiles(t)).hasSize(stored);
    // so are an expiry and tag changes: their records and tags are created as exclusively as
    // snapshots, which an object store cannot do without the lock
    List<Long> snapshotsBefore = t.snapshotManager().listIds();
    for (Runnable unsafe :
        List.<Runnable>of(
            () -> new ExpireSnapshots(unlocked).retainMax(1).execute(),
            () -> new Tags(unlocked).create("unsafe", OptionalLong.empty()),
            () -> new Tags(unlocked).rename("before 1", "renamed"))) {
      assertThatThrownBy(unsafe::run).hasMessageContaining("Refusing to commit to");
    }
    assertThat(t.snapshotManager().listIds()).isEqualTo(snapshotsBefore);
    assertThat(new Tags(t).all()).containsOnlyKeys("before 1");
    assertThat(new Rollback(t).toTag("before 1").filesCopied()).isEqualTo(4);
    assertThat(ids(t)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    Rollback.Result forward = new Rollback(t).toSnapshot(job.snapshotId());
    assertThat(forward.filesCopied()).isEqualTo(1);
    assertThat(ids(t)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L);

    Path orphan = new Path(t.store().paths().root(), "bucket-0/data-orphan.parquet");
    t.store().fileIO().writeNew(orphan, "not a table file".getBytes(StandardCharsets.UTF_8));

    new ExpireSnapshots(t).retainMax(1).execute();
    assertThat(t.snapshotManager().listIds()).containsExactly(forward.newSnapshotId().getAsLong());
    List<Path> removed = new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).execute();

    assertThat(removed).extracting(Path::getName).contains("data-orphan.parquet");
    assertThat(t.store().fileIO().exists(orphan)).isFalse();
    assertThat(storedDataFiles(t)).containsAll(tagged).containsAll(liveFiles(t)).hasSize(5);
    assertThat(ids(t.copy(Map.of("scan.tag-name", "before 1"))))
        .containsExactlyInAnyOrder(0L, 1L, 2L, 3L);

    Tags.Deleted deleted = new Tags(t).delete(List.of("before 1"));
    assertThat(deleted.dataFiles()).isEqualTo(4);
    assertThat(storedDataFiles(t)).containsExactlyInAnyOrderElementsOf(liveFiles(t));
    assertThat(ids(t)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L);

    // a tag replaced within the store's second (S3 keeps whole seconds) still gets a new
    // modification time: other processes know a tag's content by its path, time and size
    Tags tags = new Tags(t);
    tags.create("moving", OptionalLong.of(forward.newSnapshotId().getAsLong()));
    Path tagFile = t.store().paths().tag("moving");
    long made = t.store().fileIO().fs(tagFile).getFileStatus(tagFile).getModificationTime();
    TagManager.Tag replaced =
        tags.replace("moving", tags.checkSnapshot(OptionalLong.empty()), null);
    assertThat(t.store().fileIO().fs(tagFile).getFileStatus(tagFile).getModificationTime())
        .isNotEqualTo(made);
    assertThat(replaced.createdMillis()).isGreaterThanOrEqualTo(made);
    assertThat(ids(t.copy(Map.of("scan.tag-name", "moving"))))
        .containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L, 5L, 6L);
  }

  /**
   * SQL on S3: a table created with the lock options takes INSERTs and answers SELECTs; an INSERT
   * into a table without them is refused when the statement is planned, naming the options.
   */
  @Test
  void sqlInsertAndSelectOnS3() throws Exception {
    TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    tEnv.getConfig().set("parallelism.default", "2");
    tEnv.executeSql("CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = 's3://lake/sql')");
    tEnv.executeSql("USE CATALOG c");
    tEnv.executeSql("CREATE DATABASE db");
    tEnv.executeSql(
        "CREATE TABLE db.t (id BIGINT, v STRING) WITH ('lock.enabled' = 'true',"
            + " 'lock.jdbc.url' = 'jdbc:sqlite:"
            + dir.resolve("sql-locks.db")
            + "')");
    tEnv.executeSql("INSERT INTO db.t VALUES (1, 'a'), (2, 'b')").await();
    tEnv.executeSql("INSERT INTO db.t VALUES (3, 'c')").await();
    List<String> rows = new ArrayList<>();
    try (CloseableIterator<Row> it = tEnv.executeSql("SELECT id, v FROM db.t").collect()) {
      it.forEachRemaining(r -> rows.add(r.toString()));
    }
    assertThat(rows).containsExactlyInAnyOrder("+I[1, a]", "+I[2, b]", "+I[3, c]");

    tEnv.executeSql("CREATE TABLE db.unlocked (id BIGINT)");
    assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO db.unlocked VALUES (1)").await())
        .hasStackTraceContaining("'lock.enabled' = 'true'");
    assertThat(new FileSystemCatalog("s3://lake/sql").getTable("db.unlocked").latestSnapshot())
        .isEmpty();
  }

  /**
   * The headline set-up on S3: a writer, the dedicated compaction job and in-process compactions
   * commit to one table at the same time. Every committed row is read back exactly once, every
   * snapshot is readable, and the dedicated job's compactions landed among the writer's commits.
   */
  @Test
  void aWriterTheDedicatedJobAndCompactBuilderCommitTogether() throws Exception {
    String warehouse = "s3://lake/together";
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse);
    Table t = lockedTable(catalog, "together-locks.db", "compaction.min.file-num", "3");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(300);
    JobClient dedicated =
        CompactJob.builder(warehouse, "db.t")
            .commitUser("dedicated")
            .option("compaction.discovery-interval", "200ms")
            .parallelism(2)
            .build()
            .submitStreaming(env);
    int commits = 12;
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try {
      Future<?> writes = writer.submit(() -> writeBatches(t, 0, commits));
      while (!writes.isDone()) {
        try {
          t.newCompactBuilder().withCommitUser("in-process").execute();
        } catch (RuntimeException e) {
          if (!(ExceptionUtils.findThrowable(e, CommitConflictException.class).isPresent())) {
            throw e; // a conflict with the dedicated job is an expected outcome; nothing else
          }
        }
      }
      writes.get();
      // The in-process compactions may have left the job nothing; three more small files.
      writeBatches(t, commits, commits + 3);
      await()
          .atMost(Duration.ofSeconds(120))
          .until(
              () ->
                  t.snapshotManager().listIds().stream()
                      .map(id -> t.snapshotManager().snapshot(id))
                      .anyMatch(
                          s ->
                              s.commitKind() == CommitKind.COMPACT
                                  && s.commitUser().startsWith("dedicated")));
    } finally {
      writer.shutdownNow();
      StreamingJobs.cancelAndWait(dedicated);
    }
    List<Long> expected = new ArrayList<>();
    for (long i = 0; i < commits + 3; i++) {
      expected.add(i);
    }
    assertThat(ids(t)).containsExactlyInAnyOrderElementsOf(expected);
    for (long id : t.snapshotManager().listIds()) {
      assertThat(t.snapshotManager().snapshot(id).id()).isEqualTo(id);
    }
  }
}
