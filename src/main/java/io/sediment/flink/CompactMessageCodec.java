package io.sediment.flink;

import io.sediment.compact.CompactTaskResult;
import io.sediment.flink.serde.CompactTaskResultCodec;
import io.sediment.flink.serde.LegacyJava;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedCodec;
import java.io.IOException;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.SerializedThrowable;

/**
 * {@link CompactMessage}, layout 3: taskId, table, taskDescription (strings), result (optional
 * {@link CompactTaskResultCodec}), failure (optional: error class name, message (nullable), full
 * stack trace (strings), the error's Java serialization (nullable bytes)), markers (list of
 * strings).
 *
 * <p>The failure keeps its text explicitly so that a restore never depends on the error's class:
 * the Java bytes of the error (Flink's {@link SerializedThrowable} form) are only used to give the
 * committer the original exception back; when they no longer deserialize (the class changed or is
 * gone after an upgrade) the failure reads back as a {@link RestoredTaskError} with the same text.
 */
final class CompactMessageCodec implements VersionedCodec<CompactMessage> {

  static final CompactMessageCodec INSTANCE = new CompactMessageCodec();

  private CompactMessageCodec() {}

  @Override
  public void write(CompactMessage m, DataOutputView out) throws IOException {
    StateLayout.writeString(m.taskId(), out);
    StateLayout.writeString(m.table(), out);
    StateLayout.writeString(m.taskDescription(), out);
    CompactTaskResult result = m.result();
    out.writeBoolean(result != null);
    if (result != null) {
      CompactTaskResultCodec.INSTANCE.write(result, out);
    }
    SerializedThrowable failure = m.failure();
    out.writeBoolean(failure != null);
    if (failure != null) {
      StateLayout.writeString(failure.getOriginalErrorClassName(), out);
      StateLayout.writeString(failure.getMessage(), out);
      StateLayout.writeString(failure.getFullStringifiedStackTrace(), out);
      StateLayout.writeBytes(failure.getSerializedException(), out);
    }
    StateLayout.writeStrings(m.markers(), out);
  }

  @Override
  public CompactMessage read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction message");
    String taskId = StateLayout.readString(in);
    String table = StateLayout.readString(in);
    String description = StateLayout.readString(in);
    CompactTaskResult result =
        in.readBoolean() ? CompactTaskResultCodec.INSTANCE.read(in, version) : null;
    SerializedThrowable failure = null;
    if (in.readBoolean()) {
      failure =
          failure(
              StateLayout.readString(in),
              StateLayout.readString(in),
              StateLayout.readString(in),
              StateLayout.readBytes(in));
    }
    List<String> markers = StateLayout.readStrings(in);
    return new CompactMessage(taskId, table, description, result, failure, markers);
  }

  private static SerializedThrowable failure(
      String className, String message, String stackTrace, byte[] serialized) {
    if (serialized != null) {
      try {
        Throwable original = LegacyJava.read(serialized, null, "task error");
        return new SerializedThrowable(original);
      } catch (IOException | ClassCastException e) {
        // The error's class changed or is gone: keep its text.
      }
    }
    return new SerializedThrowable(new RestoredTaskError(className, message, stackTrace));
  }
}
