package io.sediment.predicate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** The functions of a {@link LeafPredicate}, with their JSON method names and literal counts. */
public enum LeafFunction {
  EQUAL("equal", "=", 1, 1),
  NOT_EQUAL("notEqual", "<>", 1, 1),
  LESS_THAN("lessThan", "<", 1, 1),
  LESS_OR_EQUAL("lessOrEqual", "<=", 1, 1),
  GREATER_THAN("greaterThan", ">", 1, 1),
  GREATER_OR_EQUAL("greaterOrEqual", ">=", 1, 1),
  IS_NULL("isNull", "IS NULL", 0, 0),
  IS_NOT_NULL("isNotNull", "IS NOT NULL", 0, 0),
  IN("in", "IN", 1, Integer.MAX_VALUE),
  NOT_IN("notIn", "NOT IN", 1, Integer.MAX_VALUE),
  STARTS_WITH("startsWith", "STARTS_WITH", 1, 1),
  BETWEEN("between", "BETWEEN", 2, 2);

  private final String jsonName;
  private final String symbol;
  private final int minLiterals;
  private final int maxLiterals;

  LeafFunction(String jsonName, String symbol, int minLiterals, int maxLiterals) {
    this.jsonName = jsonName;
    this.symbol = symbol;
    this.minLiterals = minLiterals;
    this.maxLiterals = maxLiterals;
  }

  /** The method name in the JSON wire form, e.g. {@code greaterOrEqual}. */
  public String jsonName() {
    return jsonName;
  }

  String symbol() {
    return symbol;
  }

  public int minLiterals() {
    return minLiterals;
  }

  public int maxLiterals() {
    return maxLiterals;
  }

  /** Whether this function compares values (and so needs an orderable column type). */
  public boolean comparesValues() {
    return this != IS_NULL && this != IS_NOT_NULL;
  }

  /** Whether null literals are allowed (only in the lists of {@code in} and {@code notIn}). */
  public boolean allowsNullLiterals() {
    return this == IN || this == NOT_IN;
  }

  /** The function with this JSON method name, if any. */
  public static Optional<LeafFunction> fromJsonName(String name) {
    for (LeafFunction f : values()) {
      if (f.jsonName.equals(name)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }

  /** All JSON method names of leaf functions, in declaration order. */
  public static List<String> jsonNames() {
    List<String> names = new ArrayList<>();
    for (LeafFunction f : values()) {
      names.add(f.jsonName);
    }
    return Collections.unmodifiableList(names);
  }

  /** Throws IllegalArgumentException when {@code count} literals do not suit this function. */
  void checkLiteralCount(int count, String field) {
    if (count >= minLiterals && count <= maxLiterals) {
      return;
    }
    String expected;
    if (minLiterals == maxLiterals) {
      expected =
          minLiterals == 0
              ? "no literals"
              : "exactly " + minLiterals + " literal" + (minLiterals == 1 ? "" : "s");
    } else {
      expected = "at least " + minLiterals + " literal" + (minLiterals == 1 ? "" : "s");
    }
    throw new IllegalArgumentException(
        "Method '" + jsonName + "' on field '" + field + "' takes " + expected + ", got " + count);
  }
}
