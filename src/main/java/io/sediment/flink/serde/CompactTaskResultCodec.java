package io.sediment.flink.serde;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link CompactTaskResult}, layout 3: task ({@link CompactTaskCodec}), message ({@link
 * CommitMessageCodec}), rowsRead, rowsWritten, bytesRead, bytesWritten, durationMillis (long).
 */
public final class CompactTaskResultCodec implements VersionedCodec<CompactTaskResult> {

  public static final CompactTaskResultCodec INSTANCE = new CompactTaskResultCodec();

  private CompactTaskResultCodec() {}

  @Override
  public void write(CompactTaskResult r, DataOutputView out) throws IOException {
    CompactTaskCodec.INSTANCE.write(r.task(), out);
    CommitMessageCodec.INSTANCE.write(r.message(), out);
    out.writeLong(r.rowsRead());
    out.writeLong(r.rowsWritten());
    out.writeLong(r.bytesRead());
    out.writeLong(r.bytesWritten());
    out.writeLong(r.durationMillis());
  }

  @Override
  public CompactTaskResult read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction task result");
    CompactTask task = CompactTaskCodec.INSTANCE.read(in, version);
    CommitMessage message = CommitMessageCodec.INSTANCE.read(in, version);
    return new CompactTaskResult(
        task, message, in.readLong(), in.readLong(), in.readLong(), in.readLong(), in.readLong());
  }
}
