package io.sediment.flink.sql;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A streaming SQL write under unaligned checkpoints, refused as Paimon's sink refuses it (when the
 * job is planned, when its committer starts, and when a window of an unaligned checkpoint's
 * in-flight data reaches the committer after a restore): a writer sends its window's files just
 * before its checkpoint's barrier, which an unaligned barrier may overtake, so the committer could
 * take and complete the checkpoint with part of the window, commit that part under the window's
 * identifier, and then skip the rest as already committed. No restart changes the job's
 * configuration, so Flink fails the job at once (a non-recoverable error).
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class UnalignedCheckpointsRefused extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UnalignedCheckpointsRefused(String tableName) {
    super(message(tableName));
  }

  /**
   * A writer's window of checkpoint {@code window} came after the committer took checkpoint {@code
   * taken}: in-flight data of an unaligned checkpoint (restored, or taken with unaligned
   * checkpoints on). A restart would replay it again.
   */
  UnalignedCheckpointsRefused(String tableName, long window, long taken) {
    super(
        "A writer's files of checkpoint "
            + window
            + " reached the committer of "
            + tableName
            + " after it took checkpoint "
            + taken
            + ": they were in flight at an unaligned checkpoint (one this job was restored from,"
            + " or one taken with unaligned checkpoints on), and cannot be committed whole. Restore"
            + " the job from a savepoint, or from a checkpoint taken with aligned checkpoints;"
            + " nothing of them was committed");
  }

  /** The refusal's text, also used when the sink is planned. */
  static String message(String tableName) {
    return "A streaming write into "
        + tableName
        + " needs aligned checkpoints, as Paimon's sink does: with unaligned ones a window's"
        + " files may still be on their way to the committer when their checkpoint completes, and"
        + " would not be committed. Set execution.checkpointing.unaligned.enabled to false;"
        + " nothing was written";
  }
}
