package io.sediment.compact;

import java.io.Serializable;
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
    long filesBefore = 0;
    long filesAfter = 0;
    long bytesBefore = 0;
    long bytesAfter = 0;
    long rowsRead = 0;
    long rowsWritten = 0;
    for (CompactTaskResult r : results) {
      filesBefore += r.filesRead();
      filesAfter += r.filesWritten();
      bytesBefore += r.bytesRead();
      bytesAfter += r.bytesWritten();
      rowsRead += r.rowsRead();
      rowsWritten += r.rowsWritten();
    }
    return new CompactResult(
        results.size(),
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
