package io.sediment.format;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/** Test helpers comparing rows by content. */
final class TestRows {
  private TestRows() {}

  /** Field values of a row, with byte[] replaced by content-comparable buffers. */
  static List<Object> fields(RowType type, RowData row) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < type.getFieldCount(); i++) {
      LogicalType t = type.getTypeAt(i).copy(true);
      Object v = RowData.createFieldGetter(t, i).getFieldOrNull(row);
      if (v instanceof byte[] bytes) {
        v = ByteBuffer.wrap(bytes);
      }
      out.add(v);
    }
    return out;
  }

  static List<List<Object>> all(RowType type, List<? extends RowData> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (RowData row : rows) {
      out.add(fields(type, row));
    }
    return out;
  }
}
