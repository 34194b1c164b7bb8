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
}
