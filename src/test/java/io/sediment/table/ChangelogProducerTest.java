package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code changelog-producer}: over generated histories of writes (by writers that compact, and by
 * write-only writers) and compactions (CompactBuilder, the dedicated job's planner and rewriter), a
 * stream that follows the table from any point receives the table's exact changelog: every {@code
 * +I} for an absent key, every {@code -U} and {@code -D} retracting exactly the value last emitted
 * for its key, and, applied in order, the rows a batch read returns. For every merge engine, with
 * and without deletion vectors.
 */
class ChangelogProducerTest {

  @TempDir Path dir;

  private Schema schema(
      String producer, String engine, boolean dv, boolean writeOnly, boolean sequenceField) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.INT().notNull())
            .column("v", DataTypes.BIGINT())
            .column("w", DataTypes.STRING())
            .partitionKeys("p")
            .primaryKey("id", "p")
            .option("bucket", "2")
            .option("changelog-producer", producer)
            .option("merge-engine", engine)
            .option("write-only", String.valueOf(writeOnly))
            .option("num-sorted-run.compaction-trigger", "3")
            .option("target-file-size", "4 kb")
            .option("local-cache.dir", dir.resolve("cache").toString());
    switch (engine) {
      case "partial-update" -> b.option("partial-update.remove-record-on-delete", "true");
      case "aggregation" ->
          b.option("fields.v.aggregate-function", "sum")
              .option("fields.w.aggregate-function", "last_value")
              .option("aggregation.remove-record-on-delete", "true");
      default -> {}
    }
    if (dv) {
      b.option("deletion-vectors.enabled", "true");
    }
    // Versions (deletes too) then arrive out of order. Not for partial-update: its result may
    // depend on which versions a compaction merged together (primary-key-tables.md, limits).
    if (sequenceField) {
      b.option("sequence.field", "v");
    }
    return b.build();
  }

  /** A stream's consumer that checks each change against what it received before. */
  private static final class StrictFollower {
    final StreamScan scan;
    final TableRead read;
    final Table table;
    final Map<String, String> rows = new TreeMap<>();
    long next;
    long received;

    StrictFollower(Table table) throws IOException {
      this.table = table;
      ReadBuilder rb = table.newReadBuilder();
      scan = rb.newStreamScan();
      read = rb.newStreamRead();
      StreamScan.Start start = scan.start();
      apply(start.splits());
      next = start.nextSnapshotId();
    }

    void catchUp() throws IOException {
      Optional<List<DataSplit>> changes;
      while ((changes = scan.changes(next)).isPresent()) {
        for (DataSplit s : changes.get()) {
          assertThat(s.isChangelog()).as("a producer's stream reads changelog files").isTrue();
        }
        apply(changes.get());
        next++;
      }
    }

    void apply(List<DataSplit> splits) throws IOException {
      for (DataSplit s : splits) {
        try (TableRead.RecordReader r = read.createReader(s)) {
          RowData row;
          while ((row = r.next()) != null) {
            received++;
            String key = row.getLong(0) + "/" + row.getInt(1);
            String value = TestTables.render(table.rowType(), row);
            String at = "snapshot " + s.snapshotId() + ", " + row.getRowKind() + value;
            switch (row.getRowKind()) {
              case INSERT, UPDATE_AFTER -> {
                assertThat(rows).as("%s: key already there", at).doesNotContainKey(key);
                rows.put(key, value);
              }
              case UPDATE_BEFORE, DELETE -> {
                assertThat(rows.get(key)).as("%s retracts what was emitted", at).isEqualTo(value);
                rows.remove(key);
              }
            }
          }
        }
      }
    }
  }

  private static List<GenericRowData> batch(
      Random random, String engine, Map<String, long[]> model, boolean cdc) {
    List<GenericRowData> rows = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(25); i < n; i++) {
      long id = random.nextInt(20);
      int p = random.nextInt(2);
      String key = id + "/" + p;
      long v = random.nextInt(100);
      String w = "w" + random.nextInt(50);
      boolean delete = !engine.equals("first-row") && random.nextInt(6) == 0;
      if (cdc) {
        // a complete changelog of a deduplicate table, as a CDC source sends it
        long[] old = model.get(key);
        if (old != null) {
          GenericRowData before = row(id, p, old[0], "w" + old[1]);
          before.setRowKind(delete ? RowKind.DELETE : RowKind.UPDATE_BEFORE);
          rows.add(before);
        } else if (delete) {
          continue;
        }
        if (delete) {
          model.remove(key);
          continue;
        }
        GenericRowData after = row(id, p, v, w);
        after.setRowKind(old == null ? RowKind.INSERT : RowKind.UPDATE_AFTER);
        rows.add(after);
        model.put(key, new long[] {v, Long.parseLong(w.substring(1))});
        continue;
      }
      GenericRowData r =
          engine.equals("partial-update")
              ? row(id, p, random.nextBoolean() ? v : null, random.nextBoolean() ? w : null)
              : row(id, p, v, w);
      if (delete) {
        r.setRowKind(RowKind.DELETE);
      }
      rows.add(r);
    }
    return rows;
  }

  private static boolean hasLevel0(Table table) {
    Optional<Snapshot> latest = table.latestSnapshot();
    if (latest.isEmpty()) {
      return false;
    }
    for (ManifestEntry e : table.store().newScan().plan(latest.get())) {
      if (e.file().level() == 0) {
        return true;
      }
    }
    return false;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "lookup deduplicate",
        "lookup deduplicate dv",
        "lookup first-row",
        "lookup first-row dv",
        "lookup partial-update",
        "lookup aggregation",
        "lookup deduplicate seq",
        "lookup deduplicate dv seq",
        "input deduplicate",
        "input deduplicate dv"
      })
  void aStreamReceivesTheExactChangelogFromAnyStart(String setUp) throws Exception {
    String[] parts = setUp.split(" ");
    String producer = parts[0];
    String engine = parts[1];
    boolean dv = setUp.contains(" dv");
    boolean sequenceField = setUp.endsWith(" seq");
    long changes = 0;
    for (int seed = 0; seed < 6; seed++) {
      Random random = new Random(seed * 31L + setUp.hashCode());
      boolean writeOnly = seed % 2 == 1; // odd seeds: level-0 files wait for CompactBuilder
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed));
      Table table =
          TestTables.create(catalog, "t", schema(producer, engine, dv, writeOnly, sequenceField));
      Map<String, long[]> model = new HashMap<>();
      List<StrictFollower> followers = new ArrayList<>();
      followers.add(new StrictFollower(table)); // from the empty table
      for (int round = 0; round < 14; round++) {
        if (random.nextInt(4) == 0 && table.latestSnapshot().isPresent()) {
          Map<String, String> options = new HashMap<>();
          options.put("compaction.full", String.valueOf(random.nextInt(3) == 0));
          table.newCompactBuilder().withOptions(options).execute();
        } else {
          TestTables.writeBatch(table, batch(random, engine, model, producer.equals("input")));
        }
        if (random.nextInt(5) == 0) {
          followers.add(new StrictFollower(table)); // starts with the table in full
        }
        // what a batch read shows: level 0 too, unless deletion vectors hide it until compacted
        boolean exact = (producer.equals("input") && !dv) || !hasLevel0(table);
        List<String> now = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
        for (StrictFollower f : followers) {
          f.catchUp();
          if (exact) {
            assertThat(f.rows.values())
                .as("%s seed %s round %s: the stream applied is the table", setUp, seed, round)
                .containsExactlyInAnyOrderElementsOf(now);
          }
        }
      }
      table.newCompactBuilder().execute(); // lookup: moves the last level-0 rows up
      List<String> end = TestTables.toStrings(table.rowType(), TestTables.readAll(table));
      for (StrictFollower f : followers) {
        f.catchUp();
        assertThat(f.rows.values())
            .as("%s seed %s at the end", setUp, seed)
            .containsExactlyInAnyOrderElementsOf(end);
        changes += f.received;
      }
    }
    assertThat(changes).as("the histories produced changes").isGreaterThan(100);
  }

  @Test
  void changelogFilesGoWithTheirSnapshotAndAreKeptByOrphanRemoval() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(catalog, "t", schema("lookup", "deduplicate", false, false, false));
    for (int i = 0; i < 6; i++) {
      TestTables.writeBatch(
          table, List.of(row((long) i, 0, (long) i, "a"), row(0L, 1, (long) i, "b")));
    }
    Path bucketRoot = Path.of(table.store().paths().root().toUri().getPath());
    assertThat(changelogFiles(bucketRoot)).isNotEmpty();
    // orphan removal keeps every file a snapshot lists, changelog files included
    assertThat(new RemoveOrphanFiles(table).olderThan(Long.MAX_VALUE).execute()).isEmpty();
    StrictFollower all =
        new StrictFollower(
            table.copy(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1")));
    all.catchUp();
    assertThat(all.rows).hasSize(7);
    // expiring every snapshot but the latest removes the changelog files of the expired ones
    int before = changelogFiles(bucketRoot).size();
    new ExpireSnapshots(table).retainMax(1).retainMin(1).execute();
    List<Path> left = changelogFiles(bucketRoot);
    assertThat(left).hasSizeLessThan(before);
    Snapshot latest = table.latestSnapshot().orElseThrow();
    long listed =
        latest.changelogManifestList() == null
            ? 0
            : table.store().newScan().readChangelog(latest).size();
    assertThat(left).hasSize((int) listed);
  }

  /**
   * An abort of messages whose commit had landed (a caller unsure of the outcome) must not delete
   * their changelog files, which only the snapshot that added them lists, even when their data
   * files were compacted away since.
   */
  @Test
  void anAbortAfterTheCommitLandedKeepsItsChangelog() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(catalog, "t", schema("input", "deduplicate", false, true, false));
    WriteBuilder wb = table.newBatchWriteBuilder();
    List<CommitMessage> messages;
    try (TableWrite write = wb.newWrite()) {
      write.write(row(1L, 0, 5L, "a"));
      messages = write.prepareCommit();
    }
    TableCommit commit = wb.newCommit();
    commit.commit(messages);
    table.newCompactBuilder().withStrategy("full").execute(); // the new file is no longer live
    commit.abort(messages);
    StrictFollower all =
        new StrictFollower(
            table.copy(Map.of("scan.mode", "from-snapshot", "scan.snapshot-id", "1")));
    all.catchUp();
    assertThat(all.rows).containsOnlyKeys("1/0");
  }

  /** An overwrite is no change a stream reads: the input changelog written for it goes. */
  @Test
  void anOverwriteLeavesNoChangelogFileBehind() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table =
        TestTables.create(catalog, "t", schema("input", "deduplicate", false, true, false));
    TestTables.writeBatch(table, List.of(row(1L, 0, 5L, "a")));
    Path root = Path.of(table.store().paths().root().toUri().getPath());
    assertThat(changelogFiles(root)).hasSize(1);
    WriteBuilder wb = table.newBatchWriteBuilder();
    try (TableWrite write = wb.newWrite()) {
      write.write(row(2L, 0, 6L, "b"));
      wb.newCommit().overwrite(write.prepareCommit(), null);
    }
    assertThat(changelogFiles(root)).as("only the APPEND snapshot's").hasSize(1);
    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactly("(2,0,6,b)");
  }

  @Test
  void theOptionIsForPrimaryKeyTablesAndNamesWhatIsAllowed() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "a",
                    Schema.newBuilder()
                        .column("id", DataTypes.BIGINT())
                        .option("changelog-producer", "lookup")
                        .build()))
        .hasMessageContaining("changelog-producer")
        .hasMessageContaining("primary key");
    Table lookup =
        TestTables.create(catalog, "c", schema("lookup", "deduplicate", false, false, false));
    assertThatThrownBy(() -> lookup.copy(Map.of("changelog-producer", "none")))
        .as("a job with another producer would move level-0 rows up without their changelog")
        .hasMessageContaining("'changelog-producer' is fixed when the table is created");
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog, "b", schema("full-compaction", "deduplicate", false, false, false)))
        .hasMessageContaining("'changelog-producer'")
        .hasMessageContaining("[none, input, lookup]");
  }

  private static List<Path> changelogFiles(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(p -> p.getFileName().toString().startsWith("changelog-")).toList();
    }
  }
}
