package io.sediment.flink;

import io.sediment.flink.serde.LayoutTypeSerializer;
import io.sediment.flink.serde.VersionedCodec;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;

/** Records from the source to the rewrite operators: {@link CompactTaskSplitCodec}'s layout. */
public final class CompactTaskSplitSerializer extends LayoutTypeSerializer<CompactTaskSplit> {

  private static final long serialVersionUID = 1L;

  static final CompactTaskSplitSerializer INSTANCE = new CompactTaskSplitSerializer();

  private CompactTaskSplitSerializer() {}

  @Override
  protected VersionedCodec<CompactTaskSplit> codec() {
    return CompactTaskSplitCodec.INSTANCE;
  }

  @Override
  protected String what() {
    return "compaction task split";
  }

  @Override
  public TypeSerializerSnapshot<CompactTaskSplit> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Snapshot of the stateless serializer (the layout version is in every record). */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<CompactTaskSplit> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
