package io.sediment.flink;

import io.sediment.compact.CompactTaskResult;
import java.io.Serializable;
import java.util.List;
import org.apache.flink.util.SerializedThrowable;

/**
 * What the rewrite operator tells the committer about one task: its result (commit message and
 * metrics) or its failure (after the task deleted its own partial output), plus the markers of the
 * outputs it wrote.
 */
public final class CompactMessage implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String taskId;
  private final String table;
  private final String taskDescription;
  private final CompactTaskResult result;
  private final SerializedThrowable failure;
  private final List<String> markers;

  CompactMessage(
      String taskId,
      String table,
      String taskDescription,
      CompactTaskResult result,
      SerializedThrowable failure,
      List<String> markers) {
    this.taskId = taskId;
    this.table = table;
    this.taskDescription = taskDescription;
    this.result = result;
    this.failure = failure;
    this.markers = List.copyOf(markers);
  }

  static CompactMessage success(
      CompactTaskSplit split, CompactTaskResult result, List<String> markers) {
    return new CompactMessage(
        split.splitId(), split.task().table(), split.task().toString(), result, null, markers);
  }

  static CompactMessage failure(CompactTaskSplit split, Throwable error, List<String> markers) {
    return new CompactMessage(
        split.splitId(),
        split.task().table(),
        split.task().toString(),
        null,
        new SerializedThrowable(error),
        markers);
  }

  public String taskId() {
    return taskId;
  }

  public String table() {
    return table;
  }

  public String taskDescription() {
    return taskDescription;
  }

  /** The result, null when the task failed. */
  public CompactTaskResult result() {
    return result;
  }

  public boolean failed() {
    return failure != null;
  }

  /** The task's error, deserialized with the user code class loader when possible. */
  public Throwable failureCause() {
    if (failure == null) {
      return null;
    }
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    return failure.deserializeError(cl == null ? getClass().getClassLoader() : cl);
  }

  /** The task's error as sent (null when the task succeeded), for serializers. */
  SerializedThrowable failure() {
    return failure;
  }

  public List<String> markers() {
    return markers;
  }

  @Override
  public String toString() {
    return "CompactMessage{" + taskId + ", " + taskDescription + (failed() ? ", FAILED" : "") + "}";
  }
}
