package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A batch INSERT into a primary-key table whose writer compacted makes an APPEND and a COMPACT
 * snapshot. When the APPEND landed and the COMPACT failed with a known outcome, the write is
 * committed: the job succeeds, and every file a snapshot references stays. The committer used to
 * guess from the latest snapshot's live files; a compaction job that had compacted the new files
 * meanwhile made it report the write as failed and delete the files snapshot 2 references.
 */
class BatchCommitAppendLandedTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** Where the writer's COMPACT fails. */
  enum Failure {
    MANIFEST_WRITE,
    SNAPSHOT_CREATE
  }

  static List<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Failure f : Failure.values()) {
      for (boolean rivalCompacts : new boolean[] {false, true}) {
        out.add(Arguments.of(f, rivalCompacts));
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}, a compaction job compacted first: {1}")
  @MethodSource("cases")
  void aBatchWriteWhoseAppendLandedIsCommitted(Failure failure, boolean rivalCompacts)
      throws Exception {
    Table t =
        TestTables.create(
            TestTables.faultyCatalog(dir),
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("num-sorted-run.compaction-trigger", "2")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a")));
    List<CommitMessage> messages =
        TestTables.prepare(t.newBatchWriteBuilder(), List.of(row(2L, "b")));
    assertThat(messages.get(0).compactAfter()).as("the writer compacts").isNotEmpty();

    AtomicBoolean fired = new AtomicBoolean();
    FaultyFileSystem.onCreate(
        path -> {
          boolean compactOfWriter =
              t.snapshotManager().latestId().orElse(0L) == 2L
                  && (failure == Failure.MANIFEST_WRITE
                      ? path.contains("/manifest/")
                      : path.contains("/snapshot/.snapshot-3."));
          if (compactOfWriter && fired.compareAndSet(false, true)) {
            if (rivalCompacts) {
              try {
                t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
              } catch (Exception e) {
                throw new IOException(e);
              }
            }
            throw new IOException("Injected failure of the writer's compaction");
          }
        });
    try {
      SinkCommitter committer = SinkCommitters.started(t, false);
      committer.add(SedimentWriteOperator.END_OF_INPUT, messages);
      committer.endInput(null, false);
    } finally {
      FaultyFileSystem.reset();
    }

    assertThat(fired).isTrue();
    Snapshot append = t.snapshotManager().snapshot(2L);
    assertThat(append.commitKind()).isEqualTo(CommitKind.APPEND);
    assertThat(t.latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(rivalCompacts ? CommitKind.COMPACT : CommitKind.APPEND);
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,a)", "(2,b)");
    for (long id : t.snapshotManager().listIds()) {
      for (ManifestEntry e : t.store().newScan().plan(t.snapshotManager().snapshot(id))) {
        assertThat(
                t.store()
                    .fileIO()
                    .exists(t.store().dataFilePath(e.partition(), e.bucket(), e.file().fileName())))
            .as("snapshot %d's file %s", id, e.file().fileName())
            .isTrue();
      }
    }
    for (var f : messages.get(0).compactAfter()) {
      assertThat(TestTables.dataFiles(dir))
          .as("the dropped compaction's outputs are deleted")
          .noneMatch(p -> p.getFileName().toString().equals(f.fileName()));
    }
  }
}
