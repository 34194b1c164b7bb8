package io.sediment.compact;

import io.sediment.io.ExternalRowSorter;
import java.util.Arrays;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

/**
 * Makes the sort key of a row for a {@link SortOrder}: bytes whose unsigned lexicographic order
 * ({@link #compare}) is the order the rows are written in, so ranges of keys split a sort across
 * tasks and the rows of each range are sorted by comparing bytes.
 *
 * <ul>
 *   <li>{@code order}: per column a null marker (nulls first) and the value in an order-preserving
 *       encoding: integers and times with the sign bit flipped, floats by their IEEE bits made
 *       monotonic, decimals by their unscaled value, timestamps as milliseconds and nanoseconds,
 *       strings and binaries whole (zero bytes escaped, terminated), so the order is exact.
 *   <li>{@code zorder} and {@code hilbert}: every column first becomes an unsigned 64-bit position
 *       (the same encodings cut to 8 bytes; strings and binaries by their first 8 bytes; decimals
 *       over 18 digits by their double value; null is 0, before every value), then the bits of all
 *       columns are interleaved, along the Hilbert curve after Skilling's transform ("Programming
 *       the Hilbert curve", AIP Conf. Proc. 707, 2004) for {@code hilbert}.
 * </ul>
 */
public final class SortKeys {

  /** The types a sort key can be made of, for error messages. */
  static final String SUPPORTED =
      "BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, BINARY,"
          + " VARBINARY, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ";

  private final SortOrder.Strategy strategy;
  private final int[] positions;
  private final LogicalType[] types;
  // order: reused buffer for one key; curves: one position per column
  private byte[] buffer = new byte[64];
  private final long[] dims;
  // curves of up to 8 columns: each byte value spread to every n-th bit, from the top (see
  // interleave)
  private final long[] spread;

  private SortKeys(SortOrder.Strategy strategy, int[] positions, LogicalType[] types) {
    this.strategy = strategy;
    this.positions = positions;
    this.types = types;
    this.dims = new long[positions.length];
    this.spread = positions.length <= 8 ? spreadTable(positions.length) : null;
  }

  /** For each byte value, its 8 bits (most significant first) at bits 63, 63-n, 63-2n, ... */
  static long[] spreadTable(int n) {
    long[] table = new long[256];
    for (int v = 0; v < 256; v++) {
      long spread = 0;
      for (int k = 0; k < 8; k++) {
        if (((v >>> (7 - k)) & 1) != 0) {
          spread |= 1L << (63 - k * n);
        }
      }
      table[v] = spread;
    }
    return table;
  }

  /** Keys of rows of {@code rowType} (which has every column of {@code order}). Not thread-safe. */
  public static SortKeys of(SortOrder order, RowType rowType) {
    int n = order.columns().size();
    int[] positions = new int[n];
    LogicalType[] types = new LogicalType[n];
    for (int i = 0; i < n; i++) {
      positions[i] = rowType.getFieldIndex(order.columns().get(i));
      if (positions[i] < 0) {
        throw new IllegalArgumentException(
            "Sort column '" + order.columns().get(i) + "' is not in " + rowType);
      }
      types[i] = rowType.getTypeAt(positions[i]);
      if (!supports(types[i])) {
        throw new IllegalArgumentException(
            "Sort column '" + order.columns().get(i) + "' has type " + types[i] + ": not sortable");
      }
    }
    return new SortKeys(order.strategy(), positions, types);
  }

  static boolean supports(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN,
              TINYINT,
              SMALLINT,
              INTEGER,
              BIGINT,
              FLOAT,
              DOUBLE,
              DECIMAL,
              CHAR,
              VARCHAR,
              BINARY,
              VARBINARY,
              DATE,
              TIME_WITHOUT_TIME_ZONE,
              TIMESTAMP_WITHOUT_TIME_ZONE,
              TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          true;
      default -> false;
    };
  }

  /** Unsigned lexicographic comparison of two keys (a prefix sorts first). */
  public static int compare(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }

  /** The key of {@code row}: a new array. */
  public byte[] key(RowData row) {
    if (strategy == SortOrder.Strategy.ORDER) {
      int len = 0;
      for (int i = 0; i < positions.length; i++) {
        len = appendOrdered(row, i, len);
      }
      return Arrays.copyOf(buffer, len);
    }
    for (int i = 0; i < positions.length; i++) {
      dims[i] = row.isNullAt(positions[i]) ? 0 : position(row, positions[i], types[i]);
    }
    if (strategy == SortOrder.Strategy.HILBERT && dims.length > 1) {
      hilbertTranspose(dims);
    }
    return spread != null ? interleave(dims, spread) : interleave(dims);
  }

  // ---- order: exact, variable length

  private int appendOrdered(RowData row, int i, int at) {
    int pos = positions[i];
    ensure(at + 1);
    if (row.isNullAt(pos)) {
      buffer[at] = 0;
      return at + 1;
    }
    buffer[at++] = 1;
    LogicalType type = types[i];
    switch (type.getTypeRoot()) {
      case CHAR, VARCHAR -> {
        return appendBytes(row.getString(pos).toBytes(), at);
      }
      case BINARY, VARBINARY -> {
        return appendBytes(row.getBinary(pos), at);
      }
      case DECIMAL -> {
        DecimalType d = (DecimalType) type;
        DecimalData v = row.getDecimal(pos, d.getPrecision(), d.getScale());
        if (d.getPrecision() <= 18) {
          return appendLong(v.toUnscaledLong() ^ Long.MIN_VALUE, at);
        }
        // up to 38 digits fit in 128 bits: two's complement, sign flipped
        byte[] twos = v.toBigDecimal().unscaledValue().toByteArray();
        ensure(at + 16);
        byte fill = twos[0] < 0 ? (byte) 0xFF : 0;
        for (int k = 0; k < 16; k++) {
          int src = twos.length - 16 + k;
          buffer[at + k] = src < 0 ? fill : twos[src];
        }
        buffer[at] ^= (byte) 0x80;
        return at + 16;
      }
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> {
        TimestampData ts = row.getTimestamp(pos, timestampPrecision(type));
        at = appendLong(ts.getMillisecond() ^ Long.MIN_VALUE, at);
        ensure(at + 4);
        int nanos = ts.getNanoOfMillisecond();
        buffer[at] = (byte) (nanos >>> 24);
        buffer[at + 1] = (byte) (nanos >>> 16);
        buffer[at + 2] = (byte) (nanos >>> 8);
        buffer[at + 3] = (byte) nanos;
        return at + 4;
      }
      default -> {
        return appendLong(position(row, pos, type), at);
      }
    }
  }

  /** The bytes, each 0 escaped as 0 0xFF, then the terminator 0 0: shorter values sort first. */
  private int appendBytes(byte[] v, int at) {
    ensure(at + 2 * v.length + 2);
    for (byte b : v) {
      buffer[at++] = b;
      if (b == 0) {
        buffer[at++] = (byte) 0xFF;
      }
    }
    buffer[at++] = 0;
    buffer[at++] = 0;
    return at;
  }

  private int appendLong(long v, int at) {
    ensure(at + 8);
    for (int k = 7; k >= 0; k--) {
      buffer[at + k] = (byte) v;
      v >>>= 8;
    }
    return at + 8;
  }

  private void ensure(int size) {
    if (size > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(size, buffer.length * 2));
    }
  }

  // ---- curves: a 64-bit position per column

  /** The value as an unsigned 64-bit number in the value order (not null). */
  private static long position(RowData row, int pos, LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> row.getBoolean(pos) ? 2 : 1;
      case TINYINT -> row.getByte(pos) ^ Long.MIN_VALUE;
      case SMALLINT -> row.getShort(pos) ^ Long.MIN_VALUE;
      case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> row.getInt(pos) ^ Long.MIN_VALUE;
      case BIGINT -> row.getLong(pos) ^ Long.MIN_VALUE;
      case FLOAT -> orderedDouble(row.getFloat(pos));
      case DOUBLE -> orderedDouble(row.getDouble(pos));
      case DECIMAL -> {
        DecimalType d = (DecimalType) type;
        DecimalData v = row.getDecimal(pos, d.getPrecision(), d.getScale());
        yield d.getPrecision() <= 18
            ? v.toUnscaledLong() ^ Long.MIN_VALUE
            : orderedDouble(v.toBigDecimal().doubleValue());
      }
      case CHAR, VARCHAR -> ExternalRowSorter.prefix(row.getString(pos).toBytes());
      case BINARY, VARBINARY -> ExternalRowSorter.prefix(row.getBinary(pos));
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          row.getTimestamp(pos, timestampPrecision(type)).getMillisecond() ^ Long.MIN_VALUE;
      default -> throw new IllegalArgumentException("Not a sortable type: " + type);
    };
  }

  /** IEEE bits made monotonic: negative values flipped whole, positive ones their sign bit. */
  private static long orderedDouble(double v) {
    long bits = Double.doubleToLongBits(v); // one NaN, after +Infinity
    return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
  }

  private static int timestampPrecision(LogicalType type) {
    return type instanceof TimestampType t
        ? t.getPrecision()
        : ((LocalZonedTimestampType) type).getPrecision();
  }

  /**
   * {@link #interleave(long[])} a byte of each column at a time: byte {@code j} of every column
   * makes bytes {@code [j*n, j*n + n)} of the key, each column's bits spread by the table and
   * shifted to its place.
   */
  static byte[] interleave(long[] dims, long[] spread) {
    int n = dims.length;
    byte[] out = new byte[8 * n];
    for (int j = 0; j < 8; j++) {
      int shift = 56 - 8 * j;
      long group = 0;
      for (int d = 0; d < n; d++) {
        group |= spread[(int) (dims[d] >>> shift) & 0xFF] >>> d;
      }
      for (int b = 0; b < n; b++) {
        out[j * n + b] = (byte) (group >>> (56 - 8 * b));
      }
    }
    return out;
  }

  /** The bits of the columns interleaved, most significant first, column 0 first at each bit. */
  static byte[] interleave(long[] dims) {
    int n = dims.length;
    byte[] out = new byte[8 * n];
    int bit = 0;
    for (int b = 63; b >= 0; b--) {
      for (int d = 0; d < n; d++, bit++) {
        if (((dims[d] >>> b) & 1) != 0) {
          out[bit >>> 3] |= (byte) (0x80 >>> (bit & 7));
        }
      }
    }
    return out;
  }

  /**
   * Skilling's axes-to-transpose of 64-bit coordinates, in place: interleaving the result gives the
   * point's index along the Hilbert curve.
   */
  static void hilbertTranspose(long[] x) {
    int n = x.length;
    // inverse undo of the excess work
    for (int b = 63; b >= 1; b--) {
      long q = 1L << b;
      long p = q - 1;
      for (int i = 0; i < n; i++) {
        if ((x[i] & q) != 0) {
          x[0] ^= p;
        } else {
          long t = (x[0] ^ x[i]) & p;
          x[0] ^= t;
          x[i] ^= t;
        }
      }
    }
    // Gray encode
    for (int i = 1; i < n; i++) {
      x[i] ^= x[i - 1];
    }
    long t = 0;
    for (int b = 63; b >= 1; b--) {
      long q = 1L << b;
      if ((x[n - 1] & q) != 0) {
        t ^= q - 1;
      }
    }
    for (int i = 0; i < n; i++) {
      x[i] ^= t;
    }
  }
}
