package io.sediment.sim;

import io.sediment.table.Table;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

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
    next =
        ChangelogFollower.readChanges(
            latest,
            next,
            (kind, key, value, snapshot) -> {
              if (!kind.equals("+I")) {
                throw new AssertionError(
                    "stream of an append table: " + kind + value + " in snapshot " + snapshot);
              }
              received.add(value);
            });
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
