package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.CommitKind;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's SQL client with Sediment's jar in the cluster's class path (as in a distribution's lib/:
 * SEDIMENT_CLUSTER_LIB for every process of the local cluster and for bin/sql-client), no {@code
 * -j}: the catalog is found and {@code CALL sys.compact} runs on the cluster.
 */
class SqlClientLibIT {

  @RegisterExtension
  static final LocalClusterExtension LOCAL_CLUSTER =
      new LocalClusterExtension(
          "target/sql-client-lib-it",
          1,
          Map.of(
              "SEDIMENT_CLUSTER_LIB",
              Path.of("target/sediment-flink.jar").toAbsolutePath().toString()));

  private static final LocalCluster CLUSTER = LOCAL_CLUSTER.cluster();

  @TempDir static Path warehouse;

  @Test
  void compactFromTheSqlClientWithTheJarInTheClustersClassPath() throws Exception {
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
            "CREATE DATABASE c.db;",
            "CREATE TABLE c.db.t (id BIGINT NOT NULL, v STRING);",
            "INSERT INTO c.db.t VALUES (1, 'a'), (2, 'b');",
            "INSERT INTO c.db.t VALUES (3, 'c');",
            "CALL c.sys.compact(`table` => 'db.t');",
            ""));

    LocalCluster.Result r = CLUSTER.sqlClient("-f", script.toString());

    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).as(r.output()).doesNotContain("[ERROR]");
    Table t = new FileSystemCatalog(warehouse.toString()).getTable(new Identifier("db", "t"));
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)", "(3,c)");
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    long liveFiles =
        t.newReadBuilder().newScan().plan().splits().stream()
            .mapToLong(split -> split.files().size())
            .sum();
    assertThat(liveFiles).as("the inserts' files compacted into one").isEqualTo(1);
  }
}
