package io.sediment.flink;

import java.io.IOException;
import java.io.Serializable;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.util.InstantiationUtil;

/**
 * Java serialization for the topology's records, splits and state. Compaction tasks and commit
 * messages carry binary partition rows through custom {@code writeObject}/{@code readObject}
 * methods, which Flink's generic (Kryo) serializer would skip.
 */
public final class JavaSerialization {

  private JavaSerialization() {}

  static byte[] toBytes(Object o) throws IOException {
    return InstantiationUtil.serializeObject(o);
  }

  @SuppressWarnings("unchecked")
  static <T> T fromBytes(byte[] bytes) throws IOException {
    ClassLoader cl = Thread.currentThread().getContextClassLoader();
    if (cl == null) {
      cl = JavaSerialization.class.getClassLoader();
    }
    try {
      return (T) InstantiationUtil.deserializeObject(bytes, cl);
    } catch (ClassNotFoundException e) {
      // The coordinator thread may not carry the user code class loader.
      try {
        return (T)
            InstantiationUtil.deserializeObject(bytes, JavaSerialization.class.getClassLoader());
      } catch (ClassNotFoundException e2) {
        throw new IOException(e2);
      }
    }
  }

  /** Type information whose serializer uses Java serialization. */
  public static <T extends Serializable> TypeInformation<T> typeInfo(Class<T> type) {
    return new JavaTypeInfo<>(type);
  }

  /**
   * The layout version of splits and enumerator state. 1: the first; 2: compaction tasks (and the
   * commit messages of results) carry the id of their base snapshot. Both are Java serialization of
   * classes whose {@code serialVersionUID} did not change: a version-1 object reads back with the
   * fields added since left null (the base snapshot unknown).
   */
  static final int VERSION = 2;

  /** A versioned serializer (for splits and enumerator state) using Java serialization. */
  static <T extends Serializable> SimpleVersionedSerializer<T> versioned() {
    return new SimpleVersionedSerializer<T>() {
      @Override
      public int getVersion() {
        return VERSION;
      }

      @Override
      public byte[] serialize(T obj) throws IOException {
        return toBytes(obj);
      }

      @Override
      public T deserialize(int version, byte[] serialized) throws IOException {
        if (version < 1 || version > VERSION) {
          throw new IOException(
              "Cannot read compaction source state of serializer version "
                  + version
                  + ": this Sediment reads versions 1 to "
                  + VERSION
                  + " (state written by a newer Sediment?)");
        }
        return fromBytes(serialized);
      }
    };
  }

  static final class JavaTypeInfo<T extends Serializable> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    JavaTypeInfo(Class<T> type) {
      this.type = type;
    }

    @Override
    public boolean isBasicType() {
      return false;
    }

    @Override
    public boolean isTupleType() {
      return false;
    }

    @Override
    public int getArity() {
      return 1;
    }

    @Override
    public int getTotalFields() {
      return 1;
    }

    @Override
    public Class<T> getTypeClass() {
      return type;
    }

    @Override
    public boolean isKeyType() {
      return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<T> createSerializer(SerializerConfig config) {
      return (TypeSerializer<T>) ObjectSerializer.INSTANCE;
    }

    @Override
    public String toString() {
      return "JavaSerialized<" + type.getSimpleName() + ">";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof JavaTypeInfo && ((JavaTypeInfo<?>) o).type.equals(type);
    }

    @Override
    public int hashCode() {
      return type.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
      return o instanceof JavaTypeInfo;
    }
  }

  /** Serializes any {@link Serializable} record as length-prefixed Java serialization bytes. */
  public static final class ObjectSerializer extends TypeSerializerSingleton<Serializable> {

    private static final long serialVersionUID = 1L;

    static final ObjectSerializer INSTANCE = new ObjectSerializer();

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public Serializable createInstance() {
      return null;
    }

    @Override
    public Serializable copy(Serializable from) {
      if (from == null) {
        return null;
      }
      try {
        return fromBytes(toBytes(from));
      } catch (IOException e) {
        throw new IllegalStateException("Cannot copy " + from.getClass(), e);
      }
    }

    @Override
    public Serializable copy(Serializable from, Serializable reuse) {
      return copy(from);
    }

    @Override
    public int getLength() {
      return -1;
    }

    @Override
    public void serialize(Serializable record, DataOutputView target) throws IOException {
      byte[] b = toBytes(record);
      target.writeInt(b.length);
      target.write(b);
    }

    @Override
    public Serializable deserialize(DataInputView source) throws IOException {
      byte[] b = new byte[source.readInt()];
      source.readFully(b);
      return fromBytes(b);
    }

    @Override
    public Serializable deserialize(Serializable reuse, DataInputView source) throws IOException {
      return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int len = source.readInt();
      target.writeInt(len);
      target.write(source, len);
    }

    @Override
    public TypeSerializerSnapshot<Serializable> snapshotConfiguration() {
      return new Snapshot();
    }

    /** Snapshot of the stateless serializer. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Serializable> {
      public Snapshot() {
        super(() -> INSTANCE);
      }
    }
  }
}
