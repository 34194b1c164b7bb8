package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.ExpirePartitions;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment expire-partitions}: {@link ExpirePartitions} with the arguments of {@code CALL
 * sys.expire_partitions}; prints each partition dropped.
 */
@Command(
    name = "expire-partitions",
    mixinStandardHelpOptions = true,
    description =
        "Drop the partitions whose time is older than an expiration time, in one snapshot (as CALL"
            + " sys.expire_partitions).")
final class ExpirePartitionsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin WarehouseOption warehouseOption;

  @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
  String table;

  @Option(
      names = "--expiration-time",
      required = true,
      description = "Drop partitions older than this: '7 d', '12 h', '30 min'.")
  String expirationTime;

  @Option(
      names = "--timestamp-formatter",
      description =
          "How the partition time is written, e.g. yyyyMMdd (default yyyy-MM-dd[ HH:mm:ss]).")
  String formatter;

  @Option(
      names = "--timestamp-pattern",
      description =
          "The partition time from the partition values, e.g. '$dt $hh' (default: the first).")
  String pattern;

  @Option(
      names = "--expire-strategy",
      description =
          "values-time (default: the time in the values) or update-time (the newest file).")
  String strategy;

  @Option(names = "--max-expires", description = "Drop at most this many partitions, the oldest.")
  Integer maxExpires;

  @Mixin VerboseOption verbose;

  @Override
  public Integer call() {
    Duration expiration = CompactCommand.parseDuration("--expiration-time", expirationTime.strip());
    Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
    ExpirePartitions expire = new ExpirePartitions(t);
    set("--expiration-time", () -> expire.expirationTime(expiration));
    // blank is left out, as in the procedure
    set("--timestamp-formatter", () -> expire.timestampFormatter(blankToNull(formatter)));
    set("--timestamp-pattern", () -> expire.timestampPattern(blankToNull(pattern)));
    if (blankToNull(strategy) != null) {
      set("--expire-strategy", () -> expire.strategy(strategy));
    }
    if (maxExpires != null) {
      set("--max-expires", () -> expire.maxExpires(maxExpires));
    }
    List<String> expired = expire.execute();
    PrintWriter out = spec.commandLine().getOut();
    for (String p : expired) {
      out.println(p);
    }
    out.println("Expired " + Plurals.of(expired.size(), "partition") + " of " + t.fullName());
    out.flush();
    return ExitCodes.OK;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static void set(String option, Runnable setter) {
    try {
      setter.run();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }
}
