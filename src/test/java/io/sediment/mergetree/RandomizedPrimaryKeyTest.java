package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Random upserts and deletes over many commits and compactions, checked against a map. */
class RandomizedPrimaryKeyTest {

  @TempDir Path dir;
  @TempDir Path cache;

  @ParameterizedTest(name = "deletion vectors: {0}")
  @ValueSource(booleans = {false, true})
  void randomUpsertsAndDeletesMatchModel(boolean deletionVectors) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Schema.Builder b =
        Schema.newBuilder()
            .column("p", DataTypes.STRING().notNull())
            .column("k", DataTypes.INT().notNull())
            .column("v", DataTypes.STRING())
            .column("n", DataTypes.BIGINT())
            .partitionKeys("p")
            .primaryKey("p", "k")
            .option("bucket", "2")
            .option("write-buffer-size", "16 kb")
            .option("num-sorted-run.compaction-trigger", "3")
            .option("num-sorted-run.stop-trigger", "4")
            .option("local-cache.dir", cache.toString());
    if (deletionVectors) {
      b.option("deletion-vectors.enabled", "true").option("local-cache.enabled", "true");
    }
    Table t = TestTables.create(catalog, "t", b.build());
    Random rnd = new Random(42);
    TreeMap<String, String> model = new TreeMap<>();
    String[] parts = {"x", "y"};
    boolean sawVectors = false;
    for (int commit = 0; commit < 14; commit++) {
      boolean writeOnly = commit % 3 == 0;
      Table w = writeOnly ? t.copy(Map.of("write-only", "true")) : t;
      WriteBuilder wb = w.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        int ops = 40 + rnd.nextInt(100);
        for (int i = 0; i < ops; i++) {
          String p = parts[rnd.nextInt(2)];
          int k = rnd.nextInt(300);
          String key = p + ":" + k;
          if (rnd.nextInt(4) == 0) {
            GenericRowData r = row(p, k, null, null);
            r.setRowKind(RowKind.DELETE);
            write.write(r);
            model.remove(key);
          } else {
            String v = rnd.nextInt(10) == 0 ? null : "v" + rnd.nextInt(1000);
            Long n = rnd.nextInt(10) == 0 ? null : rnd.nextLong();
            GenericRowData r = row(p, k, v, n);
            if (rnd.nextBoolean()) {
              r.setRowKind(RowKind.UPDATE_AFTER);
            }
            write.write(r);
            model.put(key, "(" + p + "," + k + "," + v + "," + n + ")");
          }
        }
        TableCommit c = wb.newCommit();
        c.commit(write.prepareCommit());
      }
      if (commit % 4 == 3) {
        t.newCompactBuilder()
            .withOptions(
                Map.of(
                    "compaction.full",
                    String.valueOf(commit % 8 == 7),
                    "local-cache.enabled",
                    "true"))
            .execute();
      }
      sawVectors |= t.latestSnapshot().get().indexManifest() != null;
      if (!deletionVectors || !writeOnly || commit % 4 == 3) {
        // Deletion-vector tables show rows once a compaction moved them out of level 0.
        assertThat(PrimaryKeyTableTest.read(t))
            .as("after commit %d", commit)
            .containsExactlyInAnyOrderElementsOf(new ArrayList<>(model.values()));
      }
    }
    if (deletionVectors) {
      assertThat(sawVectors).as("deletion vectors were in use").isTrue();
    }
    t.newCompactBuilder()
        .withOptions(Map.of("compaction.full", "true", "local-cache.enabled", "true"))
        .execute();
    assertThat(PrimaryKeyTableTest.files(t))
        .allMatch(f -> f.level() == t.options().numLevels() - 1);
    List<String> finalRows = PrimaryKeyTableTest.read(t);
    assertThat(finalRows).containsExactlyInAnyOrderElementsOf(new ArrayList<>(model.values()));
  }
}
