package io.sediment.compact;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * One unit of compaction work, self-contained and serializable: which table, partition and bucket,
 * which input files (in the order their rows are to be read), the level the output goes to, and the
 * kind of rewrite, and the id of the snapshot it was planned from (its base). Produced by a {@link
 * CompactPlanner}, run by a {@link CompactRewriter}.
 *
 * <p>In Flink state and records a task is written by {@code
 * io.sediment.flink.serde.CompactTaskCodec} (an explicit, versioned layout). The Java serialization
 * ({@code serialVersionUID} 1) is kept only to read state of layout versions 1 and 2: version 1 had
 * no base snapshot id; such a task reads back with the base unknown. Do not change the fields' Java
 * form.
 */
public final class CompactTask implements Serializable {

  private static final long serialVersionUID = 1L;

  /** How the inputs are rewritten. */
  public enum Kind {
    /** Append table: concatenate the inputs' rows in order into files of the target size. */
    APPEND_REWRITE,
    /** Primary-key table: merge sorted runs by key with the merge engine. */
    MERGE_TREE,
    /**
     * Append table, sort compaction: the inputs' rows in one {@link SortRange}, sorted by its
     * order; the tasks of a bucket's ranges share their inputs, only range 0 replaces them.
     */
    SORT_REWRITE
  }

  private final String table;
  private transient BinaryRowData partition;
  private final String partitionPath;
  private final int bucket;
  private final int totalBuckets;
  private final List<DataFileMeta> inputs;
  private final int outputLevel;
  private final Kind kind;
  private final boolean dropDeletes;

  /**
   * Deletion-vector tables: write retractions to the output even where older versions were found
   * and marked ({@link #keepingDeletes}). Only a writer's own tasks set it; never in state.
   */
  private final transient boolean keepRetracts;

  /** Null: unknown (planned without a snapshot, or a task of serialized version 1). */
  private final Long baseSnapshotId;

  /** The share of a sort compaction ({@link Kind#SORT_REWRITE} only); in state by the codec. */
  private final transient SortRange sortRange;

  /**
   * Bytes of the files outside its inputs that the task's rewrite reads, as planned ({@link
   * #lookingUpIn}); 0 when not known. Only its planner uses it; never in state.
   */
  private final transient long lookupBytes;

  /**
   * The bucket as the writer of an overwrite sees it (its own files only), which its rewrite looks
   * keys up in instead of the latest snapshot's files ({@link #lookingUpOnlyIn}); null: the
   * snapshot's. Only such a writer's own tasks set it; never in state.
   */
  private final transient List<DataFileMeta> ownBucketFiles;

  /** A task whose base snapshot is not known (yet): see {@link #withBaseSnapshotId}. */
  public CompactTask(
      String table,
      BinaryRowData partition,
      String partitionPath,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> inputs,
      int outputLevel,
      Kind kind,
      boolean dropDeletes) {
    this(
        table,
        partition,
        partitionPath,
        bucket,
        totalBuckets,
        inputs,
        outputLevel,
        kind,
        dropDeletes,
        OptionalLong.empty());
  }

  public CompactTask(
      String table,
      BinaryRowData partition,
      String partitionPath,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> inputs,
      int outputLevel,
      Kind kind,
      boolean dropDeletes,
      OptionalLong baseSnapshotId) {
    this(
        table,
        partition,
        partitionPath,
        bucket,
        totalBuckets,
        inputs,
        outputLevel,
        kind,
        dropDeletes,
        baseSnapshotId,
        null);
  }

  /** A task of any kind; {@code sortRange} is given exactly for {@link Kind#SORT_REWRITE} tasks. */
  public CompactTask(
      String table,
      BinaryRowData partition,
      String partitionPath,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> inputs,
      int outputLevel,
      Kind kind,
      boolean dropDeletes,
      OptionalLong baseSnapshotId,
      SortRange sortRange) {
    if ((kind == Kind.SORT_REWRITE) != (sortRange != null)) {
      throw new IllegalArgumentException(
          "A sort range is given with sort tasks only, got kind " + kind + " and " + sortRange);
    }
    this.sortRange = sortRange;
    this.table = table;
    this.partition = partition;
    this.partitionPath = partitionPath;
    this.bucket = bucket;
    this.totalBuckets = totalBuckets;
    this.inputs = List.copyOf(inputs);
    this.outputLevel = outputLevel;
    this.kind = kind;
    this.dropDeletes = dropDeletes;
    this.keepRetracts = false;
    this.baseSnapshotId = baseSnapshotId.isPresent() ? baseSnapshotId.getAsLong() : null;
    this.lookupBytes = 0;
    this.ownBucketFiles = null;
  }

  /** The same task, planned from snapshot {@code id}. */
  public CompactTask withBaseSnapshotId(long id) {
    return new CompactTask(
        table,
        partition,
        partitionPath,
        bucket,
        totalBuckets,
        inputs,
        outputLevel,
        kind,
        dropDeletes,
        OptionalLong.of(id),
        sortRange);
  }

  /**
   * The same task, keeping deletes (retractions) in its output whatever its level, also on a
   * deletion-vector table where older versions it finds in other levels are marked: older versions
   * of its keys may still be on their way into the bucket (a writer's rows not yet committed), and
   * must meet the delete when they are compacted.
   */
  public CompactTask keepingDeletes() {
    return new CompactTask(this, false, true, lookupBytes, ownBucketFiles);
  }

  /**
   * The same task, looking its keys up only in {@code bucketFiles} (the {@linkplain #lookupFiles
   * files of levels >= 1 among them}), never in the table's: the task of a writer that ignores the
   * table's files (an overwrite's, which replaces them), whose base is its own.
   */
  public CompactTask lookingUpOnlyIn(Collection<DataFileMeta> bucketFiles) {
    return new CompactTask(this, dropDeletes, keepRetracts, lookupBytes, List.copyOf(bucketFiles));
  }

  /** See {@link #lookingUpOnlyIn}; null: the files of the snapshot the rewrite runs on. */
  public List<DataFileMeta> ownBucketFiles() {
    return ownBucketFiles;
  }

  /**
   * The same task, knowing that its rewrite also reads the {@linkplain #lookupFiles files it looks
   * its keys up in} among {@code bucketFiles} (the bucket it was planned from).
   */
  public CompactTask lookingUpIn(Collection<DataFileMeta> bucketFiles) {
    long bytes = 0;
    for (DataFileMeta f : lookupFiles(bucketFiles)) {
      bytes += f.fileSize();
    }
    return new CompactTask(this, dropDeletes, keepRetracts, bytes, ownBucketFiles);
  }

  private CompactTask(
      CompactTask t,
      boolean dropDeletes,
      boolean keepRetracts,
      long lookupBytes,
      List<DataFileMeta> ownBucketFiles) {
    this.table = t.table;
    this.partition = t.partition;
    this.partitionPath = t.partitionPath;
    this.bucket = t.bucket;
    this.totalBuckets = t.totalBuckets;
    this.inputs = t.inputs;
    this.outputLevel = t.outputLevel;
    this.kind = t.kind;
    this.dropDeletes = dropDeletes;
    this.keepRetracts = keepRetracts;
    this.baseSnapshotId = t.baseSnapshotId;
    this.sortRange = t.sortRange;
    this.lookupBytes = lookupBytes;
    this.ownBucketFiles = ownBucketFiles;
  }

  /** Whether retractions are written even where older versions were found (see above). */
  public boolean keepRetracts() {
    return keepRetracts;
  }

  /** The id of the snapshot the task was planned from; empty when unknown. */
  public OptionalLong baseSnapshotId() {
    return baseSnapshotId == null ? OptionalLong.empty() : OptionalLong.of(baseSnapshotId);
  }

  /** Full name ({@code db.table}) of the table the task belongs to. */
  public String table() {
    return table;
  }

  public BinaryRowData partition() {
    return partition;
  }

  /** The partition as a path ({@code k=v/...}), "" when unpartitioned; for display. */
  public String partitionPath() {
    return partitionPath;
  }

  public int bucket() {
    return bucket;
  }

  public int totalBuckets() {
    return totalBuckets;
  }

  /** The files the task reads, in order. */
  public List<DataFileMeta> inputs() {
    return inputs;
  }

  /**
   * The files the task's commit removes: its inputs, except for the sort ranges after the first of
   * a bucket, which read them only (range 0 replaces them).
   */
  public List<DataFileMeta> replacedInputs() {
    return sortRange == null || sortRange.replacesInputs() ? inputs : List.of();
  }

  /** Bytes of the {@link #replacedInputs()}. */
  public long replacedBytes() {
    long sum = 0;
    for (DataFileMeta f : replacedInputs()) {
      sum += f.fileSize();
    }
    return sum;
  }

  /** The share of a sort compaction this task writes; empty for other kinds. */
  public Optional<SortRange> sortRange() {
    return Optional.ofNullable(sortRange);
  }

  public int outputLevel() {
    return outputLevel;
  }

  public Kind kind() {
    return kind;
  }

  /** Whether deletions may be dropped (the output is the oldest data of its bucket). */
  public boolean dropDeletes() {
    return dropDeletes;
  }

  public long inputBytes() {
    long sum = 0;
    for (DataFileMeta f : inputs) {
      sum += f.fileSize();
    }
    return sum;
  }

  /**
   * Of a bucket's files, those a merge of this task looks its keys up in (deletion vectors: to mark
   * older versions deleted; the lookup changelog producer: to find the values before): the files at
   * levels >= 1 that are not its inputs. Its planner counts them from the bucket it planned from,
   * its rewriter reads them from the snapshot it runs on.
   */
  public List<DataFileMeta> lookupFiles(Collection<DataFileMeta> bucketFiles) {
    Set<String> names = new HashSet<>();
    for (DataFileMeta f : inputs) {
      names.add(f.fileName());
    }
    List<DataFileMeta> out = new ArrayList<>();
    for (DataFileMeta f : bucketFiles) {
      if (f.level() > 0 && !names.contains(f.fileName())) {
        out.add(f);
      }
    }
    return out;
  }

  /** Bytes of the bucket's files outside the inputs the rewrite reads, as planned; 0: unknown. */
  public long lookupBytes() {
    return lookupBytes;
  }

  /**
   * What the rewrite reads, as far as its planner knew: {@link #inputBytes()} and {@link
   * #lookupBytes()}.
   */
  public long readBytes() {
    return inputBytes() + lookupBytes;
  }

  public long inputRows() {
    long sum = 0;
    for (DataFileMeta f : inputs) {
      sum += f.rowCount();
    }
    return sum;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, partition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    partition = BinaryRows.readRow(in);
  }

  @Override
  public String toString() {
    return "CompactTask{"
        + table
        + (partitionPath.isEmpty() ? "" : "/" + partitionPath)
        + ", bucket="
        + bucket
        + ", "
        + kind
        + ", inputs="
        + inputs.size()
        + ", bytes="
        + inputBytes()
        + (sortRange == null ? "" : ", " + sortRange)
        + ", outputLevel="
        + outputLevel
        + ", base="
        + (baseSnapshotId == null ? "unknown" : baseSnapshotId)
        + "}";
  }
}
