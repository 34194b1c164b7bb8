package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitMessage;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream's start on a deletion-vector table (changelog producer none or input) reads level 0 too,
 * which batch reads leave out. A stream writer whose windows commit a checkpoint late compacts a
 * window while the one before is in flight, so level 0 can hold a version older than a compacted
 * one: the start must merge level 0 over the levels, by sequence, and with a filter must not prune
 * the file of a newer version by its values (the older level-0 one would then win).
 *
 * <p>Generated histories of such a writer (windows of a few upserts and deletes, committed in
 * order, zero to two windows late); after every commit, the start with and without a filter on the
 * value column must equal the committed rows (by write order).
 */
class DeletionVectorStreamStartTest {

  @TempDir Path dir;

  @Test
  void aStartReadsEveryKeysNewestVersionWhateverLevel0Holds() throws Exception {
    for (int seed = 0; seed < 24; seed++) {
      Random rnd = new Random(seed);
      String producer = seed % 2 == 0 ? "none" : "input";
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("s" + seed)),
              "t",
              TestTables.idValueSchema()
                  .primaryKey("id")
                  .option("bucket", "1")
                  .option("deletion-vectors.enabled", "true")
                  .option("changelog-producer", producer)
                  .option("num-sorted-run.compaction-trigger", String.valueOf(1 + rnd.nextInt(3)))
                  .option("local-cache.dir", dir.resolve("cache" + seed).toString())
                  .build());
      WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("writer");
      TableCommit commit = wb.newCommit();
      Map<Long, String> committed = new TreeMap<>();
      ArrayDeque<List<GenericRowData>> inFlightRows = new ArrayDeque<>();
      ArrayDeque<List<CommitMessage>> inFlight = new ArrayDeque<>();
      List<String> log = new ArrayList<>();
      long window = 0;
      int value = 0;
      try (TableWrite w = wb.newWrite()) {
        for (int step = 0; step < 30; step++) {
          if (inFlight.size() < 3 && (inFlight.isEmpty() || rnd.nextBoolean())) {
            List<GenericRowData> rows = new ArrayList<>();
            for (int i = 1 + rnd.nextInt(3); i > 0; i--) {
              GenericRowData r =
                  GenericRowData.of((long) rnd.nextInt(4), StringData.fromString("v" + value++));
              if (rnd.nextInt(5) == 0) {
                r.setRowKind(RowKind.DELETE);
              }
              w.write(r);
              rows.add(r);
            }
            inFlight.add(w.prepareCommit());
            inFlightRows.add(rows);
            log.add("window " + rows);
          } else {
            commit.commit(++window, inFlight.poll());
            for (GenericRowData r : inFlightRows.poll()) {
              if (r.getRowKind() == RowKind.DELETE) {
                committed.remove(r.getLong(0));
              } else {
                committed.put(r.getLong(0), r.getString(1).toString());
              }
            }
            log.add("commit " + window);
            String what = "seed " + seed + " (" + producer + "): " + String.join("; ", log);
            assertThat(start(t, null)).as(what).isEqualTo(committed);
            String v = "v" + rnd.nextInt(Math.max(1, value));
            Map<Long, String> matching = new TreeMap<>(committed);
            matching.values().removeIf(x -> !x.equals(v));
            assertThat(start(t, new PredicateBuilder(t.rowType()).equalText("v", v)))
                .as("%s; filter v = %s", what, v)
                .isEqualTo(matching);
            // a DELETE's or UPDATE's batch read (ReadBuilder.withLevel0) sees the same rows
            assertThat(withLevel0(t, null)).as("%s; with level 0", what).isEqualTo(committed);
            assertThat(withLevel0(t, new PredicateBuilder(t.rowType()).equalText("v", v)))
                .as("%s; with level 0, filter v = %s", what, v)
                .isEqualTo(matching);
          }
        }
      }
    }
  }

  /** The rows a batch read with level 0 gives ({@link ReadBuilder#withLevel0}), by key. */
  private static Map<Long, String> withLevel0(Table t, Predicate filter) {
    ReadBuilder rb = t.newReadBuilder().withLevel0();
    if (filter != null) {
      rb.withFilter(filter);
    }
    Map<Long, String> rows = new TreeMap<>();
    try {
      for (RowData row : rb.newRead().readAll(rb.newScan().plan().splits())) {
        assertThat(rows.put(row.getLong(0), row.getString(1).toString()))
            .as("key %s read once", row.getLong(0))
            .isNull();
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return rows;
  }

  /** The rows a stream's start gives, applied in order by key. */
  private static Map<Long, String> start(Table t, Predicate filter) throws Exception {
    ReadBuilder rb = filter == null ? t.newReadBuilder() : t.newReadBuilder().withFilter(filter);
    Map<Long, String> state = new TreeMap<>();
    TableRead read = rb.newStreamRead();
    for (DataSplit s : rb.newStreamScan().start().splits()) {
      TableRead.RecordReader r = read.createReader(s);
      try {
        RowData row;
        while ((row = r.next()) != null) {
          if (row.getRowKind() == RowKind.DELETE || row.getRowKind() == RowKind.UPDATE_BEFORE) {
            state.remove(row.getLong(0));
          } else {
            state.put(row.getLong(0), row.getString(1).toString());
          }
        }
      } finally {
        r.close();
      }
    }
    return state;
  }
}
