package io.sediment.objectstore;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.TestTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24, case 3: one table on S3 committed to through two spellings of its location ({@code
 * s3://} and {@code s3a://}, one bucket) at the same time. Both take the one commit lock of the
 * table, so every commit that returned lands, once.
 */
class S3LockSpellingTest {

  @TempDir static java.nio.file.Path dir;

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  @Test
  void commitsThroughTwoSchemesOfOneTableAllLand() throws Exception {
    Map<String, String> lock =
        Map.of("lock.enabled", "true", "lock.jdbc.url", "jdbc:sqlite:" + dir.resolve("l.db"));
    FileSystemCatalog s3 = new FileSystemCatalog("s3://lake/spell");
    s3.createDatabase("db", true);
    TestTables.create(
        s3,
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .options(lock)
            .build());
    Table viaS3 = s3.getTable(new Identifier("db", "t"));
    Table viaS3a = new FileSystemCatalog("s3a://lake/spell").getTable(new Identifier("db", "t"));

    int perWriter = 12;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    List<Future<Integer>> done = new ArrayList<>();
    for (Table t : List.of(viaS3, viaS3a)) {
      long base = t == viaS3 ? 0 : 1000;
      Callable<Integer> writer =
          () -> {
            int landed = 0;
            for (int i = 0; i < perWriter; i++) {
              landed += TestTables.writeBatch(t, List.of(row(base + i, "x"))).size();
            }
            return landed;
          };
      done.add(pool.submit(writer));
    }
    int acknowledged = 0;
    for (Future<Integer> f : done) {
      acknowledged += f.get();
    }
    pool.shutdown();

    assertThat(acknowledged).isEqualTo(2 * perWriter);
    assertThat(TestTables.readAll(viaS3)).hasSize(2 * perWriter);
    assertThat(viaS3.snapshotManager().listIds()).hasSize(2 * perWriter);
  }
}
