package io.sediment.mergetree;

import io.sediment.manifest.FileStore;
import io.sediment.schema.TableOptions;

/** Checks shared by the compaction planner and rewriter of primary-key tables. */
public final class MergeTreeStrategies {

  private MergeTreeStrategies() {}

  /**
   * A deletion-vector table compacts only with its key lookup on local disk: rejects the compaction
   * (before anything is written) when {@code local-cache.enabled} is not true.
   */
  public static void checkCompactable(FileStore store) {
    TableOptions o = store.options();
    if (o.get(TableOptions.DELETION_VECTORS_ENABLED) && !o.get(TableOptions.LOCAL_CACHE_ENABLED)) {
      throw new IllegalStateException(
          "Compacting a deletion-vector table needs its key lookup on local disk: set"
              + " 'local-cache.enabled' = 'true' (table option or dynamic option, e.g."
              + " CompactBuilder.withOptions(Map.of(\"local-cache.enabled\", \"true\"))); nothing"
              + " was compacted or committed");
    }
  }
}
