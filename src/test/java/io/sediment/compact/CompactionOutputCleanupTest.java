package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.manifest.ManifestEntry;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction of a deletion-vector table that fails writing its deletion vectors, after its merged
 * data files were finished, deletes those files too: they were left on disk (the writer no longer
 * aborts files it handed out), referenced by no snapshot.
 */
class CompactionOutputCleanupTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @Test
  void aFailedDeletionVectorWriteLeavesNoOutputBehind() throws Exception {
    Table table =
        TestTables.create(
            TestTables.faultyCatalog(dir),
            "t",
            CompactBuilderTest.deletionVectorSchema(1, "write-only", "true"));
    List<RowData> rows = new ArrayList<>();
    for (long k = 0; k < 100; k++) {
      rows.add(row(k, "v" + k));
    }
    TestTables.writeBatch(table, rows);
    table.newCompactBuilder().execute(); // one file at the top level
    TestTables.writeBatch(table, List.of(row(1L, "new"), row(2L, "new")));
    Set<String> before = dataFiles();
    FaultyFileSystem.failCreate(p -> p.contains("/index/dv-"));
    assertThatThrownBy(() -> table.newCompactBuilder().withStrategy("minor").execute())
        .hasStackTraceContaining("creating");
    FaultyFileSystem.reset();
    assertThat(dataFiles()).as("no output of the failed compaction is left").isEqualTo(before);
    Set<String> live = new HashSet<>();
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      live.add(e.file().fileName());
    }
    assertThat(before).as("the table's files are all there").containsAll(live);
    assertThat(TestTables.readAll(table)).hasSize(100);
  }

  private Set<String> dataFiles() throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      Set<String> out = new HashSet<>();
      files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("data-"))
          .forEach(out::add);
      return out;
    }
  }
}
