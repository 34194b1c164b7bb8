package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactTask;
import io.sediment.compact.ExecutionMode;
import io.sediment.compact.SortOrder;
import io.sediment.flink.sql.filter.PartitionWhere;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.types.Row;

/**
 * {@code CALL c.sys.compact(`table` => 'db.t', partitions => 'p=a;p=b', `where` => 'p > ''a''',
 * options => 'k=v,...', commit_user => 'nightly', mode => 'batch'|'streaming', dry_run => false,
 * compact_strategy => 'full'|'minor', partition_idle_time => '1 d')}. Without {@code
 * compact_strategy} a batch run is full and a streaming one minor, as in Paimon.
 *
 * <p>{@code where} is a SQL boolean expression over partition columns, or the JSON filter form when
 * it starts with <code>{</code> ({@link PartitionWhere}); it cannot be combined with {@code
 * partitions}, as in Paimon. The arguments make one {@link CompactSpec}, validated argument by
 * argument before anything runs. Output rows have the fields of {@link CompactResult} plus {@code
 * jobId} and {@code task}:
 *
 * <ul>
 *   <li>batch: one row with the result ({@code snapshotId} null when nothing was planned);
 *   <li>dry run: one row per planned task ({@code filesBefore}, {@code bytesBefore}, {@code
 *       rowsRead} are its inputs, {@code task} describes it), nothing is written;
 *   <li>streaming: one row with the {@code jobId} of the submitted compaction job.
 * </ul>
 */
public final class CompactProcedure extends CompactionProcedure {

  public static final String NAME = "compact";

  public CompactProcedure(FileSystemCatalog catalog) {
    this(catalog, CompactionRunner.topology(catalog.warehouse().toString()));
  }

  public CompactProcedure(FileSystemCatalog catalog, CompactionRunner runner) {
    super(catalog, runner);
  }

  @ProcedureHint(output = @DataTypeHint(RESULT_FIELDS + "task STRING>"))
  public Row[] call(
      ProcedureContext context,
      @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
      // Paimon's arguments first, in its order (a call by position means the same), then ours
      @ArgumentHint(name = "partitions", type = @DataTypeHint("STRING"), isOptional = true)
          String partitions,
      @ArgumentHint(name = "order_strategy", type = @DataTypeHint("STRING"), isOptional = true)
          String orderStrategy,
      @ArgumentHint(name = "order_by", type = @DataTypeHint("STRING"), isOptional = true)
          String orderBy,
      @ArgumentHint(name = "options", type = @DataTypeHint("STRING"), isOptional = true)
          String options,
      @ArgumentHint(name = "where", type = @DataTypeHint("STRING"), isOptional = true) String where,
      @ArgumentHint(name = "partition_idle_time", type = @DataTypeHint("STRING"), isOptional = true)
          String partitionIdleTime,
      @ArgumentHint(name = "compact_strategy", type = @DataTypeHint("STRING"), isOptional = true)
          String compactStrategy,
      @ArgumentHint(name = "commit_user", type = @DataTypeHint("STRING"), isOptional = true)
          String commitUser,
      @ArgumentHint(name = "mode", type = @DataTypeHint("STRING"), isOptional = true) String mode,
      @ArgumentHint(name = "dry_run", type = @DataTypeHint("BOOLEAN"), isOptional = true)
          Boolean dryRun)
      throws Exception {
    ExecutionMode m = ProcedureArgs.mode(mode);
    Table t = ProcedureArgs.table(catalog, table);
    CompactSpec spec =
        configure(
            t,
            partitions,
            where,
            options,
            commitUser,
            m,
            compactStrategy,
            partitionIdleTime,
            orderStrategy,
            orderBy);
    if (Boolean.TRUE.equals(dryRun)) {
      List<Row> rows = new ArrayList<>();
      for (CompactTask task : spec.plan(t.store(), t.fullName(), m)) {
        rows.add(
            Row.of(
                1,
                null,
                (long) task.inputs().size(),
                null,
                task.inputBytes(),
                null,
                task.inputRows(),
                null,
                null,
                null,
                describe(task)));
      }
      return rows.toArray(new Row[0]);
    }
    if (m == ExecutionMode.STREAMING) {
      String jobId = runner.submitStreaming(spec, context.getExecutionEnvironment());
      return new Row[] {jobRow(jobId)};
    }
    CompactResult r = runner.runBatch(spec, context.getExecutionEnvironment());
    return new Row[] {resultRow(r, null)};
  }

  /** A planned task as a dry run shows it: where, what it reads, what it writes. */
  static String describe(CompactTask task) {
    String where = task.partitionPath().isEmpty() ? "(unpartitioned)" : task.partitionPath();
    return where
        + " bucket "
        + task.bucket()
        + ": "
        + task.inputs().size()
        + (task.inputs().size() == 1 ? " file, " : " files, ")
        + task.inputBytes()
        + " bytes -> "
        + switch (task.kind()) {
          case MERGE_TREE -> "merged into level " + task.outputLevel();
          case APPEND_REWRITE -> "rewritten";
          case SORT_REWRITE -> "sorted, " + task.sortRange().orElseThrow();
        };
  }

  /**
   * Validates the arguments into the compaction of {@code table}; errors name the argument. Null
   * stands for an argument not given ({@code order_strategy} and {@code order_by}: no sort).
   */
  public static CompactSpec configure(
      Table table,
      String partitions,
      String where,
      String options,
      String commitUser,
      ExecutionMode mode,
      String compactStrategy,
      String partitionIdleTime,
      String orderStrategy,
      String orderBy) {
    CompactSpec.Builder b = CompactSpec.forTable(table.fullName(), table.store());
    boolean hasPartitions = partitions != null && !partitions.isBlank();
    boolean hasWhere = where != null && !where.isBlank();
    if (hasPartitions) {
      try {
        b.withPartitions(PartitionSpecs.parse(partitions));
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("partitions", e);
      }
    }
    if (hasWhere) {
      try {
        b.withPartitionFilter(PartitionWhere.parse(table.fullName(), table.schema(), where));
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("where", e);
      }
    }
    ProcedureArgs.optionsAndCommitUser(b, "options", options, commitUser);
    ProcedureArgs.strategyArgs(b, compactStrategy, partitionIdleTime);
    if (orderStrategy != null || orderBy != null) {
      if (orderStrategy == null || orderBy == null) {
        try {
          SortOrder.of(orderStrategy, orderBy); // says which one is missing
        } catch (IllegalArgumentException e) {
          throw ProcedureArgs.bad("order_strategy", e);
        }
      }
      SortOrder.Strategy strategy;
      try {
        strategy = SortOrder.Strategy.parse(orderStrategy);
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("order_strategy", e);
      }
      try {
        b.withSortOrder(SortOrder.of(strategy.value(), orderBy));
      } catch (IllegalArgumentException e) {
        throw ProcedureArgs.bad("order_by", e);
      }
    }
    return ProcedureArgs.build(b, mode);
  }
}
