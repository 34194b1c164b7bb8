package io.sediment.mergetree;

import static io.sediment.mergetree.PrimaryKeyTableTest.files;
import static io.sediment.mergetree.PrimaryKeyTableTest.read;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.TableKind;
import io.sediment.data.BinaryRows;
import io.sediment.io.OutputObserver;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The primary-key bucket invariant (docs/spec.md): at every snapshot, a key has at most one row in
 * levels >= 1 that no deletion vector marks, the newest committed. The two ways issue 21 found to
 * break it, each reproduced as it was reported; the simulation ({@code io.sediment.sim}) looks for
 * the next one.
 */
class BucketInvariantTest {

  @TempDir Path dir;
  @TempDir Path cache;

  private Table dvTable() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    return TestTables.create(
        catalog,
        "t",
        PrimaryKeyTableTest.schema()
            .option("deletion-vectors.enabled", "true")
            .option("local-cache.enabled", "true")
            .option("local-cache.dir", cache.toString())
            .build());
  }

  private static void assertEveryKeyOnce(Table t) {
    Set<Long> keys = new HashSet<>();
    for (RowData r : TestTables.readAll(t)) {
      assertThat(keys.add(r.getLong(0))).as("key %s read once: %s", r.getLong(0), read(t)).isTrue();
    }
  }

  /**
   * Issue 21, case 1: a stream writer prepares two windows before the first is committed (a
   * declined checkpoint, or a completion notice after the next barrier). Its second compaction must
   * not work on a bucket whose earlier window it cannot see committed: it waits for it, and the
   * rows are read once, the newest after the next window.
   */
  @Test
  void aWriterDoesNotCompactOverItsUncommittedWindow() throws Exception {
    Table t = dvTable();
    WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("writer");
    TableCommit commit = wb.newCommit();
    try (TableWrite w = wb.newWrite()) {
      w.write(row(1L, "a", 1));
      List<CommitMessage> m1 = w.prepareCommit();
      w.write(row(1L, "b", 2));
      List<CommitMessage> m2 = w.prepareCommit();
      commit.commit(1, m1);
      commit.commit(2, m2);
      assertEveryKeyOnce(t);
      assertThat(m2.get(0).compactAfter())
          .as("the second window's compaction waited for the first window's commit")
          .isEmpty();
      assertThat(read(t)).containsExactly("(1,a,1)"); // (1,b,2) is in level 0 until compacted

      List<CommitMessage> m3 = w.prepareCommit(); // sees both windows committed: compacts
      assertThat(m3).hasSize(1);
      assertThat(m3.get(0).compactAfter()).isNotEmpty();
      commit.commit(3, m3);
    }
    assertEveryKeyOnce(t);
    assertThat(read(t)).containsExactly("(1,b,2)");
  }

  /**
   * A writer restored while the earlier attempt's window is still being committed holds rows newer
   * than that window's. Where versions are combined in order (partial-update; aggregation's
   * last_non_null_value), it must not compact the committed versions with its own around the
   * in-flight one: the in-flight version would then be applied before older ones. It waits; the
   * newest non-null name is read.
   */
  @ParameterizedTest
  @CsvSource({"partial-update, '(1,new,3)'", "aggregation, '(1,new,6)'"})
  void anOrderedMergeDoesNotCompactAroundRowsInFlight(String engine, String expected)
      throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("merge-engine", engine)
                .option("num-sorted-run.compaction-trigger", "2")
                .option("compaction.size-ratio", "100") // runs of any size are merged
                .options(
                    engine.equals("aggregation")
                        ? Map.of(
                            "fields.name.aggregate-function", "last_non_null_value",
                            "fields.v.aggregate-function", "sum")
                        : Map.of())
                .build());
    TestTables.writeBatch(t.copy(Map.of("write-only", "true")), List.of(row(1L, "old", 1)));
    WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("job");
    List<CommitMessage> inFlight;
    Map<BinaryRowData, Map<Integer, Long>> sequences;
    // The attempt before the restore (write-only here, so that its window only appends).
    try (TableWrite earlier =
        t.copy(Map.of("write-only", "true"))
            .newStreamWriteBuilder()
            .withCommitUser("job")
            .newWrite()) {
      earlier.write(row(1L, "new", 2));
      inFlight = earlier.prepareCommit();
      sequences = earlier.nextSequences();
    }
    List<CommitMessage> own;
    try (TableWrite restored = wb.newWrite()) {
      restored.restoreSequences(sequences);
      restored.restoredWindowsPending(true);
      restored.write(row(1L, null, 3));
      own = restored.prepareCommit(); // two level-0 runs in its view: the trigger is reached
    }
    TableCommit commit = wb.newCommit();
    commit.commit(1, inFlight);
    commit.commit(2, own);

    assertThat(read(t)).containsExactly(expected);
    assertThat(own.get(0).compactAfter()).as("no compaction around the in-flight row").isEmpty();
  }

  /**
   * Issue 21, case 2: two compactions of one bucket read the same base, each moves a new version of
   * key 1 into a different level and marks the old version in the top level deleted. Each alone is
   * valid; together they keep two versions of key 1. The second commit conflicts (another commit
   * changed the bucket's levels and vectors since its base), deletes its outputs, and the table
   * reads key 1 once; re-planned on the new state, it lands.
   */
  @Test
  void twoCompactionsOfABucketFromOneBaseCannotBothLand() throws Exception {
    Table t = dvTable();
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 3)));
    Map<String, String> full = Map.of("compaction.full", "true");
    t.newCompactBuilder().withOptions(full).execute();
    int top = t.options().numLevels() - 1;
    assertThat(files(t)).singleElement().extracting(DataFileMeta::level).isEqualTo(top);

    Table writeOnly = t.copy(Map.of("write-only", "true"));
    TestTables.writeBatch(writeOnly, List.of(row(1L, "batch", 10)));
    TestTables.writeBatch(writeOnly, List.of(row(1L, "writer", 20)));
    long base = t.latestSnapshot().orElseThrow().id();
    List<DataFileMeta> level0 = new ArrayList<>();
    for (ManifestEntry e : t.store().newScan().plan(t.latestSnapshot().orElseThrow())) {
      if (e.file().level() == 0) {
        level0.add(e.file()); // readers of deletion-vector tables skip them: not in splits
      }
    }
    level0.sort((x, y) -> Long.compare(x.minSequenceNumber(), y.minSequenceNumber()));
    assertThat(level0).hasSize(2);

    // Each compaction moves one new version up, to its own level, from the same base.
    CompactRewriter rewriter = TableKind.of(t.store()).rewriter(t.store(), OutputObserver.NONE);
    CommitMessage toLevel3 =
        rewriter.rewrite(task(t, level0.get(0), 3, base), () -> false).message();
    CommitMessage toLevel4 =
        rewriter.rewrite(task(t, level0.get(1), 4, base), () -> false).message();
    assertThat(toLevel3.deletionFiles()).hasSize(1);
    assertThat(toLevel4.deletionFiles()).hasSize(1);

    new CompactCommit(t.store(), "one-compact")
        .commit(List.of(toLevel3), TableCommit.BATCH_IDENTIFIER, false);
    long afterFirst = t.latestSnapshot().orElseThrow().id();
    CompactCommit other = new CompactCommit(t.store(), "other-compact");
    assertThatThrownBy(() -> other.commit(List.of(toLevel4), TableCommit.BATCH_IDENTIFIER, false))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("changed level 3 of bucket 0 after snapshot " + base);
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(afterFirst);
    assertEveryKeyOnce(t);
    assertThat(read(t)).containsExactlyInAnyOrder("(1,batch,10)", "(2,b,2)", "(3,c,3)");
    assertThat(unreferenced(t)).as("the conflicting compaction's outputs are deleted").isEmpty();

    // Planned again on the new state, the newest version lands.
    t.newCompactBuilder().withOptions(full).execute();
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertEveryKeyOnce(t);
    assertThat(read(t)).containsExactlyInAnyOrder("(1,writer,20)", "(2,b,2)", "(3,c,3)");
  }

  private static CompactTask task(Table t, DataFileMeta input, int level, long base) {
    return new CompactTask(
        t.fullName(),
        BinaryRows.EMPTY,
        "",
        0,
        1,
        List.of(input),
        level,
        CompactTask.Kind.MERGE_TREE,
        false,
        OptionalLong.of(base));
  }

  private static List<String> unreferenced(Table t) {
    List<String> out = new ArrayList<>();
    for (var p : new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      if (p.getName().startsWith("data-") || p.getName().startsWith("dv-")) {
        out.add(p.getName());
      }
    }
    return out;
  }
}
