package io.sediment.schema;

import java.util.EnumSet;
import java.util.Set;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * The column types Sediment's data files store. A table with any other type is refused when it is
 * created, naming the column, rather than by its first write.
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
    return ROOTS.contains(type.getTypeRoot());
  }

  /** The error for a column of a type Sediment does not store. */
  public static IllegalArgumentException unsupported(String column, LogicalType type) {
    return new IllegalArgumentException(
        "Unsupported type for column '"
            + column
            + "': "
            + type.asSummaryString()
            + " (supported: BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, CHAR,"
            + " VARCHAR, BINARY, VARBINARY, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ; nested"
            + " types ARRAY, MAP, ROW and MULTISET are not supported yet)");
  }
}
