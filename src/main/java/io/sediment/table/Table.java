package io.sediment.table;

import io.sediment.commit.SnapshotCommits;
import io.sediment.compact.CompactBuilder;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.schema.TableOptions;
import io.sediment.schema.TableSchema;
import java.io.Serializable;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.table.types.logical.RowType;

/**
 * A table of a warehouse: write with {@link #newBatchWriteBuilder()} or {@link
 * #newStreamWriteBuilder()}, read with {@link #newReadBuilder()}. Instances are cheap, immutable
 * views; {@link #copy(Map)} lays dynamic options over the table's own.
 */
public final class Table implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String fullName;
  private final FileStore store;

  public Table(String fullName, FileStore store) {
    this.fullName = fullName;
    this.store = store;
  }

  /** {@code db.table}. */
  public String fullName() {
    return fullName;
  }

  public TableSchema schema() {
    return store.schema();
  }

  public RowType rowType() {
    return store.rowType();
  }

  public TableOptions options() {
    return store.options();
  }

  public FileStore store() {
    return store;
  }

  public SnapshotManager snapshotManager() {
    return store.snapshotManager();
  }

  public Optional<Snapshot> latestSnapshot() {
    return snapshotManager().latest();
  }

  /** This table with dynamic options laid over its own; validated like table options. */
  public Table copy(Map<String, String> dynamicOptions) {
    TableOptions options = store.options().with(dynamicOptions);
    TableSchema.checkPartitionTime(options.toMap(), schema().partitionKeys());
    TableSchema.checkFieldOptions(options, schema().fieldNames());
    return new Table(fullName, store.withOptions(options));
  }

  /**
   * This table on another clock: every decision on time about it (idle partitions, compaction
   * triggers, retention, orphan age) reads {@code clock}, see {@link FileStore#clock()}. For tests,
   * which move a clock instead of waiting.
   */
  public Table withClock(Clock clock) {
    return new Table(fullName, store.withClock(clock));
  }

  /**
   * A batch writer. Like the other writers and {@link #newCompactBuilder()}, refuses a table whose
   * commits would not be safe (an object store without a commit lock, {@link SnapshotCommits}).
   */
  public WriteBuilder newBatchWriteBuilder() {
    SnapshotCommits.checkCommitSafe(store);
    return new WriteBuilder(store, false);
  }

  public WriteBuilder newStreamWriteBuilder() {
    SnapshotCommits.checkCommitSafe(store);
    return new WriteBuilder(store, true);
  }

  public ReadBuilder newReadBuilder() {
    return new ReadBuilder(store);
  }

  /** Plans, runs and commits compaction of this table in-process. */
  public CompactBuilder newCompactBuilder() {
    SnapshotCommits.checkCommitSafe(store);
    return new CompactBuilder(store, fullName);
  }

  @Override
  public String toString() {
    return "Table{" + fullName + "}";
  }
}
