package io.sediment.predicate;

import static io.sediment.predicate.TestRows.TYPE;
import static io.sediment.predicate.TestRows.index;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.data.BinaryRows;
import io.sediment.data.InternalComparators;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

/**
 * Strings are ordered by their UTF-8 bytes (code point order, docs/spec.md) wherever Sediment
 * compares them, in whatever form a value is held: Flink's {@code BinaryStringData.compareTo}
 * compares Java strings (UTF-16 order) when both sides hold one, which puts a character above
 * U+FFFF before U+E000..U+FFFF. An {@code IN} list sorted that way missed values read from files.
 */
class StringOrderTest {

  /** Characters around the places where UTF-16 and UTF-8 order part. */
  private static final int[] CODE_POINTS = {
    'a', 'z', 0xE9, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFF21, 0xFFFD, 0x10000, 0x1F600, 0x10FFFF
  };

  private static String draw(Random rnd) {
    StringBuilder sb = new StringBuilder();
    for (int n = rnd.nextInt(4); n > 0; n--) {
      sb.appendCodePoint(CODE_POINTS[rnd.nextInt(CODE_POINTS.length)]);
    }
    return sb.toString();
  }

  private static int utf8Order(String a, String b) {
    return Integer.signum(
        Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
  }

  /** The value as a Java string or as bytes only (as read from a file). */
  private static StringData held(String s, boolean asJavaString) {
    return asJavaString
        ? BinaryStringData.fromString(s)
        : BinaryStringData.fromBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void comparisonsFollowUtf8BytesInEveryForm() {
    Random rnd = new Random(7);
    var varchar = InternalComparators.forType(new VarCharType(VarCharType.MAX_LENGTH));
    for (int i = 0; i < 5000; i++) {
      String a = draw(rnd);
      String b = draw(rnd);
      int expected = utf8Order(a, b);
      for (int form = 0; form < 4; form++) {
        StringData x = held(a, (form & 1) != 0);
        StringData y = held(b, (form & 2) != 0);
        assertThat(Integer.signum(InternalComparators.compareStrings(x, y)))
            .as("'%s' vs '%s', form %d", a, b, form)
            .isEqualTo(expected);
        assertThat(Integer.signum(varchar.compare(x, y))).isEqualTo(expected);
      }
    }
  }

  /**
   * Predicates on a string column give, on rows and on statistics, what the UTF-8 order gives, with
   * the literals given as Java strings and the values held in either form.
   */
  @Test
  void predicatesOnStringsAgreeWithUtf8Order() {
    PredicateBuilder b = new PredicateBuilder(TYPE);
    int p = index("p");
    Random rnd = new Random(11);
    for (int i = 0; i < 2000; i++) {
      List<String> literals = new ArrayList<>();
      for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
        literals.add(draw(rnd));
      }
      String value = rnd.nextBoolean() ? literals.get(rnd.nextInt(literals.size())) : draw(rnd);
      String bound = literals.get(0);
      boolean in = literals.contains(value);
      check(b.in("p", literals), value, in, p);
      check(b.notIn("p", literals), value, !in, p);
      check(b.lessThan("p", bound), value, utf8Order(value, bound) < 0, p);
      check(b.greaterOrEqual("p", bound), value, utf8Order(value, bound) >= 0, p);
      check(b.startsWith("p", bound), value, value.startsWith(bound), p);
    }
  }

  private static void check(Predicate pred, String value, boolean expected, int p) {
    for (boolean javaString : new boolean[] {false, true}) {
      GenericRowData row = TestRows.with(p, held(value, javaString));
      row.setField(0, 1L);
      assertThat(pred.test(row))
          .as("%s on '%s' (Java string %s)", pred, value, javaString)
          .isEqualTo(expected);
      RowData stats = BinaryRows.toBinary(TYPE, row);
      if (expected) {
        // a file holding only this value may hold a matching row: never skipped
        assertThat(pred.test(1, stats, stats, new long[TYPE.getFieldCount()]))
            .as("statistics [%s, %s] for %s", value, value, pred)
            .isTrue();
      }
    }
  }
}
