package io.sediment.schema;

import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * The type changes a column may take by {@code ALTER TABLE ... MODIFY}: those where every value of
 * the old type is a value of the new one, so files written before are read exactly, converted as
 * they are read ({@code FieldMapping}).
 */
public final class TypeWidening {

  /** What {@link #canWiden} allows, for error messages. */
  public static final String ALLOWED =
      "allowed are TINYINT -> SMALLINT -> INT -> BIGINT, FLOAT -> DOUBLE, DECIMAL(p, s) ->"
          + " DECIMAL(p2, s) with p2 > p, VARCHAR(n) -> VARCHAR(m) and VARBINARY(n) ->"
          + " VARBINARY(m) with m > n, and NOT NULL -> NULL";

  private TypeWidening() {}

  /** Whether every value of {@code from} is a value of {@code to} (nullability ignored). */
  public static boolean canWiden(LogicalType from, LogicalType to) {
    LogicalTypeRoot a = from.getTypeRoot();
    LogicalTypeRoot b = to.getTypeRoot();
    if (integralRank(a) > 0 && integralRank(b) > 0) {
      return integralRank(a) < integralRank(b);
    }
    if (a == LogicalTypeRoot.FLOAT && b == LogicalTypeRoot.DOUBLE) {
      return true;
    }
    if (a == LogicalTypeRoot.DECIMAL && b == LogicalTypeRoot.DECIMAL) {
      DecimalType x = (DecimalType) from;
      DecimalType y = (DecimalType) to;
      return x.getScale() == y.getScale() && x.getPrecision() < y.getPrecision();
    }
    if (a == LogicalTypeRoot.VARCHAR && b == LogicalTypeRoot.VARCHAR) {
      return ((VarCharType) from).getLength() < ((VarCharType) to).getLength();
    }
    if (a == LogicalTypeRoot.VARBINARY && b == LogicalTypeRoot.VARBINARY) {
      return ((VarBinaryType) from).getLength() < ((VarBinaryType) to).getLength();
    }
    return false;
  }

  /** 1..4 for TINYINT..BIGINT, 0 for any other type. */
  static int integralRank(LogicalTypeRoot root) {
    return switch (root) {
      case TINYINT -> 1;
      case SMALLINT -> 2;
      case INTEGER -> 3;
      case BIGINT -> 4;
      default -> 0;
    };
  }
}
