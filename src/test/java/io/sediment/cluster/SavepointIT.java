package io.sediment.cluster;

import static io.sediment.testutil.TestTables.row;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dedicated compaction job on the local cluster, stopped with a savepoint ({@code bin/flink
 * stop --savepointPath}) while files keep arriving, and resumed from it ({@code bin/flink run -s}):
 * it goes on compacting under its restored commit user, with no commit identifier used twice, no
 * row lost or duplicated and no orphan file.
 */
class SavepointIT {

  @RegisterExtension
  static final LocalClusterExtension LOCAL_CLUSTER =
      new LocalClusterExtension("target/savepoint-it", 1);

  private static final LocalCluster CLUSTER = LOCAL_CLUSTER.cluster();
  private static final Pattern JOB_ID =
      Pattern.compile("Started dedicated compaction job ([0-9a-f]{32})");
  private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

  @TempDir static Path warehouse;
  @TempDir static Path savepoints;

  private static long nextId;
  private static String lastSubmission;

  @Test
  void stopWithSavepointAndResumeWithDashS() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Table table = ClusterTables.createEvents(catalog);
    List<String> written = new ArrayList<>();
    write(table, 3, written);

    String firstJob = submit();
    await("the first job compacts")
        .atMost(Duration.ofMinutes(2))
        .until(() -> compactedToOneFilePerPartition(table));
    write(table, 3, written);

    LocalCluster.Result stop =
        CLUSTER.flink("stop", "--savepointPath", savepoints.toUri().toString(), firstJob);
    assertThat(stop.code()).as(stop.output()).isZero();
    Matcher m = SAVEPOINT.matcher(stop.output());
    assertThat(m.find()).as(stop.output()).isTrue();
    String savepoint = m.group(1);
    assertThat(CLUSTER.jobStatus(firstJob)).isEqualTo("FINISHED");
    String commitUser = compactCommitUsers(table).get(0);
    write(table, 3, written);

    String resumed = submit("-s", savepoint);
    assertThat(lastSubmission).contains("(commit user of the savepoint " + savepoint + ")");
    await("the resumed job compacts what arrived while no job ran")
        .atMost(Duration.ofMinutes(2))
        .until(() -> compactedToOneFilePerPartition(table));
    LocalCluster.Result cancel = CLUSTER.flink("cancel", resumed);
    assertThat(cancel.code()).as(cancel.output()).isZero();

    Table after = catalog.getTable(new Identifier("db", "events"));
    assertThat(TestTables.toStrings(after.rowType(), TestTables.readAll(after)))
        .containsExactlyInAnyOrderElementsOf(written);
    assertThat(compactCommitUsers(after))
        .as("the resumed job commits as the restored commit user")
        .hasSizeGreaterThan(1)
        .containsOnly(commitUser);
    assertThat(
            after.snapshotManager().listIds().stream()
                .map(id -> after.snapshotManager().snapshot(id))
                .filter(s -> s.commitKind() == CommitKind.COMPACT)
                .map(Snapshot::commitIdentifier))
        .as("commit identifiers of the compactions before and after the savepoint")
        .doesNotHaveDuplicates();
    List<String> orphans = new ArrayList<>();
    for (var p : new RemoveOrphanFiles(after).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      if (p.getName().startsWith("data-")) {
        orphans.add(p.getName());
      }
    }
    assertThat(orphans).as("data files no snapshot references").isEmpty();
  }

  private static String submit(String... runOptions) throws Exception {
    // Checkpoints (and so commits) every 2 s instead of flink-conf's 10 s: a shorter test.
    List<String> args =
        new ArrayList<>(List.of("run", "-d", "-Dexecution.checkpointing.interval=2s"));
    args.addAll(List.of(runOptions));
    args.addAll(
        List.of(
            CLUSTER.jobJar().toString(),
            "compact",
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.events",
            "--mode",
            "streaming",
            "--commit-user",
            "savepoint-it",
            "--option",
            "compaction.min.file-num=3",
            "--option",
            "compaction.discovery-interval=500ms"));
    LocalCluster.Result run = CLUSTER.flink(args.toArray(new String[0]));
    assertThat(run.code()).as(run.output()).isZero();
    lastSubmission = run.output();
    Matcher m = JOB_ID.matcher(run.output());
    assertThat(m.find()).as(run.output()).isTrue();
    String jobId = m.group(1);
    // The -D option applies (flink-conf/ in the working directory used to override it).
    assertThat(CLUSTER.get("/jobs/" + jobId + "/checkpoints/config").get("interval").asLong())
        .as("checkpoint interval of job %s", jobId)
        .isEqualTo(2000);
    return jobId;
  }

  /** {@code commits} commits of one small file per partition. */
  private static void write(Table table, int commits, List<String> written) {
    for (int c = 0; c < commits; c++) {
      List<RowData> rows = new ArrayList<>();
      for (String p : new String[] {"a", "b"}) {
        for (int i = 0; i < 10; i++) {
          rows.add(row(nextId, p));
          written.add("(" + nextId++ + "," + p + ")");
        }
      }
      TestTables.writeBatch(table, rows);
    }
  }

  private static boolean compactedToOneFilePerPartition(Table table) {
    Snapshot latest = table.snapshotManager().latest().orElseThrow();
    if (latest.commitKind() != CommitKind.COMPACT) {
      return false;
    }
    Map<String, Integer> files = new TreeMap<>();
    for (ManifestEntry e : table.store().newScan().plan(latest)) {
      files.merge(table.store().partitionPath(e.partition()), 1, Integer::sum);
    }
    return files.size() == 2 && files.values().stream().allMatch(n -> n == 1);
  }

  private static List<String> compactCommitUsers(Table table) {
    return table.snapshotManager().listIds().stream()
        .map(id -> table.snapshotManager().snapshot(id))
        .filter(s -> s.commitKind() == CommitKind.COMPACT)
        .map(Snapshot::commitUser)
        .toList();
  }
}
