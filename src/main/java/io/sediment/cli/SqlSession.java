package io.sediment.cli;

import io.sediment.flink.sql.procedures.ProcedureArgs;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableException;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.ProcedureNotExistException;
import org.apache.flink.table.operations.CallProcedureOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.StatementSetOperation;
import org.apache.flink.table.operations.command.ResetOperation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.table.operations.ddl.AlterTableRenameOperation;
import org.apache.flink.table.procedures.Procedure;

/**
 * A SQL session of {@code sediment sql}: a table environment (batch or streaming) with the
 * warehouse registered as catalog {@code sediment}, the current catalog. {@link #execute} runs one
 * statement to its end and prints its result: rows as a table (as Flink's SQL client does in
 * tableau mode), {@code OK} for statements without rows.
 */
final class SqlSession implements AutoCloseable {

  static final String CATALOG = "sediment";

  private static final String RUNTIME_MODE = "execution.runtime-mode";

  private final SqlFlink flink;
  private final String warehouse;
  private final Configuration base;

  /** What {@code SET} changed in this session, in order: replayed into a new environment. */
  private final Map<String, String> sessionOptions = new LinkedHashMap<>();

  private final boolean initialStreaming;
  private TableEnvironmentInternal tEnv;
  private boolean streaming;
  private volatile boolean cancelled;

  private SqlSession(SqlFlink flink, String warehouse, boolean streaming) {
    this.flink = flink;
    this.warehouse = warehouse;
    this.base = FlinkEnvironments.configuration();
    this.initialStreaming = streaming;
    this.streaming = streaming;
  }

  static SqlSession open(String warehouse, boolean streaming) throws Exception {
    SqlFlink flink = SqlFlink.start();
    try {
      SqlSession session = new SqlSession(flink, warehouse, streaming);
      session.tEnv = session.newEnvironment(null);
      return session;
    } catch (Exception | Error e) {
      try {
        flink.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
  }

  /**
   * A table environment in the session's runtime mode with the warehouse as current catalog, the
   * session's options, and {@code database} as current database (null: the catalog's default).
   */
  private TableEnvironmentInternal newEnvironment(String database) {
    EnvironmentSettings.Builder settings =
        EnvironmentSettings.newInstance().withConfiguration(base);
    TableEnvironment env =
        TableEnvironment.create(
            (streaming ? settings.inStreamingMode() : settings.inBatchMode()).build());
    env.executeSql(
        "CREATE CATALOG "
            + CATALOG
            + " WITH ('type' = 'sediment', 'warehouse' = '"
            + warehouse.replace("'", "''")
            + "')");
    env.useCatalog(CATALOG);
    if (database != null) {
      env.useDatabase(database);
    }
    sessionOptions.forEach((k, v) -> env.getConfig().getConfiguration().setString(k, v));
    return (TableEnvironmentInternal) env;
  }

  /**
   * Refuses a {@code CALL} of a Sediment procedure that names an argument the procedure does not
   * declare (Flink drops such arguments before the procedure sees them): the error lists the known
   * ones, and nothing runs.
   */
  private void checkNamedArguments(String statement) throws Exception {
    Optional<SqlStatements.Call> call = SqlStatements.call(statement);
    Optional<Catalog> catalog = tEnv.getCatalog(CATALOG);
    if (call.isEmpty() || call.get().namedArguments().isEmpty() || catalog.isEmpty()) {
      return;
    }
    Procedure procedure;
    try {
      procedure = catalog.get().getProcedure(new ObjectPath("sys", call.get().procedure()));
    } catch (ProcedureNotExistException e) {
      return; // Flink reports it
    }
    List<String> known = ProcedureArgs.declaredArguments(procedure);
    List<String> named = call.get().namedArguments();
    List<String> unknown = named.stream().filter(name -> !known.contains(name)).toList();
    if (!unknown.isEmpty()) {
      throw argumentError("Unknown", unknown, call.get().procedure(), "", known);
    }
    List<String> missing =
        ProcedureArgs.requiredArguments(procedure).stream()
            .filter(name -> !named.contains(name))
            .toList();
    if (!missing.isEmpty()) {
      throw argumentError("Missing", missing, call.get().procedure(), " (required)", known);
    }
  }

  private static ValidationException argumentError(
      String what, List<String> names, String procedure, String why, List<String> known) {
    return new ValidationException(
        what
            + " argument"
            + (names.size() == 1 ? " '" + names.get(0) + "'" : "s " + names)
            + " of sys."
            + procedure
            + why
            + "; its arguments are "
            + String.join(", ", known)
            + "; nothing was run");
  }

  /**
   * Refuses {@code ALTER TABLE a.t RENAME TO b.u} across databases or catalogs: Flink hands a
   * catalog only the new table name, so the table would be renamed to {@code a.u} (in every Flink
   * catalog, Paimon's too).
   */
  private static void checkRename(AlterTableRenameOperation rename) {
    ObjectIdentifier from = rename.getTableIdentifier();
    ObjectIdentifier to = rename.getNewTableIdentifier();
    if (!from.getCatalogName().equals(to.getCatalogName())
        || !from.getDatabaseName().equals(to.getDatabaseName())) {
      throw new ValidationException(
          "ALTER TABLE ... RENAME TO cannot move table '"
              + from.getDatabaseName()
              + "."
              + from.getObjectName()
              + "' to database '"
              + to.getDatabaseName()
              + "': a table is renamed within its database (RENAME TO "
              + from.getDatabaseName()
              + "."
              + to.getObjectName()
              + "); nothing was changed");
    }
  }

  /** Runs one statement (without its {@code ;}) and prints its result; errors are thrown. */
  void execute(String statement, PrintWriter out) throws Exception {
    cancelled = false;
    // before Flink parses it: Flink reports a misspelt required argument as "DEFAULT is only
    // allowed for optional parameters"
    checkNamedArguments(statement);
    List<Operation> operations = tEnv.getParser().parse(statement);
    if (operations.size() != 1) {
      throw new TableException("Expected one statement, got " + operations.size());
    }
    Operation operation = operations.get(0);
    if (operation instanceof AlterTableRenameOperation rename) {
      checkRename(rename);
    }
    if (operation instanceof SetOperation set) {
      set(set, out);
    } else if (operation instanceof ResetOperation reset) {
      reset(reset.getKey().orElse(null));
      out.println("OK");
    } else if (operation instanceof CallProcedureOperation) {
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

  /**
   * {@code SET}: lists the options this session set; {@code SET 'key' = 'value'} sets one for the
   * statements that follow (Flink options such as {@code execution.checkpointing.interval}, and
   * table options as {@code sediment.<catalog>.<database>.<table>.<option>}). Changing {@code
   * execution.runtime-mode} ({@code batch}, {@code streaming}) starts a new environment in that
   * mode; temporary views and functions are not carried over.
   */
  private void set(SetOperation set, PrintWriter out) {
    if (set.getKey().isEmpty()) {
      new TreeMap<>(sessionOptions).forEach((k, v) -> out.println("'" + k + "' = '" + v + "'"));
      if (sessionOptions.isEmpty()) {
        out.println("No option set in this session");
      }
      return;
    }
    String key = set.getKey().get().trim();
    String value = set.getValue().orElse("").trim();
    if (key.equals(RUNTIME_MODE)) {
      String mode = value.toLowerCase(Locale.ROOT);
      if (!mode.equals("batch") && !mode.equals("streaming")) {
        throw new TableException(
            "Invalid value '" + value + "' for '" + RUNTIME_MODE + "'; allowed: batch, streaming");
      }
      sessionOptions.put(key, mode);
      switchMode(mode.equals("streaming"));
    } else {
      sessionOptions.put(key, value);
      tEnv.getConfig().getConfiguration().setString(key, value);
    }
    out.println("OK");
  }

  /**
   * {@code RESET 'key'} takes back what {@code SET} changed; {@code RESET} takes back all. The
   * statement starts a new environment with the options that remain (Flink copies a session's
   * options into its execution environment, where removing them again is not possible), so
   * temporary views and functions are not carried over.
   */
  private void reset(String key) {
    List<String> keys =
        key == null ? List.copyOf(sessionOptions.keySet()) : List.of(unquote(key.trim()));
    keys.forEach(sessionOptions::remove);
    String database = tEnv.getCurrentDatabase();
    if (keys.contains(RUNTIME_MODE)) {
      streaming = initialStreaming;
    }
    tEnv = newEnvironment(database);
  }

  /** Flink's parser leaves the quotes on a RESET's key. */
  private static String unquote(String key) {
    return key.length() >= 2 && key.startsWith("'") && key.endsWith("'")
        ? key.substring(1, key.length() - 1).replace("''", "'")
        : key;
  }

  private void switchMode(boolean toStreaming) {
    if (toStreaming == streaming) {
      return;
    }
    String database = tEnv.getCurrentDatabase();
    streaming = toStreaming;
    tEnv = newEnvironment(database);
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
