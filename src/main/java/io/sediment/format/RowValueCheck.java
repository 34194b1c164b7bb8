package io.sediment.format;

import java.util.stream.IntStream;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;

/**
 * Refuses, naming the column, a value its column cannot hold as given: a decimal of another scale
 * or with more digits than the column's precision (it would be stored shifted or narrowed: a {@link
 * GenericRowData}'s decimal keeps its own scale, a binary row's takes the column's), and a
 * TIMESTAMP(7..9) outside INT64 nanoseconds. Run on rows a caller hands in, before anything of them
 * is written; rows read from files ({@link BatchRow}) hold their columns' types already.
 */
public final class RowValueCheck {

  private final RowType rowType;
  private final int[] decimalPositions;
  private final int[] nanosPositions;
  private final int[] storedNotNull; // NOT NULL columns stored NOT NULL: checked on every row
  private final int[] storedNullable; // NOT NULL columns stored nullable: checked on upserts

  public RowValueCheck(RowType rowType) {
    this(rowType, new int[0], new int[0]);
  }

  /**
   * For rows handed in whose files ({@code stored}, a primary-key layout's) get binary copies:
   * {@link #check(RowData, boolean)} checks the NOT NULL columns of {@code rowType}, those stored
   * nullable on upserts only, before anything of the row is buffered.
   */
  public static RowValueCheck storedAs(RowType rowType, RowType stored) {
    return new RowValueCheck(
        rowType, notNullStored(rowType, stored, false), notNullStored(rowType, stored, true));
  }

  private static int[] notNullStored(RowType rowType, RowType stored, boolean nullable) {
    return IntStream.range(0, rowType.getFieldCount())
        .filter(i -> !rowType.getTypeAt(i).isNullable())
        .filter(i -> stored.getTypeAt(i).isNullable() == nullable)
        .toArray();
  }

  private RowValueCheck(RowType rowType, int[] storedNotNull, int[] storedNullable) {
    this.rowType = rowType;
    this.storedNotNull = storedNotNull;
    this.storedNullable = storedNullable;
    this.decimalPositions =
        IntStream.range(0, rowType.getFieldCount())
            .filter(i -> rowType.getTypeAt(i) instanceof DecimalType)
            .toArray();
    this.nanosPositions =
        IntStream.range(0, rowType.getFieldCount())
            .filter(i -> isNanos(rowType.getTypeAt(i)))
            .toArray();
  }

  /**
   * {@link #check(RowData)}, the NOT NULL columns the files store NOT NULL, and, on an {@code
   * upsert} (not a retraction, which needs no values), those the files store nullable.
   *
   * @throws NullPointerException naming the column
   */
  public void check(RowData row, boolean upsert) {
    checkNotNull(row, storedNotNull);
    if (upsert) {
      checkNotNull(row, storedNullable);
    }
    check(row);
  }

  private void checkNotNull(RowData row, int[] columns) {
    for (int c : columns) {
      if (row.isNullAt(c)) {
        throw new NullPointerException(
            "Column '" + name(c) + "' is NOT NULL but the row has null: " + row);
      }
    }
  }

  /**
   * @throws IllegalArgumentException naming the column, the value and what it can hold
   */
  public void check(RowData row) {
    if (row instanceof BatchRow) {
      return;
    }
    if (row instanceof GenericRowData g) {
      for (int pos : decimalPositions) {
        if (g.getField(pos) instanceof DecimalData d) {
          checkDecimal(pos, d);
        }
      }
    }
    for (int pos : nanosPositions) {
      if (!row.isNullAt(pos)) {
        int precision = LogicalTypeChecks.getPrecision(rowType.getTypeAt(pos));
        Timestamps.toLong(row.getTimestamp(pos, precision), TimeUnit.NANOS, name(pos));
      }
    }
  }

  private void checkDecimal(int pos, DecimalData d) {
    DecimalType t = (DecimalType) rowType.getTypeAt(pos);
    if (d.scale() != t.getScale() || d.precision() != t.getPrecision()) {
      throw new IllegalArgumentException(
          "Column '"
              + name(pos)
              + "' is "
              + t.asSummaryString()
              + " but the row has "
              + d
              + " of DECIMAL("
              + d.precision()
              + ", "
              + d.scale()
              + "): give it as DecimalData.fromBigDecimal(value, "
              + t.getPrecision()
              + ", "
              + t.getScale()
              + "), as Flink's rows hold it");
    }
  }

  private String name(int pos) {
    return rowType.getFieldNames().get(pos);
  }

  private static boolean isNanos(LogicalType t) {
    return t instanceof TimestampType ts && ts.getPrecision() > 6
        || t instanceof LocalZonedTimestampType lz && lz.getPrecision() > 6;
  }
}
