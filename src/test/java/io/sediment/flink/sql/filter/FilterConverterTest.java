package io.sediment.flink.sql.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.predicate.Predicate;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinition;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/** The exact conversion: all or nothing, with NOT by De Morgan; the pushdown one may weaken. */
class FilterConverterTest {

  static final RowType ROW =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("hh", DataTypes.INT()), DataTypes.FIELD("dt", DataTypes.STRING()))
              .getLogicalType();
  static final FieldReferenceExpression HH =
      new FieldReferenceExpression("hh", DataTypes.INT(), 0, 0);
  static final FieldReferenceExpression DT =
      new FieldReferenceExpression("dt", DataTypes.STRING(), 0, 1);

  static CallExpression call(BuiltInFunctionDefinition fn, ResolvedExpression... args) {
    return CallExpression.permanent(fn, List.of(args), DataTypes.BOOLEAN());
  }

  static boolean test(Predicate p, Integer hh, String dt) {
    return p.test(GenericRowData.of(hh, dt == null ? null : StringData.fromString(dt)));
  }

  @Test
  void notOfAConjunctionIsTheDisjunctionOfTheNegations() {
    CallExpression e =
        call(
            BuiltInFunctionDefinitions.NOT,
            call(
                BuiltInFunctionDefinitions.AND,
                call(BuiltInFunctionDefinitions.LESS_THAN, HH, new ValueLiteralExpression(20)),
                call(BuiltInFunctionDefinitions.IS_NULL, DT)));
    Predicate p = FilterConverter.convertExact(ROW, e).orElseThrow();
    assertThat(test(p, 25, null)).isTrue(); // hh >= 20
    assertThat(test(p, 10, "a")).isTrue(); // dt IS NOT NULL
    assertThat(test(p, 10, null)).isFalse();
    assertThat(test(p, null, null)).isFalse(); // NOT (unknown AND true) is unknown
    // The pushdown conversion leaves NOT to Flink.
    assertThat(FilterConverter.convert(ROW, e)).isEmpty();
  }

  @Test
  void exactConversionRefusesToWeakenAConjunction() {
    CallExpression e =
        call(
            BuiltInFunctionDefinitions.AND,
            call(BuiltInFunctionDefinitions.EQUALS, DT, new ValueLiteralExpression("a")),
            call(BuiltInFunctionDefinitions.EQUALS, HH, HH));
    assertThat(FilterConverter.convertExact(ROW, e)).isEmpty();
    Predicate weaker = FilterConverter.convert(ROW, e).orElseThrow();
    assertThat(test(weaker, 1, "a")).isTrue();
    assertThat(
            FilterConverter.convertExact(
                ROW,
                call(
                    BuiltInFunctionDefinitions.NOT,
                    call(BuiltInFunctionDefinitions.LIKE, DT, new ValueLiteralExpression("a%")))))
        .isEmpty();
  }

  /**
   * A comparison with NaN is left to Flink, which compares as Java does: {@code x <> NaN} holds for
   * every row, NaN included, and the others for none. Pushed down, {@code x <> NaN} skipped the NaN
   * rows (Sediment's order makes NaN equal to itself).
   */
  @Test
  void comparisonsWithNaNAreLeftToFlink() {
    RowType row =
        (RowType)
            DataTypes.ROW(
                    DataTypes.FIELD("d", DataTypes.DOUBLE()),
                    DataTypes.FIELD("f", DataTypes.FLOAT()))
                .getLogicalType();
    FieldReferenceExpression d = new FieldReferenceExpression("d", DataTypes.DOUBLE(), 0, 0);
    FieldReferenceExpression f = new FieldReferenceExpression("f", DataTypes.FLOAT(), 0, 1);
    for (BuiltInFunctionDefinition fn :
        List.of(
            BuiltInFunctionDefinitions.EQUALS,
            BuiltInFunctionDefinitions.NOT_EQUALS,
            BuiltInFunctionDefinitions.LESS_THAN,
            BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL,
            BuiltInFunctionDefinitions.GREATER_THAN,
            BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL)) {
      for (boolean literalFirst : new boolean[] {false, true}) {
        ValueLiteralExpression nanD = new ValueLiteralExpression(Double.NaN);
        ValueLiteralExpression nanF = new ValueLiteralExpression(Float.NaN);
        CallExpression onD = literalFirst ? call(fn, nanD, d) : call(fn, d, nanD);
        CallExpression onF = literalFirst ? call(fn, nanF, f) : call(fn, f, nanF);
        for (CallExpression e : List.of(onD, onF)) {
          assertThat(FilterConverter.convert(row, e)).as("%s", e).isEmpty();
          assertThat(FilterConverter.convertExact(row, e)).as("%s", e).isEmpty();
        }
      }
      // a number is still pushed
      assertThat(FilterConverter.convert(row, call(fn, d, new ValueLiteralExpression(1.5))))
          .isPresent();
    }
  }
}
