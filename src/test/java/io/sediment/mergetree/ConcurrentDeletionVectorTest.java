package io.sediment.mergetree;

import static io.sediment.mergetree.PrimaryKeyTableTest.files;
import static io.sediment.mergetree.PrimaryKeyTableTest.read;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.TableKind;
import io.sediment.io.OutputObserver;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Deletion-vector tables under concurrent commits: a commit is validated against the snapshot its
 * work read (its base). A compaction whose input's deletion vector changed since its base
 * conflicts; deletions that two commits add to the same live file are merged, never replaced. In
 * every case each key is read exactly once, as the model of the committed rows says.
 */
class ConcurrentDeletionVectorTest {

  @TempDir Path dir;
  @TempDir Path cache;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private Map<String, String> cacheOn() {
    return Map.of("local-cache.enabled", "true", "local-cache.dir", cache.toString());
  }

  private Map<String, String> fullWithCache() {
    Map<String, String> o = new HashMap<>(cacheOn());
    o.put("compaction.full", "true");
    return o;
  }

  private static List<String> model(Map<Long, String> rows) {
    List<String> out = new ArrayList<>();
    rows.forEach((k, v) -> out.add(v));
    return out;
  }

  private static String render(long id, String name, int v) {
    return "(" + id + "," + name + "," + v + ")";
  }

  private List<String> unreferencedFiles(Table t) {
    List<String> out = new ArrayList<>();
    for (var p : new RemoveOrphanFiles(t).olderThan(Long.MAX_VALUE).dryRun(true).execute()) {
      String name = p.getName();
      if (name.startsWith("data-") || name.startsWith("dv-")) {
        out.add(name);
      }
    }
    return out;
  }

  private Set<String> vectorFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("db.db/t/index"))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("dv-"))
          .collect(Collectors.toSet());
    }
  }

  private static Map<String, DeletionFile> vectors(Table t) {
    Map<String, DeletionFile> out = new HashMap<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      out.putAll(s.deletionFiles());
    }
    return out;
  }

  /** Files F (lower level: keys 1 and 4) and G (top level: keys 1 to 3, its key 1 deleted). */
  private record Levels(Table table, Map<Long, String> model, DataFileMeta f, DataFileMeta g) {}

  private Levels fileFAboveFileG() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("deletion-vectors.enabled", "true")
                // G keeps its vector (1 of 3 rows): no deletion-ratio rewrite in this set-up
                .option("compaction.delete-ratio-threshold", "1")
                .build());
    Map<Long, String> model = new TreeMap<>();
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 3)));
    t.newCompactBuilder()
        .withOptions(cacheOn())
        .withStrategy("minor")
        .execute(); // G: top level, keys 1-3
    TestTables.writeBatch(t, List.of(row(1L, "a2", 12), row(4L, "d", 4)));
    t.newCompactBuilder()
        .withOptions(cacheOn())
        .withStrategy("minor")
        .execute(); // F: keys 1, 4; G's key 1 deleted
    model.put(1L, render(1, "a2", 12));
    model.put(2L, render(2, "b", 2));
    model.put(3L, render(3, "c", 3));
    model.put(4L, render(4, "d", 4));
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
    List<DataFileMeta> fg = files(t);
    assertThat(fg).hasSize(2);
    fg.sort(Comparator.comparingInt(DataFileMeta::level));
    DataFileMeta f = fg.get(0);
    DataFileMeta g = fg.get(1);
    assertThat(f.level()).isLessThan(g.level());
    assertThat(f.maxKey().getLong(0)).isEqualTo(4L);
    assertThat(vectors(t)).containsOnlyKeys(g.fileName());
    return new Levels(t, model, f, g);
  }

  /** Plans a full compaction of F and G and rewrites it, as a compaction job would. */
  private CompactTaskResult planAndRewriteFull(Levels l) throws Exception {
    CompactBuilder b = l.table().newCompactBuilder().withOptions(fullWithCache());
    List<CompactTask> planned = b.plan();
    assertThat(planned).hasSize(1);
    assertThat(planned.get(0).inputs())
        .extracting(DataFileMeta::fileName)
        .containsExactlyInAnyOrder(l.f().fileName(), l.g().fileName());
    assertThat(planned.get(0).baseSnapshotId())
        .hasValue(l.table().latestSnapshot().orElseThrow().id());
    return TableKind.of(b.effectiveStore())
        .rewriter(b.effectiveStore(), OutputObserver.NONE)
        .rewrite(planned.get(0), () -> false);
  }

  private CompactCommit compactCommit(Table t) {
    return new CompactCommit(t.copy(fullWithCache()).store(), "b-compact");
  }

  /**
   * The interleaving of issue 12: a full compaction B rewrites files F (holding key 1) and G with
   * F's vector as it was; meanwhile key 1 is updated and a minor compaction A commits a new vector
   * on F hiding F's key 1. B's commit must conflict (its output holds the old key 1), delete its
   * outputs, and leave the table reading every key once.
   */
  @Test
  void compactionConflictsWhenAnInputsDeletionVectorChangedSinceItsBase() throws Exception {
    Levels l = fileFAboveFileG();
    Table t = l.table();
    Map<Long, String> model = l.model();

    // B: a full compaction plans and rewrites F and G, reading F's vector (none yet).
    CompactTaskResult rewritten = planAndRewriteFull(l);

    // Meanwhile key 1 is updated and a minor compaction A hides F's key 1 with a new vector.
    TestTables.writeBatch(t, List.of(row(1L, "a3", 13)));
    t.newCompactBuilder().withOptions(cacheOn()).withStrategy("minor").execute();
    model.put(1L, render(1, "a3", 13));
    assertThat(vectors(t)).containsKey(l.f().fileName());
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
    long beforeB = t.latestSnapshot().orElseThrow().id();

    // B commits: F and G are still live, but F's vector changed since B's base.
    CommitConflictException conflict = null;
    try {
      compactCommit(t).commit(List.of(rewritten.message()), TableCommit.BATCH_IDENTIFIER, false);
    } catch (CommitConflictException e) {
      conflict = e;
    }
    assertThat(read(t)).as("every key once").containsExactlyInAnyOrderElementsOf(model(model));
    assertThat(conflict)
        .as("B conflicts")
        .isNotNull()
        .hasMessageContaining("deletion vectors of files to replace changed after snapshot");
    assertThat(conflict.conflictingFiles()).containsExactly(l.f().fileName());
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(beforeB);
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
    assertThat(unreferencedFiles(t)).as("B's outputs are deleted").isEmpty();

    // A new full compaction, planned now, lands and reads the same.
    t.newCompactBuilder().withOptions(fullWithCache()).execute();
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(files(t)).hasSize(1);
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
  }

  /**
   * A message whose base is unknown (restored from state of an older version) cannot show that the
   * vectors of its inputs are the ones it read: it conflicts when an input has one. The same work
   * with its base commits, nothing having changed since.
   */
  @Test
  void aCompactionWithoutABaseConflictsWhenAnInputHasADeletionVector() throws Exception {
    Levels l = fileFAboveFileG();
    Table t = l.table();
    long before = t.latestSnapshot().orElseThrow().id();
    CommitMessage unknownBase =
        planAndRewriteFull(l).message().withBaseSnapshotId(OptionalLong.empty());
    assertThatThrownBy(
            () ->
                compactCommit(t).commit(List.of(unknownBase), TableCommit.BATCH_IDENTIFIER, false))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("the snapshot the work read is unknown")
        .satisfies(
            e ->
                assertThat(((CommitConflictException) e).conflictingFiles())
                    .containsExactly(l.g().fileName()));
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before);
    assertThat(unreferencedFiles(t)).isEmpty();

    CommitMessage withBase = planAndRewriteFull(l).message();
    assertThat(withBase.baseSnapshotId()).hasValue(before);
    Long landed = compactCommit(t).commit(List.of(withBase), TableCommit.BATCH_IDENTIFIER, false);
    assertThat(landed).isEqualTo(before + 1);
    assertThat(files(t)).hasSize(1);
    assertThat(vectors(t)).isEmpty();
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(l.model()));
  }

  /**
   * Two writers, each compacting its own new file into the same level, add deletions to the same
   * older file H (one hides key 1, the other key 2), both based on the same snapshot. The bucket's
   * commits are serializable: the second writer's compaction conflicts with the first one's and is
   * dropped (its outputs deleted), its appended rows land; the next compaction, planned on the new
   * state, marks both keys in H. A base unknown (state of an older version) conflicts the same.
   */
  @ParameterizedTest(name = "second base known: {0}")
  @CsvSource({"true", "false"})
  void aSecondCompactionOfTheBucketFromTheSameBaseIsDroppedAndItsRowsLand(boolean baseKnown)
      throws Exception {
    FileSystemCatalog catalog = TestTables.faultyCatalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            PrimaryKeyTableTest.schema()
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.enabled", "true")
                .option("local-cache.dir", cache.toString())
                .build());
    Map<Long, String> model = new TreeMap<>();
    TestTables.writeBatch(
        t, List.of(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 3), row(4L, "d", 4)));
    for (long k = 1; k <= 4; k++) {
      model.put(k, render(k, String.valueOf((char) ('a' + k - 1)), (int) k));
    }
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
    List<DataFileMeta> base = files(t);
    assertThat(base).hasSize(1);
    String h = base.get(0).fileName();

    // Both writers write and compact (marking their key deleted in H) before either commits.
    WriteBuilder wb1 = t.newStreamWriteBuilder().withCommitUser("writer-1");
    WriteBuilder wb2 = t.newStreamWriteBuilder().withCommitUser("writer-2");
    List<CommitMessage> m1;
    List<CommitMessage> m2;
    try (TableWrite w1 = wb1.newWrite();
        TableWrite w2 = wb2.newWrite()) {
      w1.write(row(1L, "a2", 11));
      w2.write(row(2L, "b2", 22));
      m1 = w1.prepareCommit();
      m2 = w2.prepareCommit();
    }
    if (!baseKnown) {
      m2 = List.of(m2.get(0).withBaseSnapshotId(OptionalLong.empty()));
    }
    assertThat(m1.get(0).deletionFiles()).extracting(DeletionFile::dataFile).containsExactly(h);
    assertThat(m2.get(0).deletionFiles()).extracting(DeletionFile::dataFile).containsExactly(h);

    wb1.newCommit().commit(1, m1);
    model.put(1L, render(1, "a2", 11));
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));

    List<Long> ids = wb2.newCommit().commit(1, m2);
    assertThat(ids).as("the APPEND landed, the compaction was dropped").hasSize(1);
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);
    model.put(2L, render(2, "b2", 22));
    assertThat(vectors(t).get(h).cardinality()).as("only the first writer's deletion").isEqualTo(1);
    assertThat(unreferencedFiles(t)).as("the dropped compaction's outputs are deleted").isEmpty();

    t.newCompactBuilder().withOptions(fullWithCache()).execute();
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model(model));
  }
}
