package io.sediment.flink.sql;

import java.util.List;
import java.util.Map;

/**
 * What a streaming read's enumerator checkpoints: the first snapshot whose changes it has not
 * planned yet, the counter that names splits, the splits planned but not yet given to a reader (in
 * order), and the splits readers hold (given out or restored, not known finished) by id, with their
 * snapshot, negated for a full read ({@link #fullRead}), from which a consumer's position comes.
 */
record StreamEnumeratorState(
    long nextSnapshotId, long splitCounter, List<StreamSplit> pending, Map<String, Long> held) {

  /**
   * How a held full-read split of {@code snapshotId} is recorded: a consumer cannot resume in it.
   */
  static long fullRead(long snapshotId) {
    return -snapshotId;
  }
}
