package io.sediment.sim;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * One row a simulated writer writes into the table {@code (k BIGINT, a INT, b STRING)}: an upsert
 * (fields may be null: partial updates) or a delete of key {@code k} carrying values (retracted by
 * the aggregation engine).
 */
record Change(long k, Integer a, String b, boolean delete) {

  GenericRowData toRow() {
    GenericRowData r = GenericRowData.of(k, a, b == null ? null : StringData.fromString(b));
    r.setRowKind(delete ? RowKind.DELETE : RowKind.INSERT);
    return r;
  }

  @Override
  public String toString() {
    return (delete ? "-D" : "+I") + "(" + k + "," + a + "," + b + ")";
  }
}
