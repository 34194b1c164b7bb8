package io.sediment.marker;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The marker protocol over generated mixes of outputs, each operation against a model of what it
 * must do. Every mix has outputs a retained snapshot references (committed, their marker left by a
 * committer that died before deleting it), outputs no snapshot references (data files and
 * deletion-vector files of a dead attempt), outputs already deleted, and truncated markers (their
 * writer died while writing the marker, before creating the output). After every operation the
 * package's invariant holds: no referenced output is deleted, and an existing output no snapshot
 * references keeps its marker unless the operation was asked to delete it.
 */
class MarkerProtocolTest {

  private static final int SEEDS = 150;

  /** What one output of a generated mix is. */
  private enum Kind {
    REFERENCED,
    UNREFERENCED_DATA,
    UNREFERENCED_DV,
    MISSING,
    TRUNCATED_MARKER
  }

  /** One output: its file and where its marker is. */
  private record Output(Kind kind, Path file, Path marker) {
    String name() {
      return file.getFileName().toString();
    }

    boolean unreferencedAndPresent() {
      return (kind == Kind.UNREFERENCED_DATA || kind == Kind.UNREFERENCED_DV) && Files.exists(file);
    }
  }

  @TempDir Path dir;

  private Table table;
  private FileStore store;
  private FileIO io;
  private MarkerLayout layout;
  private List<Path> referenced;

  @BeforeEach
  void fill() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    table = TestTables.create(catalog, "t", TestTables.idPartitionSchema().build());
    for (int i = 0; i < 6; i++) {
      TestTables.writeBatch(table, List.of(row((long) i, "a"), row((long) i + 100, "b")));
    }
    store = table.store();
    io = store.fileIO();
    layout = MarkerLayout.of(store);
    referenced = TestTables.dataFiles(local(store.paths().root()));
    assertThat(referenced).hasSize(12);
  }

  @Test
  void cleanOrphansDeletesExactlyTheUnreferencedOutputsAndEveryMarker() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      Random random = new Random(seed);
      String user = "job-" + seed;
      List<Output> mix = mix(random, user, seed, out -> OutputMarkers.write(store, user, out));
      long orphans = mix.stream().filter(Output::unreferencedAndPresent).count();

      int deleted = OutputMarkers.cleanOrphans(store, user);

      assertThat(deleted).as("seed %d", seed).isEqualTo(orphans);
      for (Output o : mix) {
        assertThat(Files.exists(o.file()))
            .as("seed %d: %s", seed, o)
            .isEqualTo(o.kind() == Kind.REFERENCED);
      }
      assertThat(markerNames(user)).as("seed %d", seed).isEmpty();
      assertInvariant(seed, mix, user);
    }
  }

  @Test
  void aFinishedWindowDeletesOnlyTheMarkersOfCommittedOrMissingOutputs() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      Random random = new Random(seed);
      String user = "job-" + seed;
      List<Output> mix = mix(random, user, seed, out -> OutputMarkers.write(store, user, out));
      // The window committed some of the referenced outputs (the others: an earlier window's).
      Set<String> committed = names(someOf(mix, random, o -> o.kind() == Kind.REFERENCED));

      OutputMarkers.deleteMarkersOfFinishedOutputs(io, markers(mix), committed);

      Set<String> expected = new HashSet<>();
      for (Output o : mix) {
        assertThat(Files.exists(o.file()))
            .as("seed %d: no output is deleted: %s", seed, o)
            .isEqualTo(o.kind().ordinal() < Kind.MISSING.ordinal());
        if (Files.exists(o.file()) && !committed.contains(o.name())) {
          expected.add(o.name());
        }
      }
      assertThat(markerNames(user)).as("seed %d", seed).isEqualTo(expected);
      assertInvariant(seed, mix, user);
      OutputMarkers.cleanOrphans(store, user); // the restart cleanup, for the next seed's counts
    }
  }

  @Test
  void outputsNeverEmittedAreDeletedWithTheirMarkersAndNothingElse() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      Random random = new Random(seed);
      String user = "job-" + seed;
      List<Output> mix = mix(random, user, seed, out -> OutputMarkers.write(store, user, out));
      // The rewrites whose results were never emitted: only unreferenced or missing outputs.
      List<Output> discarded = someOf(mix, random, o -> o.kind() != Kind.REFERENCED);

      OutputMarkers.deleteOutputsAndMarkers(io, markers(discarded));

      Set<String> expected = new HashSet<>();
      for (Output o : mix) {
        if (discarded.contains(o)) {
          assertThat(o.file()).as("seed %d", seed).doesNotExist();
        } else {
          expected.add(o.name());
        }
      }
      assertThat(markerNames(user)).as("seed %d", seed).isEqualTo(expected);
      assertInvariant(seed, mix, user);
      OutputMarkers.cleanOrphans(store, user);
    }
  }

  /**
   * A SQL write job's cleanup at checkpoint M deletes what dead attempts left under barriers below
   * M, except what pending windows still hold ({@code keep}), and touches nothing under M or later:
   * a live writer's outputs there are not sent yet.
   */
  @Test
  void aWriterCleanupTouchesNothingAtOrAfterItsBarrierNorWhatPendingWindowsHold() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      Random random = new Random(seed);
      String user = "sql-" + seed;
      Map<Path, Long> barrierOf = new HashMap<>();
      List<Output> mix =
          mix(
              random,
              user,
              seed,
              out -> {
                long b = random.nextInt(5);
                String marker = WriterMarkers.write(store, user, b, out);
                barrierOf.put(local(new org.apache.flink.core.fs.Path(marker)), b);
                return marker;
              });
      assertThat(WriterMarkers.latestWriteBarrier(store, user))
          .isEqualTo(barrierOf.values().stream().mapToLong(b -> b).max().orElseThrow());
      long m = random.nextInt(6);
      Set<String> keep = new HashSet<>();
      Set<String> committed = new HashSet<>();
      for (Output o : mix) {
        if (o.kind() != Kind.REFERENCED && random.nextInt(4) == 0) {
          keep.add(o.name());
        } else if (o.kind() == Kind.REFERENCED && random.nextBoolean()) {
          committed.add(o.name());
        }
      }
      Set<String> expected = new HashSet<>();
      long orphans = 0;
      List<Output> deletedOutputs = new ArrayList<>();
      for (Output o : mix) {
        boolean before = barrierOf.get(o.marker()) < m;
        if (!before || keep.contains(o.name())) {
          expected.add(o.name());
        } else if (o.unreferencedAndPresent()) {
          orphans++;
          deletedOutputs.add(o);
        }
      }

      int deleted = WriterMarkers.cleanOrphans(store, user, m, keep, committed);

      assertThat(deleted).as("seed %d", seed).isEqualTo(orphans);
      assertThat(markerNames(user)).as("seed %d", seed).isEqualTo(expected);
      for (Output o : mix) {
        if (deletedOutputs.contains(o)) {
          assertThat(o.file()).as("seed %d", seed).doesNotExist();
        }
      }
      for (Map.Entry<Path, Long> e : barrierOf.entrySet()) {
        Path d = e.getKey().getParent();
        if (e.getValue() < m && Files.exists(d)) {
          assertThat(d)
              .as("seed %d: a directory below M goes once empty", seed)
              .isNotEmptyDirectory();
        }
      }
      assertInvariant(seed, mix, user);
      WriterMarkers.cleanOrphans(store, user, Long.MAX_VALUE, Set.of(), Set.of());
      assertThat(markerNames(user)).as("seed %d: end of input", seed).isEmpty();
      assertThat(local(layout.jobDir(user))).isEmptyDirectory();
      assertThat(mix.stream().filter(Output::unreferencedAndPresent)).isEmpty();
    }
  }

  @Test
  void aWriterCommitDeletesTheMarkersOfWhatItPublishedOnly() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      Random random = new Random(seed);
      String user = "sql-" + seed;
      List<Output> mix =
          mix(random, user, seed, out -> WriterMarkers.write(store, user, random.nextInt(3), out));
      Set<String> published = names(someOf(mix, random, o -> o.kind() == Kind.REFERENCED));

      WriterMarkers.deleteMarkers(store, user, published);
      try (Stream<Path> dirs = Files.list(local(layout.jobDir(user)))) {
        assertThat(dirs.toList())
            .as("seed %d: a directory whose markers all went is deleted", seed)
            .allSatisfy(d -> assertThat(d).isNotEmptyDirectory());
      }

      Set<String> expected =
          mix.stream()
              .map(Output::name)
              .filter(n -> !published.contains(n))
              .collect(Collectors.toSet());
      assertThat(markerNames(user)).as("seed %d", seed).isEqualTo(expected);
      for (Output o : mix) {
        assertThat(Files.exists(o.file()))
            .as("seed %d: no output is deleted: %s", seed, o)
            .isEqualTo(o.kind().ordinal() < Kind.MISSING.ordinal());
      }
      assertInvariant(seed, mix, user);
      WriterMarkers.cleanOrphans(store, user, Long.MAX_VALUE, Set.of(), Set.of());
    }
  }

  /**
   * The committer writes release records while the task source takes them (another operator, maybe
   * on another machine): a record taken while it is being written must not lose its ids. Records
   * are published whole (a reader sees no record or all of it), so every id written is taken once.
   */
  @Test
  void releaseRecordsWrittenWhileTakenAreNeverLost() throws Exception {
    int records = 3000;
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    List<String> taken = java.util.Collections.synchronizedList(new ArrayList<>());
    Thread taker =
        new Thread(
            () -> {
              try {
                while (!done.get()) {
                  taken.addAll(ReleaseRecords.take(store, "job"));
                }
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    taker.start();
    Set<String> written = new HashSet<>();
    for (int window = 0; window < records; window++) {
      List<String> ids = List.of("t" + window + "a", "t" + window + "b");
      ReleaseRecords.write(store, "job", window, ids);
      written.addAll(ids);
    }
    done.set(true);
    taker.join();
    taken.addAll(ReleaseRecords.take(store, "job"));

    assertThat(taken).doesNotHaveDuplicates();
    assertThat(new HashSet<>(taken)).isEqualTo(written);
  }

  @Test
  void releaseRecordsAreTakenOnceEach() throws Exception {
    Random random = new Random(7);
    Set<String> written = new HashSet<>();
    for (int window = 1; window <= 20; window++) {
      List<String> ids = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        ids.add("task-" + window + "-" + i);
      }
      ReleaseRecords.write(store, "job", window, ids);
      written.addAll(ids);
      if (window % 7 == 0) {
        List<String> taken = ReleaseRecords.take(store, "job");
        assertThat(taken).doesNotHaveDuplicates();
        assertThat(written).containsAll(taken);
        written.removeAll(taken);
        assertThat(written).isEmpty();
      }
    }
    assertThat(new HashSet<>(ReleaseRecords.take(store, "job"))).isEqualTo(written);
    assertThat(ReleaseRecords.take(store, "job")).isEmpty();
    assertThat(ReleaseRecords.take(store, "no-such-job")).isEmpty();
  }

  /**
   * What orphan removal sees, over generated sets of jobs: a job with any marker or release record
   * modified since the threshold is live and protects every output its markers name; a stale job
   * protects nothing, and only its release records and the markers of settled outputs are deleted.
   */
  @Test
  void liveJobsProtectTheirOutputsAndOnlyStaleJobsLoseTheirBookkeeping() throws Exception {
    long now = System.currentTimeMillis();
    long liveSince = now - 86_400_000L;
    for (int seed = 0; seed < 40; seed++) {
      Random random = new Random(seed);
      Set<String> protectedExpected = new HashSet<>();
      Set<Path> staleDeletable = new HashSet<>();
      Set<Path> all = new HashSet<>();
      Set<String> settled = new HashSet<>();
      for (int j = 0; j < 1 + random.nextInt(4); j++) {
        String user = "job-" + seed + "-" + j;
        boolean live = false;
        List<Path> files = new ArrayList<>();
        Map<Path, String> nameOf = new HashMap<>();
        for (int i = 0; i < random.nextInt(5); i++) {
          String output = "data-" + user + "-" + i + ".parquet";
          org.apache.flink.core.fs.Path out =
              new org.apache.flink.core.fs.Path(store.paths().root(), output);
          String marker =
              random.nextBoolean()
                  ? OutputMarkers.write(store, user, out)
                  : WriterMarkers.write(store, user, random.nextInt(3), out);
          Path m = local(new org.apache.flink.core.fs.Path(marker));
          files.add(m);
          nameOf.put(m, output);
          if (random.nextBoolean()) {
            settled.add(output);
          }
        }
        if (random.nextBoolean()) {
          ReleaseRecords.write(store, user, random.nextInt(9), List.of("t" + j));
        }
        Path releases = local(layout.releaseDir(user));
        if (Files.exists(releases)) {
          try (Stream<Path> r = Files.list(releases)) {
            files.addAll(r.toList());
          }
        }
        for (Path f : files) {
          boolean recent = random.nextInt(3) == 0;
          live |= recent;
          Files.setLastModifiedTime(
              f, // at the threshold is live, a millisecond before it is not
              java.nio.file.attribute.FileTime.fromMillis(recent ? liveSince : liveSince - 1));
        }
        all.addAll(files);
        for (Path f : files) {
          String name = nameOf.get(f);
          if (live && name != null) {
            protectedExpected.add(name);
          } else if (!live && (name == null || settled.contains(name))) {
            staleDeletable.add(f);
          }
        }
      }

      MarkedOutputs marked = MarkedOutputs.list(io, store.paths(), liveSince);
      assertThat(marked.protectedNames()).as("seed %d", seed).isEqualTo(protectedExpected);
      List<org.apache.flink.core.fs.Path> deleted = marked.deleteStale(settled::contains);

      assertThat(deleted.stream().map(MarkerProtocolTest::local).toList())
          .as("seed %d", seed)
          .containsExactlyInAnyOrderElementsOf(staleDeletable);
      for (Path f : all) {
        assertThat(Files.exists(f))
            .as("seed %d: %s", seed, f)
            .isEqualTo(!staleDeletable.contains(f));
      }
      deleteRecursively(local(layout.root()));
    }
  }

  @Test
  void layoutNamesAreReadBackAndOthersRefused() {
    assertThat(MarkerLayout.markedOutputName("marker-data-1.parquet")).isEqualTo("data-1.parquet");
    assertThat(MarkerLayout.markedOutputName("marker-")).isNull();
    assertThat(MarkerLayout.markedOutputName("release-3-ab")).isNull();
    assertThat(MarkerLayout.writeAfterCheckpoint("write-after-12")).isEqualTo(12);
    assertThat(MarkerLayout.writeAfterCheckpoint("write-after-0")).isZero();
    assertThat(MarkerLayout.writeAfterCheckpoint("write-after--1")).isEqualTo(-1);
    assertThat(MarkerLayout.writeAfterCheckpoint("write-after-x")).isEqualTo(-1);
    assertThat(MarkerLayout.writeAfterCheckpoint("released")).isEqualTo(-1);
    assertThat(layout.writeAfterDir("u", 4).getName()).isEqualTo("write-after-4");
    assertThat(layout.marker("u", "dv-1").getParent()).isEqualTo(layout.jobDir("u"));
    assertThat(layout.release("u", 7, "ab").getName()).isEqualTo("release-7-ab");
    assertThat(layout.root()).isEqualTo(store.paths().markersDir());
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Writes the marker of an output as a job does; returns the marker's path. */
  @FunctionalInterface
  private interface MarkerWriter {
    String write(org.apache.flink.core.fs.Path output) throws IOException;
  }

  /** A generated mix of outputs of one job, each with its marker written by {@code writer}. */
  private List<Output> mix(Random random, String user, int seed, MarkerWriter writer)
      throws IOException {
    List<Output> mix = new ArrayList<>();
    List<Path> unusedReferenced = new ArrayList<>(referenced);
    Path bucket = referenced.get(0).getParent();
    Path index = local(store.paths().indexDir());
    int n = 1 + random.nextInt(8);
    for (int i = 0; i < n; i++) {
      Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
      if (kind == Kind.REFERENCED && unusedReferenced.isEmpty()) {
        kind = Kind.MISSING;
      }
      Path file =
          switch (kind) {
            case REFERENCED -> unusedReferenced.remove(random.nextInt(unusedReferenced.size()));
            case UNREFERENCED_DV -> index.resolve("dv-" + seed + "-" + i);
            default -> bucket.resolve("data-" + user + "-" + i + ".parquet");
          };
      if (kind == Kind.UNREFERENCED_DATA || kind == Kind.UNREFERENCED_DV) {
        Files.createDirectories(file.getParent());
        Files.write(file, new byte[] {1});
      }
      Path marker = local(new org.apache.flink.core.fs.Path(writer.write(flink(file))));
      if (kind == Kind.TRUNCATED_MARKER) {
        // Its writer died while writing it: the recorded path ends early.
        String recorded = Files.readString(marker, StandardCharsets.UTF_8);
        recorded = recorded.substring(0, recorded.length() - 1 - random.nextInt(8));
        Files.writeString(marker, recorded, StandardCharsets.UTF_8);
      }
      mix.add(new Output(kind, file, marker));
    }
    return mix;
  }

  /**
   * No referenced output was deleted, and every output that exists and that no snapshot references
   * has its marker.
   */
  private void assertInvariant(int seed, List<Output> mix, String user) {
    Set<String> marked = markerNames(user);
    for (Path f : referenced) {
      assertThat(f).as("seed %d: a committed output is never deleted", seed).exists();
    }
    for (Output o : mix) {
      if (o.unreferencedAndPresent()) {
        assertThat(marked)
            .as("seed %d: an uncommitted output keeps its marker: %s", seed, o)
            .contains(o.name());
      }
    }
  }

  /** A random part of the outputs {@code which} accepts. */
  private static List<Output> someOf(List<Output> mix, Random random, Predicate<Output> which) {
    List<Output> some = new ArrayList<>();
    for (Output o : mix) {
      if (which.test(o) && random.nextBoolean()) {
        some.add(o);
      }
    }
    return some;
  }

  private static Set<String> names(List<Output> outputs) {
    return outputs.stream().map(Output::name).collect(Collectors.toSet());
  }

  private static List<String> markers(List<Output> outputs) {
    return outputs.stream().map(o -> o.marker().toUri().toString()).toList();
  }

  /** Names of the outputs the markers of a job record, in any of its directories. */
  private Set<String> markerNames(String user) {
    Path jobDir = local(layout.jobDir(user));
    if (!Files.exists(jobDir)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.walk(jobDir)) {
      return files
          .filter(Files::isRegularFile)
          .map(p -> MarkerLayout.markedOutputName(p.getFileName().toString()))
          .filter(n -> n != null)
          .collect(Collectors.toSet());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static org.apache.flink.core.fs.Path flink(Path p) {
    return new org.apache.flink.core.fs.Path(p.toUri());
  }

  private static Path local(org.apache.flink.core.fs.Path p) {
    return Path.of(p.toUri());
  }
}
