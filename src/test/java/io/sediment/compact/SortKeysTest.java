package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * Sort keys against the values they encode, on generated values of every sortable type: the {@code
 * order} key compares exactly as the values do (nulls first), a single-column curve key never
 * inverts the values' order, and the Hilbert key walks a grid cell by cell.
 */
class SortKeysTest {

  private record Case(String type, RowType rowType, Comparator<Object> order, Generator values) {}

  private interface Generator {
    Object next(SplittableRandom r);
  }

  private static RowType single(org.apache.flink.table.types.DataType type) {
    return (RowType) DataTypes.ROW(DataTypes.FIELD("c", type)).getLogicalType();
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Object> natural() {
    return (a, b) -> ((Comparable<Object>) a).compareTo(b);
  }

  private static List<Case> cases() {
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "BIGINT", single(DataTypes.BIGINT()), natural(), r -> r.nextLong() >> r.nextInt(64)));
    cases.add(
        new Case("INT", single(DataTypes.INT()), natural(), r -> r.nextInt() >> r.nextInt(32)));
    cases.add(
        new Case("SMALLINT", single(DataTypes.SMALLINT()), natural(), r -> (short) r.nextInt()));
    cases.add(new Case("TINYINT", single(DataTypes.TINYINT()), natural(), r -> (byte) r.nextInt()));
    cases.add(new Case("BOOLEAN", single(DataTypes.BOOLEAN()), natural(), r -> r.nextBoolean()));
    cases.add(
        new Case(
            "DOUBLE",
            single(DataTypes.DOUBLE()),
            (a, b) -> Double.compare((Double) a, (Double) b),
            r ->
                switch (r.nextInt(8)) {
                  case 0 -> Double.NEGATIVE_INFINITY;
                  case 1 -> -0.0;
                  case 2 -> 0.0;
                  default -> (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-5, 20));
                }));
    cases.add(
        new Case(
            "FLOAT",
            single(DataTypes.FLOAT()),
            (a, b) -> Float.compare((Float) a, (Float) b),
            r -> (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-5, 20)))));
    cases.add(
        new Case(
            "STRING",
            single(DataTypes.STRING()),
            // code point order, as the UTF-8 bytes compare (Java's compareTo is UTF-16's)
            (a, b) ->
                java.util.Arrays.compareUnsigned(
                    ((StringData) a).toBytes(), ((StringData) b).toBytes()),
            r -> {
              StringBuilder sb = new StringBuilder();
              for (int i = r.nextInt(12); i > 0; i--) {
                sb.append("a\0\u00e9z\uD83D\uDE00".charAt(r.nextInt(5)));
              }
              return StringData.fromString(sb.toString());
            }));
    cases.add(
        new Case(
            "BYTES",
            single(DataTypes.BYTES()),
            (a, b) -> java.util.Arrays.compareUnsigned((byte[]) a, (byte[]) b),
            r -> {
              byte[] v = new byte[r.nextInt(10)];
              for (int i = 0; i < v.length; i++) {
                v[i] = (byte) (r.nextInt(3) == 0 ? 0 : r.nextInt(256));
              }
              return v;
            }));
    cases.add(
        new Case(
            "DECIMAL(10,2)",
            single(DataTypes.DECIMAL(10, 2)),
            (a, b) -> ((DecimalData) a).compareTo((DecimalData) b),
            r -> DecimalData.fromUnscaledLong(r.nextLong(-9_999_999_999L, 9_999_999_999L), 10, 2)));
    cases.add(
        new Case(
            "DECIMAL(38,6)",
            single(DataTypes.DECIMAL(38, 6)),
            (a, b) -> ((DecimalData) a).compareTo((DecimalData) b),
            r ->
                DecimalData.fromBigDecimal(
                    new BigDecimal(
                            (r.nextBoolean() ? "-" : "")
                                + Math.abs(r.nextLong() >> r.nextInt(63))
                                + Math.abs(r.nextLong()))
                        .movePointLeft(6),
                    38,
                    6)));
    cases.add(
        new Case(
            "TIMESTAMP(9)",
            single(DataTypes.TIMESTAMP(9)),
            (a, b) -> ((TimestampData) a).compareTo((TimestampData) b),
            r ->
                TimestampData.fromEpochMillis(
                    r.nextLong(-1L << 40, 1L << 40) >> r.nextInt(20), r.nextInt(1_000_000))));
    cases.add(
        new Case("DATE", single(DataTypes.DATE()), natural(), r -> r.nextInt(-100_000, 100_000)));
    return cases;
  }

  private static String show(Object v) {
    return v instanceof byte[] bytes
        ? java.util.Arrays.toString(bytes)
        : String.valueOf(v).replace("\0", "\\0");
  }

  private static byte[] key(SortKeys keys, Object value) {
    return keys.key(GenericRowData.of(value));
  }

  @Test
  void theOrderKeyComparesAsTheValuesDoWithNullsFirst() {
    for (Case c : cases()) {
      SortKeys keys = SortKeys.of(SortOrder.of("order", "c"), c.rowType);
      SplittableRandom r = new SplittableRandom(c.type.hashCode());
      for (int i = 0; i < 3000; i++) {
        Object a = c.values.next(r);
        Object b = r.nextInt(10) == 0 ? a : c.values.next(r);
        assertThat(Integer.signum(SortKeys.compare(key(keys, a), key(keys, b))))
            .as("%s: %s vs %s", c.type, show(a), show(b))
            .isEqualTo(Integer.signum(c.order.compare(a, b)));
        assertThat(SortKeys.compare(key(keys, null), key(keys, a)))
            .as("%s: null first", c.type)
            .isNegative();
      }
    }
  }

  @Test
  void aCurveKeyNeverInvertsTheOrderOfOneColumn() {
    for (String curve : List.of("zorder", "hilbert")) {
      for (Case c : cases()) {
        SortKeys keys = SortKeys.of(SortOrder.of(curve, "c"), c.rowType);
        SplittableRandom r = new SplittableRandom(c.type.hashCode());
        for (int i = 0; i < 3000; i++) {
          Object a = c.values.next(r);
          Object b = c.values.next(r);
          if (c.order.compare(a, b) < 0) {
            assertThat(SortKeys.compare(key(keys, a), key(keys, b)))
                .as("%s %s: %s before %s", curve, c.type, show(a), show(b))
                .isLessThanOrEqualTo(0);
          }
        }
      }
    }
  }

  /** The table-driven interleave (up to 8 columns) makes the bit-by-bit one's bytes. */
  @Test
  void theFastInterleaveEqualsTheBitByBitOne() {
    SplittableRandom r = new SplittableRandom(11);
    for (int n = 1; n <= 8; n++) {
      long[] spread = SortKeys.spreadTable(n);
      for (int i = 0; i < 500; i++) {
        long[] dims = new long[n];
        for (int d = 0; d < n; d++) {
          dims[d] = r.nextInt(4) == 0 ? -1L >>> r.nextInt(64) : r.nextLong();
        }
        assertThat(SortKeys.interleave(dims, spread))
            .as("n=%s", n)
            .isEqualTo(SortKeys.interleave(dims));
      }
    }
  }

  /** On a 32 x 32 grid the Hilbert order moves one cell at a time; z-order jumps. */
  @Test
  void hilbertKeysWalkAGridCellByCell() {
    RowType type =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("x", DataTypes.INT()), DataTypes.FIELD("y", DataTypes.INT()))
                .getLogicalType();
    for (String curve : List.of("hilbert", "zorder")) {
      SortKeys keys = SortKeys.of(SortOrder.of(curve, "x,y"), type);
      List<int[]> cells = new ArrayList<>();
      List<byte[]> cellKeys = new ArrayList<>();
      for (int x = 0; x < 32; x++) {
        for (int y = 0; y < 32; y++) {
          cells.add(new int[] {x, y});
          cellKeys.add(keys.key(GenericRowData.of(x, y)));
        }
      }
      List<Integer> idx = new ArrayList<>();
      for (int i = 0; i < cells.size(); i++) {
        idx.add(i);
      }
      idx.sort((a, b) -> SortKeys.compare(cellKeys.get(a), cellKeys.get(b)));
      int jumps = 0;
      for (int i = 1; i < idx.size(); i++) {
        int[] p = cells.get(idx.get(i - 1));
        int[] q = cells.get(idx.get(i));
        assertThat(SortKeys.compare(cellKeys.get(idx.get(i - 1)), cellKeys.get(idx.get(i))))
            .as("%s keys distinct", curve)
            .isNegative();
        if (Math.abs(p[0] - q[0]) + Math.abs(p[1] - q[1]) != 1) {
          jumps++;
        }
      }
      if (curve.equals("hilbert")) {
        assertThat(jumps).as("hilbert jumps").isZero();
      } else {
        assertThat(jumps).as("z-order jumps").isPositive();
      }
    }
  }
}
