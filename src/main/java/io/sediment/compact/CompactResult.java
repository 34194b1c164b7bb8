package io.sediment.compact;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What a compaction did: the number of tasks and the commit's write metrics. {@code snapshotId} is
 * null when nothing was committed (no task planned).
 */
public record CompactResult(
    int tasks,
    Long snapshotId,
    long filesBefore,
    long filesAfter,
    long bytesBefore,
    long bytesAfter,
    long rowsRead,
    long rowsWritten,
    long durationMs)
    implements Serializable {

  /** A compaction that planned no task and committed nothing. */
  public static CompactResult nothing(long durationMs) {
    return new CompactResult(0, null, 0, 0, 0, 0, 0, 0, durationMs);
  }

  /** Sums task results into the metrics of one commit. */
  public static CompactResult of(
      List<CompactTaskResult> results, Long snapshotId, long durationMs) {
    List<CompactResult> perTask = new ArrayList<>(results.size());
    for (CompactTaskResult r : results) {
      perTask.add(
          new CompactResult(
              1,
              null,
              r.filesRead(),
              r.filesWritten(),
              r.bytesRead(),
              r.bytesWritten(),
              r.rowsRead(),
              r.rowsWritten(),
              0));
    }
    CompactResult sum = sum(perTask, durationMs);
    return new CompactResult(
        sum.tasks,
        snapshotId,
        sum.filesBefore,
        sum.filesAfter,
        sum.bytesBefore,
        sum.bytesAfter,
        sum.rowsRead,
        sum.rowsWritten,
        durationMs);
  }

  /**
   * Adds results up (e.g. the commits of one job): tasks and metrics are summed, the snapshot is
   * the last one committed (null if none was). No result is {@link #nothing}.
   */
  public static CompactResult sum(List<CompactResult> results, long durationMs) {
    if (results == null || results.isEmpty()) {
      return nothing(durationMs);
    }
    int tasks = 0;
    Long snapshotId = null;
    long filesBefore = 0;
    long filesAfter = 0;
    long bytesBefore = 0;
    long bytesAfter = 0;
    long rowsRead = 0;
    long rowsWritten = 0;
    for (CompactResult r : results) {
      tasks += r.tasks;
      if (r.snapshotId != null) {
        snapshotId = r.snapshotId;
      }
      filesBefore += r.filesBefore;
      filesAfter += r.filesAfter;
      bytesBefore += r.bytesBefore;
      bytesAfter += r.bytesAfter;
      rowsRead += r.rowsRead;
      rowsWritten += r.rowsWritten;
    }
    return new CompactResult(
        tasks,
        snapshotId,
        filesBefore,
        filesAfter,
        bytesBefore,
        bytesAfter,
        rowsRead,
        rowsWritten,
        durationMs);
  }

  /** The result as one JSON object (the form `sediment compact --json` prints). */
  public String toJson() {
    return "{\"tasks\":"
        + tasks
        + ",\"snapshotId\":"
        + snapshotId
        + ",\"filesBefore\":"
        + filesBefore
        + ",\"filesAfter\":"
        + filesAfter
        + ",\"bytesBefore\":"
        + bytesBefore
        + ",\"bytesAfter\":"
        + bytesAfter
        + ",\"rowsRead\":"
        + rowsRead
        + ",\"rowsWritten\":"
        + rowsWritten
        + ",\"durationMs\":"
        + durationMs
        + "}";
  }
}
