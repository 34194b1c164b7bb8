package io.sediment.compact;

import io.sediment.manifest.FileStore;

/** Compaction strategies of primary-key tables (LSM sorted runs). */
final class MergeTreeStrategies {

  private MergeTreeStrategies() {}

  static CompactPlanner.BucketStrategy forStore(FileStore store) {
    return bucket -> {
      throw new IllegalArgumentException(
          "Table "
              + bucket.table()
              + " has a primary key; compaction of primary-key tables is not available in this"
              + " build");
    };
  }
}
