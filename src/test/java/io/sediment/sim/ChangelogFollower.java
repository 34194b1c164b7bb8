package io.sediment.sim;

import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.table.data.RowData;

/**
 * A streaming read of a table with {@code changelog-producer} = lookup, followed from the first
 * snapshot: each change is checked against what it received before (a {@code +I} or {@code +U} only
 * for a key it does not hold, a {@code -U} or {@code -D} only of the exact row it holds), and what
 * it holds is compared with what users read whenever both describe the same rows (no level-0 file
 * left, or a deletion-vector table whose readers skip level 0 too).
 */
final class ChangelogFollower {

  private final Map<Long, String> rows = new TreeMap<>();
  private long next = 1;

  /**
   * Reads the changes of every snapshot committed since the last call. Keys several writers wrote
   * ({@link SimModel#isShared}) are followed without the checks: their versions' sequence numbers
   * tie and interleave across writers, so which version wins depends on how a compaction grouped
   * the runs, and consecutive compactions may see a different "before".
   */
  void catchUp(Table latest, SimModel model) throws IOException {
    next =
        readChanges(
            latest,
            next,
            (kind, key, value, snapshot) ->
                apply(rows, model, kind, key, value, "snapshot " + snapshot));
  }

  /** One row of a streaming read: its kind ({@code +I}, ...), key, rendered value and snapshot. */
  @FunctionalInterface
  interface ChangeSink {
    void accept(String kind, long key, String value, long snapshot);
  }

  /**
   * Reads columns {@code k, a, b} of the changes of every snapshot from {@code next} on, as a
   * streaming read does; returns the snapshot after the last one read.
   */
  static long readChanges(Table latest, long next, ChangeSink sink) throws IOException {
    ReadBuilder rb = latest.newReadBuilder().withProjection("k", "a", "b");
    var scan = rb.newStreamScan();
    TableRead read = rb.newStreamRead();
    Optional<List<DataSplit>> changes;
    while ((changes = scan.changes(next)).isPresent()) {
      for (DataSplit s : changes.get()) {
        try (TableRead.RecordReader r = read.createReader(s)) {
          RowData row;
          while ((row = r.next()) != null) {
            sink.accept(
                row.getRowKind().shortString(),
                row.getLong(0),
                TestTables.render(rb.readType(), row),
                next);
          }
        }
      }
      next++;
    }
    return next;
  }

  /**
   * Applies one change of a changelog to what a stream holds ({@code rows}, by key): a {@code
   * +I}/{@code +U} only for a key it does not hold, a {@code -U}/{@code -D} only of the row it
   * holds; keys several writers wrote ({@link SimModel#isShared}) are followed without the checks.
   * {@code where} says where the change came from, for the failure.
   */
  static void apply(
      Map<Long, String> rows, SimModel model, String kind, long key, String value, String where) {
    boolean add = kind.equals("+I") || kind.equals("+U");
    if (model.isShared(key)) {
      if (add) {
        rows.put(key, value);
      } else {
        rows.remove(key);
      }
      return;
    }
    String at = kind + value + " in " + where;
    if (add) {
      if (rows.containsKey(key)) {
        throw new AssertionError(
            "changelog: " + at + " for a key the stream holds: " + rows.get(key));
      }
      rows.put(key, value);
    } else {
      if (!value.equals(rows.get(key))) {
        throw new AssertionError(
            "changelog: " + at + " retracts another row than the stream holds: " + rows.get(key));
      }
      rows.remove(key);
    }
  }

  /**
   * Checks what the stream holds against {@code read} (what users read now, rendered as the table's
   * checks render it) when they are comparable: always on a deletion-vector table or {@code end},
   * else when the latest snapshot has no level-0 file.
   */
  void check(
      Table latest, List<String> read, SimModel model, boolean deletionVectors, boolean end) {
    if (!end && !deletionVectors && hasLevel0(latest)) {
      return;
    }
    compare(rows, read, model);
  }

  /**
   * Fails unless what a stream holds ({@code rows}, by key) is what users {@code read}. Keys
   * several writers wrote have no defined last version (their sequence numbers interleave, so an
   * order-sensitive engine's result depends on how runs were grouped): compared only by the strict
   * checks of {@link #apply}.
   */
  static void compare(Map<Long, String> rows, List<String> read, SimModel model) {
    List<String> held = new ArrayList<>();
    rows.forEach(
        (k, v) -> {
          if (!model.isShared(k)) {
            held.add(v);
          }
        });
    held.sort(null);
    List<String> sorted = new ArrayList<>();
    for (String r : read) {
      if (!model.isShared(SimModel.keyOf(r))) {
        sorted.add(r);
      }
    }
    sorted.sort(null);
    if (!held.equals(sorted)) {
      throw new AssertionError(
          "the changelog applied differs from what users read\n   stream: "
              + held
              + "\n   read:   "
              + sorted);
    }
  }

  private static boolean hasLevel0(Table t) {
    Optional<Snapshot> s = t.latestSnapshot();
    if (s.isEmpty()) {
      return false;
    }
    for (ManifestEntry e : t.store().newScan().plan(s.get())) {
      if (e.file().level() == 0) {
        return true;
      }
    }
    return false;
  }
}
