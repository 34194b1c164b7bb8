package io.sediment.flink.sql.procedures;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.annotation.ArgumentHint;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.ProcedureHint;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;
import org.apache.flink.types.Row;

/**
 * {@code CALL c.sys.remove_orphan_files(`table` => 'db.t', older_than => '1 d', dry_run => false,
 * mode => 'local')}; see {@link RemoveOrphanFiles}. Returns one row per orphan file: its path, and
 * {@code deleted} or {@code found (dry run, kept)}.
 */
public final class RemoveOrphanFilesProcedure implements Procedure {

  public static final String NAME = "remove_orphan_files";

  private final FileSystemCatalog catalog;

  public RemoveOrphanFilesProcedure(FileSystemCatalog catalog) {
    this.catalog = catalog;
  }

  @ProcedureHint(output = @DataTypeHint("ROW<path STRING, action STRING>"))
  public Row[] call(
      ProcedureContext context,
      @ArgumentHint(name = "table", type = @DataTypeHint("STRING")) String table,
      @ArgumentHint(name = "older_than", type = @DataTypeHint("STRING"), isOptional = true)
          String olderThan,
      @ArgumentHint(name = "dry_run", type = @DataTypeHint("BOOLEAN"), isOptional = true)
          Boolean dryRun,
      // Paimon's, declared so that they are refused: Flink drops an undeclared one unseen
      @ArgumentHint(name = "parallelism", type = @DataTypeHint("INT"), isOptional = true)
          Integer parallelism,
      @ArgumentHint(name = "mode", type = @DataTypeHint("STRING"), isOptional = true) String mode) {
    if (parallelism != null) {
      throw ProcedureArgs.bad(
          "parallelism",
          "not supported: Sediment removes orphan files in the calling process (Paimon's 'local'"
              + " mode), one file system listing at a time; omit it");
    }
    if (mode != null && !mode.strip().equalsIgnoreCase("local")) {
      throw ProcedureArgs.bad(
          "mode",
          "'"
              + mode
              + "' is not supported: Sediment removes orphan files in the calling process, as"
              + " Paimon's 'local' mode; omit it or give 'local'");
    }
    Table t = ProcedureArgs.table(catalog, table);
    RemoveOrphanFiles remove = new RemoveOrphanFiles(t).dryRun(Boolean.TRUE.equals(dryRun));
    if (olderThan != null) {
      remove.olderThan(ProcedureArgs.pointInTime("older_than", olderThan));
    }
    List<Path> orphans = remove.execute();
    // The row says what happened: a real run and a dry run must not look alike.
    String action = Boolean.TRUE.equals(dryRun) ? "found (dry run, kept)" : "deleted";
    Row[] rows = new Row[orphans.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = Row.of(orphans.get(i).toString(), action);
    }
    return rows;
  }
}
