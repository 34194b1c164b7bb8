package io.sediment.predicate;

import static io.sediment.predicate.TestRows.TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;

class PredicatesTest {

  private final PredicateBuilder b = new PredicateBuilder(TYPE);

  /** Partition type: dt and p, in a different order than the table. */
  private static final RowType PARTITION =
      RowType.of(
          new LogicalType[] {new DateType(), new VarCharType(VarCharType.MAX_LENGTH)},
          new String[] {"dt", "p"});

  private static GenericRowData partition(LocalDate dt, String p) {
    return GenericRowData.of((int) dt.toEpochDay(), StringData.fromString(p));
  }

  @Test
  void projectLeaf() {
    Predicate leaf = b.equal("p", "a");
    Optional<Predicate> projected = Predicates.projectTo(leaf, PARTITION);
    assertThat(projected).isPresent();
    LeafPredicate pl = (LeafPredicate) projected.get();
    assertThat(pl.fieldIndex()).isEqualTo(1);
    assertThat(pl.test(partition(LocalDate.of(2024, 1, 1), "a"))).isTrue();
    assertThat(pl.test(partition(LocalDate.of(2024, 1, 1), "b"))).isFalse();
    assertThat(Predicates.projectTo(b.equal("i", 1), PARTITION)).isEmpty();
  }

  @Test
  void projectAndKeepsQualifyingChildren() {
    Predicate and =
        PredicateBuilder.and(
            b.equal("p", "a"),
            b.greaterThan("i", 3),
            b.greaterOrEqual("dt", LocalDate.of(2024, 1, 1)));
    Predicate projected = Predicates.projectTo(and, PARTITION).orElseThrow();
    assertThat(projected.fieldNames()).containsExactly("p", "dt");
    assertThat(projected.toString()).isEqualTo("p = 'a' AND dt >= '2024-01-01'");
    assertThat(projected.test(partition(LocalDate.of(2024, 2, 1), "a"))).isTrue();
    assertThat(projected.test(partition(LocalDate.of(2023, 2, 1), "a"))).isFalse();
    // only one qualifies: returned bare
    Predicate one =
        Predicates.projectTo(PredicateBuilder.and(b.equal("p", "a"), b.isNull("i")), PARTITION)
            .orElseThrow();
    assertThat(one).isInstanceOf(LeafPredicate.class);
    assertThat(
            Predicates.projectTo(PredicateBuilder.and(b.equal("id", 1), b.isNull("i")), PARTITION))
        .isEmpty();
  }

  @Test
  void projectOrNeedsAllChildren() {
    Predicate or = PredicateBuilder.or(b.equal("p", "a"), b.equal("dt", LocalDate.of(2024, 1, 1)));
    Predicate projected = Predicates.projectTo(or, PARTITION).orElseThrow();
    assertThat(projected.toString()).isEqualTo("p = 'a' OR dt = '2024-01-01'");
    assertThat(
            Predicates.projectTo(
                PredicateBuilder.or(b.equal("p", "a"), b.equal("i", 1)), PARTITION))
        .isEmpty();
    // (p = 'a' AND i = 1) OR p = 'b' projects to p = 'a' OR p = 'b' (weaker, safe for pruning)
    Predicate nested =
        PredicateBuilder.or(
            PredicateBuilder.and(b.equal("p", "a"), b.equal("i", 1)), b.equal("p", "b"));
    assertThat(Predicates.projectTo(nested, PARTITION).orElseThrow().toString())
        .isEqualTo("p = 'a' OR p = 'b'");
  }

  @Test
  void rebind() {
    Predicate and =
        PredicateBuilder.and(b.equal("p", "a"), b.lessThan("dt", LocalDate.of(2024, 1, 1)));
    Predicate rebound = Predicates.rebind(and, PARTITION);
    assertThat(rebound.test(partition(LocalDate.of(2023, 1, 1), "a"))).isTrue();
    assertThat(rebound.test(partition(LocalDate.of(2024, 1, 1), "a"))).isFalse();
    assertThatThrownBy(
            () -> Predicates.rebind(PredicateBuilder.and(and, b.equal("i", 1)), PARTITION))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "Field 'i' of the filter is missing from the target row type; fields are [dt, p]");
    // type widening on rebind: INT literal onto BIGINT column
    RowType wide = RowType.of(new LogicalType[] {new BigIntType()}, new String[] {"i"});
    LeafPredicate widened = (LeafPredicate) Predicates.rebind(b.equal("i", 7), wide);
    assertThat(widened.literals()).containsExactly(7L);
    assertThat(widened.test(GenericRowData.of(7L))).isTrue();
    // same type and index: unchanged
    Predicate same = b.equal("p", "a");
    assertThat(Predicates.rebind(same, TYPE)).isSameAs(same);
    // narrowing that does not fit is excluded from projection
    RowType narrow = RowType.of(new LogicalType[] {new IntType()}, new String[] {"id"});
    assertThat(Predicates.projectTo(b.equal("id", 5_000_000_000L), narrow)).isEmpty();
    assertThat(Predicates.projectTo(b.equal("id", 5L), narrow)).isPresent();
  }

  @SuppressWarnings("unchecked")
  private static <T> T javaRoundTrip(T value) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  @Test
  void javaSerialization() throws Exception {
    List<Predicate> all =
        List.of(
            b.equal("p", "a"),
            b.in("p", Arrays.asList("x", null)),
            b.between("d", new BigDecimal("1.5"), 10),
            b.equal("ts", LocalDateTime.of(2024, 1, 1, 10, 0, 0, 123456789)),
            b.equal("ltz", Instant.parse("2024-01-01T10:00:00Z")),
            b.equal("tm", LocalTime.NOON),
            b.equal("dt", LocalDate.of(2024, 1, 1)),
            b.equal("bin", new byte[] {1, 2}),
            b.startsWith("p", "ab"),
            b.isNull("arr"),
            b.equal("dbl", 2.5),
            PredicateBuilder.or(
                b.equal("p", "a"), PredicateBuilder.and(b.isNull("i"), b.greaterThan("id", 3))));
    for (Predicate p : all) {
      Predicate back = javaRoundTrip(p);
      assertThat(back).isEqualTo(p).isNotSameAs(p);
      assertThat(back.hashCode()).isEqualTo(p.hashCode());
      assertThat(back.toString()).isEqualTo(p.toString());
    }
    // the deserialized predicate evaluates
    Predicate back = javaRoundTrip(b.startsWith("p", "ab"));
    assertThat(back.test(TestRows.with(1, StringData.fromString("abc")))).isTrue();
    Predicate in = javaRoundTrip(b.in("i", List.of(1, 5)));
    assertThat(in.test(TestRows.with(2, 5))).isTrue();
  }

  @Test
  void equalsHashCodeToString() {
    assertThat(b.equal("p", "a")).isEqualTo(b.equal("p", "a")).hasSameHashCodeAs(b.equal("p", "a"));
    assertThat(b.equal("p", "a"))
        .isNotEqualTo(b.equal("p", "b"))
        .isNotEqualTo(b.notEqual("p", "a"));
    assertThat(b.equal("bin", new byte[] {1})).isEqualTo(b.equal("bin", new byte[] {1}));
    assertThat(b.equal("bin", new byte[] {1}).hashCode())
        .isEqualTo(b.equal("bin", new byte[] {1}).hashCode());

    assertThat(PredicateBuilder.and(b.equal("p", "a"), b.greaterThan("i", 3)))
        .hasToString("p = 'a' AND i > 3");
    assertThat(b.notEqual("p", "it's")).hasToString("p <> 'it''s'");
    assertThat(b.lessOrEqual("d", new BigDecimal("1.5"))).hasToString("d <= 1.50");
    assertThat(b.isNull("p")).hasToString("p IS NULL");
    assertThat(b.isNotNull("p")).hasToString("p IS NOT NULL");
    assertThat(b.in("i", Arrays.asList(1, null))).hasToString("i IN (1, NULL)");
    assertThat(b.notIn("i", List.of(1, 2))).hasToString("i NOT IN (1, 2)");
    assertThat(b.startsWith("p", "ab")).hasToString("STARTS_WITH(p, 'ab')");
    assertThat(b.between("dt", LocalDate.of(2024, 1, 1), LocalDate.of(2024, 1, 31)))
        .hasToString("dt BETWEEN '2024-01-01' AND '2024-01-31'");
    assertThat(b.equal("bin", new byte[] {0x0a, (byte) 0xff})).hasToString("bin = X'0aff'");
    assertThat(b.lessThan("ts", LocalDateTime.of(2024, 1, 1, 10, 0)))
        .hasToString("ts < '2024-01-01T10:00'");
  }
}
