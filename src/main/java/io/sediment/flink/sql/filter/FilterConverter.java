package io.sediment.flink.sql.filter;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.RowType;

/**
 * Converts Flink filter expressions to Sediment predicates where it can: comparisons of a column
 * with a literal ({@code = <> < <= > >=}, either side), {@code IS [NOT] NULL}, {@code LIKE
 * 'prefix%'}, and AND/OR of those. A conjunction converts to the AND of its convertible parts (a
 * weaker filter, safe because Flink keeps evaluating the original); a disjunction converts only
 * when every part does. Everything else is left to Flink. {@link #convertExact} is the strict form
 * for filters nobody re-evaluates (a compaction's partition filter): all or nothing, and {@code
 * NOT} too.
 */
public final class FilterConverter {

  private FilterConverter() {}

  public static Optional<Predicate> convert(RowType rowType, ResolvedExpression e) {
    try {
      return Optional.ofNullable(doConvert(new PredicateBuilder(rowType), e, false, false));
    } catch (IllegalArgumentException | ClassCastException ex) {
      return Optional.empty(); // a literal that does not fit the column: leave it to Flink
    }
  }

  /**
   * Converts {@code e} exactly or not at all: a conjunction converts only when every part does, and
   * {@code NOT} of a convertible expression converts to its negation. For filters nobody evaluates
   * after Sediment, such as the partition filter of a compaction.
   *
   * @throws IllegalArgumentException when a literal does not fit its column
   */
  public static Optional<Predicate> convertExact(RowType rowType, ResolvedExpression e) {
    return Optional.ofNullable(doConvert(new PredicateBuilder(rowType), e, true, false));
  }

  private static Predicate doConvert(
      PredicateBuilder b, ResolvedExpression e, boolean exact, boolean negated) {
    if (!(e instanceof CallExpression)) {
      return null;
    }
    CallExpression call = (CallExpression) e;
    FunctionDefinition fn = call.getFunctionDefinition();
    List<ResolvedExpression> args = call.getResolvedChildren();
    if (fn == BuiltInFunctionDefinitions.NOT) {
      // Only exact conversions may negate: NOT of a weakened filter would be a wrong one.
      return exact && args.size() == 1 ? doConvert(b, args.get(0), true, !negated) : null;
    }
    if (negated) {
      // De Morgan: NOT (a AND b) = NOT a OR NOT b, and the reverse.
      if (fn == BuiltInFunctionDefinitions.AND) {
        fn = BuiltInFunctionDefinitions.OR;
      } else if (fn == BuiltInFunctionDefinitions.OR) {
        fn = BuiltInFunctionDefinitions.AND;
      }
    }
    if (fn == BuiltInFunctionDefinitions.AND) {
      List<Predicate> parts = new ArrayList<>();
      for (ResolvedExpression a : args) {
        Predicate p = doConvert(b, a, exact, negated);
        if (p != null) {
          parts.add(p);
        } else if (exact) {
          return null;
        }
      }
      return parts.isEmpty() ? null : PredicateBuilder.and(parts);
    }
    if (fn == BuiltInFunctionDefinitions.OR) {
      List<Predicate> parts = new ArrayList<>();
      for (ResolvedExpression a : args) {
        Predicate p = doConvert(b, a, exact, negated);
        if (p == null) {
          return null;
        }
        parts.add(p);
      }
      return PredicateBuilder.or(parts);
    }
    if (fn == BuiltInFunctionDefinitions.IS_NULL || fn == BuiltInFunctionDefinitions.IS_NOT_NULL) {
      if (args.size() == 1 && args.get(0) instanceof FieldReferenceExpression) {
        String field = ((FieldReferenceExpression) args.get(0)).getName();
        return (fn == BuiltInFunctionDefinitions.IS_NULL) != negated
            ? b.isNull(field)
            : b.isNotNull(field);
      }
      return null;
    }
    if (negated) {
      fn = negation(fn); // a comparison: NOT (x < 1) is x >= 1 (both false on a null x)
      if (fn == null) {
        return null;
      }
    }
    if (fn == BuiltInFunctionDefinitions.LIKE
        && args.size() == 2
        && args.get(0) instanceof FieldReferenceExpression
        && args.get(1) instanceof ValueLiteralExpression) {
      Object v = literal((ValueLiteralExpression) args.get(1));
      if (v instanceof String) {
        String pattern = (String) v;
        String prefix = pattern.endsWith("%") ? pattern.substring(0, pattern.length() - 1) : null;
        if (prefix != null
            && !prefix.isEmpty()
            && prefix.indexOf('%') < 0
            && prefix.indexOf('_') < 0
            && prefix.indexOf('\\') < 0) {
          return b.startsWith(((FieldReferenceExpression) args.get(0)).getName(), prefix);
        }
      }
      return null;
    }
    if (args.size() != 2) {
      return null;
    }
    boolean flipped;
    FieldReferenceExpression field;
    ValueLiteralExpression lit;
    if (args.get(0) instanceof FieldReferenceExpression
        && args.get(1) instanceof ValueLiteralExpression) {
      field = (FieldReferenceExpression) args.get(0);
      lit = (ValueLiteralExpression) args.get(1);
      flipped = false;
    } else if (args.get(1) instanceof FieldReferenceExpression
        && args.get(0) instanceof ValueLiteralExpression) {
      field = (FieldReferenceExpression) args.get(1);
      lit = (ValueLiteralExpression) args.get(0);
      flipped = true;
    } else {
      return null;
    }
    Object v = literal(lit);
    if (v == null) {
      return null; // comparisons with NULL are never true; Flink handles them
    }
    if ((v instanceof Double d && d.isNaN()) || (v instanceof Float f && f.isNaN())) {
      // Flink compares as Java does (x <> NaN holds for every row, NaN included); Sediment's
      // order makes NaN equal to itself and the greatest value: Flink handles them
      return null;
    }
    String name = field.getName();
    if (fn == BuiltInFunctionDefinitions.EQUALS) {
      return b.equal(name, v);
    }
    if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
      return b.notEqual(name, v);
    }
    if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
      return flipped ? b.greaterThan(name, v) : b.lessThan(name, v);
    }
    if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
      return flipped ? b.greaterOrEqual(name, v) : b.lessOrEqual(name, v);
    }
    if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
      return flipped ? b.lessThan(name, v) : b.greaterThan(name, v);
    }
    if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
      return flipped ? b.lessOrEqual(name, v) : b.greaterOrEqual(name, v);
    }
    return null;
  }

  private static FunctionDefinition negation(FunctionDefinition fn) {
    if (fn == BuiltInFunctionDefinitions.EQUALS) {
      return BuiltInFunctionDefinitions.NOT_EQUALS;
    }
    if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
      return BuiltInFunctionDefinitions.EQUALS;
    }
    if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
      return BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL;
    }
    if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
      return BuiltInFunctionDefinitions.GREATER_THAN;
    }
    if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
      return BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL;
    }
    if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
      return BuiltInFunctionDefinitions.LESS_THAN;
    }
    return null; // LIKE and the rest have no predicate negation
  }

  private static Object literal(ValueLiteralExpression lit) {
    if (lit.isNull()) {
      return null;
    }
    Class<?> cls = lit.getOutputDataType().getConversionClass();
    return lit.getValueAs(cls).orElse(null);
  }
}
