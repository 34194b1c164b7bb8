package io.sediment.sim;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;

/**
 * One row a simulated writer writes into the table {@code (k BIGINT, a INT, b STRING)} (with {@code
 * p INT} after them on a partitioned table): an upsert (fields may be null: partial updates) or a
 * delete of key {@code k} carrying values (retracted by the aggregation engine).
 */
record Change(long k, Integer a, String b, boolean delete) {

  /** The row as the table's writers take it; {@code partitions}: {@link SimConfig#partitions}. */
  GenericRowData toRow(int partitions) {
    StringData s = b == null ? null : StringData.fromString(b);
    GenericRowData r =
        partitions == 0
            ? GenericRowData.of(k, a, s)
            : GenericRowData.of(k, a, s, SimTable.partitionOf(k, partitions));
    r.setRowKind(delete ? RowKind.DELETE : RowKind.INSERT);
    return r;
  }

  @Override
  public String toString() {
    return (delete ? "-D" : "+I") + "(" + k + "," + a + "," + b + ")";
  }
}
