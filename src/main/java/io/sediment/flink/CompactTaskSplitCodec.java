package io.sediment.flink;

import io.sediment.flink.serde.CompactTaskCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedCodec;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link CompactTaskSplit}, layout 3: id (string), commitUser (string, nullable), task ({@link
 * CompactTaskCodec}).
 */
final class CompactTaskSplitCodec implements VersionedCodec<CompactTaskSplit> {

  static final CompactTaskSplitCodec INSTANCE = new CompactTaskSplitCodec();

  private CompactTaskSplitCodec() {}

  @Override
  public void write(CompactTaskSplit split, DataOutputView out) throws IOException {
    StateLayout.writeString(split.splitId(), out);
    StateLayout.writeString(split.commitUser(), out);
    CompactTaskCodec.INSTANCE.write(split.task(), out);
  }

  @Override
  public CompactTaskSplit read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction source split");
    String id = StateLayout.readString(in);
    String commitUser = StateLayout.readString(in);
    return new CompactTaskSplit(id, CompactTaskCodec.INSTANCE.read(in, version), commitUser);
  }
}
