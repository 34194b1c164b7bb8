package io.sediment.cluster;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sediment on a Flink cluster of separate processes (bin/local-cluster: one JobManager, two
 * TaskManagers), submitted with bin/flink and the job jar target/sediment-flink.jar, as a user runs
 * it. Runs after {@code package}, as part of {@code mvn verify}.
 */
class LocalClusterIT {

  @RegisterExtension
  static final LocalClusterExtension LOCAL_CLUSTER =
      new LocalClusterExtension("target/local-cluster-it", 2);

  private static final LocalCluster CLUSTER = LOCAL_CLUSTER.cluster();

  @TempDir static Path warehouse;

  @BeforeAll
  static void checkProcesses() throws Exception {
    assertThat(CLUSTER.pids()).as("JobManager and two TaskManagers").hasSize(3);
  }

  @Test
  void batchCompactionOfAnAppendTableWithFlinkRun() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Table t = ClusterTables.createEvents(catalog);
    List<String> expected = new ArrayList<>();
    long id = 0;
    for (int commit = 0; commit < 5; commit++) {
      List<RowData> rows = new ArrayList<>();
      for (String p : new String[] {"a", "b"}) {
        for (int i = 0; i < 20; i++) {
          rows.add(row(id, p));
          expected.add("(" + id++ + "," + p + ")");
        }
      }
      TestTables.writeBatch(t, rows);
    }

    compactOnTheCluster("db.events", "compaction.min.file-num=2");

    Table after = catalog.getTable(new Identifier("db", "events"));
    assertThat(read(after)).containsExactlyInAnyOrderElementsOf(expected);
    assertCompactedOnceWithNothingLeft(after, 5);
    long liveFiles =
        after.newReadBuilder().newScan().plan().splits().stream()
            .mapToLong(split -> split.files().size())
            .sum();
    assertThat(liveFiles).as("one file per partition").isEqualTo(2);
  }

  @Test
  void batchCompactionOfAPrimaryKeyTableWithFlinkRun() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Table t =
        TestTables.create(
            catalog,
            "users",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .column("v", DataTypes.INT())
                .primaryKey("id")
                .option("bucket", "2")
                .option("write-only", "true")
                .build());
    Map<Long, String> model = new LinkedHashMap<>();
    for (int commit = 0; commit < 6; commit++) {
      List<RowData> rows = new ArrayList<>();
      for (long key = 0; key < 30; key++) {
        if ((key + commit) % 7 == 0) {
          GenericRowData delete = row(key, "x", 0);
          delete.setRowKind(RowKind.DELETE);
          rows.add(delete);
          model.remove(key);
        } else if ((key + commit) % 3 == 0) {
          String name = "n" + key + "-" + commit;
          rows.add(row(key, name, commit));
          model.put(key, "(" + key + "," + name + "," + commit + ")");
        }
      }
      TestTables.writeBatch(t, rows);
    }

    compactOnTheCluster("db.users", "compaction.full=true");

    Table after = catalog.getTable(new Identifier("db", "users"));
    assertThat(read(after)).containsExactlyInAnyOrderElementsOf(model.values());
    assertCompactedOnceWithNothingLeft(after, 6);
  }

  /**
   * {@code flink run -d} of the dedicated streaming job returns once the job is submitted, printing
   * its id; the job keeps running on the cluster until cancelled. (It used to wait for the job's
   * end, forever.)
   */
  @Test
  void detachedFlinkRunOfTheDedicatedJobReturnsAndTheJobKeepsRunning() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Table t =
        TestTables.create(
            catalog,
            "stream",
            Schema.newBuilder().column("id", DataTypes.BIGINT().notNull()).build());
    TestTables.writeBatch(t, List.of(row(1L)));

    LocalCluster.Result run =
        CLUSTER.flink(
            "run",
            "-d",
            CLUSTER.jobJar().toString(),
            "compact",
            "--warehouse",
            warehouse.toString(),
            "--table",
            "db.stream",
            "--mode",
            "streaming");
    assertThat(run.code()).as(run.output()).isZero();
    Matcher m =
        Pattern.compile("Started dedicated compaction job ([0-9a-f]{32})").matcher(run.output());
    assertThat(m.find()).as(run.output()).isTrue();
    String jobId = m.group(1);
    await("job " + jobId + " running")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(() -> CLUSTER.jobStatus(jobId).equals("RUNNING"));

    LocalCluster.Result cancel = CLUSTER.flink("cancel", jobId);
    assertThat(cancel.code()).as(cancel.output()).isZero();
    await("job " + jobId + " cancelled")
        .atMost(Duration.ofMinutes(2))
        .ignoreExceptions()
        .until(() -> CLUSTER.jobStatus(jobId).equals("CANCELED"));
  }

  private static void compactOnTheCluster(String table, String option) throws Exception {
    LocalCluster.Result r =
        CLUSTER.flink(
            "run",
            CLUSTER.jobJar().toString(),
            "compact",
            "--warehouse",
            warehouse.toString(),
            "--table",
            table,
            "--option",
            option,
            "--json");
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).contains("\"snapshotId\":");
  }

  private static void assertCompactedOnceWithNothingLeft(Table t, long writeSnapshots) {
    List<Long> ids = t.snapshotManager().listIds();
    assertThat(ids)
        .as("the writes' snapshots and one COMPACT snapshot")
        .hasSize((int) writeSnapshots + 1);
    Snapshot latest = t.snapshotManager().latest().orElseThrow();
    assertThat(latest.commitKind()).isEqualTo(CommitKind.COMPACT);
    List<String> orphans = new ArrayList<>();
    for (var p : new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      if (p.getName().startsWith("data-")) {
        orphans.add(p.getName());
      }
    }
    assertThat(orphans).as("data files no snapshot references").isEmpty();
  }

  private static List<String> read(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }
}
