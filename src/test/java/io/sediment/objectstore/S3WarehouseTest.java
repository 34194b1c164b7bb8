package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.S3ProxyServer;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tables in a warehouse on a real S3 API server (S3Proxy), through Flink's S3 file system. */
class S3WarehouseTest {

  @TempDir static Path dir;

  private static S3ProxyServer s3;

  @BeforeAll
  static void startS3() throws Exception {
    s3 = S3ProxyServer.start(dir, "lake");
    s3.configureFlink();
  }

  @AfterAll
  static void stopS3() {
    s3.close();
  }

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("v", DataTypes.STRING());
  }

  private static Map<String, String> lockOptions(String name) {
    return Map.of(
        "lock.enabled", "true", "lock.jdbc.url", "jdbc:sqlite:" + dir.resolve(name + ".db"));
  }

  @Test
  void aTableWithACommitLockIsWrittenAndReadBack() {
    FileSystemCatalog catalog = new FileSystemCatalog("s3://lake/w1");
    catalog.createDatabase("db", true);
    Table t = TestTables.create(catalog, "t", schema().options(lockOptions("w1")).build());
    TestTables.writeBatch(t, List.of(row(1L, "a"), row(2L, "b")));
    TestTables.writeBatch(t, List.of(row(3L, "c")));
    assertThat(TestTables.readAll(catalog.getTable(new Identifier("db", "t")))).hasSize(3);
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(2);
  }

  @Test
  void writingOrCompactingWithoutACommitLockIsRefusedNamingTheOptions() {
    FileSystemCatalog catalog = new FileSystemCatalog("s3://lake/w2");
    catalog.createDatabase("db", true);
    Table t = TestTables.create(catalog, "t", schema().build());
    assertThatThrownBy(t::newBatchWriteBuilder)
        .hasMessageContaining("s3://lake/w2/db.db/t")
        .hasMessageContaining("object store")
        .hasMessageContaining("'lock.enabled' = 'true'")
        .hasMessageContaining("lock.jdbc.url");
    assertThatThrownBy(t::newStreamWriteBuilder).hasMessageContaining("lock.enabled");
    assertThatThrownBy(t::newCompactBuilder).hasMessageContaining("lock.enabled");
    assertThat(t.latestSnapshot()).isEmpty();
  }
}
