package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import io.sediment.data.InternalComparators;
import java.util.Comparator;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.RowType;

/** Collects per-field min, max and null count over rows of one type (partition statistics). */
final class RowStatsCollector {

  private final RowType type;
  private final RowData.FieldGetter[] getters;
  private final Comparator<Object>[] comparators;
  private final Object[] min;
  private final Object[] max;
  private final long[] nullCounts;

  @SuppressWarnings("unchecked")
  RowStatsCollector(RowType type) {
    this.type = type;
    int n = type.getFieldCount();
    getters = new RowData.FieldGetter[n];
    comparators = new Comparator[n];
    for (int i = 0; i < n; i++) {
      getters[i] = RowData.createFieldGetter(type.getTypeAt(i), i);
      comparators[i] = InternalComparators.forType(type.getTypeAt(i));
    }
    min = new Object[n];
    max = new Object[n];
    nullCounts = new long[n];
  }

  void add(RowData row) {
    for (int i = 0; i < getters.length; i++) {
      Object v = getters[i].getFieldOrNull(row);
      if (v == null) {
        nullCounts[i]++;
      } else if (comparators[i] != null) {
        if (min[i] == null || comparators[i].compare(v, min[i]) < 0) {
          min[i] = v;
        }
        if (max[i] == null || comparators[i].compare(v, max[i]) > 0) {
          max[i] = v;
        }
      }
    }
  }

  BinaryRowData min() {
    return BinaryRows.toBinary(type, GenericRowData.of(min));
  }

  BinaryRowData max() {
    return BinaryRows.toBinary(type, GenericRowData.of(max));
  }

  long[] nullCounts() {
    return nullCounts.clone();
  }
}
