package io.sediment.flink;

import io.sediment.flink.serde.LayoutTypeSerializer;
import io.sediment.flink.serde.VersionedCodec;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;

/** Records from the rewrite operators to the committer: {@link CompactMessageCodec}'s layout. */
public final class CompactMessageSerializer extends LayoutTypeSerializer<CompactMessage> {

  private static final long serialVersionUID = 1L;

  static final CompactMessageSerializer INSTANCE = new CompactMessageSerializer();

  private CompactMessageSerializer() {}

  @Override
  protected VersionedCodec<CompactMessage> codec() {
    return CompactMessageCodec.INSTANCE;
  }

  @Override
  protected String what() {
    return "compaction message";
  }

  @Override
  public TypeSerializerSnapshot<CompactMessage> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Snapshot of the stateless serializer (the layout version is in every record). */
  public static final class Snapshot extends SimpleTypeSerializerSnapshot<CompactMessage> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }
}
