package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.ExecutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.types.Row;

/**
 * {@code CALL c.sys.compact_database(including_databases => 'db1|db2', including_tables => 'a.*',
 * excluding_tables => '.*_tmp', mode => 'batch'|'streaming'|'combined'|'divided', table_options =>
 * 'k=v,...', partition_idle_time => '1 d', compact_strategy => 'full'|'minor', commit_user =>
 * 'nightly')}: Paimon's procedure. One compaction job covers every matching table and makes one
 * COMPACT commit per table (per checkpoint in streaming).
 *
 * <p>The regexes match whole names; a table matches by its name or by {@code db.table}. {@code
 * mode} is Sediment's {@code batch} (the default) or {@code streaming}; Paimon's {@code combined}
 * and {@code divided} (its sink layouts) are accepted and run one job, in batch or streaming as the
 * SQL session's {@code execution.runtime-mode} says. Output: in batch one row per table (its tasks,
 * its own COMPACT snapshot and counts, its name in {@code table}), in streaming one row with the
 * {@code jobId}.
 */
public final class CompactDatabaseProcedure extends CompactionProcedure {

  public static final String NAME = "compact_database";

  public CompactDatabaseProcedure(FileSystemCatalog catalog) {
    this(catalog, CompactionRunner.topology(catalog.warehouse().toString()));
  }

  public CompactDatabaseProcedure(FileSystemCatalog catalog, CompactionRunner runner) {
    super(catalog, runner);
  }

  @ProcedureHint(output = @DataTypeHint(RESULT_FIELDS + "`table` STRING>"))
  public Row[] call(
      ProcedureContext context,
      @ArgumentHint(name = "including_databases", type = @DataTypeHint("STRING"), isOptional = true)
          String includingDatabases,
      @ArgumentHint(name = "mode", type = @DataTypeHint("STRING"), isOptional = true) String mode,
      @ArgumentHint(name = "including_tables", type = @DataTypeHint("STRING"), isOptional = true)
          String includingTables,
      @ArgumentHint(name = "excluding_tables", type = @DataTypeHint("STRING"), isOptional = true)
          String excludingTables,
      @ArgumentHint(name = "table_options", type = @DataTypeHint("STRING"), isOptional = true)
          String options,
      @ArgumentHint(name = "partition_idle_time", type = @DataTypeHint("STRING"), isOptional = true)
          String partitionIdleTime,
      @ArgumentHint(name = "compact_strategy", type = @DataTypeHint("STRING"), isOptional = true)
          String compactStrategy,
      @ArgumentHint(name = "commit_user", type = @DataTypeHint("STRING"), isOptional = true)
          String commitUser)
      throws Exception {
    StreamExecutionEnvironment env = context.getExecutionEnvironment();
    ExecutionMode m = mode(mode, env);
    CompactSpec spec =
        configure(
            includingDatabases,
            includingTables,
            excludingTables,
            options,
            commitUser,
            m,
            compactStrategy,
            partitionIdleTime);
    if (catalog.listDatabases().stream().noneMatch(spec::followsDatabase)) {
      throw ProcedureArgs.bad(
          "including_databases",
          "no database of " + catalog.warehouse() + " matches '" + spec.database().get() + "'");
    }
    if (m == ExecutionMode.STREAMING) {
      String jobId = runner.submitStreaming(spec, env);
      return new Row[] {jobRow(jobId)};
    }
    // One row per table: a table's own snapshot and numbers (durationMs is the whole job's).
    List<Row> rows = new ArrayList<>();
    runner.runBatchPerTable(spec, env).forEach((table, r) -> rows.add(resultRow(r, table)));
    return rows.toArray(new Row[0]);
  }

  /**
   * The mode {@code mode} asks for: batch or streaming, or Paimon's {@code combined} and {@code
   * divided}, which follow the session's runtime mode; errors name the argument.
   */
  public static ExecutionMode mode(String mode, StreamExecutionEnvironment env) {
    String m = mode == null ? "batch" : mode.strip().toLowerCase(Locale.ROOT);
    if (m.equals("combined") || m.equals("divided")) {
      return env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
              == RuntimeExecutionMode.STREAMING
          ? ExecutionMode.STREAMING
          : ExecutionMode.BATCH;
    }
    try {
      return ExecutionMode.parse(mode);
    } catch (IllegalArgumentException e) {
      throw ProcedureArgs.bad(
          "mode", e.getMessage() + " (or Paimon's 'combined', 'divided': the session's mode)");
    }
  }

  /** Validates the arguments into the compaction of the matching tables. */
  public static CompactSpec configure(
      String includingDatabases,
      String includingTables,
      String excludingTables,
      String options,
      String commitUser,
      ExecutionMode mode,
      String compactStrategy,
      String partitionIdleTime) {
    CompactSpec.Builder b;
    try {
      b = CompactSpec.forDatabase(blankToAll(includingDatabases), blankToAll(includingTables));
    } catch (IllegalArgumentException e) {
      String arg =
          e.getMessage().contains("including_databases")
              ? "including_databases"
              : "including_tables";
      throw ProcedureArgs.bad(arg, e);
    }
    if (excludingTables != null && !excludingTables.isBlank()) {
      try {
        b.withExcludingTables(excludingTables.strip());
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("excluding_tables", e);
      }
    }
    ProcedureArgs.optionsAndCommitUser(b, "table_options", options, commitUser);
    ProcedureArgs.strategyArgs(b, compactStrategy, partitionIdleTime);
    return ProcedureArgs.build(b, mode);
  }

  private static String blankToAll(String regex) {
    return regex == null || regex.isBlank() ? ".*" : regex.strip();
  }
}
