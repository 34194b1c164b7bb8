package io.sediment.flink.serde;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * A {@link SimpleVersionedSerializer} (source splits, enumerator checkpoints) writing the current
 * explicit layout of a {@link VersionedCodec}; Flink stores {@link #getVersion()} beside the bytes.
 * Reads versions 1 and 2 (Java serialization) and every explicit layout.
 */
public final class VersionedStateSerializer<T> implements SimpleVersionedSerializer<T> {

  private final VersionedCodec<T> codec;
  private final String what;

  /**
   * @param what what the bytes are, for error messages ("compaction source split")
   */
  public VersionedStateSerializer(VersionedCodec<T> codec, String what) {
    this.codec = codec;
    this.what = what;
  }

  @Override
  public int getVersion() {
    return StateLayout.CURRENT;
  }

  @Override
  public byte[] serialize(T obj) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    codec.write(obj, out);
    return out.getCopyOfBuffer();
  }

  @Override
  public T deserialize(int version, byte[] serialized) throws IOException {
    if (StateLayout.isJava(version)) {
      return LegacyJava.read(serialized, null, what);
    }
    StateLayout.checkExplicit(version, what);
    DataInputDeserializer in = new DataInputDeserializer(serialized);
    return StateLayout.readWhole(codec, in, version, what);
  }
}
