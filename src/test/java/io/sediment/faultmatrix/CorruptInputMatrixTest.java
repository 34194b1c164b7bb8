package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Corrupt input: a compaction that meets it fails naming the file and commits nothing (snapshot ids
 * and files as before); reads of what is not corrupt are unaffected.
 */
@ExtendWith(NamedFailures.class)
class CorruptInputMatrixTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** How a data file is damaged. */
  enum DataCorruption {
    /** Two bytes flipped in the last page of the {@code v} column chunk of the first row group. */
    FLIPPED_PAGE_BYTES,
    /** The file cut to half its length. */
    TRUNCATED,
    /** The footer length before the closing magic overwritten with garbage. */
    BAD_FOOTER
  }

  static Stream<Arguments> dataCases() {
    return Stream.of(TableKind.values())
        .flatMap(
            k ->
                Stream.of(DataCorruption.values())
                    .flatMap(
                        c ->
                            Stream.of("zstd", "uncompressed")
                                .filter(
                                    codec ->
                                        c == DataCorruption.FLIPPED_PAGE_BYTES
                                            || codec.equals("zstd"))
                                .map(codec -> Arguments.of(k, c, codec))));
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("dataCases")
  void corruptDataFileFailsTheCompactionNamingIt(
      TableKind kind, DataCorruption corruption, String codec) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 3, Map.of("file.compression", codec));
    Table table = t.table();
    String victim = liveFileOfPartition(table, "a");
    Path file = findFile(t, victim);
    switch (corruption) {
      case FLIPPED_PAGE_BYTES -> flipLastBytesOfColumnChunk(file, 2);
      case TRUNCATED -> truncateToHalf(file);
      case BAD_FOOTER -> overwriteFooterLength(file);
    }
    TableState before = TableState.of(t);

    Throwable e = catchThrowable(() -> Compactions.execute(t));

    assertThat(e).as("compacting a corrupt %s fails", victim).isNotNull();
    assertThat(chainMessages(e)).as("the error names the corrupt file").contains(victim);
    Invariants.assertUnchanged(before, TableState.of(t), "compaction of corrupt input");
    assertThat(readPartition(t, "b"))
        .as("reads of the other partition are unaffected")
        .containsExactlyInAnyOrderElementsOf(modelOfPartition(t, "b"));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void corruptManifestFailsTheCompactionNamingIt(TableKind kind) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 3);
    Table table = t.table();
    Snapshot latest = table.latestSnapshot().orElseThrow();
    String manifest = table.store().newScan().manifests(latest).get(0).fileName();
    truncateToHalf(t.tableDir().resolve("manifest").resolve(manifest));
    ManifestCache.clear(); // as a process that has not read it before: the writes above cached it
    TableState before = TableState.of(t);

    Throwable e = catchThrowable(() -> Compactions.execute(t));

    assertThat(e).as("compacting with a corrupt manifest fails").isNotNull();
    assertThat(chainMessages(e)).as("the error names the manifest").contains(manifest);
    Invariants.assertUnchanged(before, TableState.of(t), "compaction with a corrupt manifest");
  }

  /** Contents of a damaged snapshot file. */
  enum BadSnapshot {
    GARBAGE,
    EMPTY_OBJECT,
    TRUNCATED_JSON
  }

  /**
   * A stray unreadable snapshot file beyond the latest: every error names it, committed snapshots
   * still read, and a compaction commits nothing over it (the file is never overwritten).
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("snapshotCases")
  void strayBadSnapshotBeyondTheLatest(TableKind kind, BadSnapshot bad) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 3);
    long latest = t.table().latestSnapshot().orElseThrow().id();
    String name = "snapshot-" + (latest + 1);
    Path stray = t.tableDir().resolve("snapshot").resolve(name);
    byte[] content = badSnapshot(t, bad, latest);
    Files.write(stray, content);
    TableState before = TableState.of(t);

    Throwable read = catchThrowable(() -> TestTables.readAll(t.table()));
    if (read != null) {
      assertThat(read).isNotInstanceOf(NullPointerException.class);
      assertThat(chainMessages(read)).as("a read error names the file").contains(name);
    } else {
      Invariants.rowsEqualModel(t, t.table());
    }
    Throwable compact = catchThrowable(() -> Compactions.execute(t));
    if (compact != null) {
      assertThat(chainMessages(compact)).as("a compaction error names the file").contains(name);
      Invariants.assertUnchanged(before, TableState.of(t), "compaction over a bad snapshot");
    }
    assertThat(Files.readAllBytes(stray)).as("never overwritten").isEqualTo(content);
    // The committed snapshots are still readable by id.
    Table table = t.table();
    Snapshot committed = table.snapshotManager().snapshot(latest);
    List<String> rows =
        TestTables.toStrings(
            table.rowType(),
            table
                .newReadBuilder()
                .newRead()
                .readAll(table.newReadBuilder().newScan().plan(committed).splits()));
    assertThat(rows).containsExactlyInAnyOrderElementsOf(t.model.expectedRows());
  }

  /**
   * An old snapshot file (not the one the listing selects as latest) damaged: reads and compaction
   * of the latest are unaffected; an error about the old one names it.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("snapshotCases")
  void badOldSnapshotDoesNotBreakTheLatest(TableKind kind, BadSnapshot bad) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 3);
    long latest = t.table().latestSnapshot().orElseThrow().id();
    Files.write(t.tableDir().resolve("snapshot").resolve("snapshot-1"), badSnapshot(t, bad, 1));

    Invariants.rowsEqualModel(t, t.table());
    Throwable old = catchThrowable(() -> t.table().snapshotManager().snapshot(1));
    assertThat(old).isNotNull().isNotInstanceOf(NullPointerException.class);
    assertThat(chainMessages(old)).as("the error names the file").contains("snapshot-1");
    Compactions.execute(t);
    assertThat(t.table().latestSnapshot().orElseThrow().id()).isGreaterThan(latest);
    Invariants.rowsEqualModel(t, t.table());
  }

  /**
   * A writer's commit landed, its snapshot expired, and its user hint (the only record of it left)
   * is then damaged: a restored writer committing the same identifier again must not land it twice
   * (it may refuse, with an error naming the hint).
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("snapshotCases")
  void badUserHintNeverRecommitsAnExpiredCommit(TableKind kind, BadSnapshot bad) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 2);
    List<Model.Change> changes = t.batch(2);
    var messages = t.prepare(t.table(), changes, "w");
    t.table().newStreamWriteBuilder().withCommitUser("w").newCommit().commit(1, messages);
    t.model.apply(changes);
    t.write(3); // another user commits on top
    new ExpireSnapshots(t.table()).retainMax(1).execute();
    Path hint = t.tableDir().resolve("snapshot").resolve("user-w");
    assertThat(hint).as("expiry recorded the user's last commit").exists();
    Files.write(hint, badSnapshot(t, bad, t.table().latestSnapshot().orElseThrow().id()));
    TableState before = TableState.of(t);

    Throwable e =
        catchThrowable(
            () ->
                t.table()
                    .newStreamWriteBuilder()
                    .withCommitUser("w")
                    .newCommit()
                    .commit(1, messages));

    if (e != null) {
      assertThat(e).isNotInstanceOf(NullPointerException.class);
      assertThat(chainMessages(e))
          .as("a clear refusal: names the hint, or the files it cannot commit")
          .containsAnyOf("user-w", "missing");
      Invariants.assertUnchanged(before, TableState.of(t), "recommit with a bad user hint");
    }
    assertThat(t.table().snapshotManager().listIds())
        .as("the restored commit did not land a second time")
        .isEqualTo(before.snapshotIds());
    Invariants.rowsEqualModel(t, t.table());
  }

  static Stream<Arguments> snapshotCases() {
    return Stream.of(TableKind.values())
        .flatMap(k -> Stream.of(BadSnapshot.values()).map(b -> Arguments.of(k, b)));
  }

  private static byte[] badSnapshot(MatrixTable t, BadSnapshot bad, long like) throws IOException {
    return switch (bad) {
      case GARBAGE -> new byte[] {0, 1, 2, (byte) 0xff, 'x', '\n'};
      case EMPTY_OBJECT -> "{}".getBytes(StandardCharsets.UTF_8);
      case TRUNCATED_JSON -> {
        byte[] real =
            Files.readAllBytes(t.tableDir().resolve("snapshot").resolve("snapshot-" + like));
        yield Arrays.copyOf(real, real.length / 2);
      }
    };
  }

  private static String liveFileOfPartition(Table table, String partition) {
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      if (table.store().partitionPath(e.partition()).equals("p=" + partition)) {
        return e.file().fileName();
      }
    }
    throw new IllegalStateException("no live file in partition " + partition);
  }

  private static Path findFile(MatrixTable t, String name) {
    return Invariants.dataAndIndexFiles(t.tableDir()).stream()
        .filter(p -> p.getFileName().toString().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static List<String> readPartition(MatrixTable t, String partition) throws IOException {
    Table table = t.table();
    var rb =
        table
            .newReadBuilder()
            .withFilter(
                "{\"method\":\"equal\",\"field\":\"p\",\"literals\":[\"" + partition + "\"]}");
    return TestTables.toStrings(
        table.rowType(), rb.newRead().readAll(rb.newScan().plan().splits()));
  }

  private static List<String> modelOfPartition(MatrixTable t, String partition) {
    return t.model.expectedRows().stream().filter(r -> r.contains("," + partition + ",")).toList();
  }

  /** Every message of the causal chain and the suppressed errors, joined. */
  static String chainMessages(Throwable e) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      sb.append(c).append('\n');
      for (Throwable s : c.getSuppressed()) {
        sb.append("suppressed: ").append(s).append('\n');
      }
    }
    return sb.toString();
  }

  private static void flipLastBytesOfColumnChunk(Path file, int bytes) throws IOException {
    long end;
    try (ParquetFileReader r =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()))) {
      BlockMetaData block = r.getFooter().getBlocks().get(0);
      ColumnChunkMetaData v = block.getColumns().get(2);
      end = v.getStartingPos() + v.getTotalSize();
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      for (long pos = end - 1 - bytes; pos < end - 1; pos++) {
        raf.seek(pos);
        int b = raf.read();
        raf.seek(pos);
        raf.write(b ^ 0xff);
      }
    }
  }

  private static void truncateToHalf(Path file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(raf.length() / 2);
    }
  }

  private static void overwriteFooterLength(Path file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(raf.length() - 8);
      raf.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f});
    }
  }
}
