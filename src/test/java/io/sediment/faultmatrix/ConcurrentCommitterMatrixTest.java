package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Concurrent committers, interleaved deterministically: a compaction is planned and rewritten, the
 * other party runs to completion, then the compaction commits. The compaction must either land with
 * the rows unchanged, or be rejected whole (its outputs deleted, nothing else changed); the other
 * party's work is never lost.
 */
@ExtendWith(NamedFailures.class)
class ConcurrentCommitterMatrixTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  private MatrixTable table(TableKind kind) {
    return MatrixTable.withBatches(kind, dir, 2);
  }

  /**
   * Commits {@code a} after the other party ran: either it lands, or it is rejected with a conflict
   * naming files, and the table is as before the call but for a's own outputs.
   */
  private static void commitLast(MatrixTable t, Compactions.Rewritten a) {
    TableState before = TableState.of(t);
    try {
      Compactions.commit(t, a, "compactor-a", 1);
    } catch (CommitConflictException e) {
      assertThat(e.conflictingFiles()).as("the conflict names the files").isNotEmpty();
      Invariants.assertUnchanged(
          before.without(a.outputs()), TableState.of(t), "conflicting compaction commit");
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void twoCompactors(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    Compactions.Rewritten a = Compactions.planAndRewrite(t);
    Compactions.execute(t); // b compacts the same files and commits first
    TableState before = TableState.of(t);

    assertThatThrownBy(() -> Compactions.commit(t, a, "compactor-a", 1))
        .isInstanceOf(CommitConflictException.class)
        .satisfies(e -> assertThat(((CommitConflictException) e).conflictingFiles()).isNotEmpty());
    Invariants.assertUnchanged(
        before.without(a.outputs()), TableState.of(t), "conflicting compaction commit");
    Invariants.check(t);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void compactorAndWriter(TableKind kind) {
    MatrixTable t = table(kind);
    Compactions.Rewritten a = Compactions.planAndRewrite(t);
    t.write(2); // updates keys of a's inputs; on deletion-vector tables adds vectors to them
    commitLast(t, a);
    Invariants.check(t);
  }

  /**
   * Two writers each compact their update into the same bucket from the same base (on
   * deletion-vector tables marking the old versions in the same live file). The bucket's commits
   * are serializable: the second writer's compaction is dropped, its rows land; neither writer's
   * rows may be lost, and once the bucket is compacted again both updates are read.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void twoWritersAddDeletionsToTheSameFile(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    Compactions.execute(t); // one file per bucket at the top level
    Table table = t.table();
    List<CommitMessage> m1 = t.prepare(table, changesOf(t, 0L), "writer-1");
    List<CommitMessage> m2 = t.prepare(table, changesOf(t, 1L), "writer-2");
    commitOrConflict(t, m1, "writer-1", changesOf(t, 0L));
    commitOrConflict(t, m2, "writer-2", changesOf(t, 1L));
    if (kind == TableKind.DELETION_VECTORS) {
      Compactions.execute(t); // the dropped compaction, redone: level 0 becomes visible
    }
    Invariants.check(t);
  }

  /** An update of one existing key in partition a (append tables: a new row). */
  private static List<Model.Change> changesOf(MatrixTable t, long id) {
    long key = t.kind.hasPrimaryKey() ? id : 100 + id;
    return List.of(new Model.Change("a/" + key, key, "a", "w" + id, false));
  }

  private static void commitOrConflict(
      MatrixTable t, List<CommitMessage> m, String user, List<Model.Change> changes) {
    t.table().newStreamWriteBuilder().withCommitUser(user).newCommit().commit(1, m);
    t.model.apply(changes); // a writer's rows always land (appends never conflict)
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void compactorAndExpire(TableKind kind) {
    MatrixTable t = table(kind);
    Compactions.Rewritten a = Compactions.planAndRewrite(t);
    t.write(2);
    new ExpireSnapshots(t.table()).retainMax(1).execute(); // a's base snapshot goes
    commitLast(t, a);
    Invariants.check(t);
  }

  /** remove_orphan_files with its default age: an old stray file goes, fresh outputs stay. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void compactorAndRemoveOrphanFilesByAge(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    Compactions.Rewritten a = Compactions.planAndRewrite(t);
    Path stray = strayOldDataFile(t);

    new RemoveOrphanFiles(t.table()).execute();

    assertThat(stray).doesNotExist();
    Compactions.commit(t, a, "compactor-a", 1);
    Invariants.check(t);
  }

  /**
   * remove_orphan_files with no age limit while a compaction job's outputs are in flight: files a
   * live marker protects, and the markers, stay; the compaction then commits.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void compactorAndRemoveOrphanFilesProtectedByMarkers(TableKind kind) throws Exception {
    MatrixTable t = table(kind);
    Compactions.Rewritten a = Compactions.planAndRewrite(t);
    List<Path> markers = writeMarkers(t, a);
    Path stray = strayOldDataFile(t);

    new RemoveOrphanFiles(t.table()).olderThan(System.currentTimeMillis() + 60_000).execute();

    assertThat(stray).doesNotExist();
    assertThat(markers).as("live markers are not orphans").allMatch(Files::exists);
    Invariants.check(t, List.of()); // a's outputs are protected by the markers
    Compactions.commit(t, a, "compactor-a", 1);
    for (Path m : markers) {
      Files.delete(m); // the committer's part after the commit
    }
    Invariants.check(t);
  }

  /** Markers as the compaction job writes them: one per output, holding its path. */
  private static List<Path> writeMarkers(MatrixTable t, Compactions.Rewritten a) throws Exception {
    Path dir = t.tableDir().resolve(".markers").resolve("job");
    Files.createDirectories(dir);
    List<Path> markers = new ArrayList<>();
    try (var files = Files.walk(t.tableDir())) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (a.outputs().contains(p.getFileName().toString())) {
          Path m = dir.resolve("marker-" + p.getFileName());
          Files.writeString(
              m, FaultyFileSystem.SCHEME + "://" + p.toAbsolutePath(), StandardCharsets.UTF_8);
          markers.add(m);
        }
      }
    }
    assertThat(markers).hasSameSizeAs(a.outputs());
    return markers;
  }

  /** A data file no snapshot knows, last modified two days ago. */
  private static Path strayOldDataFile(MatrixTable t) throws Exception {
    Path live =
        Invariants.dataAndIndexFiles(t.tableDir()).stream()
            .filter(p -> p.getFileName().toString().startsWith("data-"))
            .findFirst()
            .orElseThrow();
    Path stray = live.resolveSibling("data-00000000-0000-0000-0000-stray0000000-0.parquet");
    Files.copy(live, stray);
    Files.setLastModifiedTime(stray, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
    return stray;
  }
}
