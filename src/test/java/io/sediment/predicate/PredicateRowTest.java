package io.sediment.predicate;

import static io.sediment.predicate.TestRows.TYPE;
import static io.sediment.predicate.TestRows.index;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.junit.jupiter.api.Test;

class PredicateRowTest {

  private final PredicateBuilder b = new PredicateBuilder(TYPE);

  private static GenericRowData rowP(String p) {
    return TestRows.with(index("p"), p == null ? null : StringData.fromString(p));
  }

  private static GenericRowData rowI(Integer i) {
    return TestRows.with(index("i"), i);
  }

  /** Evaluates on the generic row and on its binary form; both must agree. */
  private static boolean eval(Predicate pred, GenericRowData row) {
    row.setField(0, 1L); // id is NOT NULL
    boolean generic = pred.test(row);
    RowData binary = BinaryRows.toBinary(TYPE, row);
    assertThat(pred.test(binary)).as("binary row agrees for %s", pred).isEqualTo(generic);
    return generic;
  }

  @Test
  void equalAndNotEqual() {
    Predicate eq = b.equal("p", "a");
    assertThat(eval(eq, rowP("a"))).isTrue();
    assertThat(eval(eq, rowP("b"))).isFalse();
    assertThat(eval(eq, rowP(null))).isFalse();
    Predicate ne = b.notEqual("p", "a");
    assertThat(eval(ne, rowP("a"))).isFalse();
    assertThat(eval(ne, rowP("b"))).isTrue();
    assertThat(eval(ne, rowP(null))).isFalse();
  }

  @Test
  void ranges() {
    assertThat(eval(b.lessThan("i", 5), rowI(4))).isTrue();
    assertThat(eval(b.lessThan("i", 5), rowI(5))).isFalse();
    assertThat(eval(b.lessThan("i", 5), rowI(null))).isFalse();
    assertThat(eval(b.lessOrEqual("i", 5), rowI(5))).isTrue();
    assertThat(eval(b.lessOrEqual("i", 5), rowI(6))).isFalse();
    assertThat(eval(b.lessOrEqual("i", 5), rowI(null))).isFalse();
    assertThat(eval(b.greaterThan("i", 5), rowI(6))).isTrue();
    assertThat(eval(b.greaterThan("i", 5), rowI(5))).isFalse();
    assertThat(eval(b.greaterThan("i", 5), rowI(null))).isFalse();
    assertThat(eval(b.greaterOrEqual("i", 5), rowI(5))).isTrue();
    assertThat(eval(b.greaterOrEqual("i", 5), rowI(4))).isFalse();
    assertThat(eval(b.greaterOrEqual("i", 5), rowI(null))).isFalse();
    assertThat(eval(b.greaterOrEqual("i", -5), rowI(Integer.MIN_VALUE))).isFalse();
  }

  @Test
  void nullChecks() {
    assertThat(eval(b.isNull("p"), rowP(null))).isTrue();
    assertThat(eval(b.isNull("p"), rowP("x"))).isFalse();
    assertThat(eval(b.isNotNull("p"), rowP(null))).isFalse();
    assertThat(eval(b.isNotNull("p"), rowP("x"))).isTrue();
    // isNull works on non-comparable types too
    assertThat(eval(b.isNull("arr"), TestRows.empty())).isTrue();
  }

  @Test
  void inAndNotIn() {
    Predicate in = b.in("i", List.of(3, 1, 2, 3));
    assertThat(eval(in, rowI(1))).isTrue();
    assertThat(eval(in, rowI(3))).isTrue();
    assertThat(eval(in, rowI(4))).isFalse();
    assertThat(eval(in, rowI(null))).isFalse();
    Predicate inWithNull = b.in("i", Arrays.asList(1, null));
    assertThat(eval(inWithNull, rowI(1))).isTrue();
    assertThat(eval(inWithNull, rowI(null))).isFalse();
    assertThat(eval(inWithNull, rowI(2))).isFalse();

    Predicate notIn = b.notIn("i", List.of(1, 2));
    assertThat(eval(notIn, rowI(3))).isTrue();
    assertThat(eval(notIn, rowI(2))).isFalse();
    assertThat(eval(notIn, rowI(null))).isFalse();
    Predicate notInNull = b.notIn("i", Arrays.asList(1, null));
    assertThat(eval(notInNull, rowI(3))).isFalse();
    assertThat(eval(notInNull, rowI(1))).isFalse();
  }

  @Test
  void manyInLiteralsUseBinarySearch() {
    List<Integer> lits = new java.util.ArrayList<>();
    for (int k = 0; k < 100; k += 3) {
      lits.add(k);
    }
    Predicate in = b.in("i", lits);
    for (int k = 0; k < 100; k++) {
      assertThat(in.test(rowI(k))).as("k=%s", k).isEqualTo(k % 3 == 0);
    }
  }

  @Test
  void startsWith() {
    Predicate sw = b.startsWith("p", "ab");
    assertThat(eval(sw, rowP("abc"))).isTrue();
    assertThat(eval(sw, rowP("ab"))).isTrue();
    assertThat(eval(sw, rowP("a"))).isFalse();
    assertThat(eval(sw, rowP("xab"))).isFalse();
    assertThat(eval(sw, rowP(null))).isFalse();
    assertThat(eval(b.startsWith("p", ""), rowP("anything"))).isTrue();
    assertThat(eval(b.startsWith("p", "ü"), rowP("über"))).isTrue();
  }

  @Test
  void between() {
    Predicate bt = b.between("i", 2, 4);
    assertThat(eval(bt, rowI(1))).isFalse();
    assertThat(eval(bt, rowI(2))).isTrue();
    assertThat(eval(bt, rowI(3))).isTrue();
    assertThat(eval(bt, rowI(4))).isTrue();
    assertThat(eval(bt, rowI(5))).isFalse();
    assertThat(eval(bt, rowI(null))).isFalse();
    assertThat(eval(b.between("i", 4, 2), rowI(3))).isFalse();
  }

  @Test
  void everyComparableType() {
    GenericRowData row = TestRows.empty();
    row.setField(index("d"), DecimalData.fromBigDecimal(new BigDecimal("12.50"), 10, 2));
    row.setField(index("dbl"), 1.5d);
    row.setField(index("f"), 2.5f);
    row.setField(index("b"), true);
    row.setField(index("dt"), (int) LocalDate.of(2024, 1, 2).toEpochDay());
    row.setField(index("tm"), 10 * 3600_000);
    row.setField(
        index("ts"),
        TimestampData.fromLocalDateTime(LocalDateTime.of(2024, 1, 1, 10, 0, 0, 123456000)));
    row.setField(index("ltz"), TimestampData.fromInstant(Instant.parse("2024-01-01T10:00:00Z")));
    row.setField(index("bin"), new byte[] {1, (byte) 0xff});
    row.setField(index("s"), (short) 7);
    row.setField(index("t"), (byte) -3);

    assertThat(eval(b.equal("d", new BigDecimal("12.5")), row)).isTrue();
    assertThat(eval(b.greaterThan("d", 12), row)).isTrue();
    assertThat(eval(b.lessThan("d", new BigDecimal("12.51")), row)).isTrue();
    assertThat(eval(b.equal("dbl", 1.5), row)).isTrue();
    assertThat(eval(b.greaterThan("dbl", 1), row)).isTrue();
    assertThat(eval(b.equal("f", 2.5f), row)).isTrue();
    assertThat(eval(b.lessThan("f", 3), row)).isTrue();
    assertThat(eval(b.equal("b", true), row)).isTrue();
    assertThat(eval(b.greaterThan("b", false), row)).isTrue();
    assertThat(eval(b.equal("dt", LocalDate.of(2024, 1, 2)), row)).isTrue();
    assertThat(eval(b.between("dt", LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 31)), row))
        .isTrue();
    assertThat(eval(b.equal("tm", LocalTime.of(10, 0)), row)).isTrue();
    assertThat(eval(b.lessThan("tm", LocalTime.of(10, 0, 0, 1_000_000)), row)).isTrue();
    assertThat(eval(b.equal("ts", LocalDateTime.of(2024, 1, 1, 10, 0, 0, 123456000)), row))
        .isTrue();
    assertThat(eval(b.greaterThan("ts", LocalDateTime.of(2024, 1, 1, 10, 0, 0, 123455000)), row))
        .isTrue();
    assertThat(eval(b.equal("ltz", Instant.parse("2024-01-01T10:00:00Z")), row)).isTrue();
    assertThat(eval(b.equal("bin", new byte[] {1, (byte) 0xff}), row)).isTrue();
    // unsigned byte order: 0xff > 0x7f
    assertThat(eval(b.greaterThan("bin", new byte[] {1, 0x7f}), row)).isTrue();
    assertThat(eval(b.equal("s", 7), row)).isTrue();
    assertThat(eval(b.lessThan("t", 0), row)).isTrue();
    assertThat(eval(b.equal("id", 1L), row)).isTrue();
    assertThat(eval(b.equal("id", 1), row)).isTrue();
  }

  @Test
  void negativeZeroEqualsZero() {
    GenericRowData row = TestRows.with(index("dbl"), -0.0d);
    assertThat(eval(b.equal("dbl", 0.0d), row)).isTrue();
  }

  @Test
  void compounds() {
    GenericRowData row = TestRows.empty();
    row.setField(index("p"), StringData.fromString("a"));
    row.setField(index("i"), 5);
    Predicate and = PredicateBuilder.and(b.equal("p", "a"), b.greaterThan("i", 3));
    Predicate andFalse = PredicateBuilder.and(b.equal("p", "a"), b.greaterThan("i", 7));
    Predicate or = PredicateBuilder.or(b.equal("p", "b"), b.greaterThan("i", 3));
    Predicate orFalse = PredicateBuilder.or(b.equal("p", "b"), b.isNull("i"));
    assertThat(eval(and, row)).isTrue();
    assertThat(eval(andFalse, row)).isFalse();
    assertThat(eval(or, row)).isTrue();
    assertThat(eval(orFalse, row)).isFalse();
    assertThat(and.fieldNames()).containsExactly("p", "i");
  }
}
