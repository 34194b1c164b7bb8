package io.sediment.schema;

import java.util.EnumSet;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The column types Sediment's data files store: the flat types, and ARRAY, MAP, MULTISET and ROW of
 * them (nested to any depth). A table with any other type (INTERVAL, RAW, ...) is refused when it
 * is created, naming the column, rather than by its first write.
 */
public final class SupportedTypes {

  private SupportedTypes() {}

  private static final Set<LogicalTypeRoot> ROOTS =
      EnumSet.of(
          LogicalTypeRoot.BOOLEAN,
          LogicalTypeRoot.TINYINT,
          LogicalTypeRoot.SMALLINT,
          LogicalTypeRoot.INTEGER,
          LogicalTypeRoot.BIGINT,
          LogicalTypeRoot.FLOAT,
          LogicalTypeRoot.DOUBLE,
          LogicalTypeRoot.CHAR,
          LogicalTypeRoot.VARCHAR,
          LogicalTypeRoot.BINARY,
          LogicalTypeRoot.VARBINARY,
          LogicalTypeRoot.DECIMAL,
          LogicalTypeRoot.DATE,
          LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE,
          LogicalTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE,
          LogicalTypeRoot.TIMESTAMP_WITH_LOCAL_TIME_ZONE);

  public static boolean isSupported(LogicalType type) {
    switch (type.getTypeRoot()) {
      case ARRAY:
      case MULTISET:
      case MAP:
      case ROW:
        // nested: supported when everything inside is
        for (LogicalType child : type.getChildren()) {
          if (!isSupported(child)) {
            return false;
          }
        }
        return !type.getChildren().isEmpty();
      default:
        return ROOTS.contains(type.getTypeRoot());
    }
  }

  /** Whether {@code type} is ROW, ARRAY, MAP or MULTISET. */
  public static boolean isNested(LogicalType type) {
    return switch (type.getTypeRoot()) {
      case ARRAY, MULTISET, MAP, ROW -> true;
      default -> false;
    };
  }

  /** The error for a column of a type Sediment does not store. */
  public static IllegalArgumentException unsupported(String column, LogicalType type) {
    return new IllegalArgumentException(
        "Unsupported type for column '"
            + column
            + "': "
            + type.asSummaryString()
            + " (supported: BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, CHAR,"
            + " VARCHAR, BINARY, VARBINARY, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, and ARRAY,"
            + " MAP, MULTISET and ROW of these)");
  }
}
