package io.sediment.flink.serde;

import java.io.IOException;
import org.apache.flink.util.InstantiationUtil;

/**
 * Reads payloads of layout versions 1 and 2, which were Java serialization of Sediment's classes
 * (kept {@code Serializable}, with unchanged {@code serialVersionUID}s, for exactly this). Nothing
 * is written this way any more.
 */
public final class LegacyJava {

  private LegacyJava() {}

  /** Whether {@code bytes} start with the Java serialization stream header ({@code AC ED}). */
  public static boolean isJavaStream(byte[] bytes) {
    return bytes.length >= 2 && bytes[0] == (byte) 0xAC && bytes[1] == (byte) 0xED;
  }

  /**
   * Deserializes with {@code classLoader} (null: the thread's context class loader), then with
   * Sediment's own loader: a source coordinator thread may not carry the user code class loader.
   */
  @SuppressWarnings("unchecked")
  public static <T> T read(byte[] bytes, ClassLoader classLoader, String what) throws IOException {
    ClassLoader cl =
        classLoader != null ? classLoader : Thread.currentThread().getContextClassLoader();
    if (cl == null) {
      cl = LegacyJava.class.getClassLoader();
    }
    try {
      return (T) InstantiationUtil.deserializeObject(bytes, cl);
    } catch (ClassNotFoundException e) {
      try {
        return (T) InstantiationUtil.deserializeObject(bytes, LegacyJava.class.getClassLoader());
      } catch (ClassNotFoundException e2) {
        throw new IOException("Cannot read " + what + " of a Java-serialized layout", e2);
      }
    }
  }
}
