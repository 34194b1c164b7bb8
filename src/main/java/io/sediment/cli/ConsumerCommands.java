package io.sediment.cli;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.maintenance.Consumers;
import io.sediment.table.Table;
import java.io.PrintWriter;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The consumer commands: {@link Consumers} with the arguments of Paimon's procedures. */
final class ConsumerCommands {

  private ConsumerCommands() {}

  /** {@code sediment reset-consumer}: as {@code CALL sys.reset_consumer}. */
  @Command(
      name = "reset-consumer",
      mixinStandardHelpOptions = true,
      description =
          "Set the snapshot a streaming read's consumer resumes at, or delete the consumer (as"
              + " CALL sys.reset_consumer). Stop the read's job first: it records its own position"
              + " at every checkpoint.")
  static final class Reset implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(names = "--consumer-id", required = true, description = "The consumer's id.")
    String consumerId;

    @Option(
        names = "--next-snapshot-id",
        description =
            "The snapshot to resume at: one still there, or the one after the latest. Without it"
                + " the consumer is deleted.")
    Long nextSnapshotId;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      // before any table is read (flink-jobs.md): a bad id is refused whatever the table
      OptionRefusals.check("--consumer-id", () -> Consumers.checkId(consumerId));
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      Consumers consumers = new Consumers(t);
      Consumers.Change c;
      if (nextSnapshotId == null) {
        c = OptionRefusals.named("--consumer-id", () -> consumers.delete(consumerId));
      } else {
        OptionRefusals.check(
            "--next-snapshot-id", () -> consumers.checkNextSnapshot(nextSnapshotId));
        c = consumers.reset(consumerId, nextSnapshotId);
      }
      PrintWriter out = spec.commandLine().getOut();
      out.println(describe(c, t));
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code sediment clear-consumers}: as {@code CALL sys.clear_consumers}. */
  @Command(
      name = "clear-consumers",
      mixinStandardHelpOptions = true,
      description =
          "Delete the consumers of a table's streaming reads whose ids match (as CALL"
              + " sys.clear_consumers); expiry then no longer keeps snapshots for them.")
  static final class Clear implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin WarehouseOption warehouseOption;

    @Option(names = "--table", required = true, description = "Table as DB.TABLE.")
    String table;

    @Option(
        names = "--including-consumers",
        description = "Regular expression of the consumer ids to delete (default: every one).")
    String including;

    @Option(
        names = "--excluding-consumers",
        description = "Regular expression of consumer ids to keep (default: none).")
    String excluding;

    @Mixin VerboseOption verbose;

    @Override
    public Integer call() {
      Pattern in = pattern("--including-consumers", including);
      Pattern out = pattern("--excluding-consumers", excluding);
      Table t = new FileSystemCatalog(warehouseOption.warehouse).getTable(table);
      List<Consumers.Change> cleared = new Consumers(t).clear(in, out);
      PrintWriter w = spec.commandLine().getOut();
      for (Consumers.Change c : cleared) {
        w.println(describe(c, t));
      }
      w.println("Deleted " + Plurals.of(cleared.size(), "consumer") + " of " + t.fullName());
      w.flush();
      return ExitCodes.OK;
    }

    private static Pattern pattern(String option, String regex) {
      try {
        return Consumers.idPattern(regex);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
      }
    }
  }

  /** One line per changed consumer: what it resumes at now and before. */
  static String describe(Consumers.Change c, Table t) {
    String was =
        c.before().isPresent() ? " (it was at snapshot " + c.before().getAsLong() + ")" : "";
    OptionalLong after = c.after();
    if (after.isEmpty()) {
      return "Deleted consumer '" + c.consumerId() + "' of " + t.fullName() + was;
    }
    return (c.before().isEmpty() ? "Created consumer '" : "Consumer '")
        + c.consumerId()
        + "' of "
        + t.fullName()
        + " resumes at snapshot "
        + after.getAsLong()
        + was;
  }
}
