package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The invariants checked after every fault, on a freshly opened table:
 *
 * <ol>
 *   <li>(a) the rows of the latest snapshot equal the {@link Model} of what was committed: none
 *       lost, duplicated or resurrected;
 *   <li>(b) every listed snapshot is readable: its snapshot file, manifests, deletion vectors and
 *       data files;
 *   <li>(c) every data file and every file under {@code index/} is referenced by a listed snapshot,
 *       a live compaction marker ({@code .markers/<user>/marker-*}), or a running task;
 * </ol>
 *
 * and, for a rejected call, (d) {@link #assertUnchanged}: snapshot ids and file listing as before.
 */
final class Invariants {

  private Invariants() {}

  /** (a), (b) and (c), with no task running. */
  static void check(MatrixTable t) {
    check(t, Set.of());
  }

  /** (a), (b) and (c); {@code running} names files that running tasks write. */
  static void check(MatrixTable t, Collection<String> running) {
    Table table = t.table();
    rowsEqualModel(t, table);
    Set<String> referenced = everySnapshotReadable(table);
    noUnreferencedFiles(t, referenced, running, markerProtected(t.tableDir()));
  }

  /**
   * (a), (b) and (c) after every compaction job has ended (finished, failed or been cancelled with
   * nothing in flight): a marker left behind protects nothing, since no restart of its job will
   * come to clean it up.
   */
  static void checkAfterJobsEnded(MatrixTable t) {
    Table table = t.table();
    rowsEqualModel(t, table);
    Set<String> referenced = everySnapshotReadable(table);
    noUnreferencedFiles(t, referenced, Set.of(), Set.of());
  }

  static void rowsEqualModel(MatrixTable t, Table table) {
    List<String> rows = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
    assertThat(rows)
        .as("(a) rows of the latest snapshot of %s table equal the committed model", t.kind)
        .containsExactlyInAnyOrderElementsOf(t.model.expectedRows());
  }

  /** (a) for a moment where either of two models may hold (a commit that may have landed). */
  static void rowsEqualOneOf(MatrixTable t, Table table, Model one, Model other) {
    List<String> rows = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
    List<String> a = new ArrayList<>(one.expectedRows());
    List<String> b = new ArrayList<>(other.expectedRows());
    List<String> sorted = new ArrayList<>(rows);
    Collections.sort(a);
    Collections.sort(b);
    Collections.sort(sorted);
    assertThat(sorted.equals(a) || sorted.equals(b))
        .as(
            "(a) rows of the latest snapshot of %s table equal the model before or after the"
                + " step%n rows:   %s%n before: %s%n after:  %s",
            t.kind, sorted, a, b)
        .isTrue();
  }

  /** (b); returns the names of every data and index file the snapshots reference. */
  static Set<String> everySnapshotReadable(Table table) {
    Set<String> referenced = new HashSet<>();
    SnapshotManager sm = table.snapshotManager();
    IndexManifest index = new IndexManifest(table.store().fileIO(), table.store().paths());
    for (long id : sm.listIds()) {
      try {
        Snapshot s = sm.snapshot(id);
        for (ManifestEntry e : table.store().newScan().plan(s)) {
          referenced.add(e.file().fileName());
        }
        if (s.indexManifest() != null) {
          referenced.add(s.indexManifest());
          for (IndexManifest.Entry e : index.read(s.indexManifest())) {
            referenced.add(e.deletionFile().dvFile());
          }
        }
        table.newReadBuilder().newRead().readAll(table.newReadBuilder().newScan().plan(s).splits());
      } catch (IOException | RuntimeException e) {
        throw new AssertionError("(b) listed snapshot " + id + " is not readable: " + e, e);
      }
    }
    return referenced;
  }

  /** (c). */
  static void noUnreferencedFiles(
      MatrixTable t,
      Set<String> referenced,
      Collection<String> running,
      Set<String> protectedByMarkers) {
    TreeSet<String> unreferenced = new TreeSet<>();
    for (Path p : dataAndIndexFiles(t.tableDir())) {
      String name = p.getFileName().toString();
      if (!referenced.contains(name)
          && !protectedByMarkers.contains(name)
          && !running.contains(name)) {
        unreferenced.add(t.tableDir().relativize(p).toString());
      }
    }
    if (!unreferenced.isEmpty()) {
      fail(
          "(c) files no snapshot, live marker or running task references: %s (%s table)",
          unreferenced, t.kind);
    }
  }

  /**
   * Data files ({@code data-*} in bucket directories) and deletion-vector files ({@code
   * index/dv-*}). Metadata (manifests, index manifests) left by a crash is for remove_orphan_files;
   * {@link #noUnreferencedMetadata} checks it where no crash happened.
   */
  static List<Path> dataAndIndexFiles(Path tableDir) {
    Path index = tableDir.resolve("index");
    try (Stream<Path> s = Files.walk(tableDir)) {
      return s.filter(Files::isRegularFile)
          .filter(
              p ->
                  p.startsWith(index)
                      ? p.getFileName().toString().startsWith("dv-")
                      : p.getFileName().toString().startsWith("data-")
                          && !p.startsWith(tableDir.resolve(".markers")))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * No half-written or abandoned metadata: every file under {@code manifest/} and {@code index/} is
   * used by a listed snapshot, and no temporary file is left in {@code snapshot/}. Holds after any
   * failure that was not a crash (a failed write must clean up after itself).
   */
  static void noUnreferencedMetadata(MatrixTable t) {
    Set<String> left = TestTables.unreferencedMetadata(t.table(), t.tableDir());
    if (!left.isEmpty()) {
      fail("(c) metadata files a failed call left behind, used by no snapshot: %s", left);
    }
  }

  /** Names of the files that live compaction markers record. */
  static Set<String> markerProtected(Path tableDir) {
    Set<String> out = new HashSet<>();
    Path markers = tableDir.resolve(".markers");
    if (!Files.exists(markers)) {
      return out;
    }
    try (Stream<Path> s = Files.walk(markers)) {
      for (Path m : (Iterable<Path>) s::iterator) {
        if (Files.isRegularFile(m) && m.getFileName().toString().startsWith("marker-")) {
          String recorded = Files.readString(m, StandardCharsets.UTF_8).trim();
          out.add(recorded.substring(recorded.lastIndexOf('/') + 1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** (d): a rejected call left snapshot ids and files as they were. */
  static void assertUnchanged(TableState before, TableState after, String call) {
    assertThat(after.snapshotIds())
        .as("(d) snapshot ids after the rejected %s", call)
        .isEqualTo(before.snapshotIds());
    assertThat(after.files())
        .as("(d) files after the rejected %s", call)
        .containsExactlyElementsOf(before.files());
  }
}
