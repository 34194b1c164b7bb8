package io.sediment.sim;

import io.sediment.table.DataSplit;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * A streaming read of an append table, followed from the first snapshot: it must receive every
 * committed row exactly once, as {@code +I}, and nothing from compactions (which move rows, never
 * add them), whatever ran between two looks (crashes, restores, expiry, orphan removal, schema
 * changes).
 */
final class AppendFollower {

  private final List<String> received = new ArrayList<>();
  private long next = 1;

  /** Reads the rows of every snapshot committed since the last call. */
  void catchUp(Table latest) throws IOException {
    ReadBuilder rb = latest.newReadBuilder().withProjection("k", "a", "b");
    var scan = rb.newStreamScan();
    TableRead read = rb.newStreamRead();
    Optional<List<DataSplit>> changes;
    while ((changes = scan.changes(next)).isPresent()) {
      for (DataSplit s : changes.get()) {
        try (TableRead.RecordReader r = read.createReader(s)) {
          RowData row;
          while ((row = r.next()) != null) {
            String value = TestTables.render(rb.readType(), row);
            if (row.getRowKind() != RowKind.INSERT) {
              throw new AssertionError(
                  "stream of an append table: "
                      + row.getRowKind().shortString()
                      + value
                      + " in snapshot "
                      + next);
            }
            received.add(value);
          }
        }
      }
      next++;
    }
  }

  /** Fails unless the stream received exactly the committed rows, {@code expected} (sorted). */
  void check(List<String> expected) {
    List<String> sorted = new ArrayList<>(received);
    sorted.sort(null);
    if (!sorted.equals(expected)) {
      throw new AssertionError(
          "a streaming read of the append table received other rows than were committed\n"
              + "   stream: "
              + sorted
              + "\n   model:  "
              + expected);
    }
  }
}
