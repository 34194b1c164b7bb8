package io.sediment.cli;

import java.io.PrintWriter;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.operations.CallProcedureOperation;
import org.apache.flink.table.operations.ExplainOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.ShowCreateCatalogOperation;
import org.apache.flink.table.operations.ShowCreateTableOperation;
import org.apache.flink.table.operations.ShowCreateViewOperation;
import org.apache.flink.table.utils.print.PrintStyle;
import org.apache.flink.util.CloseableIterator;

/**
 * Prints the rows of a statement's result as Flink's SQL client does: a table (tableau), with
 * columns of at most {@link PrintStyle#DEFAULT_MAX_COLUMN_WIDTH} characters, except for procedure
 * results (their descriptions are the point of a dry run) and the plain text of {@code EXPLAIN} and
 * {@code SHOW CREATE}.
 */
final class SqlResultPrinter {

  private SqlResultPrinter() {}

  static void print(
      TableResultInternal result, Operation operation, boolean streaming, PrintWriter out)
      throws Exception {
    // Read to the end and closed here, so no job's result is still being fetched afterwards.
    try (CloseableIterator<RowData> rows = result.collectInternal()) {
      style(result, operation, streaming).print(rows, out);
    }
    out.flush();
  }

  private static PrintStyle style(
      TableResultInternal result, Operation operation, boolean streaming) {
    if (operation instanceof ExplainOperation
        || operation instanceof ShowCreateTableOperation
        || operation instanceof ShowCreateViewOperation
        || operation instanceof ShowCreateCatalogOperation) {
      return PrintStyle.rawContent(result.getRowDataToStringConverter());
    }
    if (streaming && operation instanceof QueryOperation) {
      // A streaming query may never end: its rows (with their row kind) are printed as they
      // arrive, in columns as wide as their types.
      return PrintStyle.tableauWithTypeInferredColumnWidths(
          result.getResolvedSchema(),
          result.getRowDataToStringConverter(),
          PrintStyle.DEFAULT_MAX_COLUMN_WIDTH,
          false,
          true);
    }
    // Otherwise all rows are read first and the columns are as wide as their values.
    return PrintStyle.tableauWithDataInferredColumnWidths(
        result.getResolvedSchema(),
        result.getRowDataToStringConverter(),
        operation instanceof CallProcedureOperation
            ? Integer.MAX_VALUE
            : PrintStyle.DEFAULT_MAX_COLUMN_WIDTH,
        false,
        false);
  }
}
