package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write's output observer is told about every file the write creates, before the file exists: the
 * data files of append and primary-key tables, and the outputs of a primary-key writer's own
 * compaction, deletion-vector files included. (The Flink SQL writer's markers rely on it.)
 */
class TableWriteObserverTest {

  @TempDir Path dir;
  @TempDir Path cache;

  private final List<String> observed = new ArrayList<>();
  private final List<String> existedBeforeCreate = new ArrayList<>();

  @Test
  void appendTableFilesAreAnnouncedBeforeTheyExist() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "a", TestTables.idPartitionSchema().build());
    Set<String> written = new HashSet<>();
    WriteBuilder wb = t.newBatchWriteBuilder().withOutputObserver(this::observe);
    try (TableWrite w = wb.newWrite()) {
      for (long i = 0; i < 10; i++) {
        w.write(row(i, "p" + (i % 3)));
      }
      written.addAll(outputNames(w.prepareCommit()));
    }
    assertThat(written).hasSize(3);
    assertThat(observed).containsExactlyInAnyOrderElementsOf(written);
    assertThat(existedBeforeCreate).isEmpty();
  }

  @Test
  void primaryKeyWriterCompactionOutputsAndDeletionVectorsAreAnnounced() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "pk",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.INT())
                .primaryKey("id")
                .option("bucket", "1")
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.enabled", "true")
                .option("local-cache.dir", cache.toString())
                .option("num-sorted-run.compaction-trigger", "2")
                .build());
    Set<String> written = new HashSet<>();
    for (int round = 0; round < 8; round++) {
      WriteBuilder wb = t.newStreamWriteBuilder().withOutputObserver(this::observe);
      try (TableWrite w = wb.newWrite()) {
        // every round updates some keys of earlier rounds and adds new ones
        for (long k = round * 5L; k < round * 5L + 10; k++) {
          w.write(row(k, round));
        }
        List<CommitMessage> messages = w.prepareCommit();
        written.addAll(outputNames(messages));
        wb.newCommit().commit(round, messages);
      }
    }
    assertThat(written).as("deletion-vector files written").anyMatch(n -> n.startsWith("dv-"));
    assertThat(written)
        .as("compaction outputs written")
        .hasSizeGreaterThan(8); // one level-0 file per round, and more
    assertThat(observed).containsAll(written);
    assertThat(existedBeforeCreate).isEmpty();
  }

  private void observe(org.apache.flink.core.fs.Path path) {
    observed.add(path.getName());
    if (Files.exists(Paths.get(path.toUri()))) {
      existedBeforeCreate.add(path.toString());
    }
  }

  private static Set<String> outputNames(List<CommitMessage> messages) {
    Set<String> names = new HashSet<>();
    for (CommitMessage m : messages) {
      names.addAll(m.outputFileNames());
    }
    return names;
  }
}
