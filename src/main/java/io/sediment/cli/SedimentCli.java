package io.sediment.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code sediment} command: {@code compact}, {@code inspect}, the maintenance commands
 * (snapshots, orphan files, partitions, consumers, tags), {@code demo}, {@code sql}, {@code bench},
 * a class each or one per kind. Jobs run on an embedded Flink (configured by {@code flink-conf/})
 * or, under {@code flink run}, on the cluster. {@link #run} returns the exit code ({@link
 * ExitCodes}: 0 success, 2 bad arguments, 1 any other failure such as a missing table or a failed
 * job); errors are one line unless {@code --verbose}.
 */
@Command(
    name = "sediment",
    mixinStandardHelpOptions = true,
    version = "sediment 0.1.0",
    description = "Sediment lake table store: compaction jobs, table inspection and maintenance.",
    footer = {
      "",
      "Logs go to a file per run, ~/.sediment/log/sediment-<yyyyMMdd-HHmmss>-<pid>.log"
          + " (in $SEDIMENT_LOG_DIR when set; the newest 30 are kept); --verbose prints them on"
          + " the terminal too, with the stack traces of errors."
    },
    subcommands = {
      CompactCommand.class,
      InspectCommand.class,
      ExpireSnapshotsCommand.class,
      ExpirePartitionsCommand.class,
      RemoveOrphanFilesCommand.class,
      ConsumerCommands.Reset.class,
      ConsumerCommands.Clear.class,
      TagCommands.Create.class,
      TagCommands.Delete.class,
      TagCommands.Expire.class,
      TagCommands.Rename.class,
      TagCommands.Replace.class,
      RollbackCommand.class,
      DemoCommand.class,
      SqlCommand.class
    })
public final class SedimentCli implements Callable<Integer> {

  @Spec CommandSpec spec;

  public static void main(String[] args) {
    // Under `flink run` (or with a configuration of the user's) Log4j is configured already.
    if (System.getProperty("log4j.configurationFile") == null
        && System.getProperty("log4j2.configurationFile") == null) {
      boolean verbose = Arrays.asList(args).contains("--verbose");
      Path logs = CliLogging.logDir();
      CliLogging.deleteOldLogs(logs, CliLogging.KEPT - 1);
      CliLogging.configure(CliLogging.logFile(logs), verbose ? System.err : null);
    }
    LoggerFactory.getLogger(SedimentCli.class)
        .info(
            "sediment {} (pid {})", args.length == 0 ? "" : args[0], ProcessHandle.current().pid());
    // Every command may open a warehouse: Flink's file systems as a Flink process sets them up
    // (flink-conf/ and the plugins of FLINK_PLUGINS_DIR, e.g. S3 with its endpoint and keys).
    FlinkEnvironments.initializeFileSystems();
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command line; returns the exit code instead of exiting. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    List<ExtraCommand> extras = new ArrayList<>();
    ServiceLoader.load(ExtraCommand.class).forEach(extras::add);
    return run(args, out, err, extras);
  }

  /** As {@link #run(String[], PrintStream, PrintStream)}, with these commands from outside. */
  static int run(String[] args, PrintStream out, PrintStream err, List<ExtraCommand> extras) {
    CommandLine cmd = new CommandLine(new SedimentCli());
    extras.forEach(cmd::addSubcommand);
    if (args.length > 0 && args[0].equals("bench") && !cmd.getSubcommands().containsKey("bench")) {
      err.println(
          "Error: 'bench' is not in this build: the benchmark ships apart, in"
              + " target/sediment-<version>-bench.jar (`mvn package` builds it; bin/sediment puts"
              + " it on the class path).");
      return ExitCodes.USAGE;
    }
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    cmd.setParameterExceptionHandler(
        (error, a) -> {
          // A mistyped option also leaves a required one missing, which picocli reports first;
          // the typo is what the user needs to see.
          ParameterException ex = error;
          List<String> unmatchedArgs =
              error.getCommandLine().getParseResult() == null
                  ? List.of()
                  : error.getCommandLine().getParseResult().unmatched();
          if (!(error instanceof UnmatchedArgumentException) && !unmatchedArgs.isEmpty()) {
            ex = new UnmatchedArgumentException(error.getCommandLine(), unmatchedArgs);
          }
          ex.getCommandLine().getErr().println("Error: " + usageMessage(ex));
          // A mistyped command or option: picocli knows the close ones.
          if (ex instanceof UnmatchedArgumentException unmatched) {
            List<String> close = closeSuggestions(unmatched);
            if (!close.isEmpty()) {
              ex.getCommandLine()
                  .getErr()
                  .println("Did you mean: " + String.join(" or ", close) + "?");
            }
          }
          ex.getCommandLine()
              .getErr()
              .println(
                  "Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
          return ExitCodes.USAGE;
        });
    cmd.setExecutionExceptionHandler(
        (ex, c, parseResult) -> {
          boolean verbose =
              parseResult.subcommand() != null
                  && parseResult.subcommand().hasMatchedOption("--verbose");
          return reportError(ex, verbose, c.getErr());
        });
    return cmd.execute(args);
  }

  /**
   * The commands (or, for a word starting with {@code -}, the options) of the command a mistyped
   * word was given to that are close to it: those that start with it, else those the fewest edits
   * away (at most a third of its length, at least 2). Picocli's own suggestions took any name
   * sharing letter pairs ({@code compcat} got {@code reset-consumer} too) and none for some
   * one-swap typos ({@code --wraehouse}).
   */
  static List<String> closeSuggestions(UnmatchedArgumentException ex) {
    if (ex.getUnmatched().isEmpty()) {
      return List.of();
    }
    String typed = ex.getUnmatched().get(0);
    int eq = typed.indexOf('=');
    String word = eq > 0 ? typed.substring(0, eq) : typed;
    CommandSpec spec = ex.getCommandLine().getCommandSpec();
    Iterable<String> names =
        word.startsWith("-") ? spec.optionsMap().keySet() : spec.subcommands().keySet();
    List<String> prefixed = new ArrayList<>();
    for (String name : names) {
      if (word.length() > 1 && name.startsWith(word) && !name.equals(word)) {
        prefixed.add(name);
      }
    }
    if (!prefixed.isEmpty()) {
      return prefixed;
    }
    List<String> close = new ArrayList<>();
    int fewest = Math.max(2, word.length() / 3);
    for (String name : names) {
      int edits = edits(word, name);
      if (edits < fewest) {
        close.clear();
        fewest = edits;
      }
      if (edits == fewest) {
        close.add(name);
      }
    }
    return close;
  }

  /** Levenshtein distance: the fewest one-character insertions, deletions and substitutions. */
  static int edits(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }

  /**
   * Picocli's message without its own doubled words: some messages already start with "Error: ",
   * and "Value for option %s" names the option as "option '--x'".
   */
  static String usageMessage(ParameterException ex) {
    String m = String.valueOf(ex.getMessage()).strip();
    while (m.startsWith("Error: ")) {
      m = m.substring("Error: ".length());
    }
    return m.replace("option option '", "option '");
  }

  static int reportError(Throwable ex, boolean verbose, PrintWriter err) {
    return reportError(ex, verbose, err, "");
  }

  /**
   * As {@link #reportError(Throwable, boolean, PrintWriter)}, saying where: {@code Error<where>:}.
   */
  static int reportError(Throwable ex, boolean verbose, PrintWriter err, String where) {
    if (verbose) {
      ex.printStackTrace(err);
    }
    err.println("Error" + where + ": " + ErrorMessage.of(ex));
    err.flush();
    return ex instanceof IllegalArgumentException ? ExitCodes.USAGE : ExitCodes.FAILED;
  }

  /** {@code sediment} without a command prints the usage. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.USAGE;
  }
}
