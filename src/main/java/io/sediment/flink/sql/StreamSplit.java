package io.sediment.flink.sql;

import io.sediment.table.DataSplit;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A split of a streaming read: a {@link DataSplit} (a snapshot read in full, part of the read's
 * start; or the changes one snapshot made to one bucket) and how many of its rows were already
 * emitted.
 */
record StreamSplit(String id, DataSplit split, long position) implements SourceSplit {

  /** A split of the read's start: a snapshot read in full. */
  static StreamSplit ofStart(String id, DataSplit split) {
    if (split.isChanges() || split.isChangelog()) {
      throw new IllegalArgumentException(
          "Split " + id + " of a start reads changes of snapshot " + split.snapshotId());
    }
    return new StreamSplit(id, split, 0);
  }

  /** A split of one snapshot's changes or changelog files, planned after the start. */
  static StreamSplit ofChanges(String id, DataSplit split) {
    if (!split.isChanges() && !split.isChangelog()) {
      throw new IllegalArgumentException(
          "Split " + id + " reads snapshot " + split.snapshotId() + " in full: only a start does");
    }
    return new StreamSplit(id, split, 0);
  }

  @Override
  public String splitId() {
    return id;
  }

  StreamSplit at(long position) {
    return new StreamSplit(id, split, position);
  }

  /** Whether this split is part of the read's start (a snapshot read in full). */
  boolean start() {
    return !split.isChanges() && !split.isChangelog();
  }

  /**
   * What a reader holding this split, not finished, leaves a consumer ({@code consumer-id}): its
   * snapshot, a read resuming there reads that snapshot's changes again; or, for a split of the
   * start, the snapshot negated ({@link StreamEnumeratorState#fullRead}): a read resuming at any
   * snapshot's changes would lose the start's rows still to come, so it reads the start again.
   * Enumerator and readers both use this, so a reader's report never undoes the enumerator's.
   */
  long heldAs() {
    long snapshot = split.snapshotId();
    return start() ? StreamEnumeratorState.fullRead(snapshot) : snapshot;
  }
}
