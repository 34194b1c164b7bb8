package io.sediment.flink;

import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedCodec;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link CompactEnumeratorState}, layout 3: pending, held (lists of {@link CompactTaskSplitCodec
 * splits}), nextId (long), commitUser (string, nullable).
 */
final class CompactEnumeratorStateCodec implements VersionedCodec<CompactEnumeratorState> {

  static final CompactEnumeratorStateCodec INSTANCE = new CompactEnumeratorStateCodec();

  private CompactEnumeratorStateCodec() {}

  @Override
  public void write(CompactEnumeratorState state, DataOutputView out) throws IOException {
    StateLayout.writeList(state.pending(), CompactTaskSplitCodec.INSTANCE, out);
    StateLayout.writeList(state.held(), CompactTaskSplitCodec.INSTANCE, out);
    out.writeLong(state.nextId());
    StateLayout.writeString(state.commitUser(), out);
  }

  @Override
  public CompactEnumeratorState read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction enumerator state");
    return new CompactEnumeratorState(
        StateLayout.readList(in, version, CompactTaskSplitCodec.INSTANCE),
        StateLayout.readList(in, version, CompactTaskSplitCodec.INSTANCE),
        in.readLong(),
        StateLayout.readString(in));
  }
}
