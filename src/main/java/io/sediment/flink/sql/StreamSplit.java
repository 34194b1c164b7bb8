package io.sediment.flink.sql;

import io.sediment.table.DataSplit;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a streaming read: a {@link DataSplit} (a snapshot read in full, or the changes one
 * snapshot made to one bucket), how many of its rows were already emitted, and whether it is part
 * of the read's start (the start snapshot in full, and on a deletion-vector table its level-0 files
 * as changes after it: rows of many snapshots up to the start one).
 */
record StreamSplit(String id, DataSplit split, long position, boolean start)
    implements SourceSplit {

  StreamSplit {
    if (!start && !split.isChanges() && !split.isChangelog()) {
      throw new IllegalArgumentException(
          "Split " + id + " reads snapshot " + split.snapshotId() + " in full: only a start does");
    }
  }

  /** A split of the read's start. */
  static StreamSplit ofStart(String id, DataSplit split) {
    return new StreamSplit(id, split, 0, true);
  }

  /** A split of one snapshot's changes or changelog files, planned after the start. */
  static StreamSplit ofChanges(String id, DataSplit split) {
    return new StreamSplit(id, split, 0, false);
  }

  @Override
  public String splitId() {
    return id;
  }

  StreamSplit at(long position) {
    return new StreamSplit(id, split, position, start);
  }

  /**
   * What a reader holding this split, not finished, leaves a consumer ({@code consumer-id}): its
   * snapshot, a read resuming there reads that snapshot's changes again; or, for a split of the
   * start, the snapshot negated ({@link StreamEnumeratorState#fullRead}): no position, since
   * resuming at any snapshot would read its changes, not the rows of the start still to come.
   * Enumerator and readers both use this, so a reader's report never undoes the enumerator's.
   */
  long heldAs() {
    long snapshot = split.snapshotId();
    return start ? StreamEnumeratorState.fullRead(snapshot) : snapshot;
  }
}
