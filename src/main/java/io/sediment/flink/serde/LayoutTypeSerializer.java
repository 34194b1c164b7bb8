package io.sediment.flink.serde;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A record serializer writing each record as an {@code int} layout version, then its fields by a
 * {@link VersionedCodec}. The per-record version lets a newer Sediment read records of an older one
 * wherever Flink persists records (the in-flight data of unaligned checkpoints). Records of the
 * Java-serialized layouts were an {@code int} length, then the Java stream: a length is never below
 * {@link #MIN_LEGACY_LENGTH}, a layout version always is, so both are told apart.
 *
 * <p>Subclasses are stateless singletons with a {@code SimpleTypeSerializerSnapshot}, so savepoints
 * record which serializer wrote them.
 */
public abstract class LayoutTypeSerializer<T> extends TypeSerializerSingleton<T> {

  private static final long serialVersionUID = 1L;

  /** Below any Java serialization of an object (header 4 bytes, class descriptor, fields). */
  static final int MIN_LEGACY_LENGTH = 64;

  /** The layout of a record (a static instance: the serializer itself travels in the job). */
  protected abstract VersionedCodec<T> codec();

  /** What a record is, for error messages. */
  protected abstract String what();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public T createInstance() {
    return null;
  }

  /** A deep copy (records carry rows and arrays), through the layout. */
  @Override
  public T copy(T from) {
    if (from == null) {
      return null;
    }
    try {
      DataOutputSerializer out = new DataOutputSerializer(256);
      serialize(from, out);
      return deserialize(new DataInputDeserializer(out.getSharedBuffer(), 0, out.length()));
    } catch (IOException e) {
      throw new IllegalStateException("Cannot copy " + what(), e);
    }
  }

  @Override
  public T copy(T from, T reuse) {
    return copy(from);
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    target.writeInt(StateLayout.CURRENT);
    codec().write(record, target);
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    int head = source.readInt();
    if (head >= MIN_LEGACY_LENGTH) {
      byte[] bytes = new byte[head];
      source.readFully(bytes);
      if (!LegacyJava.isJavaStream(bytes)) {
        throw new IOException(StateLayout.unknownVersion(head, what()));
      }
      return LegacyJava.read(bytes, null, what());
    }
    StateLayout.checkExplicit(head, what());
    try {
      return codec().read(source, head);
    } catch (IOException | RuntimeException e) {
      throw StateLayout.corrupt(what(), head, e);
    }
  }

  @Override
  public T deserialize(T reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }
}
