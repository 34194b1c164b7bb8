package io.sediment.manifest;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.StreamScan;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A snapshot file that is not valid is reported by name with what is wrong; one above the newest
 * valid snapshot does not break reads of the committed ones, and commits refuse to build past it.
 */
class InvalidSnapshotFileTest {

  @TempDir Path dir;

  private Table table() {
    Table t =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .build());
    for (long i = 1; i <= 3; i++) {
      TestTables.writeBatch(t, List.of(row(i, "v" + i)));
    }
    return t;
  }

  private Path snapshotFile(long id) {
    return dir.resolve("db.db/t/snapshot/snapshot-" + id);
  }

  private Set<String> manifestDir() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("db.db/t/manifest"))) {
      return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  private static List<CommitMessage> write(Table t, long id) throws Exception {
    WriteBuilder wb = t.newBatchWriteBuilder();
    try (TableWrite w = wb.newWrite()) {
      w.write(row(id, "v" + id));
      return w.prepareCommit();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"garbage", "{}", "", "{\"id\": 4}"})
  void anInvalidSnapshotFileAboveTheLatestDoesNotBreakReads(String content) throws Exception {
    Table t = table();
    Files.writeString(snapshotFile(4), content);

    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,v1)", "(2,v2)", "(3,v3)");
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(3);
  }

  /**
   * A streaming read treats an invalid newest snapshot file as not committed: one starting at
   * {@code latest} starts after the newest valid snapshot, and one that reaches the file waits at
   * it; once the file is removed, the commit that takes its id is read. A file below a valid
   * snapshot is still an error.
   */
  @ParameterizedTest
  @ValueSource(strings = {"latest", "latest-full"})
  void aStreamingReadWaitsAtAnInvalidNewestSnapshotAndReadsTheCommitThatTakesItsId(String mode)
      throws Exception {
    Table t = table();
    Files.writeString(snapshotFile(4), "garbage");
    StreamScan scan = t.copy(Map.of("scan.mode", mode)).newReadBuilder().newStreamScan();
    StreamScan.Start start = scan.start();
    assertThat(start.nextSnapshotId()).isEqualTo(4);
    assertThat(scan.changes(4)).as("waits at the invalid file").isEmpty();

    Files.delete(snapshotFile(4)); // the repair in docs/operations.md
    TestTables.writeBatch(t, List.of(row(4L, "v4")));
    List<DataSplit> changes = scan.changes(4).orElseThrow();
    assertThat(TestTables.toStrings(t.rowType(), t.newReadBuilder().newRead().readAll(changes)))
        .containsExactly("(4,v4)");

    Files.writeString(snapshotFile(2), "garbage"); // below valid snapshots: not a pending commit
    assertThatThrownBy(() -> scan.changes(2)).isInstanceOf(InvalidMetadataFileException.class);
  }

  @Test
  void errorsNameTheFileAndWhatIsWrong() throws Exception {
    Table t = table();
    SnapshotManager sm = t.snapshotManager();
    Files.writeString(snapshotFile(4), "{}");
    assertThatThrownBy(() -> sm.snapshot(4))
        .isInstanceOf(InvalidMetadataFileException.class)
        .hasMessageContaining(snapshotFile(4).toString())
        .hasMessageContaining("missing fields version, id, schemaId, baseManifestList");

    Files.writeString(
        snapshotFile(4), Files.readString(snapshotFile(3)).replace("\"commitKind\"", "\"x\""));
    assertThatThrownBy(() -> sm.snapshot(4))
        .hasMessageContaining(snapshotFile(4).toString())
        .hasMessageContaining("missing field commitKind");

    Files.writeString(snapshotFile(4), "garbage");
    assertThatThrownBy(() -> sm.snapshot(4))
        .hasMessageContaining(snapshotFile(4).toString())
        .hasMessageContaining("not JSON");

    // A copy of another snapshot's file.
    Files.copy(snapshotFile(3), snapshotFile(5));
    assertThatThrownBy(() -> sm.snapshot(5))
        .hasMessageContaining(snapshotFile(5).toString())
        .hasMessageContaining("holds snapshot id 3");
  }

  @Test
  void whenNoSnapshotIsValidReadsFailNamingTheNewest() throws Exception {
    Table t =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder().column("id", DataTypes.BIGINT()).build());
    Files.createDirectories(snapshotFile(1).getParent());
    Files.writeString(snapshotFile(1), "{}");
    assertThatThrownBy(() -> TestTables.readAll(t))
        .hasMessageContaining(snapshotFile(1).toString())
        .hasMessageContaining("missing fields");
  }

  @Test
  void commitsRefuseToBuildPastAnInvalidSnapshotFile() throws Exception {
    Table t = table();
    Files.writeString(snapshotFile(4), "garbage");
    Set<String> manifests = manifestDir();

    List<CommitMessage> batch = write(t, 10);
    assertThatThrownBy(() -> t.newBatchWriteBuilder().newCommit().commit(batch))
        .hasMessageContaining("Refusing to commit")
        .hasMessageContaining(snapshotFile(4).toString());
    List<CommitMessage> stream = write(t, 11);
    assertThatThrownBy(
            () -> t.newStreamWriteBuilder().withCommitUser("job").newCommit().commit(1, stream))
        .hasMessageContaining(snapshotFile(4).toString());

    assertThat(t.snapshotManager().listIds()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(manifestDir()).isEqualTo(manifests); // nothing half-written
    assertThat(TestTables.readAll(t)).hasSize(3);

    // Once the file is moved away, commits go on from the newest valid snapshot.
    Files.move(snapshotFile(4), dir.resolve("snapshot-4.bad"));
    assertThat(t.newBatchWriteBuilder().newCommit().commit(batch)).containsExactly(4L);
    assertThat(TestTables.readAll(t)).hasSize(4);
  }
}
