package io.sediment.predicate;

import static io.sediment.predicate.TestRows.TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PredicateJsonTest {

  private final PredicateBuilder b = new PredicateBuilder(TYPE);

  private static Predicate parse(String json) {
    return PredicateJson.parse(json.replace('\'', '"'), TYPE);
  }

  private static void roundTrip(Predicate p) {
    String json = PredicateJson.toJson(p);
    Predicate back = PredicateJson.parse(json, TYPE);
    assertThat(back).as(json).isEqualTo(p);
    assertThat(back.hashCode()).isEqualTo(p.hashCode());
    assertThat(PredicateJson.toJson(back)).isEqualTo(json);
  }

  @Test
  void parsesEveryMethod() {
    assertThat(parse("{'method':'equal','field':'p','literals':['a']}"))
        .isEqualTo(b.equal("p", "a"));
    assertThat(parse("{'method':'notEqual','field':'id','literals':[42]}"))
        .isEqualTo(b.notEqual("id", 42L));
    assertThat(parse("{'method':'lessThan','field':'id','literals':['42']}"))
        .isEqualTo(b.lessThan("id", 42L));
    assertThat(parse("{'method':'lessOrEqual','field':'d','literals':['12.50']}"))
        .isEqualTo(b.lessOrEqual("d", new BigDecimal("12.5")));
    assertThat(parse("{'method':'greaterThan','field':'d','literals':[12.5]}"))
        .isEqualTo(b.greaterThan("d", new BigDecimal("12.50")));
    assertThat(parse("{'method':'greaterOrEqual','field':'dt','literals':['2024-01-01']}"))
        .isEqualTo(b.greaterOrEqual("dt", LocalDate.of(2024, 1, 1)));
    assertThat(parse("{'method':'isNull','field':'p'}")).isEqualTo(b.isNull("p"));
    assertThat(parse("{'method':'isNull','field':'p','literals':[]}")).isEqualTo(b.isNull("p"));
    assertThat(parse("{'method':'isNotNull','field':'arr'}")).isEqualTo(b.isNotNull("arr"));
    assertThat(parse("{'method':'in','field':'i','literals':[1,2,null]}"))
        .isEqualTo(b.in("i", Arrays.asList(1, 2, null)));
    assertThat(parse("{'method':'notIn','field':'p','literals':['x','y']}"))
        .isEqualTo(b.notIn("p", List.of("x", "y")));
    assertThat(parse("{'method':'startsWith','field':'p','literals':['ab']}"))
        .isEqualTo(b.startsWith("p", "ab"));
    assertThat(parse("{'method':'between','field':'i','literals':[1,5]}"))
        .isEqualTo(b.between("i", 1, 5));
  }

  @Test
  void parsesLiteralsOfEveryType() {
    assertThat(parse("{'method':'equal','field':'ts','literals':['2024-01-01T10:00:00']}"))
        .isEqualTo(b.equal("ts", LocalDateTime.of(2024, 1, 1, 10, 0)));
    assertThat(parse("{'method':'equal','field':'ts','literals':['2024-01-01 10:00:00.123456']}"))
        .isEqualTo(b.equal("ts", LocalDateTime.of(2024, 1, 1, 10, 0, 0, 123456000)));
    assertThat(parse("{'method':'equal','field':'ltz','literals':['2024-01-01T12:00:00+02:00']}"))
        .isEqualTo(b.equal("ltz", Instant.parse("2024-01-01T10:00:00Z")));
    assertThat(parse("{'method':'equal','field':'tm','literals':['10:15:30.5']}"))
        .isEqualTo(b.equal("tm", LocalTime.of(10, 15, 30, 500_000_000)));
    assertThat(parse("{'method':'equal','field':'b','literals':[true]}"))
        .isEqualTo(b.equal("b", true));
    assertThat(parse("{'method':'equal','field':'b','literals':['false']}"))
        .isEqualTo(b.equal("b", false));
    assertThat(parse("{'method':'equal','field':'dbl','literals':[1.5]}"))
        .isEqualTo(b.equal("dbl", 1.5));
    assertThat(parse("{'method':'equal','field':'dbl','literals':['NaN']}"))
        .isEqualTo(b.equal("dbl", Double.NaN));
    assertThat(parse("{'method':'equal','field':'f','literals':[0.1]}"))
        .isEqualTo(b.equal("f", 0.1f));
    assertThat(parse("{'method':'equal','field':'s','literals':[-7]}"))
        .isEqualTo(b.equal("s", (short) -7));
    assertThat(parse("{'method':'equal','field':'t','literals':['12']}"))
        .isEqualTo(b.equal("t", (byte) 12));
    assertThat(parse("{'method':'equal','field':'bin','literals':['AQL/']}"))
        .isEqualTo(b.equal("bin", new byte[] {1, 2, (byte) 0xff}));
    assertThat(parse("{'method':'equal','field':'id','literals':[4.0]}"))
        .isEqualTo(b.equal("id", 4L));
  }

  @Test
  void parsesNestedCompounds() {
    Predicate p =
        parse(
            "{'method':'or','children':["
                + "{'method':'and','children':[{'method':'equal','field':'p','literals':['a']},"
                + "{'method':'greaterThan','field':'i','literals':[3]}]},"
                + "{'method':'isNull','field':'p'}]}");
    Predicate expected =
        new CompoundPredicate(
            CompoundPredicate.Function.OR,
            List.of(
                new CompoundPredicate(
                    CompoundPredicate.Function.AND,
                    List.of(b.equal("p", "a"), b.greaterThan("i", 3))),
                b.isNull("p")));
    assertThat(p).isEqualTo(expected);
    assertThat(p.toString()).isEqualTo("(p = 'a' AND i > 3) OR p IS NULL");
    Predicate single = parse("{'method':'and','children':[{'method':'isNull','field':'p'}]}");
    assertThat(single).isInstanceOf(CompoundPredicate.class);
    roundTrip(single);
  }

  @Test
  void roundTripsEveryMethodAndType() {
    List<Predicate> all =
        List.of(
            b.equal("p", "it's"),
            b.notEqual("id", Long.MAX_VALUE),
            b.lessThan("i", -3),
            b.lessOrEqual("d", new BigDecimal("-99999999.99")),
            b.greaterThan("dbl", 1.0e300),
            b.greaterOrEqual("f", 3.4028235e38f),
            b.equal("f", Float.NaN),
            b.equal("dbl", Double.NEGATIVE_INFINITY),
            b.equal("b", false),
            b.equal("dt", LocalDate.of(1969, 12, 31)),
            b.equal("tm", LocalTime.of(23, 59, 59, 999_000_000)),
            b.equal("ts", LocalDateTime.of(2024, 2, 29, 0, 0, 0, 1000)),
            b.equal("ltz", Instant.parse("2024-01-01T10:00:00.123Z")),
            b.equal("bin", new byte[] {0, -1, 5}),
            b.equal("s", 300),
            b.equal("t", -128),
            b.isNull("arr"),
            b.isNotNull("p"),
            b.in("p", Arrays.asList("a", null, "b")),
            b.notIn("d", List.of(1, new BigDecimal("2.5"))),
            b.startsWith("p", "pre"),
            b.between(
                "ts",
                LocalDateTime.of(2024, 1, 1, 0, 0),
                LocalDateTime.of(2024, 12, 31, 23, 59, 59)),
            PredicateBuilder.and(
                b.equal("p", "a"), PredicateBuilder.or(b.isNull("i"), b.lessThan("i", 3))));
    for (Predicate p : all) {
      roundTrip(p);
    }
  }

  @Test
  void toJsonShape() {
    assertThat(PredicateJson.toJson(b.equal("p", "a")))
        .isEqualTo("{\"method\":\"equal\",\"field\":\"p\",\"literals\":[\"a\"]}");
    assertThat(PredicateJson.toJson(b.isNull("p")))
        .isEqualTo("{\"method\":\"isNull\",\"field\":\"p\"}");
    assertThat(PredicateJson.toJson(b.equal("d", new BigDecimal("12.5"))))
        .isEqualTo("{\"method\":\"equal\",\"field\":\"d\",\"literals\":[12.50]}");
    assertThat(PredicateJson.toJson(b.equal("dt", LocalDate.of(2024, 1, 1))))
        .isEqualTo("{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"2024-01-01\"]}");
  }

  // ------------------------------------------------------------------ errors

  private static void fails(String json, String... fragments) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOf(IllegalArgumentException.class)
        .message()
        .contains(fragments);
  }

  @Test
  void unknownField() {
    fails(
        "{'method':'equal','field':'x','literals':[1]}",
        "Unknown field 'x' in filter; fields are [id, p, i, d,");
  }

  @Test
  void unknownMethod() {
    fails(
        "{'method':'like','field':'p','literals':['a']}",
        "Unknown method 'like'",
        "[and, or, equal, notEqual, lessThan, lessOrEqual, greaterThan, greaterOrEqual, isNull, isNotNull, in, notIn, startsWith, between]");
    fails("{'field':'p'}", "missing key 'method'", "allowed methods are [and, or, equal");
  }

  @Test
  void wrongLiteralType() {
    fails(
        "{'method':'equal','field':'id','literals':['abc']}",
        "Literal 'abc' (String) for field 'id' does not match its type BIGINT");
    fails(
        "{'method':'equal','field':'dt','literals':['2024-13-01']}",
        "Literal '2024-13-01' (String) for field 'dt' does not match its type DATE",
        "2024-01-01");
    fails(
        "{'method':'equal','field':'dt','literals':[20240101]}",
        "Literal '20240101' (number) for field 'dt' does not match its type DATE");
    fails(
        "{'method':'equal','field':'p','literals':[5]}",
        "Literal '5' (number) for field 'p' does not match its type");
    fails(
        "{'method':'equal','field':'i','literals':[true]}",
        "Literal 'true' (boolean) for field 'i' does not match its type INT");
    fails(
        "{'method':'equal','field':'i','literals':[3000000000]}",
        "Literal '3000000000' (number) for field 'i' does not match its type INT: out of range");
    fails(
        "{'method':'equal','field':'i','literals':[1.5]}",
        "Literal '1.5' (number) for field 'i' does not match its type INT: not an integer");
    fails(
        "{'method':'equal','field':'d','literals':['12.555']}",
        "Literal '12.555' (String) for field 'd' does not match its type DECIMAL(10, 2): more than 2 fraction digits");
    fails(
        "{'method':'equal','field':'d','literals':[123456789]}",
        "does not match its type DECIMAL(10, 2): out of range");
    fails(
        "{'method':'equal','field':'ltz','literals':['2024-01-01 10:00:00']}",
        "for field 'ltz' does not match its type TIMESTAMP_LTZ(3): ambiguous without a time zone offset");
    fails(
        "{'method':'equal','field':'ts','literals':['yesterday']}",
        "Literal 'yesterday' (String) for field 'ts' does not match its type TIMESTAMP(6)");
    fails(
        "{'method':'equal','field':'dbl','literals':['1.5d']}",
        "Literal '1.5d' (String) for field 'dbl' does not match its type DOUBLE");
    fails(
        "{'method':'equal','field':'i','literals':[[1]]}",
        "for field 'i' must be a JSON string, number, boolean or null");
    fails(
        "{'method':'equal','field':'arr','literals':[1]}",
        "Method 'equal' is not supported on field 'arr' of type ARRAY<INT>; only isNull/isNotNull are");
  }

  @Test
  void wrongLiteralCount() {
    fails(
        "{'method':'equal','field':'i','literals':[1,2]}",
        "Method 'equal' on field 'i' takes exactly 1 literal, got 2");
    fails("{'method':'equal','field':'i'}", "takes exactly 1 literal, got 0");
    fails(
        "{'method':'isNull','field':'i','literals':[1]}",
        "Method 'isNull' on field 'i' takes no literals, got 1");
    fails(
        "{'method':'in','field':'i','literals':[]}",
        "Method 'in' on field 'i' takes at least 1 literal, got 0");
    fails(
        "{'method':'notIn','field':'i'}",
        "Method 'notIn' on field 'i' takes at least 1 literal, got 0");
    fails(
        "{'method':'between','field':'i','literals':[1]}",
        "Method 'between' on field 'i' takes exactly 2 literals, got 1");
    fails(
        "{'method':'equal','field':'i','literals':[null]}",
        "does not take a null literal; use isNull/isNotNull");
    fails("{'method':'equal','field':'i','literals':5}", "'literals' must be an array");
  }

  @Test
  void malformedJson() {
    fails("{'method':'equal',", "Malformed filter JSON at line 1, column");
    fails(
        "{'method' 'equal'}",
        "Malformed filter JSON at line 1, column 11",
        "was expecting a colon");
    fails("{'method':'isNull','field':'p'} x", "Malformed filter JSON");
    fails(
        "{'method':'isNull','field':'p','field':'i'}",
        "Malformed filter JSON",
        "Duplicate field 'field'");
    fails("", "Filter JSON is empty");
    fails("[1]", "expected a JSON object with a 'method', got array [1]");
  }

  @Test
  void unknownKey() {
    fails(
        "{'method':'equal','field':'i','literals':[1],'value':2}",
        "Unknown key 'value' in a leaf filter object; allowed keys are [field, literals, method]");
    fails(
        "{'method':'and','children':[{'method':'isNull','field':'p'}],'field':'p'}",
        "Unknown key 'field' in an 'and' filter object; allowed keys are [children, method]");
  }

  @Test
  void compoundErrors() {
    fails("{'method':'and','children':[]}", "'and' needs a non-empty array 'children'");
    fails("{'method':'or'}", "'or' needs a non-empty array 'children', got none");
    fails(
        "{'method':'and','children':[{'method':'isNull','field':'p'},{'method':'equal','field':'zz','literals':[1]}]}",
        "In filter at $.children[1]: Unknown field 'zz' in filter; fields are [");
  }

  @Test
  void startsWithOnNonStringColumn() {
    fails(
        "{'method':'startsWith','field':'i','literals':['1']}",
        "Method 'startsWith' needs a string (CHAR/VARCHAR) field, but field 'i' has type INT");
  }
}
