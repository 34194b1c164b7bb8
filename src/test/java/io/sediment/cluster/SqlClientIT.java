package io.sediment.cluster;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's SQL client (bin/sql-client) with Sediment's jar given by {@code -j}, against the local
 * cluster of separate processes: the catalog, INSERT, and each procedure run on the cluster and do
 * what they say. {@code CALL sys.compact} used to fail here: its job reached the JobManager without
 * the jar ({@code ClassNotFoundException: io.sediment.flink.CompactRewriteOperator}).
 */
class SqlClientIT {

  @RegisterExtension
  static final LocalClusterExtension LOCAL_CLUSTER =
      new LocalClusterExtension("target/sql-client-it", 1);

  private static final LocalCluster CLUSTER = LOCAL_CLUSTER.cluster();

  @TempDir static Path warehouse;

  @Test
  void catalogInsertAndProceduresFromTheSqlClientWithTheJarGivenByDashJ() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(warehouse);
    Map<Long, String> users = writeUsers(catalog);
    Path orphan = plantOldOrphan(catalog, "users");

    Path script = warehouse.resolve("script.sql");
    Files.writeString(
        script,
        String.join(
            "\n",
            "SET 'table.dml-sync' = 'true';",
            "SET 'sql-client.execution.result-mode' = 'tableau';",
            "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '"
                + warehouse.toUri()
                + "');",
            "USE CATALOG c;",
            "CREATE TABLE db.events (id BIGINT NOT NULL, p STRING) PARTITIONED BY (p);",
            "INSERT INTO db.events VALUES (1, 'a'), (2, 'b');",
            "INSERT INTO db.events VALUES (3, 'a'), (4, 'b');",
            "CALL c.sys.compact(`table` => 'db.events');",
            "CALL c.sys.expire_snapshots(`table` => 'db.events', retain_max => 1);",
            "CALL c.sys.compact_database(including_databases => 'db', including_tables => 'users',"
                + " table_options => 'compaction.full=true');",
            "CALL c.sys.remove_orphan_files(`table` => 'db.users', older_than => '1 d');",
            ""));

    LocalCluster.Result r =
        CLUSTER.sqlClient("-j", CLUSTER.jobJar().toString(), "-f", script.toString());

    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).as(r.output()).doesNotContain("[ERROR]");

    Table events = catalog.getTable(new Identifier("db", "events"));
    assertThat(read(events)).containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,a)", "(4,b)");
    assertThat(events.snapshotManager().listIds())
        .as("expire_snapshots kept only the COMPACT snapshot")
        .hasSize(1);
    assertThat(events.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(TestTables.dataFiles(tableDir("events")))
        .as("one file per partition: the compaction's inputs were deleted with their snapshots")
        .hasSize(2);
    assertNoOrphan(events);

    Table usersAfter = catalog.getTable(new Identifier("db", "users"));
    assertThat(read(usersAfter)).containsExactlyInAnyOrderElementsOf(users.values());
    assertThat(usersAfter.latestSnapshot().orElseThrow().commitKind())
        .as("compact_database compacted db.users")
        .isEqualTo(CommitKind.COMPACT);
    assertThat(orphan).as("removed by remove_orphan_files").doesNotExist();
    assertThat(r.output()).contains(orphan.getFileName().toString());
    assertNoOrphan(usersAfter);
  }

  private static Map<Long, String> writeUsers(FileSystemCatalog catalog) {
    Table t =
        TestTables.create(
            catalog,
            "users",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("name", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "2")
                .option("write-only", "true")
                .build());
    Map<Long, String> model = new LinkedHashMap<>();
    for (int commit = 0; commit < 3; commit++) {
      List<RowData> rows = new ArrayList<>();
      for (long key = commit; key < 20; key += 2) {
        String name = "n" + key + "-" + commit;
        rows.add(row(key, name));
        model.put(key, "(" + key + "," + name + ")");
      }
      TestTables.writeBatch(t, rows);
    }
    return model;
  }

  /** A copy of a data file that no snapshot references, two days old. */
  private static Path plantOldOrphan(FileSystemCatalog catalog, String table) throws Exception {
    Path live = TestTables.dataFiles(tableDir(table)).get(0);
    Path orphan = live.resolveSibling("data-orphan-of-a-failed-write-0.parquet");
    Files.copy(live, orphan);
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    return orphan;
  }

  private static Path tableDir(String table) {
    return warehouse.resolve("db.db").resolve(table);
  }

  private static void assertNoOrphan(Table t) {
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
