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
        return (a, b) ->
            ((BinaryStringData) toBinaryString(a)).compareTo((BinaryStringData) toBinaryString(b));
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

  private static StringData toBinaryString(Object o) {
    return o instanceof BinaryStringData ? (StringData) o : StringData.fromString(o.toString());
  }

  public static int compareBytes(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, b);
  }
}
