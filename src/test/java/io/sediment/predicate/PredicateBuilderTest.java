package io.sediment.predicate;

import static io.sediment.predicate.TestRows.TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class PredicateBuilderTest {

  private final PredicateBuilder b = new PredicateBuilder(TYPE);

  private static void fails(ThrowingCallable call, String... fragments) {
    assertThatThrownBy(call)
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(fragments);
  }

  @Test
  void convertsLiteralsToInternal() {
    assertThat(((LeafPredicate) b.equal("p", "a")).literals())
        .containsExactly(StringData.fromString("a"));
    assertThat(((LeafPredicate) b.equal("id", 5)).literals()).containsExactly(5L);
    assertThat(((LeafPredicate) b.equal("d", 5L)).literals())
        .containsExactly(DecimalData.fromBigDecimal(new BigDecimal("5.00"), 10, 2));
    assertThat(((LeafPredicate) b.equal("dbl", 5)).literals()).containsExactly(5.0d);
    assertThat(((LeafPredicate) b.equal("dbl", 5L)).literals()).containsExactly(5.0d);
    assertThat(((LeafPredicate) b.equal("dbl", 0.5f)).literals()).containsExactly(0.5d);
    assertThat(((LeafPredicate) b.equal("f", 0.5d)).literals()).containsExactly(0.5f);
    assertThat(((LeafPredicate) b.equal("dt", LocalDate.of(1970, 1, 3))).literals())
        .containsExactly(2);
    assertThat(((LeafPredicate) b.equal("dt", 2)).literals()).containsExactly(2);
    assertThat(((LeafPredicate) b.equal("i", BigInteger.TEN)).literals()).containsExactly(10);
    assertThat(((LeafPredicate) b.equal("i", new BigDecimal("10.00"))).literals())
        .containsExactly(10);
    TimestampData ts = TimestampData.fromLocalDateTime(LocalDateTime.of(2024, 1, 1, 0, 0));
    assertThat(((LeafPredicate) b.equal("ts", ts)).literals()).containsExactly(ts);
    assertThat(((LeafPredicate) b.equal("p", StringData.fromString("x"))).literals())
        .containsExactly(StringData.fromString("x"));
    assertThat(
            ((LeafPredicate) b.equal("d", DecimalData.fromBigDecimal(new BigDecimal("1.5"), 5, 1)))
                .literals())
        .containsExactly(DecimalData.fromBigDecimal(new BigDecimal("1.50"), 10, 2));
  }

  @Test
  void unknownField() {
    fails(
        () -> b.equal("x", 1),
        "Unknown field 'x' in filter; fields are [id, p, i, d, dbl, f, b, dt, tm, ts, ltz, bin, s, t, arr]");
    fails(() -> b.isNull("nope"), "Unknown field 'nope'");
  }

  @Test
  void wrongLiteralType() {
    fails(
        () -> b.equal("id", "abc"),
        "Literal 'abc' (String) for field 'id' does not match its type BIGINT",
        "expected an integer number");
    fails(
        () -> b.equal("p", 5),
        "Literal '5' (Integer) for field 'p' does not match its type STRING",
        "expected a String");
    fails(
        () -> b.equal("id", 1.0),
        "Literal '1.0' (Double) for field 'id' does not match its type BIGINT");
    fails(
        () -> b.equal("d", 1.5),
        "Literal '1.5' (Double) for field 'd' does not match its type DECIMAL(10, 2)");
    fails(
        () -> b.equal("dt", LocalDateTime.of(2024, 1, 1, 0, 0)),
        "for field 'dt' does not match its type DATE",
        "LocalDate");
    fails(
        () -> b.equal("ltz", LocalDateTime.of(2024, 1, 1, 0, 0)),
        "does not match its type TIMESTAMP_LTZ(3)",
        "Instant");
    fails(
        () -> b.equal("b", "true"),
        "Literal 'true' (String) for field 'b' does not match its type BOOLEAN");
    fails(() -> b.equal("bin", "x"), "does not match its type BYTES");
    fails(
        () -> b.lessThan("arr", 1),
        "Method 'lessThan' is not supported on field 'arr' of type ARRAY<INT>; only isNull/isNotNull are");
  }

  @Test
  void overflowAndLossyNumbersAreRejected() {
    fails(
        () -> b.equal("i", 3_000_000_000L),
        "Literal '3000000000' (Long) for field 'i' does not match its type INT: out of range",
        "[-2147483648, 2147483647]");
    fails(() -> b.equal("t", 200), "for field 't' does not match its type TINYINT: out of range");
    fails(() -> b.equal("s", 70000), "SMALLINT: out of range");
    fails(() -> b.equal("id", new BigInteger("99999999999999999999")), "BIGINT: out of range");
    fails(() -> b.equal("d", 123456789L), "DECIMAL(10, 2): out of range");
    fails(
        () -> b.equal("d", new BigDecimal("1.234")), "DECIMAL(10, 2): more than 2 fraction digits");
    fails(() -> b.equal("i", new BigDecimal("1.5")), "INT: not an integer");
    fails(() -> b.equal("dbl", Long.MAX_VALUE - 1), "DOUBLE: not exactly representable as DOUBLE");
    fails(() -> b.equal("f", 0.1d), "FLOAT: not exactly representable as FLOAT");
    fails(() -> b.equal("f", 16_777_217), "FLOAT: not exactly representable");
    fails(() -> b.equal("tm", 86_400_000), "TIME(3): milliseconds of day out of range");
  }

  /**
   * A TIME literal with a fraction below a millisecond is refused, by the Java API and in JSON
   * filters alike: it was cut to the millisecond, so {@code tm < 10:00:00.0005} missed a row at
   * 10:00:00.000. Whole milliseconds convert exactly.
   */
  @Test
  void subMillisecondTimeLiteralsAreRefused() {
    java.util.Random random = new java.util.Random(3);
    for (int i = 0; i < 200; i++) {
      int millis = random.nextInt(86_400_000);
      int subMillis = 1 + random.nextInt(999_999);
      java.time.LocalTime whole = java.time.LocalTime.ofNanoOfDay(millis * 1_000_000L);
      java.time.LocalTime finer = whole.plusNanos(subMillis);
      assertThat(((LeafPredicate) b.lessThan("tm", whole)).literals()).containsExactly(millis);
      fails(() -> b.lessThan("tm", finer), "TIME(3): TIME columns hold milliseconds");
      String json =
          "{\"method\": \"lessThan\", \"field\": \"tm\", \"literals\": [\"" + finer + "\"]}";
      fails(() -> PredicateJson.parse(json, TYPE), "TIME columns hold milliseconds");
    }
  }

  @Test
  void startsWithOnNonString() {
    fails(
        () -> b.startsWith("id", "1"),
        "Method 'startsWith' needs a string (CHAR/VARCHAR) field, but field 'id' has type BIGINT");
  }

  @Test
  void literalCounts() {
    fails(() -> b.in("i", List.of()), "Method 'in' on field 'i' takes at least 1 literal, got 0");
    fails(
        () -> b.notIn("i", List.of()),
        "Method 'notIn' on field 'i' takes at least 1 literal, got 0");
    fails(
        () -> b.leaf(LeafFunction.BETWEEN, "i", List.of(1, 2, 3)),
        "Method 'between' on field 'i' takes exactly 2 literals, got 3");
    fails(() -> b.leaf(LeafFunction.IS_NULL, "i", List.of(1)), "takes no literals, got 1");
    fails(() -> b.equal("i", null), "Method 'equal' on field 'i' does not take a null literal");
    fails(
        () -> b.between("i", 1, null),
        "Method 'between' on field 'i' does not take a null literal");
  }

  @Test
  void andOrFlattenAndValidate() {
    Predicate a = b.equal("p", "a");
    Predicate c = b.equal("i", 1);
    Predicate d = b.equal("id", 2);
    Predicate and = PredicateBuilder.and(PredicateBuilder.and(a, c), d);
    assertThat(and).isInstanceOf(CompoundPredicate.class);
    assertThat(((CompoundPredicate) and).children()).containsExactly(a, c, d);
    assertThat(PredicateBuilder.and(a)).isSameAs(a);
    assertThat(Predicates.and(java.util.Arrays.asList(null, a, null))).isSameAs(a);
    Predicate or = PredicateBuilder.or(PredicateBuilder.or(a, c), PredicateBuilder.and(c, d));
    assertThat(((CompoundPredicate) or).children()).hasSize(3);
    fails(() -> PredicateBuilder.and(), "Cannot combine zero predicates with AND");
    fails(() -> Predicates.and(null), "null list");
    fails(
        () -> new CompoundPredicate(CompoundPredicate.Function.OR, List.of()),
        "needs at least one child");
  }
}
