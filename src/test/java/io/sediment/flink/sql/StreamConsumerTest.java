package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.manifest.ConsumerManager;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming read's {@code consumer-id} under generated interleavings, as the docs promise it: a
 * new read with the same consumer id (a restart without state, say to change the parallelism)
 * resumes where the old one stopped and loses nothing. Each history starts a read as configured
 * (the latest snapshot in full, then its changes), on an append table or a primary-key table
 * (deletion vectors with level-0 files left by a write-only writer, or compacted; no changelog
 * producer; lookup), and then, in a random order: commits, planning rounds, polls of a few rows,
 * the reader's reports to the enumerator delayed across checkpoints (Flink sends them
 * asynchronously), checkpoints completed or declined, crashes restored from the last completed
 * checkpoint, failovers of the reader alone (its reports on the way lost), and expiry of every
 * snapshot but the latest and those the consumer holds.
 *
 * <p>After every completed checkpoint a new read with the consumer id must give, after what the
 * read had emitted up to that checkpoint, every committed row (applied in order, by key for a
 * primary-key table). Once the read has read everything, the consumer is past the latest snapshot.
 */
class StreamConsumerTest {

  private static final String CONSUMER = "c";
  private static final String[] KINDS = {
    "append", "dv-write-only", "dv-compacting", "primary-key", "lookup"
  };

  @TempDir Path dir;

  @Test
  void aNewReadWithTheConsumerIdLosesNothing() throws Exception {
    for (int seed = 0; seed < 40; seed++) {
      new History(seed).run();
    }
  }

  /**
   * A read that starts at a tag whose snapshot expired, stopped inside its start: the consumer
   * records that snapshot with {@code fullRead}, and a new read with the consumer id reads it in
   * full again from the tag, then the changes after it.
   */
  @Test
  void aStartAtATagOfAnExpiredSnapshotResumesFromTheTag() throws Exception {
    Table table = kab("tag");
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(
          table,
          List.of(
              GenericRowData.of(2 * i, StringData.fromString("x"), 1),
              GenericRowData.of(2 * i + 1, StringData.fromString("y"), 2)));
    }
    new io.sediment.maintenance.Tags(table).create("t", java.util.OptionalLong.of(2));
    new ExpireSnapshots(table).retainMax(1).execute();
    assertThat(table.snapshotManager().listIds()).containsExactly(3L);

    List<String> first;
    try (StreamReadHarness read =
        StreamReadHarness.startAsConfigured(
            table.copy(Map.of("scan.tag-name", "t")), CONSUMER, false)) {
      first = read.poll(1);
      read.checkpoint(1);
      read.complete(1);
    }
    assertThat(first).hasSize(1);
    assertThat(consumers(table).position(CONSUMER)).hasValue(new ConsumerManager.Position(2, true));

    List<String> resumed = new ArrayList<>();
    try (StreamReadHarness read = StreamReadHarness.startAsConfigured(table, CONSUMER, false)) {
      read.discover();
      resumed.addAll(read.poll(Integer.MAX_VALUE));
    }
    assertThat(resumed)
        .containsExactlyInAnyOrder(
            "+I(0,x,1)", "+I(1,y,2)", "+I(2,x,1)", "+I(3,y,2)", "+I(4,x,1)", "+I(5,y,2)");
  }

  /**
   * A read that resumes (its consumer has a position, or the job restores a savepoint) does not
   * need its configured start, which may be gone by then: the tag's successors expired. Its
   * statement is planned, and it resumes; a read that would start there still fails planning.
   */
  @Test
  void aResumingReadIsPlannedWhenItsConfiguredStartIsGone() throws Exception {
    Table table = kab("gone");
    for (long i = 0; i < 3; i++) {
      TestTables.writeBatch(table, List.of(GenericRowData.of(i, StringData.fromString("x"), 1)));
    }
    new io.sediment.maintenance.Tags(table).create("t", java.util.OptionalLong.of(2));
    Table fromTag = table.copy(Map.of("scan.tag-name", "t"));
    try (StreamReadHarness read = StreamReadHarness.startAsConfigured(fromTag, CONSUMER, false)) {
      read.discover();
      assertThat(read.poll(Integer.MAX_VALUE)).hasSize(3);
      read.checkpoint(1);
      read.complete(1);
    }
    for (long i = 3; i < 5; i++) {
      TestTables.writeBatch(table, List.of(GenericRowData.of(i, StringData.fromString("y"), 2)));
    }
    new ExpireSnapshots(table).retainMax(1).execute(); // snapshots 3 and 4 after the tag: gone

    Table other = fromTag.copy(Map.of("consumer-id", "new"));
    assertThatThrownBy(() -> SedimentTableSource.plannedStart(other, null, null, false))
        .hasMessageContaining("The snapshots after tag 't'");
    assertThat(SedimentTableSource.plannedStart(other, null, null, true))
        .as("restoring a savepoint: resolved only if the job has no state")
        .isNull();

    List<String> resumed = new ArrayList<>();
    try (StreamReadHarness read = StreamReadHarness.startAsConfigured(fromTag, CONSUMER, false)) {
      read.discover();
      resumed.addAll(read.poll(Integer.MAX_VALUE));
    }
    assertThat(resumed).containsExactlyInAnyOrder("+I(3,y,2)", "+I(4,y,2)");
  }

  /** {@code (k, a, b)}, append, keeping one snapshot at least. */
  private Table kab(String name) {
    return TestTables.create(
        TestTables.catalog(dir.resolve(name)),
        "t",
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("a", DataTypes.STRING())
            .column("b", DataTypes.INT())
            .option("snapshot.num-retained.min", "1")
            .build());
  }

  private static ConsumerManager consumers(Table table) {
    return new ConsumerManager(table.store().fileIO(), table.store().paths());
  }

  private final class History {
    private final int seed;
    private final Random rnd;
    private final String kind;
    private final Table table;
    private final boolean keyed;
    private final ConsumerManager consumers;

    /** Every row written (rendered) -> its key. */
    private final Map<String, Long> keyOf = new HashMap<>();

    /** The committed table: key -> rendered row (an append table's keys are all distinct). */
    private final Map<Long, String> committed = new TreeMap<>();

    private final List<String> emitted = new ArrayList<>();
    private final List<String> log = new ArrayList<>();
    private long nextKey;
    private int nextValue;

    History(int seed) {
      this.seed = seed;
      this.rnd = new Random(seed);
      this.kind = KINDS[seed % KINDS.length];
      this.keyed = !kind.equals("append");
      FileSystemCatalog catalog = TestTables.catalog(dir.resolve("s" + seed));
      Schema.Builder schema =
          Schema.newBuilder()
              .column("k", DataTypes.BIGINT().notNull())
              .column("a", DataTypes.STRING())
              .column("b", DataTypes.INT());
      if (keyed) {
        schema
            .primaryKey("k")
            .option("bucket", "2")
            .option("local-cache.dir", dir.resolve("cache" + seed).toString());
      }
      switch (kind) {
        case "dv-write-only" ->
            schema.option("deletion-vectors.enabled", "true").option("write-only", "true");
        case "dv-compacting" ->
            schema
                .option("deletion-vectors.enabled", "true")
                .option("num-sorted-run.compaction-trigger", "2");
        case "lookup" -> schema.option("changelog-producer", "lookup");
        default -> {}
      }
      this.table = TestTables.create(catalog, "t", schema.build());
      this.consumers = new ConsumerManager(table.store().fileIO(), table.store().paths());
    }

    void run() throws Exception {
      for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
        commit();
      }
      boolean delayed = rnd.nextInt(4) != 0;
      StreamReadHarness read = StreamReadHarness.startAsConfigured(table, CONSUMER, delayed);
      StreamReadHarness.Checkpoint completed = null;
      int emittedAtCompleted = 0;
      long checkpoint = 0;
      try {
        for (int step = 0; step < 40; step++) {
          switch (rnd.nextInt(10)) {
            case 0 -> commit();
            case 9 -> {
              if (completed != null) { // the reader alone, its reports on the way lost
                read.failReader(completed);
                emitted.subList(emittedAtCompleted, emitted.size()).clear();
                log.add("reader failed over to checkpoint " + completed.id());
              }
            }
            case 8 -> {
              // What the consumer does not hold goes: the read and a resumed one must not need it
              // (a read holds nothing before its first completed checkpoint).
              if (completed != null) {
                var r = new ExpireSnapshots(table).retainMax(1).execute();
                log.add("expired " + r);
              }
            }
            case 1 -> {
              read.discover();
              log.add("discover");
            }
            case 2, 3 -> {
              List<String> rows = read.poll(1 + rnd.nextInt(3));
              emitted.addAll(rows);
              log.add("poll " + rows);
            }
            case 4 -> log.add("deliver " + read.deliverReports(1 + rnd.nextInt(2)));
            case 5, 6 -> {
              StreamReadHarness.Checkpoint c = read.checkpoint(++checkpoint);
              if (rnd.nextInt(5) == 0) {
                log.add("checkpoint " + checkpoint + " declined");
              } else {
                read.complete(checkpoint);
                completed = c;
                emittedAtCompleted = emitted.size();
                log.add(
                    "checkpoint "
                        + checkpoint
                        + " completed, consumer at "
                        + consumers.nextSnapshot(CONSUMER));
                checkResume();
              }
            }
            default -> {
              if (completed != null) {
                read.close();
                read = StreamReadHarness.restoreAsConfigured(table, CONSUMER, completed, delayed);
                emitted.subList(emittedAtCompleted, emitted.size()).clear();
                log.add("crash, restored from checkpoint " + completed.id());
              }
            }
          }
        }
        // read everything; then a checkpoint records the consumer past the latest snapshot
        for (int quiet = 0; quiet < 3; ) {
          read.deliverReports(Integer.MAX_VALUE);
          read.discover();
          List<String> rows = read.poll(Integer.MAX_VALUE);
          emitted.addAll(rows);
          quiet = rows.isEmpty() ? quiet + 1 : 0;
        }
        read.deliverReports(Integer.MAX_VALUE);
        read.checkpoint(++checkpoint);
        read.complete(checkpoint);
        assertThat(consumers.nextSnapshot(CONSUMER))
            .as("%s: the consumer of a read that read everything", what())
            .hasValue(table.snapshotManager().latestId().getAsLong() + 1);
        checkResume();
      } finally {
        read.close();
      }
    }

    /**
     * A new read with the consumer id gives every committed row after what was emitted; with no
     * position recorded, or one in the start, it starts anew (a snapshot in full), and gives them
     * alone.
     */
    private void checkResume() throws Exception {
      boolean resumes =
          consumers.position(CONSUMER).filter(p -> !p.fullRead()).isPresent(); // else anew
      List<String> resumed = new ArrayList<>();
      try (StreamReadHarness fresh = StreamReadHarness.startAsConfigured(table, CONSUMER, false)) {
        for (int quiet = 0; quiet < 3; ) {
          fresh.discover();
          List<String> rows = fresh.poll(Integer.MAX_VALUE);
          resumed.addAll(rows);
          quiet = rows.isEmpty() ? quiet + 1 : 0;
        }
      }
      List<String> all = new ArrayList<>(resumes ? emitted : List.of());
      all.addAll(resumed);
      if (keyed) {
        Map<Long, String> state = new TreeMap<>();
        for (String e : all) {
          String value = e.substring(2);
          long key = keyOf.get(value);
          if (e.startsWith("+I") || e.startsWith("+U")) {
            state.put(key, value);
          } else {
            state.remove(key);
          }
        }
        assertThat(state).as("%s; resumed read: %s", what(), resumed).isEqualTo(committed);
      } else {
        Set<String> rows = new HashSet<>();
        all.forEach(e -> rows.add(e.substring(2)));
        assertThat(rows)
            .as("%s; resumed read: %s", what(), resumed)
            .containsExactlyInAnyOrderElementsOf(committed.values());
      }
    }

    private void commit() {
      List<GenericRowData> rows = new ArrayList<>();
      for (int i = 1 + rnd.nextInt(4); i > 0; i--) {
        long key = keyed ? rnd.nextInt(8) : nextKey++;
        GenericRowData row =
            GenericRowData.of(key, StringData.fromString("v" + nextValue++), rnd.nextInt(100));
        String rendered = TestTables.render(table.rowType(), row);
        keyOf.put(rendered, key);
        if (keyed && committed.containsKey(key) && rnd.nextInt(4) == 0) {
          row.setRowKind(RowKind.DELETE);
          committed.remove(key);
        } else {
          committed.put(key, rendered);
        }
        rows.add(row);
      }
      TestTables.writeBatch(table, rows);
      log.add("commit " + rows.size() + " row(s): snapshot " + table.snapshotManager().latestId());
    }

    private String what() {
      return "seed " + seed + " (" + kind + "): " + String.join("; ", log);
    }
  }
}
