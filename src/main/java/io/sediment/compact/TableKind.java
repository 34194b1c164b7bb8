package io.sediment.compact;

import io.sediment.io.OutputObserver;
import io.sediment.manifest.FileStore;
import io.sediment.schema.CompactionOptions;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;

/**
 * The two kinds of table and how each is compacted. An append table (no primary key) keeps rows in
 * write order and compacts by concatenating small files; a primary-key table keeps LSM sorted runs
 * and compacts by merging runs with its merge engine. This is the one place compaction chooses
 * between them: the planner's strategy and the rewriter of tasks.
 */
public enum TableKind {
  APPEND {
    @Override
    public CompactPlanner.BucketStrategy compactStrategy(
        FileStore store, CompactStrategy strategy) {
      return new AppendCompactStrategy(
          store.options(), strategy == CompactStrategy.FULL, store.clock());
    }

    @Override
    public CompactRewriter rewriter(FileStore store, OutputObserver observer) {
      CompactRewriter append = new AppendCompactRewriter(store, observer);
      CompactRewriter sort = new SortCompactRewriter(store, observer);
      return (task, cancelled) ->
          task.kind() == CompactTask.Kind.SORT_REWRITE
              ? sort.rewrite(task, cancelled)
              : append.rewrite(task, cancelled);
    }
  },

  PRIMARY_KEY {
    @Override
    public CompactPlanner.BucketStrategy compactStrategy(
        FileStore store, CompactStrategy strategy) {
      checkCompactable(store);
      return new UniversalCompaction(store, strategy == CompactStrategy.FULL);
    }

    @Override
    public CompactRewriter rewriter(FileStore store, OutputObserver observer) {
      checkCompactable(store);
      return new MergeTreeCompactRewriter(store, observer);
    }
  };

  public static TableKind of(TableSchema schema) {
    return schema.hasPrimaryKey() ? PRIMARY_KEY : APPEND;
  }

  public static TableKind of(FileStore store) {
    return of(store.schema());
  }

  /**
   * Decides which files of each bucket to compact as a writer's own compaction does: minor, or full
   * when {@code compaction.full} is set.
   */
  public CompactPlanner.BucketStrategy compactStrategy(FileStore store) {
    return compactStrategy(
        store,
        store.options().get(CompactionOptions.COMPACTION_FULL)
            ? CompactStrategy.FULL
            : CompactStrategy.MINOR);
  }

  /** Decides which files of each bucket {@code strategy} compacts (universal for primary keys). */
  public abstract CompactPlanner.BucketStrategy compactStrategy(
      FileStore store, CompactStrategy strategy);

  /**
   * Runs compaction tasks of a table of this kind; every output file is announced to {@code
   * observer} before it is created.
   */
  public abstract CompactRewriter rewriter(FileStore store, OutputObserver observer);

  /**
   * A deletion-vector table compacts only with its key lookup on local disk: rejects the compaction
   * (before anything is written) when {@code local-cache.enabled} is not true.
   */
  public static void checkCompactable(FileStore store) {
    TableOptions o = store.options();
    if (o.get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED)
        && !o.get(PrimaryKeyOptions.LOCAL_CACHE_ENABLED)) {
      throw new IllegalStateException(
          "Compacting a deletion-vector table needs its key lookup on local disk: set"
              + " 'local-cache.enabled' = 'true' (table option or dynamic option, e.g."
              + " CompactBuilder.withOptions(Map.of(\"local-cache.enabled\", \"true\"))); nothing"
              + " was compacted or committed");
    }
  }
}
