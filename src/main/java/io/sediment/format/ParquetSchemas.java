package io.sediment.format;

import io.sediment.schema.SupportedTypes;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/** Mapping of Flink row types to Parquet schemas, and of flat Parquet schemas back. */
public final class ParquetSchemas {

  /** Name of the Parquet message (root) type. */
  public static final String MESSAGE_NAME = "sediment_schema";

  private ParquetSchemas() {}

  /**
   * The Parquet schema of {@code type}: one column per field, named like the field, REQUIRED for
   * NOT NULL fields and OPTIONAL otherwise; ROW, ARRAY, MAP and MULTISET fields are groups in
   * Parquet's standard nested layout (three-level lists, {@code key_value} maps).
   *
   * @throws IllegalArgumentException naming the column and type if a field type is unsupported
   */
  public static MessageType toParquet(RowType type) {
    List<Type> fields = new ArrayList<>(type.getFieldCount());
    for (RowType.RowField field : type.getFields()) {
      fields.add(toParquet(field.getName(), field.getType()));
    }
    return new MessageType(MESSAGE_NAME, fields);
  }

  /**
   * {@code requested} as {@code stored} holds it: a top-level column is read with the repetition
   * the file has. A primary-key table's layout made value columns nullable ({@code
   * KeyValueLayout}), so files of one schema may store a column REQUIRED (written before) or
   * OPTIONAL (since), and a file of an older schema is requested with that schema's NOT NULL types.
   * Nulls read from an OPTIONAL column show through {@code isNullAt} whatever the produced type
   * says.
   */
  public static MessageType asStored(MessageType requested, MessageType stored) {
    List<Type> fields = null;
    for (int i = 0; i < requested.getFieldCount(); i++) {
      Type f = requested.getType(i);
      if (!stored.containsField(f.getName())) {
        continue;
      }
      Type.Repetition r = stored.getType(f.getName()).getRepetition();
      if (r != f.getRepetition() && r != Type.Repetition.REPEATED) {
        if (fields == null) {
          fields = new ArrayList<>(requested.getFields());
        }
        fields.set(i, withRepetition(f, r));
      }
    }
    return fields == null ? requested : new MessageType(requested.getName(), fields);
  }

  private static Type withRepetition(Type f, Type.Repetition r) {
    if (f.isPrimitive()) {
      PrimitiveType p = f.asPrimitiveType();
      return Types.primitive(p.getPrimitiveTypeName(), r)
          .length(p.getTypeLength())
          .as(p.getLogicalTypeAnnotation())
          .named(p.getName());
    }
    GroupType g = f.asGroupType();
    return Types.buildGroup(r)
        .as(g.getLogicalTypeAnnotation())
        .addFields(g.getFields().toArray(new Type[0]))
        .named(g.getName());
  }

  /** The Parquet column of one field. */
  public static Type toParquet(String name, LogicalType type) {
    if (SupportedTypes.isNested(type) && !SupportedTypes.isSupported(type)) {
      throw unsupported(name, type); // names the column, not the element inside it
    }
    Repetition repetition = type.isNullable() ? Repetition.OPTIONAL : Repetition.REQUIRED;
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
      case TINYINT:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.intType(8, true))
            .named(name);
      case SMALLINT:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.intType(16, true))
            .named(name);
      case INTEGER:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.intType(32, true))
            .named(name);
      case BIGINT:
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(LogicalTypeAnnotation.intType(64, true))
            .named(name);
      case FLOAT:
        return Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(name);
      case DOUBLE:
        return Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(name);
      case CHAR:
      case VARCHAR:
        return Types.primitive(PrimitiveTypeName.BINARY, repetition)
            .as(LogicalTypeAnnotation.stringType())
            .named(name);
      case BINARY:
      case VARBINARY:
        return Types.primitive(PrimitiveTypeName.BINARY, repetition).named(name);
      case DECIMAL:
        {
          DecimalType decimal = (DecimalType) type;
          int precision = decimal.getPrecision();
          LogicalTypeAnnotation annotation =
              LogicalTypeAnnotation.decimalType(decimal.getScale(), precision);
          if (precision <= 9) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation).named(name);
          } else if (precision <= 18) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation).named(name);
          } else {
            return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                .length(decimalFixedLength(precision))
                .as(annotation)
                .named(name);
          }
        }
      case DATE:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.dateType())
            .named(name);
      case TIME_WITHOUT_TIME_ZONE:
        return Types.primitive(PrimitiveTypeName.INT32, repetition)
            .as(LogicalTypeAnnotation.timeType(false, TimeUnit.MILLIS))
            .named(name);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(
                LogicalTypeAnnotation.timestampType(
                    false, timeUnit(((TimestampType) type).getPrecision())))
            .named(name);
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return Types.primitive(PrimitiveTypeName.INT64, repetition)
            .as(
                LogicalTypeAnnotation.timestampType(
                    true, timeUnit(((LocalZonedTimestampType) type).getPrecision())))
            .named(name);
      case ROW:
        {
          List<Type> fields = new ArrayList<>();
          for (RowType.RowField f : ((RowType) type).getFields()) {
            fields.add(toParquet(f.getName(), f.getType()));
          }
          return new GroupType(repetition, name, fields);
        }
      case ARRAY:
        // the standard three-level list: <name> (LIST) { repeated group list { element } }
        return Types.buildGroup(repetition)
            .as(LogicalTypeAnnotation.listType())
            .addField(
                new GroupType(
                    Repetition.REPEATED,
                    "list",
                    toParquet("element", ((ArrayType) type).getElementType())))
            .named(name);
      case MAP:
        {
          MapType map = (MapType) type;
          return mapGroup(name, repetition, map.getKeyType(), map.getValueType());
        }
      case MULTISET:
        // a multiset is a map from its elements to their counts, as Flink holds it
        return mapGroup(
            name, repetition, ((MultisetType) type).getElementType(), new IntType(false));
      default:
        throw unsupported(name, type);
    }
  }

  /** The standard map: <name> (MAP) { repeated group key_value { required key; value } }. */
  private static Type mapGroup(
      String name, Repetition repetition, LogicalType keyType, LogicalType valueType) {
    return Types.buildGroup(repetition)
        .as(LogicalTypeAnnotation.mapType())
        .addField(
            new GroupType(
                Repetition.REPEATED,
                "key_value",
                toParquet("key", keyType.copy(false)),
                toParquet("value", valueType)))
        .named(name);
  }

  /**
   * The row type of a flat Parquet schema written by any writer (Sediment, Paimon, plain
   * parquet-mr): one field per primitive column, NOT NULL for REQUIRED columns; the inverse of
   * {@link #toParquet(RowType)} for every type it maps, and a plain {@code int32}/{@code int64}
   * without annotation is INT/BIGINT.
   *
   * @throws IllegalArgumentException naming the column if it is nested, repeated or of a type
   *     Sediment does not read
   */
  public static RowType toRowType(MessageType schema) {
    List<RowType.RowField> fields = new ArrayList<>(schema.getFieldCount());
    for (Type field : schema.getFields()) {
      if (!field.isPrimitive() || field.isRepetition(Repetition.REPEATED)) {
        throw new IllegalArgumentException(
            "Column '" + field.getName() + "' is nested or repeated: " + field);
      }
      LogicalType type = toLogicalType(field.asPrimitiveType());
      fields.add(
          new RowType.RowField(
              field.getName(), type.copy(!field.isRepetition(Repetition.REQUIRED))));
    }
    return new RowType(fields);
  }

  private static LogicalType toLogicalType(PrimitiveType column) {
    LogicalTypeAnnotation annotation = column.getLogicalTypeAnnotation();
    if (annotation instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation decimal) {
      return new DecimalType(decimal.getPrecision(), decimal.getScale());
    }
    switch (column.getPrimitiveTypeName()) {
      case BOOLEAN:
        return new BooleanType();
      case INT32:
        if (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
            && i.isSigned()) {
          return i.getBitWidth() == 8
              ? new TinyIntType()
              : i.getBitWidth() == 16 ? new SmallIntType() : new IntType();
        }
        if (annotation instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
          return new DateType();
        }
        if (annotation instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation) {
          return new TimeType();
        }
        if (annotation == null) {
          return new IntType();
        }
        break;
      case INT64:
        if (annotation instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
          int precision =
              switch (t.getUnit()) {
                case MILLIS -> 3;
                case MICROS -> 6;
                case NANOS -> 9;
              };
          return t.isAdjustedToUTC()
              ? new LocalZonedTimestampType(precision)
              : new TimestampType(precision);
        }
        if (annotation == null
            || (annotation instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i
                && i.isSigned())) {
          return new BigIntType();
        }
        break;
      case FLOAT:
        return new FloatType();
      case DOUBLE:
        return new DoubleType();
      case BINARY:
        if (annotation instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation) {
          return new VarCharType(VarCharType.MAX_LENGTH);
        }
        if (annotation == null) {
          return new VarBinaryType(VarBinaryType.MAX_LENGTH);
        }
        break;
      default:
        break;
    }
    throw new IllegalArgumentException(
        "Unsupported Parquet column '" + column.getName() + "': " + column);
  }

  static IllegalArgumentException unsupported(String name, LogicalType type) {
    return SupportedTypes.unsupported(name, type);
  }

  /** MILLIS for precision up to 3, MICROS up to 6, NANOS beyond. */
  public static TimeUnit timeUnit(int timestampPrecision) {
    if (timestampPrecision <= 3) {
      return TimeUnit.MILLIS;
    } else if (timestampPrecision <= 6) {
      return TimeUnit.MICROS;
    }
    return TimeUnit.NANOS;
  }

  /** Smallest number of bytes holding any unscaled value of a decimal of {@code precision}. */
  public static int decimalFixedLength(int precision) {
    // ceil((precision * log2(10) + 1) / 8), computed exactly with BigInteger bit lengths
    BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
    return (max.bitLength() + 1 + 7) / 8;
  }
}
