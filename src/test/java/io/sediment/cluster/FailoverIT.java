package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TaskManager process killed ({@code kill -9}) while a writer job (Flink SQL INSERT from a
 * rate-limited sequence, committing every second) and the dedicated compaction job both run on the
 * local cluster; a new TaskManager is started. Both jobs recover from their checkpoints: the table
 * holds every row the writer generated exactly once, no data file is orphaned (the killed writer's
 * files are deleted through their markers, without remove_orphan_files), and no commit user used a
 * commit identifier twice.
 */
class FailoverIT {

  @RegisterExtension
  static final LocalClusterExtension LOCAL_CLUSTER =
      new LocalClusterExtension("target/failover-it", 2);

  private static final LocalCluster CLUSTER = LOCAL_CLUSTER.cluster();
  private static final long ROWS = 250;

  @TempDir static Path warehouse;

  @Test
  void killedTaskManagerWhileWriterAndDedicatedJobRun() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Table table = ClusterTables.createEvents(catalog);

    String writer = submitWriter();
    String compactor = submitDedicatedJob();
    await("the writer has committed and the dedicated job has compacted")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(
            () ->
                snapshotsOf(table, CommitKind.APPEND) >= 4
                    && snapshotsOf(table, CommitKind.COMPACT) >= 1);

    assertThat(CLUSTER.jobStatus(writer)).as("the writer still writes").isEqualTo("RUNNING");
    long victim = Long.parseLong(Files.readString(CLUSTER.pidFile(taskManagerOf(writer))).trim());
    ProcessHandle.of(victim).orElseThrow().destroyForcibly();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> ProcessHandle.of(victim).isEmpty() || !ProcessHandle.of(victim).get().isAlive());
    LocalCluster.Result start = CLUSTER.startTaskManager();
    assertThat(start.code()).as(start.output()).isZero();

    await("the writer finished its " + ROWS + " rows after recovering")
        .atMost(Duration.ofMinutes(3))
        .pollInterval(Duration.ofSeconds(1))
        .ignoreExceptions()
        .until(() -> CLUSTER.jobStatus(writer).equals("FINISHED"));
    await("the dedicated job compacted what the writer left")
        .atMost(Duration.ofMinutes(2))
        .until(() -> settled(table));
    assertThat(CLUSTER.jobStatus(compactor)).isEqualTo("RUNNING");
    for (String job : List.of(writer, compactor)) {
      assertThat(CLUSTER.get("/jobs/" + job + "/exceptions").at("/exceptionHistory/entries"))
          .as("job %s failed with the TaskManager and recovered", job)
          .isNotEmpty();
    }
    LocalCluster.Result cancel = CLUSTER.flink("cancel", compactor);
    assertThat(cancel.code()).as(cancel.output()).isZero();

    Table after = catalog.getTable(new Identifier("db", "events"));
    List<String> expected =
        LongStream.rangeClosed(1, ROWS).mapToObj(i -> "(" + i + "," + (i % 2) + ")").toList();
    assertThat(TestTables.toStrings(after.rowType(), TestTables.readAll(after)))
        .as("every row of the writer's sequence, once")
        .containsExactlyInAnyOrderElementsOf(expected);
    Map<String, List<Long>> identifiers =
        snapshots(after).stream()
            .collect(
                Collectors.groupingBy(
                    Snapshot::commitUser,
                    TreeMap::new,
                    Collectors.mapping(Snapshot::commitIdentifier, Collectors.toList())));
    assertThat(identifiers).as("the writer's and the compaction's commit users").hasSize(2);
    identifiers.forEach(
        (user, ids) ->
            assertThat(ids).as("commit identifiers of %s", user).doesNotHaveDuplicates());
    // The compaction deleted the outputs of its lost attempt, the writer's committer the files
    // its killed attempt had written (through their markers): no data file is orphaned, and no
    // writer marker is left that would hide one from remove_orphan_files' listing.
    assertThat(writerMarkers(warehouse.resolve("db.db/events"))).as("writer markers").isEmpty();
    assertThat(dataOrphans(after)).as("data files no snapshot references").isEmpty();
  }

  /** Marker files of SQL writers: {@code .markers/<commit-user>/write-after-<checkpoint>/}. */
  private static List<Path> writerMarkers(Path tableDir) throws IOException {
    Path markers = tableDir.resolve(".markers");
    if (!Files.isDirectory(markers)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(markers)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.getParent().getFileName().toString().startsWith("write-after-"))
          .toList();
    }
  }

  private static List<String> dataOrphans(Table table) {
    List<String> orphans = new ArrayList<>();
    for (var p : new RemoveOrphanFiles(table).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      if (p.getName().startsWith("data-")) {
        orphans.add(p.getName());
      }
    }
    return orphans;
  }

  /** The writer: INSERT from a datagen sequence 1..ROWS at 5 rows a second, checkpoint 1 s. */
  private static String submitWriter() throws Exception {
    Path script = warehouse.resolve("writer.sql");
    Files.writeString(
        script,
        String.join(
            "\n",
            "SET 'execution.checkpointing.interval' = '1s';",
            "SET 'parallelism.default' = '1';",
            "SET 'restart-strategy.fixed-delay.attempts' = '20';",
            "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '"
                + warehouse.toUri()
                + "');",
            "CREATE TEMPORARY TABLE gen (id BIGINT NOT NULL) WITH ('connector' = 'datagen',"
                + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '"
                + ROWS
                + "', 'rows-per-second' = '5');",
            "INSERT INTO c.db.events SELECT id, CAST(id % 2 AS STRING) FROM gen;",
            ""));
    LocalCluster.Result r =
        CLUSTER.sqlClient("-j", CLUSTER.jobJar().toString(), "-f", script.toString());
    assertThat(r.code()).as(r.output()).isZero();
    Matcher m = Pattern.compile("Job ID: ([0-9a-f]{32})").matcher(r.output());
    assertThat(m.find()).as(r.output()).isTrue();
    return m.group(1);
  }

  private static String submitDedicatedJob() throws Exception {
    LocalCluster.Result run =
        CLUSTER.flink(
            "run",
            "-d",
            "-Dexecution.checkpointing.interval=2s",
            "-Drestart-strategy.fixed-delay.attempts=20",
            CLUSTER.jobJar().toString(),
            "compact",
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.events",
            "--mode",
            "streaming",
            "--parallelism",
            "3",
            "--option",
            "compaction.min.file-num=3",
            "--option",
            "compaction.discovery-interval=500ms");
    assertThat(run.code()).as(run.output()).isZero();
    Matcher m =
        Pattern.compile("Started dedicated compaction job ([0-9a-f]{32})").matcher(run.output());
    assertThat(m.find()).as(run.output()).isTrue();
    return m.group(1);
  }

  /**
   * The process (taskmanager-N) running {@code job}'s tasks. The writer takes one slot and the
   * dedicated job (parallelism 3) the other three, so that TaskManager runs tasks of both jobs.
   */
  private static String taskManagerOf(String job) throws Exception {
    String vertex = CLUSTER.get("/jobs/" + job).at("/vertices/0/id").asText();
    String resourceId =
        CLUSTER
            .get("/jobs/" + job + "/vertices/" + vertex + "/taskmanagers")
            .at("/taskmanagers/0/taskmanager-id")
            .asText();
    for (String name : List.of("taskmanager-1", "taskmanager-2")) {
      // A TaskManager logs its resource id when it starts.
      if (Files.readString(CLUSTER.logFile(name)).contains(resourceId)) {
        return name;
      }
    }
    throw new AssertionError("no TaskManager log names " + resourceId);
  }

  private static List<Snapshot> snapshots(Table table) {
    return table.snapshotManager().listIds().stream()
        .map(id -> table.snapshotManager().snapshot(id))
        .toList();
  }

  private static long snapshotsOf(Table table, CommitKind kind) {
    return snapshots(table).stream().filter(s -> s.commitKind() == kind).count();
  }

  /**
   * Nothing left to compact: no partition has min.file-num (3) files. (The last snapshot may be the
   * writer's: its last files need not reach min.file-num.) Files only go below 3 through the commit
   * of the task planned over them, so no rewrite is in flight then.
   */
  private static boolean settled(Table table) {
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    Map<String, Integer> files = new TreeMap<>();
    for (ManifestEntry e : table.store().newScan().plan(latest)) {
      files.merge(table.store().partitionPath(e.partition()), 1, Integer::sum);
    }
    return files.values().stream().allMatch(n -> n < 3);
  }
}
