package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.core.fs.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment remove-orphan-files}: {@link RemoveOrphanFiles} with the arguments of {@code CALL
 * sys.remove_orphan_files} ({@code older_than}, {@code dry_run}); prints each orphan file.
 */
@Command(
    name = "remove-orphan-files",
    mixinStandardHelpOptions = true,
    description =
        "Delete files in a table's directory that no snapshot uses (as CALL"
            + " sys.remove_orphan_files).")
final class RemoveOrphanFilesCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
  String table;

  @Option(
      names = "--older-than",
      description =
          "Only files last modified before this: a timestamp like '2024-05-01 10:00:00' or an age"
              + " like '1 d' (default 1 d, so that files of running writers are left alone).")
  String olderThan;

  @Option(names = "--dry-run", description = "List the orphan files; delete nothing.")
  boolean dryRun;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() {
    Long olderThanMillis =
        olderThan == null ? null : ExpireSnapshotsCommand.parseOlderThan(olderThan);
    Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
    RemoveOrphanFiles remove = new RemoveOrphanFiles(t).dryRun(dryRun);
    if (olderThanMillis != null) {
      remove.olderThan(olderThanMillis);
    }
    List<Path> orphans = remove.execute();
    PrintWriter out = spec.commandLine().getOut();
    for (Path p : orphans) {
      out.println(p);
    }
    out.println(
        (dryRun ? "Found " : "Deleted ")
            + Plurals.of(orphans.size(), "orphan file")
            + " of "
            + t.fullName()
            + (dryRun ? " (dry run; nothing deleted)" : ""));
    out.flush();
    return ExitCodes.OK;
  }
}
