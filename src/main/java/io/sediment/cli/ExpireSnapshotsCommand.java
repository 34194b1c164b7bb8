package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.PointInTime;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment expire-snapshots}: {@link ExpireSnapshots} with the arguments of {@code CALL
 * sys.expire_snapshots} ({@code retain_max}, {@code retain_min}, {@code older_than}).
 */
@Command(
    name = "expire-snapshots",
    mixinStandardHelpOptions = true,
    description =
        "Expire old snapshots of a table and delete the files only they use (as CALL"
            + " sys.expire_snapshots).")
final class ExpireSnapshotsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
  String table;

  @Option(names = "--retain-max", description = "Keep at most this many snapshots (>= 1).")
  Integer retainMax;

  @Option(
      names = "--retain-min",
      description = "Keep at least this many snapshots however old (>= 1, default 1).")
  Integer retainMin;

  @Option(
      names = "--older-than",
      description =
          "Expire snapshots created before this: a timestamp like '2024-05-01 10:00:00' or an"
              + " age like '1 d'.")
  String olderThan;

  @Option(
      names = "--max-deletes",
      description =
          "Expire at most this many snapshots, the oldest first (>= 1; default: no limit).")
  Integer maxDeletes;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() {
    if (retainMax == null && olderThan == null) {
      throw new IllegalArgumentException("Give --retain-max or --older-than (or both)");
    }
    if (retainMax != null && retainMax < 1) {
      throw new IllegalArgumentException("--retain-max must be at least 1, got " + retainMax);
    }
    if (retainMin != null && retainMin < 1) {
      throw new IllegalArgumentException("--retain-min must be at least 1, got " + retainMin);
    }
    if (maxDeletes != null && maxDeletes < 1) {
      throw new IllegalArgumentException("--max-deletes must be at least 1, got " + maxDeletes);
    }
    Long olderThanMillis = olderThan == null ? null : parseOlderThan(olderThan);
    Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
    ExpireSnapshots expire = new ExpireSnapshots(t);
    if (retainMax != null) {
      expire.retainMax(retainMax);
    }
    if (retainMin != null) {
      expire.retainMin(retainMin);
    }
    if (olderThanMillis != null) {
      expire.olderThan(olderThanMillis);
    }
    if (maxDeletes != null) {
      expire.maxDeletes(maxDeletes);
    }
    try {
      expire.check();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--retain-min: " + e.getMessage(), e);
    }
    ExpireSnapshots.Result r = expire.execute();
    PrintWriter out = spec.commandLine().getOut();
    out.println(
        "Expired "
            + Plurals.of(r.expiredSnapshots().size(), "snapshot")
            + " of "
            + t.fullName()
            + "; deleted "
            + Plurals.of(r.deletedDataFiles(), "data file")
            + " and "
            + Plurals.of(r.deletedMetadataFiles(), "metadata file"));
    out.flush();
    return ExitCodes.OK;
  }

  /** {@code --older-than} as epoch millis; the error names the option. */
  static long parseOlderThan(String text) {
    try {
      return PointInTime.parse(text, Clock.systemUTC());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--older-than: " + e.getMessage(), e);
    }
  }
}
