package io.sediment.commit;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LandedCommits#landedSince}, which tells a commit attempt that an earlier attempt of the
 * same commit was published meanwhile, against its definition on a history of stream, batch and
 * compaction commits of two users: for every start, latest snapshot, kind, identifier and user, the
 * newest snapshot after the start up to the latest of that user, identifier and kind; none on a
 * first attempt (start -1), for batch commits, or on an empty table.
 */
class LandedCommitsTest {

  private static final long BATCH = FileStoreCommit.BATCH_IDENTIFIER;

  @TempDir Path dir;

  /** One committed snapshot of the history: who made it, under which identifier, of what kind. */
  private record Made(long id, String user, long identifier, CommitKind kind) {}

  private static List<CommitMessage> write(Table t, long id) throws Exception {
    try (TableWrite w = t.newStreamWriteBuilder().newWrite()) {
      w.write(row(id, "v" + id));
      return w.prepareCommit();
    }
  }

  @Test
  void landedSinceFindsTheNewestMatchingSnapshotAfterTheStart() throws Exception {
    Table t = TestTables.create(TestTables.catalog(dir), "t", TestTables.idValueSchema().build());
    FileStoreCommit a = new FileStoreCommit(t.store(), "a");
    FileStoreCommit b = new FileStoreCommit(t.store(), "b");
    a.commit(write(t, 1), 1, false);
    b.commit(write(t, 2), 1, false);
    a.commit(write(t, 3), 2, false);
    a.commit(write(t, 4), BATCH, false);
    // A compaction by a under identifier 2 too: same user and identifier, another kind.
    List<DataFileMeta> live = t.newReadBuilder().newScan().plan().splits().get(0).files();
    CommitMessage out = write(t, 9).get(0);
    a.commit(
        List.of(
            CommitMessage.compact(out.partition(), 0, out.totalBuckets(), live, out.newFiles())),
        2,
        false);
    b.commit(write(t, 5), 1, false); // b repeats identifier 1: the newer one counts
    SnapshotManager sm = t.snapshotManager();
    List<Made> history = new ArrayList<>();
    for (long id : sm.listIds()) {
      Snapshot s = sm.snapshot(id);
      history.add(new Made(id, s.commitUser(), s.commitIdentifier(), s.commitKind()));
    }
    assertThat(history)
        .extracting(Made::kind)
        .containsExactly(
            CommitKind.APPEND,
            CommitKind.APPEND,
            CommitKind.APPEND,
            CommitKind.APPEND,
            CommitKind.COMPACT,
            CommitKind.APPEND);

    int checked = 0;
    for (String user : List.of("a", "b")) {
      LandedCommits landed = new LandedCommits(sm, user);
      for (long latestId = 0; latestId <= history.size(); latestId++) {
        Optional<Snapshot> latest =
            latestId == 0 ? Optional.empty() : Optional.of(sm.snapshot(latestId));
        for (long since = -1; since <= latestId; since++) {
          for (CommitKind kind : List.of(CommitKind.APPEND, CommitKind.COMPACT)) {
            for (long identifier : List.of(1L, 2L, 3L, BATCH)) {
              Long expected = null;
              if (since >= 0 && identifier != BATCH) {
                for (Made m : history) {
                  if (m.id() > since
                      && m.id() <= latestId
                      && m.user().equals(user)
                      && m.identifier() == identifier
                      && m.kind() == kind) {
                    expected = m.id();
                  }
                }
              }
              assertThat(landed.landedSince(since, latest, kind, identifier))
                  .as(
                      "user %s, since %d, latest %d, %s %d",
                      user, since, latestId, kind, identifier)
                  .isEqualTo(expected);
              checked++;
            }
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(500);
  }
}
