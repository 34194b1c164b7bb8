package io.sediment.flink.serde;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * Self-describing byte arrays for payloads Flink stores as plain {@code byte[]} (a committer's
 * windows in operator state, the SQL writers' commit messages): an {@code int} layout version, then
 * the fields. Arrays of the Java-serialized layouts 1 and 2 start with the Java stream header
 * ({@code AC ED}), which no explicit layout's version int (a small positive number) does, and are
 * read as Java serialization.
 */
public final class VersionedBytes {

  private VersionedBytes() {}

  public static <T> byte[] write(T value, VersionedCodec<T> codec) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(256);
    out.writeInt(StateLayout.CURRENT);
    codec.write(value, out);
    return out.getCopyOfBuffer();
  }

  /**
   * @param classLoader loads the classes of Java-serialized arrays (null: the context loader)
   */
  public static <T> T read(
      byte[] bytes, VersionedCodec<T> codec, ClassLoader classLoader, String what)
      throws IOException {
    if (LegacyJava.isJavaStream(bytes)) {
      return LegacyJava.read(bytes, classLoader, what);
    }
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    int version = in.readInt();
    StateLayout.checkExplicit(version, what);
    return StateLayout.readWhole(codec, in, version, what);
  }
}
