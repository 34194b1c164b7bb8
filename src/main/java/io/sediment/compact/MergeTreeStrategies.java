package io.sediment.compact;

import io.sediment.manifest.FileStore;
import io.sediment.mergetree.UniversalCompaction;

/** Compaction strategies of primary-key tables (LSM sorted runs): universal compaction. */
final class MergeTreeStrategies {

  private MergeTreeStrategies() {}

  static CompactPlanner.BucketStrategy forStore(FileStore store) {
    io.sediment.mergetree.MergeTreeStrategies.checkCompactable(store);
    return new UniversalCompaction(store);
  }
}
