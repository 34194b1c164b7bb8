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

  /** Names of a task's input files. */
  static List<String> inputFileNames(CompactTask task) {
    List<String> names = new ArrayList<>(task.inputs().size());
    for (DataFileMeta f : task.inputs()) {
      names.add(f.fileName());
    }
    return names;
  }

  /** Tasks that must not run beside another task of their bucket (all but append rewrites). */
  @Override
  public boolean bucketExclusive() {
    return task.kind() != CompactTask.Kind.APPEND_REWRITE;
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
