package io.sediment.flink;

import io.sediment.compact.CompactTask;
import io.sediment.manifest.DataFileMeta;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A compaction task handed out by the source, with the id the enumerator gave it. The source emits
 * splits as records, so the committer can tell the enumerator which tasks finished.
 */
public final class CompactTaskSplit implements SourceSplit, Serializable, TaskLedger.Task {

  private static final long serialVersionUID = 1L;

  private final String id;
  private final CompactTask task;
  private final String commitUser;

  /**
   * @param commitUser the job's commit user, kept in the enumerator's state: rewrite operators
   *     write the output markers of the task under it, so after a restore (even into a resubmitted
   *     job) markers, releases and the committer all use the user of the restored state
   */
  public CompactTaskSplit(String id, CompactTask task, String commitUser) {
    this.id = id;
    this.task = task;
    this.commitUser = commitUser;
  }

  public String commitUser() {
    return commitUser;
  }

  @Override
  public String splitId() {
    return id;
  }

  public CompactTask task() {
    return task;
  }

  @Override
  public List<String> inputFileNames() {
    return inputFileNames(task);
  }

  /**
   * Names of the files a task replaces (its inputs; none for the sort ranges after the first of a
   * bucket, which only read the files range 0 replaces: sort compaction is batch only, planned
   * once, so nothing re-plans the files while those ranges read them).
   */
  static List<String> inputFileNames(CompactTask task) {
    List<String> names = new ArrayList<>(task.replacedInputs().size());
    for (DataFileMeta f : task.replacedInputs()) {
      names.add(f.fileName());
    }
    return names;
  }

  /**
   * Tasks that must not run beside another task of their bucket: merges of sorted runs. Append
   * rewrites and the ranges of a sort compaction run side by side.
   */
  @Override
  public boolean bucketExclusive() {
    return task.kind() == CompactTask.Kind.MERGE_TREE;
  }

  @Override
  public String bucketKey() {
    return task.table() + "/" + task.partitionPath() + "/" + task.bucket();
  }

  @Override
  public String toString() {
    return id + ":" + task;
  }
}
