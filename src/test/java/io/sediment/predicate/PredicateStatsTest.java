package io.sediment.predicate;

import static io.sediment.predicate.TestRows.ARITY;
import static io.sediment.predicate.TestRows.TYPE;
import static io.sediment.predicate.TestRows.index;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;

class PredicateStatsTest {

  private final PredicateBuilder b = new PredicateBuilder(TYPE);
  private static final int I = index("i");
  private static final int P = index("p");

  /** Stats for a file of 10 rows where i ranges over [min, max] with the given null count. */
  private static boolean statsI(Predicate pred, Integer min, Integer max, long nulls) {
    return stats(pred, I, min, max, nulls, 10);
  }

  private static boolean stats(
      Predicate pred, int pos, Object min, Object max, long nulls, long rows) {
    GenericRowData minRow = new GenericRowData(ARITY);
    GenericRowData maxRow = new GenericRowData(ARITY);
    minRow.setField(0, 0L);
    maxRow.setField(0, 0L);
    minRow.setField(pos, min);
    maxRow.setField(pos, max);
    long[] nullCounts = new long[ARITY];
    nullCounts[pos] = nulls;
    boolean generic = pred.test(rows, minRow, maxRow, nullCounts);
    RowData bMin = BinaryRows.toBinary(TYPE, minRow);
    RowData bMax = BinaryRows.toBinary(TYPE, maxRow);
    assertThat(pred.test(rows, bMin, bMax, nullCounts)).as("binary stats agree").isEqualTo(generic);
    return generic;
  }

  private static boolean statsP(Predicate pred, String min, String max) {
    return stats(pred, P, StringData.fromString(min), StringData.fromString(max), 0, 10);
  }

  @Test
  void equal() {
    Predicate eq = b.equal("i", 5);
    assertThat(statsI(eq, 1, 10, 0)).isTrue();
    assertThat(statsI(eq, 5, 5, 0)).isTrue();
    assertThat(statsI(eq, 6, 10, 0)).isFalse();
    assertThat(statsI(eq, 1, 4, 0)).isFalse();
  }

  @Test
  void notEqual() {
    Predicate ne = b.notEqual("i", 5);
    assertThat(statsI(ne, 5, 5, 0)).isFalse();
    assertThat(statsI(ne, 5, 6, 0)).isTrue();
    assertThat(statsI(ne, 1, 4, 0)).isTrue();
    assertThat(statsI(ne, 5, 5, 3)).isFalse();
  }

  @Test
  void ranges() {
    assertThat(statsI(b.lessThan("i", 5), 5, 9, 0)).isFalse();
    assertThat(statsI(b.lessThan("i", 5), 4, 9, 0)).isTrue();
    assertThat(statsI(b.lessOrEqual("i", 5), 5, 9, 0)).isTrue();
    assertThat(statsI(b.lessOrEqual("i", 5), 6, 9, 0)).isFalse();
    assertThat(statsI(b.greaterThan("i", 5), 1, 5, 0)).isFalse();
    assertThat(statsI(b.greaterThan("i", 5), 1, 6, 0)).isTrue();
    assertThat(statsI(b.greaterOrEqual("i", 5), 1, 5, 0)).isTrue();
    assertThat(statsI(b.greaterOrEqual("i", 5), 1, 4, 0)).isFalse();
  }

  @Test
  void nullChecks() {
    assertThat(statsI(b.isNull("i"), 1, 5, 0)).isFalse();
    assertThat(statsI(b.isNull("i"), 1, 5, 2)).isTrue();
    assertThat(statsI(b.isNull("i"), null, null, 10)).isTrue();
    assertThat(statsI(b.isNotNull("i"), null, null, 10)).isFalse();
    assertThat(statsI(b.isNotNull("i"), 1, 5, 9)).isTrue();
    assertThat(statsI(b.isNotNull("i"), 1, 5, 0)).isTrue();
    // unknown null counts
    assertThat(b.isNull("i").test(10, null, null, null)).isTrue();
    assertThat(b.isNotNull("i").test(10, null, null, null)).isTrue();
    long[] unknown = new long[ARITY];
    Arrays.fill(unknown, -1);
    assertThat(b.isNull("i").test(10, null, null, unknown)).isTrue();
  }

  @Test
  void inAndNotIn() {
    assertThat(statsI(b.in("i", List.of(1, 20)), 5, 10, 0)).isFalse();
    assertThat(statsI(b.in("i", List.of(1, 7, 20)), 5, 10, 0)).isTrue();
    assertThat(statsI(b.in("i", Arrays.asList((Object) null)), 5, 10, 0)).isFalse();
    assertThat(statsI(b.notIn("i", List.of(5, 6)), 5, 5, 0)).isFalse();
    assertThat(statsI(b.notIn("i", List.of(5, 6)), 5, 6, 0)).isTrue();
    assertThat(statsI(b.notIn("i", List.of(7)), 5, 5, 0)).isTrue();
    assertThat(statsI(b.notIn("i", Arrays.asList(7, null)), 1, 9, 0)).isFalse();
  }

  @Test
  void startsWith() {
    Predicate sw = b.startsWith("p", "ab");
    assertThat(statsP(sw, "aa", "zz")).isTrue();
    assertThat(statsP(sw, "abc", "abd")).isTrue();
    assertThat(statsP(sw, "ab", "ab")).isTrue();
    assertThat(statsP(sw, "aa", "aaz")).isFalse();
    assertThat(statsP(sw, "ac", "zz")).isFalse();
    assertThat(statsP(sw, "a", "ab")).isTrue();
    assertThat(statsP(sw, "abz", "b")).isTrue();
    // byte-wise UTF-8 order: 'é' (0xC3..) sorts after 'z'
    assertThat(statsP(b.startsWith("p", "é"), "a", "z")).isFalse();
    assertThat(statsP(b.startsWith("p", "é"), "a", "éa")).isTrue();
  }

  @Test
  void between() {
    Predicate bt = b.between("i", 3, 5);
    assertThat(statsI(bt, 1, 2, 0)).isFalse();
    assertThat(statsI(bt, 1, 3, 0)).isTrue();
    assertThat(statsI(bt, 4, 4, 0)).isTrue();
    assertThat(statsI(bt, 5, 9, 0)).isTrue();
    assertThat(statsI(bt, 6, 9, 0)).isFalse();
  }

  @Test
  void unknownAndAllNullStats() {
    for (Predicate pred :
        List.of(
            b.equal("i", 5),
            b.notEqual("i", 5),
            b.lessThan("i", 5),
            b.greaterThan("i", 5),
            b.in("i", List.of(5)),
            b.notIn("i", List.of(5)),
            b.between("i", 1, 2))) {
      // min/max unknown but some values present: must be kept
      assertThat(statsI(pred, null, null, 3)).as("unknown %s", pred).isTrue();
      assertThat(pred.test(10, null, null, null)).as("no stats %s", pred).isTrue();
      // every value null: comparisons cannot match
      assertThat(statsI(pred, null, null, 10)).as("all null %s", pred).isFalse();
      // empty file
      assertThat(pred.test(0, null, null, null)).as("empty %s", pred).isFalse();
    }
    assertThat(statsP(b.startsWith("p", "x"), "x", "x")).isTrue();
    assertThat(stats(b.startsWith("p", "x"), P, null, null, 2, 10)).isTrue();
    assertThat(stats(b.startsWith("p", "x"), P, null, null, 10, 10)).isFalse();
    // only one bound known
    assertThat(statsI(b.greaterThan("i", 5), 7, null, 0)).isTrue();
    assertThat(statsI(b.greaterThan("i", 5), null, 4, 0)).isFalse();
    assertThat(statsI(b.lessThan("i", 5), 7, null, 0)).isFalse();
  }

  @Test
  void compounds() {
    Predicate and = PredicateBuilder.and(b.greaterThan("i", 5), b.lessThan("i", 8));
    assertThat(statsI(and, 1, 6, 0)).isTrue();
    assertThat(statsI(and, 1, 5, 0)).isFalse();
    Predicate or = PredicateBuilder.or(b.lessThan("i", 0), b.greaterThan("i", 100));
    assertThat(statsI(or, 1, 50, 0)).isFalse();
    assertThat(statsI(or, -5, 50, 0)).isTrue();
  }
}
