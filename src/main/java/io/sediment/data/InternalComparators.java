package io.sediment.data;

import java.util.Arrays;
import java.util.Comparator;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * Orders values of Flink's internal data format by their SQL type: numbers and dates naturally,
 * strings by UTF-8 bytes, binaries unsigned-lexicographically, booleans false before true. Types
 * without an order (ARRAY, MAP, ROW, MULTISET) have none: {@link #forType} returns null.
 */
public final class InternalComparators {

  private InternalComparators() {}

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static Comparator<Object> forType(LogicalType type) {
    switch (type.getTypeRoot()) {
      case BOOLEAN:
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
      case FLOAT:
      case DOUBLE:
      case DATE:
      case TIME_WITHOUT_TIME_ZONE:
      case INTERVAL_YEAR_MONTH:
      case INTERVAL_DAY_TIME:
        return (a, b) -> ((Comparable) a).compareTo(b);
      case CHAR:
      case VARCHAR:
        return (a, b) -> compareStrings(toStringData(a), toStringData(b));
      case DECIMAL:
        return (a, b) -> ((DecimalData) a).compareTo((DecimalData) b);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return (a, b) -> ((TimestampData) a).compareTo((TimestampData) b);
      case BINARY:
      case VARBINARY:
        return (a, b) -> compareBytes((byte[]) a, (byte[]) b);
      default:
        return null;
    }
  }

  private static StringData toStringData(Object o) {
    return o instanceof StringData ? (StringData) o : StringData.fromString(o.toString());
  }

  /**
   * Orders strings by their UTF-8 bytes (code point order), in whatever form they are held. Flink's
   * {@code BinaryStringData.compareTo} compares Java strings (UTF-16 order) when both sides hold
   * one and bytes otherwise; the two orders differ for characters above U+FFFF against
   * U+E000..U+FFFF, so sorted runs, statistics and {@code IN} lists would disagree with each other.
   */
  public static int compareStrings(StringData a, StringData b) {
    BinaryStringData x = utf8(a);
    BinaryStringData y = utf8(b);
    int lx = x.getSizeInBytes();
    int ly = y.getSizeInBytes();
    if (x.getSegments().length == 1 && y.getSegments().length == 1) {
      int c =
          x.getSegments()[0].compare(
              y.getSegments()[0], x.getOffset(), y.getOffset(), Math.min(lx, ly));
      return c != 0 ? c : Integer.compare(lx, ly);
    }
    return Arrays.compareUnsigned(x.toBytes(), y.toBytes());
  }

  private static BinaryStringData utf8(StringData s) {
    BinaryStringData b = (BinaryStringData) s;
    b.ensureMaterialized(); // the bytes, kept in the object: encoded once per string
    return b;
  }

  public static int compareBytes(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }
}
