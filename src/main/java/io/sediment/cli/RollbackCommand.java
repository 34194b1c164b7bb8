package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Rollback;
import io.sediment.maintenance.Tags;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment rollback-to}: as {@code CALL sys.rollback_to}, {@code sys.rollback_to_timestamp}
 * and {@code sys.rollback_to_watermark}.
 */
@Command(
    name = "rollback-to",
    mixinStandardHelpOptions = true,
    description =
        "Roll a table back to a snapshot, a tag or a point in time (as CALL sys.rollback_to):"
            + " one new snapshot reads what the target read (files removed since are copied"
            + " back); the snapshots after it stay readable until they expire. Stop the jobs"
            + " that write the table first.")
final class RollbackCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
  String table;

  @Option(names = "--snapshot-id", description = "The snapshot to roll back to, one still there.")
  Long snapshotId;

  @Option(names = "--tag", description = "The tag whose snapshot to roll back to.")
  String tag;

  @Option(
      names = "--timestamp",
      description =
          "Roll back to the newest snapshot still there committed at or before this time, in"
              + " milliseconds since the epoch (as CALL sys.rollback_to_timestamp).")
  Long timestamp;

  @Option(
      names = "--watermark",
      description =
          "Roll back to the newest snapshot still there whose watermark is at or before this one,"
              + " in milliseconds since the epoch (as CALL sys.rollback_to_watermark).")
  Long watermark;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() {
    int given =
        (snapshotId != null ? 1 : 0)
            + (tag != null ? 1 : 0)
            + (timestamp != null ? 1 : 0)
            + (watermark != null ? 1 : 0);
    if (given != 1) {
      throw new IllegalArgumentException(
          "give one of --snapshot-id, --tag, --timestamp or --watermark: the point to roll back"
              + " to");
    }
    String tagName = tag == null ? null : tag.strip();
    if (tagName != null) {
      OptionRefusals.check("--tag", () -> Tags.checkName(tagName));
    }
    Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
    Rollback rollback = new Rollback(t);
    Rollback.Result r =
        snapshotId != null
            ? OptionRefusals.named("--snapshot-id", () -> rollback.toSnapshot(snapshotId))
            : tag != null
                ? OptionRefusals.named("--tag", () -> rollback.toTag(tagName))
                : timestamp != null
                    ? OptionRefusals.named("--timestamp", () -> rollback.toTimestamp(timestamp))
                    : OptionRefusals.named("--watermark", () -> rollback.toWatermark(watermark));
    PrintWriter out = spec.commandLine().getOut();
    if (r.newSnapshotId().isEmpty()) {
      out.println(
          "The latest snapshot of "
              + t.fullName()
              + ", "
              + r.previousSnapshotId()
              + ", reads what snapshot "
              + r.targetSnapshotId()
              + " read already; nothing was committed");
    } else {
      out.println(
          "Rolled "
              + t.fullName()
              + " back to snapshot "
              + r.targetSnapshotId()
              + ": snapshot "
              + r.newSnapshotId().getAsLong()
              + " replaces snapshot "
              + r.previousSnapshotId()
              + " ("
              + Plurals.of(r.filesRemoved(), "data file")
              + " removed, "
              + Plurals.of(r.filesCopied(), "data file")
              + " copied)");
    }
    out.flush();
    return ExitCodes.OK;
  }
}
