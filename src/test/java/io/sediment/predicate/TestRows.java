package io.sediment.predicate;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/** Shared test fixtures. */
final class TestRows {

  static final RowType TYPE =
      RowType.of(
          new org.apache.flink.table.types.logical.LogicalType[] {
            new BigIntType(false), // 0 id
            new VarCharType(VarCharType.MAX_LENGTH), // 1 p
            new IntType(), // 2 i
            new DecimalType(10, 2), // 3 d
            new DoubleType(), // 4 dbl
            new FloatType(), // 5 f
            new BooleanType(), // 6 b
            new DateType(), // 7 dt
            new TimeType(3), // 8 tm
            new TimestampType(6), // 9 ts
            new LocalZonedTimestampType(3), // 10 ltz
            new VarBinaryType(VarBinaryType.MAX_LENGTH), // 11 bin
            new SmallIntType(), // 12 s
            new TinyIntType(), // 13 t
            new ArrayType(new IntType()) // 14 arr
          },
          new String[] {
            "id", "p", "i", "d", "dbl", "f", "b", "dt", "tm", "ts", "ltz", "bin", "s", "t", "arr"
          });

  static final int ARITY = TYPE.getFieldCount();

  private TestRows() {}

  /** A row with every field null except those set afterwards. */
  static GenericRowData empty() {
    return new GenericRowData(ARITY);
  }

  static GenericRowData with(int pos, Object internal) {
    GenericRowData row = empty();
    row.setField(pos, internal);
    return row;
  }

  static int index(String field) {
    return TYPE.getFieldNames().indexOf(field);
  }
}
