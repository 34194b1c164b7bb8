package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/** The row type read back from a Parquet schema, Sediment's own or another writer's. */
class ParquetSchemasTest {

  @Test
  void everyTypeSedimentWritesMapsBackToItself() {
    RowType type =
        RowType.of(
            new LogicalType[] {
              new BooleanType(),
              new TinyIntType(),
              new SmallIntType(false),
              new IntType(),
              new BigIntType(false),
              new FloatType(),
              new DoubleType(),
              new VarCharType(VarCharType.MAX_LENGTH),
              new VarBinaryType(VarBinaryType.MAX_LENGTH),
              new DecimalType(9, 2),
              new DecimalType(18, 4),
              new DecimalType(30, 5),
              new DateType(),
              new TimeType(),
              new TimestampType(3),
              new TimestampType(6),
              new TimestampType(9),
              new LocalZonedTimestampType(false, 3)
            },
            new String[] {
              "b", "ti", "si", "i", "l", "f", "d", "s", "bin", "d9", "d18", "d30", "date", "time",
              "ts3", "ts6", "ts9", "ltz"
            });
    assertThat(ParquetSchemas.toRowType(ParquetSchemas.toParquet(type))).isEqualTo(type);
  }

  @Test
  void anotherWritersSchemaWithoutIntegerAnnotationsAndWithFieldIds() {
    MessageType paimon =
        MessageTypeParser.parseMessageType(
            "message paimon_schema { required int64 id = 0; optional int32 n = 1;"
                + " optional binary note (STRING) = 2; optional int64 ts (TIMESTAMP(MILLIS,false)) = 3; }");
    assertThat(ParquetSchemas.toRowType(paimon))
        .isEqualTo(
            RowType.of(
                new LogicalType[] {
                  new BigIntType(false),
                  new IntType(),
                  new VarCharType(VarCharType.MAX_LENGTH),
                  new TimestampType(3)
                },
                new String[] {"id", "n", "note", "ts"}));
  }

  @Test
  void nestedAndUnsupportedColumnsAreNamed() {
    MessageType nested =
        MessageTypeParser.parseMessageType(
            "message m { required int64 id; optional group g { optional int32 x; } }");
    assertThatThrownBy(() -> ParquetSchemas.toRowType(nested))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Column 'g' is nested or repeated");
    MessageType int96 = MessageTypeParser.parseMessageType("message m { optional int96 legacy; }");
    assertThatThrownBy(() -> ParquetSchemas.toRowType(int96))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unsupported Parquet column 'legacy'");
  }
}
