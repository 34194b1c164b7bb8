package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A streaming read's plan over generated histories of writes and compactions: following it from the
 * start gives every committed row once (append) or exactly the table (primary key, upserts applied
 * in order), and a COMPACT snapshot adds nothing.
 */
class StreamScanTest {

  @TempDir Path dir;

  private static Schema.Builder schema(boolean primaryKey, boolean deletionVectors) {
    Schema.Builder b = TestTables.idIntPartitionValueSchema();
    if (primaryKey) {
      b.primaryKey("id", "p").option("bucket", "2");
    }
    if (deletionVectors) {
      // Writers compact at each commit, so readers of the table see every committed row.
      b.option("deletion-vectors.enabled", "true");
    } else {
      b.option("write-only", "true"); // compactions only by the test's CompactBuilder
    }
    return b;
  }

  /** Follows a stream: applies each snapshot's changes as they are planned. */
  private static final class Follower {
    final StreamScan scan;
    final TableRead read;
    long next;
    final List<String> appended = new ArrayList<>();
    final Map<String, String> upserted = new TreeMap<>();

    Follower(Table table) throws IOException {
      ReadBuilder rb = table.newReadBuilder();
      scan = rb.newStreamScan();
      read = rb.newStreamRead();
      StreamScan.Start start = scan.start();
      apply(start.splits(), table);
      next = start.nextSnapshotId();
    }

    void catchUp(Table table) throws IOException {
      Optional<List<DataSplit>> changes;
      while ((changes = scan.changes(next)).isPresent()) {
        CommitKind kind = table.snapshotManager().snapshot(next).commitKind();
        if (kind != CommitKind.APPEND) {
          assertThat(changes.get()).as("%s snapshot %s adds nothing", kind, next).isEmpty();
        }
        apply(changes.get(), table);
        next++;
      }
    }

    void apply(List<DataSplit> splits, Table table) throws IOException {
      for (DataSplit s : splits) {
        try (TableRead.RecordReader r = read.createReader(s)) {
          RowData row;
          while ((row = r.next()) != null) {
            String key = row.getLong(0) + "/" + row.getInt(1);
            String rendered = TestTables.render(table.rowType(), row);
            if (!table.schema().hasPrimaryKey()) {
              assertThat(row.getRowKind()).isEqualTo(RowKind.INSERT);
              appended.add(rendered);
            } else if (row.getRowKind() == RowKind.DELETE) {
              upserted.remove(key);
            } else {
              upserted.put(key, rendered);
            }
          }
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"append", "primary key", "primary key, deletion vectors"})
  void followingTheChangesGivesEveryCommittedRowOnce(String kind) throws Exception {
    boolean pk = !kind.equals("append");
    for (int seed = 0; seed < 8; seed++) {
      Random random = new Random(seed);
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed));
      Table table = TestTables.create(catalog, "t", schema(pk, kind.contains("deletion")).build());
      List<String> written = new ArrayList<>();
      Follower fromStart = null;
      long id = 0;
      for (int round = 0; round < 12; round++) {
        int action = random.nextInt(4);
        if (action == 0 && table.latestSnapshot().isPresent()) {
          Map<String, String> full = new HashMap<>();
          full.put("compaction.full", String.valueOf(random.nextBoolean()));
          full.put("compaction.min.file-num", "2");
          full.put("num-sorted-run.compaction-trigger", "2");
          table.newCompactBuilder().withOptions(full).execute();
        } else {
          List<GenericRowData> rows = new ArrayList<>();
          for (int i = 0, n = 1 + random.nextInt(20); i < n; i++) {
            long key = pk ? random.nextInt(15) : id++;
            GenericRowData r = row(key, random.nextInt(3), "v" + random.nextInt(100));
            if (pk && random.nextInt(5) == 0) {
              r.setRowKind(RowKind.DELETE);
            }
            rows.add(r);
            if (!pk) {
              written.add(TestTables.render(table.rowType(), r));
            }
          }
          TestTables.writeBatch(table, rows);
        }
        if (fromStart == null && round == 2) {
          fromStart = new Follower(table); // starts with the table in full, then follows
        }
        if (fromStart != null) {
          fromStart.catchUp(table);
          List<String> now = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
          if (pk) {
            assertThat(fromStart.upserted.values())
                .as("seed %s round %s", seed, round)
                .containsExactlyInAnyOrderElementsOf(now);
          } else {
            assertThat(fromStart.appended)
                .as("seed %s round %s: every row once", seed, round)
                .containsExactlyInAnyOrderElementsOf(written);
          }
        }
      }
    }
  }

  /**
   * A deletion-vector table's readers skip level 0; a stream starting at a snapshot with level-0
   * files must still give their rows (they were committed before its first changes).
   */
  @Test
  void aStreamStartingOnADeletionVectorTableGivesItsLevel0Rows() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            TestTables.idIntPartitionValueSchema()
                .primaryKey("id", "p")
                .option("bucket", "1")
                .option("deletion-vectors.enabled", "true")
                .option("write-only", "true")
                .option("local-cache.dir", dir.resolve("cache").toString())
                .build());
    TestTables.writeBatch(table, List.of(row(1L, 0, "a"), row(2L, 0, "b")));
    table.newCompactBuilder().execute();
    TestTables.writeBatch(table, List.of(row(1L, 0, "c"), row(3L, 0, "d")));
    assertThat(TestTables.readAll(table)).as("level 0 is not read in batch").hasSize(2);
    Follower f = new Follower(table);
    assertThat(f.upserted.values()).containsExactlyInAnyOrder("(1,0,c)", "(2,0,b)", "(3,0,d)");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"latest", "from-snapshot"})
  void theStartModesSkipWhatCameBefore(String mode) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema(false, false).build());
    TestTables.writeBatch(table, List.of(row(1L, 0, "a")));
    TestTables.writeBatch(table, List.of(row(2L, 0, "b")));
    Map<String, String> options =
        mode.equals("latest")
            ? Map.of("scan.mode", "latest")
            : Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "2");
    Table view = table.copy(options);
    StreamScan.Start start = view.newReadBuilder().newStreamScan().start();
    assertThat(start.splits()).isEmpty();
    assertThat(start.nextSnapshotId()).isEqualTo(mode.equals("latest") ? 3 : 2);
  }

  /**
   * {@code from-timestamp} streams the snapshots committed at or after the timestamp, as Paimon's:
   * a snapshot's own commit time (as {@code t$snapshots} shows it) starts at that snapshot. It
   * started after it.
   */
  @Test
  void fromTimestampStartsAtTheFirstSnapshotCommittedAtOrAfterIt() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", schema(false, false).build());
    for (long i = 1; i <= 4; i++) {
      TestTables.writeBatch(table, List.of(row(i, 0, "v" + i)));
    }
    List<Snapshot> snapshots = new ArrayList<>();
    for (long id = 1; id <= 4; id++) {
      snapshots.add(table.snapshotManager().snapshot(id));
    }
    for (Snapshot s : snapshots) {
      for (long ts : new long[] {s.timeMillis() - 1, s.timeMillis(), s.timeMillis() + 1}) {
        long expected = 5;
        for (Snapshot o : snapshots) {
          if (o.timeMillis() >= ts) {
            expected = o.id();
            break;
          }
        }
        Table view =
            table.copy(
                Map.of("scan.mode", "from-timestamp", "scan.timestamp-millis", String.valueOf(ts)));
        StreamScan.Start start = view.newReadBuilder().newStreamScan().start();
        assertThat(start.splits()).isEmpty();
        assertThat(start.nextSnapshotId()).as("timestamp %s", ts).isEqualTo(expected);
      }
    }
  }

  /**
   * A stream from a tag reads the tag's snapshot in full, then every later snapshot's changes: each
   * row once, also after snapshot expiry retired the tag's snapshot (read from the tag). When
   * snapshots after it expired too, the start is refused: the stream would miss their changes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"append", "primary key", "primary key, deletion vectors"})
  void aStreamFromATagReadsItsSnapshotThenEveryLaterChange(String kind) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog, "t", schema(!kind.equals("append"), kind.endsWith("vectors")).build());
    TestTables.writeBatch(table, List.of(row(1L, 0, "a"), row(2L, 1, "b")));
    TestTables.writeBatch(table, List.of(row(3L, 0, "c")));
    long tagged = table.latestSnapshot().orElseThrow().id();
    new io.sediment.maintenance.Tags(table).create("t2", java.util.OptionalLong.of(tagged));
    TestTables.writeBatch(table, List.of(row(4L, 1, "d")));
    TestTables.writeBatch(table, List.of(row(5L, 0, "e")));
    Table fromTag = table.copy(Map.of("scan.tag-name", "t2"));
    List<String> all = TestTables.toStrings(table.rowType(), TestTables.readAll(table));

    // the tag's snapshot retired: the snapshot after it is the earliest still there
    new io.sediment.maintenance.ExpireSnapshots(table)
        .retainMax((int) (table.latestSnapshot().orElseThrow().id() - tagged))
        .execute();
    assertThat(table.snapshotManager().snapshotIfExists(tagged)).isEmpty();
    Follower f = new Follower(fromTag);
    f.catchUp(table);
    List<String> seen = new ArrayList<>(kind.equals("append") ? f.appended : f.upserted.values());
    assertThat(seen).containsExactlyInAnyOrderElementsOf(all);

    new io.sediment.maintenance.ExpireSnapshots(table).retainMax(1).execute();
    assertThatThrownBy(() -> fromTag.newReadBuilder().newStreamScan().resolveStart())
        .hasMessageContaining("The snapshots after tag 't2' (scan.tag-name, snapshot " + tagged)
        .hasMessageContaining("a streaming read from it would miss the changes of snapshots");
  }

  @Test
  void aSnapshotThatExpiredBeforeTheStreamGotToItIsAnError() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(
            catalog,
            "t",
            schema(false, false)
                .option("write-only", "false") // its writers expire snapshots
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "1")
                .build());
    TestTables.writeBatch(table, List.of(row(1L, 0, "a")));
    StreamScan scan = table.newReadBuilder().newStreamScan();
    TestTables.writeBatch(table, List.of(row(2L, 0, "b")));
    TestTables.writeBatch(table, List.of(row(3L, 0, "c")));
    assertThatThrownBy(() -> scan.changes(2))
        .hasMessageContaining("Snapshot 2 of table")
        .hasMessageContaining("expired before the streaming read got to it")
        .hasMessageContaining("the earliest snapshot still there is 3");
    assertThat(scan.changes(4)).isEmpty();
  }
}
