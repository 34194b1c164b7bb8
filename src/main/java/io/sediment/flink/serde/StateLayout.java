package io.sediment.flink.serde;

import io.sediment.data.BinaryRows;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.types.StringValue;

/**
 * The layout versions of Sediment's Flink state, splits and records, and the encodings of the
 * building blocks every codec uses (see docs/flink-jobs.md, "State and upgrades"):
 *
 * <ul>
 *   <li>numbers: big-endian {@code int}/{@code long} ({@link DataOutputView}); booleans one byte;
 *   <li>strings: Flink's {@link StringValue} encoding (a variable-length length + 1, then the
 *       characters; length 0 is null), so null needs no separate marker;
 *   <li>optional values: a boolean "present" marker, then the value;
 *   <li>lists: an {@code int} count, then the elements;
 *   <li>binary rows: {@code int} arity (-1: null), {@code int} byte length, then the row's bytes as
 *       docs/spec.md section 5 defines them (the same form manifests store).
 * </ul>
 *
 * <p>Versions 1 and 2 were Java serialization (2 added the base snapshot id of tasks and commit
 * messages); they are still read. Version 3 is the first explicit layout. Any change to any layout
 * bumps {@link #CURRENT} and teaches the codecs to read the previous version.
 */
public final class StateLayout {

  /** Java serialization, before tasks and commit messages carried their base snapshot. */
  public static final int JAVA_V1 = 1;

  /** Java serialization with the base snapshot id. */
  public static final int JAVA_V2 = 2;

  /** The first explicit field layout. */
  public static final int EXPLICIT_V3 = 3;

  /**
   * Commit messages carry changelog files (a list of data files after the base snapshot id);
   * streaming read splits say their kind in the byte that was the "changes" boolean (0 a snapshot,
   * 1 changes, 2 changelog).
   */
  public static final int CHANGELOG_V4 = 4;

  /** The layout this Sediment writes. */
  public static final int CURRENT = CHANGELOG_V4;

  private StateLayout() {}

  /** Whether {@code version} is one of the Java-serialized layouts. */
  public static boolean isJava(int version) {
    return version == JAVA_V1 || version == JAVA_V2;
  }

  /** Fails unless {@code version} is an explicit layout this Sediment reads. */
  public static void checkExplicit(int version, String what) throws IOException {
    if (version < EXPLICIT_V3 || version > CURRENT) {
      throw new IOException(unknownVersion(version, what));
    }
  }

  /** Reads one value of {@code version} and fails when bytes are left over: a corrupt payload. */
  static <T> T readWhole(
      VersionedCodec<T> codec, DataInputDeserializer in, int version, String what)
      throws IOException {
    T value;
    try {
      value = codec.read(in, version);
    } catch (IOException | RuntimeException e) {
      throw corrupt(what, version, e);
    }
    if (in.available() > 0) {
      throw new IOException(
          "Corrupt "
              + what
              + " (layout "
              + version
              + "): "
              + in.available()
              + " byte(s) left after the last field");
    }
    return value;
  }

  /** The message of a payload whose layout version this Sediment does not read. */
  public static String unknownVersion(int version, String what) {
    return "Cannot read "
        + what
        + " of layout version "
        + version
        + ": this Sediment reads versions "
        + JAVA_V1
        + " to "
        + CURRENT
        + (version > CURRENT ? " (state written by a newer Sediment?)" : "");
  }

  public static void writeString(String s, DataOutputView out) throws IOException {
    StringValue.writeString(s, out);
  }

  /**
   * Reads a string of {@link StringValue}'s encoding (written by {@link #writeString}); its stored
   * length is bounded by the bytes left, never trusted to size an allocation.
   */
  public static String readString(DataInputView in) throws IOException {
    int len = readVarInt(in);
    if (len == 0) {
      return null;
    }
    len -= 1;
    checkLeft(in, len, "string of " + len + " characters");
    StringBuilder sb = new StringBuilder(Math.min(len, 1024));
    for (int i = 0; i < len; i++) {
      sb.append((char) readVarInt(in));
    }
    return sb.toString();
  }

  /** A non-negative int of 7 bits per byte, high bit set on all but the last (StringValue's). */
  private static int readVarInt(DataInputView in) throws IOException {
    int v = in.readUnsignedByte();
    if (v < 0x80) {
      return v;
    }
    v &= 0x7f;
    for (int shift = 7; ; shift += 7) {
      int b = in.readUnsignedByte();
      if (shift > 28 || (shift == 28 && (b & 0x7f) > 0x07)) {
        throw new IOException("variable-length number longer than an int");
      }
      if (b < 0x80) {
        return v | (b << shift);
      }
      v |= (b & 0x7f) << shift;
    }
  }

  /**
   * Fails when {@code n} bytes (at least: each element takes one or more) are more than the input
   * holds, where it knows (a state or record payload read from a byte array).
   */
  public static void checkLeft(DataInputView in, long n, String what) throws IOException {
    if (in instanceof DataInputDeserializer d && n > d.available()) {
      throw new IOException(what + " needs " + n + " byte(s), " + d.available() + " are left");
    }
  }

  /**
   * Reads {@code n} bytes, allocating as they arrive: a corrupt length fails at the end of the
   * input, never with an allocation of its size.
   */
  private static byte[] readExactly(DataInputView in, int n) throws IOException {
    if (in instanceof DataInputDeserializer || n <= CHUNK) {
      byte[] bytes = new byte[n];
      in.readFully(bytes);
      return bytes;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(CHUNK);
    byte[] chunk = new byte[CHUNK];
    for (int left = n; left > 0; ) {
      int k = Math.min(left, CHUNK);
      in.readFully(chunk, 0, k);
      out.write(chunk, 0, k);
      left -= k;
    }
    return out.toByteArray();
  }

  private static final int CHUNK = 64 * 1024;

  /** Writes a nullable boxed long as a present marker and the value. */
  public static void writeOptionalLong(boolean present, long value, DataOutputView out)
      throws IOException {
    out.writeBoolean(present);
    if (present) {
      out.writeLong(value);
    }
  }

  /** Writes a row's arity, byte length and bytes (arity -1 for null). */
  public static void writeRow(BinaryRowData row, DataOutputView out) throws IOException {
    if (row == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(row.getArity());
    int size = row.getSizeInBytes();
    out.writeInt(size);
    if (row.getSegments().length == 1) {
      row.getSegments()[0].get(out, row.getOffset(), size);
    } else {
      out.write(BinaryRows.toBytes(row));
    }
  }

  /**
   * Reads a row written by {@link #writeRow}: its length is bounded by the bytes left, and its
   * arity by its length (a row of arity n has a fixed part of a null bit and 8 bytes per field).
   */
  public static BinaryRowData readRow(DataInputView in) throws IOException {
    int arity = in.readInt();
    if (arity == -1) {
      return null;
    }
    if (arity < 0) {
      throw new IOException("binary row of negative arity " + arity);
    }
    int size = in.readInt();
    if (size < 0) {
      throw new IOException("binary row of negative length " + size);
    }
    checkLeft(in, size, "binary row of " + size + " bytes");
    long fixed = BinaryRowData.calculateFixPartSizeInBytes(arity);
    if (fixed > size) {
      throw new IOException(
          "binary row of arity " + arity + " needs " + fixed + " bytes, it has " + size);
    }
    return BinaryRows.fromBytes(arity, readExactly(in, size));
  }

  public static void writeLongs(long[] values, DataOutputView out) throws IOException {
    out.writeInt(values.length);
    for (long v : values) {
      out.writeLong(v);
    }
  }

  public static long[] readLongs(DataInputView in) throws IOException {
    int n = readCount(in, 8, "long");
    long[] values = new long[Math.min(n, 1024)];
    for (int i = 0; i < n; i++) {
      if (i == values.length) {
        values = java.util.Arrays.copyOf(values, (int) Math.min(n, 2L * values.length));
      }
      values[i] = in.readLong();
    }
    return values;
  }

  public static <T> void writeList(List<T> list, VersionedCodec<T> codec, DataOutputView out)
      throws IOException {
    out.writeInt(list.size());
    for (T e : list) {
      codec.write(e, out);
    }
  }

  public static <T> List<T> readList(DataInputView in, int version, VersionedCodec<T> codec)
      throws IOException {
    int n = readCount(in, 1, "element");
    List<T> list = new ArrayList<>(Math.min(n, 64));
    for (int i = 0; i < n; i++) {
      list.add(codec.read(in, version));
    }
    return list;
  }

  public static void writeStrings(List<String> list, DataOutputView out) throws IOException {
    out.writeInt(list.size());
    for (String s : list) {
      writeString(s, out);
    }
  }

  public static List<String> readStrings(DataInputView in) throws IOException {
    int n = readCount(in, 1, "string");
    List<String> list = new ArrayList<>(Math.min(n, 64));
    for (int i = 0; i < n; i++) {
      list.add(readString(in));
    }
    return list;
  }

  /** Writes nullable bytes: length (-1 for null), then the bytes. */
  public static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
    if (bytes == null) {
      out.writeInt(-1);
      return;
    }
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  public static byte[] readBytes(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n == -1) {
      return null;
    }
    if (n < 0) {
      throw new IOException("byte array of negative length " + n);
    }
    checkLeft(in, n, "byte array of " + n + " bytes");
    return readExactly(in, n);
  }

  /** A list's count: not negative, and at most as many elements as bytes left allow. */
  private static int readCount(DataInputView in, int bytesEach, String element) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("negative " + element + " count " + n);
    }
    checkLeft(in, (long) n * bytesEach, n + " " + element + "(s)");
    return n;
  }

  /**
   * The error of a payload that could not be read: "Corrupt {@code what} (layout {@code version}):
   * ..." with the reason (a truncated payload says so).
   */
  public static IOException corrupt(String what, int version, Exception cause) {
    String reason =
        cause instanceof java.io.EOFException
            ? "it ends early (truncated)"
            : String.valueOf(cause.getMessage());
    return new IOException("Corrupt " + what + " (layout " + version + "): " + reason, cause);
  }
}
