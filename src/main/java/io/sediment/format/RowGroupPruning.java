package io.sediment.format;

import io.sediment.predicate.Predicate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;

/**
 * Leaves out the row groups of a file whose column statistics (min, max, null count of each column
 * chunk, written by Parquet) show that no row can match a filter: a sorted file's row groups each
 * cover a narrow slice of the order, so a selective filter reads few of them. Conservative: a
 * column without statistics, or of a type not converted here (decimals, timestamps, binaries,
 * nested), is unknown to the filter, which then keeps the row group.
 */
public final class RowGroupPruning {

  private RowGroupPruning() {}

  /**
   * The footer with only the row groups that may hold rows matching {@code filter}, a predicate on
   * {@code producedType} (whose top-level fields are the file's columns of the same names).
   */
  public static ParquetMetadata prune(
      ParquetMetadata footer, RowType producedType, Predicate filter) {
    List<BlockMetaData> kept = new ArrayList<>();
    for (BlockMetaData block : footer.getBlocks()) {
      if (mayMatch(block, producedType, filter)) {
        kept.add(block);
      }
    }
    return kept.size() == footer.getBlocks().size()
        ? footer
        : new ParquetMetadata(footer.getFileMetaData(), kept);
  }

  static boolean mayMatch(BlockMetaData block, RowType type, Predicate filter) {
    Map<String, ColumnChunkMetaData> byName = new HashMap<>();
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getPath().size() == 1) {
        byName.put(chunk.getPath().toArray()[0], chunk);
      }
    }
    int n = type.getFieldCount();
    GenericRowData min = new GenericRowData(n);
    GenericRowData max = new GenericRowData(n);
    long[] nullCounts = new long[n];
    for (int i = 0; i < n; i++) {
      nullCounts[i] = -1;
      ColumnChunkMetaData chunk = byName.get(type.getFieldNames().get(i));
      Statistics<?> stats = chunk == null ? null : chunk.getStatistics();
      if (stats == null || stats.isEmpty()) {
        continue;
      }
      if (stats.isNumNullsSet()) {
        nullCounts[i] = stats.getNumNulls();
      }
      if (stats.hasNonNullValue()) {
        LogicalType t = type.getTypeAt(i);
        min.setField(i, convert(stats.genericGetMin(), t));
        max.setField(i, convert(stats.genericGetMax(), t));
        if (min.getField(i) == null || max.getField(i) == null) {
          min.setField(i, null);
          max.setField(i, null);
          nullCounts[i] = -1; // unknown bounds must not read as "all null"
        }
      }
    }
    return filter.test(block.getRowCount(), min, max, nullCounts);
  }

  /** A statistics value as the internal value of {@code type}; null when not converted. */
  private static Object convert(Object v, LogicalType type) {
    return switch (type.getTypeRoot()) {
      case BOOLEAN -> v instanceof Boolean ? v : null;
      case TINYINT -> v instanceof Integer i ? (Object) (byte) (int) i : null;
      case SMALLINT -> v instanceof Integer i ? (Object) (short) (int) i : null;
      case INTEGER, DATE, TIME_WITHOUT_TIME_ZONE -> v instanceof Integer ? v : null;
      case BIGINT -> v instanceof Long ? v : null;
      case FLOAT -> v instanceof Float ? v : null;
      case DOUBLE -> v instanceof Double ? v : null;
      case CHAR, VARCHAR -> v instanceof Binary b ? StringData.fromBytes(b.getBytes()) : null;
      default -> null;
    };
  }
}
