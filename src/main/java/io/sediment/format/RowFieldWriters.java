package io.sediment.format;

import io.sediment.data.BinaryRows;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.columnar.vector.VectorizedColumnBatch;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.schema.MessageType;

/**
 * Writes the fields of Flink {@link RowData} (internal format) straight into the Parquet column
 * writers of a flat schema (no record assembly: every row is one value or null per column) through
 * a precomputed array of per-field writers, which also track min/max/null count per column.
 */
final class RowFieldWriters {

  private final RowType rowType;
  private final MessageType schema;
  private final FieldWriter[] writers;
  private final int[] notNullPositions;
  private final RowValueCheck values;
  private final NestedFieldWriter[] nestedWriters;
  // a row over a batch, for the columns without a typed loop in writeColumns
  private final BatchRow view = new BatchRow();

  RowFieldWriters(RowType rowType) {
    this.rowType = rowType;
    this.schema = ParquetSchemas.toParquet(rowType);
    List<RowType.RowField> fields = rowType.getFields();
    this.writers = new FieldWriter[fields.size()];
    for (int i = 0; i < writers.length; i++) {
      writers[i] = FieldWriters.create(fields.get(i).getName(), i, fields.get(i).getType());
    }
    this.notNullPositions =
        IntStream.range(0, writers.length).filter(i -> !writers[i].nullable).toArray();
    this.values = new RowValueCheck(rowType);
    List<NestedFieldWriter> nested = new ArrayList<>();
    for (FieldWriter w : writers) {
      if (w instanceof NestedFieldWriter n) {
        nested.add(n);
      }
    }
    this.nestedWriters = nested.toArray(new NestedFieldWriter[0]);
  }

  MessageType schema() {
    return schema;
  }

  /** Directs the writers to the column writers of a new row group's store. */
  void bind(ColumnWriteStore store) {
    List<ColumnDescriptor> columns = schema.getColumns(); // a new list per call
    int c = 0;
    for (FieldWriter w : writers) {
      if (w instanceof NestedFieldWriter nested) {
        c = nested.bind(store, columns, c); // one leaf column per primitive inside it
      } else {
        w.column = store.getColumnWriter(columns.get(c++));
      }
    }
  }

  /**
   * Rejects a row the columns cannot hold as it is: a null in a NOT NULL column, a value {@link
   * RowValueCheck} refuses. Called before handing the row to Parquet, whose writer becomes unusable
   * after an exception in {@link #write}.
   */
  void checkNotNull(RowData row) {
    for (int pos : notNullPositions) {
      if (row instanceof BatchRow b ? b.isNullAt(pos) : row.isNullAt(pos)) {
        throw new NullPointerException(
            "Column '" + writers[pos].name + "' is NOT NULL but the row has null: " + row);
      }
    }
    for (NestedFieldWriter nested : nestedWriters) {
      nested.checkValue(row);
    }
    values.check(row);
  }

  /** Writes one row (its NOT NULL columns checked by {@link #checkNotNull} before). */
  void write(RowData row) {
    BatchRow batchRow = row instanceof BatchRow b ? b : null;
    for (FieldWriter w : writers) {
      ColumnWriter cw = w.column;
      // BatchRow is final: its calls inline, where a RowData call site that sees several row
      // classes (compaction, writers, manifests) would dispatch through the interface per value
      if (batchRow != null ? batchRow.isNullAt(w.pos) : row.isNullAt(w.pos)) {
        w.nullCount++;
        if (cw != null) {
          cw.writeNull(0, 0);
        } else {
          ((NestedFieldWriter) w).writeNull();
        }
      } else {
        w.write(cw, row);
      }
    }
  }

  /**
   * Writes rows {@code [from, to)} of a batch decoded by this package, column by column: each
   * column's values go to its column writer in one loop over typed vectors (the caller ends the
   * records). NOT NULL columns are checked before anything is written.
   */
  void writeColumns(VectorizedColumnBatch batch, AbstractHeapVector[] vectors, int from, int to) {
    for (int pos : notNullPositions) {
      for (int i = from; i < to; i++) {
        if (vectors[pos].isNullAt(i)) {
          throw new NullPointerException(
              "Column '" + writers[pos].name + "' is NOT NULL but a row has null");
        }
      }
    }
    for (FieldWriter w : writers) {
      AbstractHeapVector v = vectors[w.pos];
      if (!w.writeVector(w.column, v, from, to)) {
        ColumnWriter cw = w.column;
        for (int i = from; i < to; i++) {
          if (v.isNullAt(i)) {
            w.nullCount++;
            cw.writeNull(0, 0);
          } else {
            view.set(batch, vectors, i);
            w.write(cw, view);
          }
        }
      }
    }
  }

  /** Statistics of the rows written so far. */
  ColumnStats stats() {
    int n = writers.length;
    GenericRowData min = new GenericRowData(n);
    GenericRowData max = new GenericRowData(n);
    long[] nullCounts = new long[n];
    for (int i = 0; i < n; i++) {
      FieldWriter w = writers[i];
      min.setField(i, w.min());
      max.setField(i, w.max());
      nullCounts[i] = w.nullCount;
    }
    RowType nullableType = nullable(rowType);
    BinaryRowData minRow = BinaryRows.toBinary(nullableType, min);
    BinaryRowData maxRow = BinaryRows.toBinary(nullableType, max);
    return new ColumnStats(minRow, maxRow, nullCounts);
  }

  /** The row type with every field nullable (stats fields may be null). */
  static RowType nullable(RowType type) {
    LogicalType[] types = new LogicalType[type.getFieldCount()];
    for (int i = 0; i < types.length; i++) {
      types[i] = type.getTypeAt(i).copy(true);
    }
    return RowType.of(true, types, type.getFieldNames().toArray(new String[0]));
  }
}
