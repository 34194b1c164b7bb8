package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An overwrite of a primary-key table ({@code INSERT OVERWRITE}): its writer ignores the table's
 * files ({@link TableWrite#withIgnorePreviousFiles}), so its own compactions (the stop trigger of
 * small buffers; a deletion-vector or lookup table moving level 0 up) take only its new files and
 * are folded into the one OVERWRITE snapshot. Over generated histories, for every table kind, the
 * table must then hold exactly the overwrite's rows in the partitions it replaced and the earlier
 * rows elsewhere, read at once (a deletion-vector table's readers skip level 0), with no file left
 * that no snapshot lists.
 */
class PrimaryKeyOverwriteTest {

  @TempDir Path dir;

  private static Schema schema(String setUp) {
    Schema.Builder b =
        TestTables.idIntPartitionValueSchema()
            .primaryKey("id", "p")
            .option("bucket", "2")
            .option("num-sorted-run.compaction-trigger", "2")
            .option("num-sorted-run.stop-trigger", "3");
    if (setUp.contains("small")) {
      b.option("write-buffer-size", "1 kb"); // level-0 files while writing: the stop trigger
    }
    if (setUp.contains("dv")) {
      b.option("deletion-vectors.enabled", "true");
    }
    if (setUp.contains("first-row")) {
      b.option("merge-engine", "first-row");
    }
    if (setUp.contains("lookup")) {
      b.option("changelog-producer", "lookup");
    }
    return b.build();
  }

  private static GenericRowData row(long id, int p, String v) {
    return GenericRowData.of(id, p, StringData.fromString(v));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "plain",
        "plain small",
        "dv",
        "dv small",
        "lookup",
        "lookup small",
        "first-row dv small",
        "first-row lookup small"
      })
  void theOverwrittenPartitionsHoldExactlyTheNewRows(String setUp) throws Exception {
    for (int seed = 0; seed < 8; seed++) {
      Random random = new Random(seed * 17L + setUp.hashCode());
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve(setUp + seed));
      Table table = TestTables.create(catalog, "t", schema(setUp));
      Map<String, String> model = new TreeMap<>(); // "id,p" -> v
      for (int round = 0; round < 6; round++) {
        List<GenericRowData> rows = new ArrayList<>();
        for (int i = 0, n = 1 + random.nextInt(300); i < n; i++) {
          long id = random.nextInt(200);
          int p = random.nextInt(3);
          String v = "v" + round + "-" + random.nextInt(1000);
          rows.add(row(id, p, v));
        }
        boolean overwrite = random.nextInt(3) == 0;
        Integer staticPartition = overwrite && random.nextBoolean() ? random.nextInt(3) : null;
        if (staticPartition != null) {
          rows.removeIf(r -> r.getInt(1) != staticPartition);
        }
        if (overwrite) {
          Set<Integer> replaced = new HashSet<>();
          rows.forEach(r -> replaced.add(r.getInt(1)));
          if (staticPartition != null) {
            replaced.add(staticPartition);
          }
          model.keySet().removeIf(k -> replaced.contains(Integer.parseInt(k.split(",")[1])));
          WriteBuilder wb = table.newBatchWriteBuilder();
          List<CommitMessage> messages = new ArrayList<>();
          // in one to three windows (prepareCommit calls), all committed by the one overwrite
          int windows = 1 + random.nextInt(3);
          try (TableWrite write = wb.newWrite().withIgnorePreviousFiles(true)) {
            for (int i = 0; i < rows.size(); i++) {
              write.write(rows.get(i));
              if ((i + 1) % Math.max(1, rows.size() / windows) == 0) {
                messages.addAll(write.prepareCommit());
              }
            }
            messages.addAll(write.prepareCommit());
          }
          var filter =
              staticPartition == null
                  ? null
                  : new PredicateBuilder(table.store().partitionType()).equal("p", staticPartition);
          wb.newCommit().overwrite(messages, filter);
          assertThat(table.latestSnapshot().orElseThrow().commitKind())
              .isEqualTo(CommitKind.OVERWRITE);
        } else if (random.nextInt(4) == 0) {
          table.newCompactBuilder().execute();
          continue;
        } else {
          TestTables.writeBatch(table, rows);
        }
        boolean firstRow = setUp.contains("first-row");
        for (GenericRowData r : rows) {
          String key = r.getLong(0) + "," + r.getInt(1);
          if (firstRow) {
            model.putIfAbsent(key, r.getString(2).toString());
          } else {
            model.put(key, r.getString(2).toString());
          }
        }
        List<String> expected = new ArrayList<>();
        model.forEach((k, v) -> expected.add("(" + k + "," + v + ")"));
        assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
            .as("%s seed %s round %s (overwrite %s)", setUp, seed, round, overwrite)
            .containsExactlyInAnyOrderElementsOf(expected);
      }
      assertThat(unlistedDataFiles(table)).as("%s seed %s", setUp, seed).isEmpty();
    }
  }

  /**
   * A first-row writer's compaction drops its level-0 row of a key it finds above (nothing to
   * write): that decision reads the levels, and an overwrite that removed the version above since
   * makes it conflict, so the row stays (it was removed with its level-0 file: found by the
   * simulation). The rows of a window committed after an overwrite come after the overwrite's, also
   * when written before it.
   */
  @Test
  void aCompactionThatDroppedRowsForAVersionAnOverwriteRemovedConflicts() throws Exception {
    for (String setUp : List.of("first-row dv", "first-row", "dv", "plain")) {
      boolean firstRow = setUp.startsWith("first-row");
      Table table =
          TestTables.create(
              TestTables.catalog(dir.resolve(setUp.replace(' ', '-'))), "t", schema(setUp));
      TestTables.writeBatch(table, List.of(row(1, 0, "a"), row(2, 0, "a")));
      table.newCompactBuilder().execute();
      WriteBuilder stream = table.newStreamWriteBuilder().withCommitUser("job");
      List<CommitMessage> window;
      try (TableWrite w = stream.newWrite()) {
        w.write(row(1, 0, "b"));
        w.write(row(2, 0, "w")); // a key the overwrite writes too
        window = w.prepareCommit();
      }
      if (setUp.contains("dv")) {
        // the window's compaction is what must conflict: it ran (a deletion-vector writer compacts
        // its level 0 at commit; the others are the same history without it), and a first-row
        // one dropped the row and wrote nothing
        assertThat(window).as(setUp).anySatisfy(m -> assertThat(m.compactBefore()).isNotEmpty());
        if (firstRow) {
          assertThat(window).allSatisfy(m -> assertThat(m.compactAfter()).isEmpty());
        }
      }
      WriteBuilder batch = table.newBatchWriteBuilder();
      List<CommitMessage> overwrite;
      try (TableWrite w = batch.newWrite().withIgnorePreviousFiles(true)) {
        for (long k = 3; k < 10; k++) { // numbered before key 2: its sequence is not the least
          w.write(row(k, 0, "o"));
        }
        w.write(row(2, 0, "o"));
        overwrite = w.prepareCommit();
      }
      batch.newCommit().overwrite(overwrite, null);
      stream.newCommit().commit(1, window);
      table.newCompactBuilder().execute();
      assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
          .as(setUp)
          .containsExactlyInAnyOrder(
              // deduplicate: the window, committed after the overwrite, wins; first-row keeps
              // the overwrite's (the first in commit order); key 1's version above is gone
              "(1,0,b)",
              firstRow ? "(2,0,o)" : "(2,0,w)",
              "(3,0,o)",
              "(4,0,o)",
              "(5,0,o)",
              "(6,0,o)",
              "(7,0,o)",
              "(8,0,o)",
              "(9,0,o)");
    }
  }

  /**
   * A window whose compaction dropped its deletes (it merged every run of a bucket that was empty
   * at its base) and an overwrite that left its rows at level 0 committed between: the compaction
   * conflicts with the overwrite, so the window's delete still removes the overwritten row (found
   * by the review of this change).
   */
  @Test
  void aCompactionThatDroppedDeletesConflictsWithAnOverwriteAtLevel0() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema("plain"));
    Table full = table.copy(java.util.Map.of("compaction.full", "true"));
    WriteBuilder stream = full.newStreamWriteBuilder().withCommitUser("job");
    List<CommitMessage> window;
    try (TableWrite w = stream.newWrite()) {
      GenericRowData delete = row(1, 0, "x");
      delete.setRowKind(org.apache.flink.types.RowKind.DELETE);
      w.write(delete);
      window = w.prepareCommit();
    }
    assertThat(window.get(0).compactBefore()).as("the delete was compacted away").isNotEmpty();
    WriteBuilder batch = table.copy(java.util.Map.of("write-only", "true")).newBatchWriteBuilder();
    List<CommitMessage> overwrite;
    try (TableWrite w = batch.newWrite().withIgnorePreviousFiles(true)) {
      w.write(row(1, 0, "o"));
      w.write(row(2, 0, "o"));
      overwrite = w.prepareCommit();
    }
    assertThat(overwrite.get(0).newFiles()).allMatch(f -> f.level() == 0);
    batch.newCommit().overwrite(overwrite, null);
    stream.newCommit().commit(1, window);
    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactly("(2,0,o)");
  }

  /** Data files on disk that no snapshot lists (expiry is off: every snapshot is kept). */
  private static List<String> unlistedDataFiles(Table table) throws IOException {
    Set<String> listed = new HashSet<>();
    long latest = table.latestSnapshot().orElseThrow().id();
    for (long id = 1; id <= latest; id++) {
      for (ManifestEntry e :
          table.store().newScan().plan(table.store().snapshotManager().snapshot(id))) {
        listed.add(e.file().fileName());
      }
    }
    Path root = Path.of(table.store().paths().root().toUri());
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("data-") && !listed.contains(n))
          .toList();
    }
  }

  @Test
  void aWriterThatCompactedTheTablesFilesIsRefusedAndNothingChanges() throws Exception {
    Table table = TestTables.create(TestTables.catalog(dir), "t", schema("dv"));
    TestTables.writeBatch(table, List.of(row(1, 0, "a"), row(2, 0, "b")));
    long before = table.latestSnapshot().orElseThrow().id();
    WriteBuilder wb = table.newBatchWriteBuilder();
    List<CommitMessage> messages = TestTables.prepare(wb, List.of(row(1, 0, "z")));
    assertThat(messages.stream().anyMatch(m -> !m.compactBefore().isEmpty()))
        .as("the writer moved its level 0 up over the table's files")
        .isTrue();
    assertThatThrownBy(() -> wb.newCommit().overwrite(messages, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a file it does not write")
        .hasMessageContaining("TableWrite.withIgnorePreviousFiles");
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(before);
    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactlyInAnyOrder("(1,0,a)", "(2,0,b)");
  }
}
