package io.sediment.mergetree;

import static io.sediment.mergetree.PrimaryKeyTableTest.files;
import static io.sediment.mergetree.PrimaryKeyTableTest.kind;
import static io.sediment.mergetree.PrimaryKeyTableTest.read;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactBuilder;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeletionVectorTest {

  @TempDir Path dir;
  @TempDir Path cache;

  private Map<String, String> cacheOn() {
    return Map.of("local-cache.enabled", "true", "local-cache.dir", cache.toString());
  }

  /** Every file in the local cache (of any table), by name. */
  private List<String> lookupFiles() throws Exception {
    try (Stream<Path> s = Files.walk(cache)) {
      return s.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static List<String> dvFiles(Path tableDir) throws Exception {
    Path index = tableDir.resolve("index");
    if (!Files.exists(index)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(index)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith("dv-"))
          .collect(Collectors.toList());
    }
  }

  @Test
  void compactionNeedsLocalCacheAndDeletionVectorsHideOldVersions() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.enabled", "false") // the default is true
                .build());
    Path tableDir = dir.resolve("db.db").resolve("t");
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 3)));
    assertThat(read(t)).isEmpty(); // level 0 is not read, and the writer cannot compact it
    long snapshot = t.latestSnapshot().get().id();

    assertThatThrownBy(() -> t.newCompactBuilder().execute())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("local-cache.enabled");
    assertThatThrownBy(() -> t.newCompactBuilder().plan())
        .hasMessageContaining("local-cache.enabled");
    assertThat(t.latestSnapshot().get().id()).isEqualTo(snapshot);
    assertThat(TestTables.dataFiles(tableDir)).hasSize(1);

    CompactBuilder cb = t.newCompactBuilder().withOptions(cacheOn());
    assertThat(cb.execute().tasks()).isEqualTo(1);
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b,2)", "(3,c,3)");
    List<DataFileMeta> first = files(t);
    assertThat(first).hasSize(1);
    DataFileMeta base = first.get(0);
    assertThat(base.level()).isGreaterThan(0);
    assertThat(dvFiles(tableDir)).isEmpty();
    assertThat(lookupFiles())
        .as("the compaction wrote the lookup of its output along with it")
        .containsExactly(base.fileName() + ".s0.keys");

    // Updates and a delete: invisible until the next compaction.
    TestTables.writeBatch(
        t, List.of(row(2L, "b2", 20), kind(RowKind.DELETE, row(3L, "c", 3)), row(4L, "d", 4)));
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b,2)", "(3,c,3)");

    t.newCompactBuilder().withOptions(cacheOn()).withStrategy("minor").execute();
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b2,20)", "(4,d,4)");
    // Old versions hidden by a deletion vector, not by merging: the old file is still live.
    List<DataFileMeta> now = files(t);
    assertThat(now).extracting(DataFileMeta::fileName).contains(base.fileName());
    assertThat(now).hasSize(2);
    assertThat(dvFiles(tableDir)).hasSize(1);
    assertThat(lookupFiles())
        .as("the lookup of the old file is kept on local disk, the new file's written with it")
        .hasSize(2)
        .contains(base.fileName() + ".s0.keys");
    Snapshot s = t.latestSnapshot().get();
    assertThat(s.indexManifest()).isNotNull();
    assertThat(t.newReadBuilder().newScan().plan().splits().get(0).deletionFiles())
        .containsOnlyKeys(base.fileName());
    assertThat(
            t.newReadBuilder()
                .newScan()
                .plan()
                .splits()
                .get(0)
                .deletionFiles()
                .get(base.fileName())
                .cardinality())
        .isEqualTo(2);

    // A full compaction rewrites everything; the vectors are no longer referenced.
    t.newCompactBuilder()
        .withOptions(
            Map.of(
                "local-cache.enabled",
                "true",
                "local-cache.dir",
                cache.toString(),
                "compaction.full",
                "true"))
        .execute();
    assertThat(files(t)).hasSize(1);
    assertThat(t.latestSnapshot().get().indexManifest()).isNull();
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b2,20)", "(4,d,4)");
  }

  @Test
  void firstRowWithDeletionVectorsKeepsTheOldVersion() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("deletion-vectors.enabled", "true")
                .option("merge-engine", "first-row")
                .option("ignore-delete", "true")
                .option("local-cache.enabled", "true")
                .option("local-cache.dir", cache.toString())
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2)));
    // The writer compacts by itself (local cache enabled): rows visible right away.
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b,2)");
    TestTables.writeBatch(
        t, List.of(row(1L, "x", 9), row(3L, "c", 3), kind(RowKind.DELETE, row(2L, "b", 2))));
    assertThat(read(t)).containsExactlyInAnyOrder("(1,a,1)", "(2,b,2)", "(3,c,3)");
  }

  @Test
  void deletionVectorsRejectedForOtherEngines() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "t",
                    PrimaryKeyTableTest.schema()
                        .option("deletion-vectors.enabled", "true")
                        .option("merge-engine", "partial-update")
                        .build()))
        .hasMessageContaining("deletion-vectors.enabled");
  }
}
