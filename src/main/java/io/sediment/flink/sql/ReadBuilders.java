package io.sediment.flink.sql;

import io.sediment.predicate.Predicate;
import io.sediment.table.ReadBuilder;
import io.sediment.table.Table;

/** The read a SQL source makes: the table with its pushed-down filter and projection. */
final class ReadBuilders {

  private ReadBuilders() {}

  /**
   * @param filter the pushed-down filter, or null
   * @param projection the pushed-down projection, or null for every column
   */
  static ReadBuilder of(Table table, Predicate filter, int[] projection) {
    return of(table, filter, projection, false);
  }

  /**
   * @param withLevel0 whether the read is a DELETE's or UPDATE's ({@link ReadBuilder#withLevel0})
   */
  static ReadBuilder of(Table table, Predicate filter, int[] projection, boolean withLevel0) {
    ReadBuilder rb = table.newReadBuilder();
    if (withLevel0) {
      rb.withLevel0();
    }
    if (filter != null) {
      rb.withFilter(filter);
    }
    if (projection != null) {
      rb.withProjection(projection);
    }
    return rb;
  }
}
