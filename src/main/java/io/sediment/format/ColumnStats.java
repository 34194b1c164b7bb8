package io.sediment.format;

import io.sediment.data.BinaryRows;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Per-column statistics of a data file, in the table's internal data format, indexed like the
 * file's row type.
 *
 * <p>{@code min} and {@code max} are rows of the full row type. A field of them is null when the
 * column has no non-null value or its type has no order (ARRAY, MAP, ROW, ...). Order used: numbers
 * naturally (FLOAT/DOUBLE by {@link Float#compare}/{@link Double#compare}, i.e. NaN is the greatest
 * value and -0.0 &lt; 0.0), BOOLEAN false &lt; true, strings by UTF-8 bytes (= code point order,
 * {@code InternalComparators#compareStrings}), BINARY/VARBINARY unsigned lexicographically,
 * DECIMAL/TIMESTAMP/DATE/TIME chronologically/numerically.
 *
 * <p>Java-serializable through a proxy holding the binary rows' bytes.
 */
public record ColumnStats(BinaryRowData min, BinaryRowData max, long[] nullCounts)
    implements Serializable {

  public ColumnStats {
    if (min == null || max == null || nullCounts == null) {
      throw new IllegalArgumentException("min, max and nullCounts must not be null");
    }
    if (min.getArity() != nullCounts.length || max.getArity() != nullCounts.length) {
      throw new IllegalArgumentException(
          "Arity mismatch: min "
              + min.getArity()
              + ", max "
              + max.getArity()
              + ", nullCounts "
              + nullCounts.length);
    }
  }

  public int arity() {
    return nullCounts.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnStats other
        && Arrays.equals(nullCounts, other.nullCounts)
        && BinaryRows.equals(min, other.min)
        && BinaryRows.equals(max, other.max);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * min.hashCode() + max.hashCode()) + Arrays.hashCode(nullCounts);
  }

  @Override
  public String toString() {
    return "ColumnStats{min="
        + min
        + ", max="
        + max
        + ", nullCounts="
        + Arrays.toString(nullCounts)
        + "}";
  }

  private Object writeReplace() {
    return new Proxy(nullCounts.clone(), BinaryRows.toBytes(min), BinaryRows.toBytes(max));
  }

  private record Proxy(long[] nullCounts, byte[] min, byte[] max) implements Serializable {
    private Object readResolve() {
      return new ColumnStats(
          BinaryRows.fromBytes(nullCounts.length, min),
          BinaryRows.fromBytes(nullCounts.length, max),
          nullCounts);
    }
  }
}
