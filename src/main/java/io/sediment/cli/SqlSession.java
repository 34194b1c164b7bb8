package io.sediment.cli;

import java.io.PrintWriter;
import java.util.List;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.operations.CallProcedureOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.StatementSetOperation;

/**
 * A SQL session of {@code sediment sql}: a table environment (batch or streaming) with the
 * warehouse registered as catalog {@code sediment}, the current catalog. {@link #execute} runs one
 * statement to its end and prints its result: rows as a table (as Flink's SQL client does in
 * tableau mode), {@code OK} for statements without rows.
 */
final class SqlSession implements AutoCloseable {

  static final String CATALOG = "sediment";

  private final SqlFlink flink;
  private final TableEnvironmentInternal tEnv;
  private final boolean streaming;
  private volatile boolean cancelled;

  private SqlSession(SqlFlink flink, TableEnvironmentInternal tEnv, boolean streaming) {
    this.flink = flink;
    this.tEnv = tEnv;
    this.streaming = streaming;
  }

  static SqlSession open(String warehouse, boolean streaming) throws Exception {
    SqlFlink flink = SqlFlink.start();
    try {
      EnvironmentSettings.Builder settings =
          EnvironmentSettings.newInstance().withConfiguration(FlinkEnvironments.configuration());
      TableEnvironment tEnv =
          TableEnvironment.create(
              (streaming ? settings.inStreamingMode() : settings.inBatchMode()).build());
      tEnv.executeSql(
          "CREATE CATALOG "
              + CATALOG
              + " WITH ('type' = 'sediment', 'warehouse' = '"
              + warehouse.replace("'", "''")
              + "')");
      tEnv.useCatalog(CATALOG);
      return new SqlSession(flink, (TableEnvironmentInternal) tEnv, streaming);
    } catch (Exception | Error e) {
      try {
        flink.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /** Runs one statement (without its {@code ;}) and prints its result; errors are thrown. */
  void execute(String statement, PrintWriter out) throws Exception {
    cancelled = false;
    List<Operation> operations = tEnv.getParser().parse(statement);
    if (operations.size() != 1) {
      throw new TableException("Expected one statement, got " + operations.size());
    }
    Operation operation = operations.get(0);
    if (operation instanceof CallProcedureOperation) {
      SqlResultPrinter.print(
          flink.call(() -> tEnv.executeInternal(operation)), operation, streaming, out);
    } else if (operation instanceof ModifyOperation || operation instanceof StatementSetOperation) {
      // INSERT: the result is the job; wait for its commit.
      tEnv.executeInternal(operation).await();
      out.println("OK");
    } else {
      TableResultInternal result = tEnv.executeInternal(operation);
      if (result.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT) {
        SqlResultPrinter.print(result, operation, streaming, out);
      } else {
        out.println("OK");
      }
    }
    out.flush();
  }

  /** Cancels the statement's job that runs now, if any (Ctrl-C in the shell). */
  void cancelRunningJob() {
    cancelled = true;
    flink.cancelLastJob();
  }

  /** Whether the last statement was cancelled by {@link #cancelRunningJob}. */
  boolean cancelled() {
    return cancelled;
  }

  @Override
  public void close() throws Exception {
    flink.close();
  }
}
