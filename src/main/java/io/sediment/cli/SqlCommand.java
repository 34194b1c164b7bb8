package io.sediment.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.Callable;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sediment sql --warehouse URI [-e 'STATEMENTS' | -f FILE|-]}: runs SQL statements on Flink
 * (batch mode by default) with the warehouse registered as catalog {@code sediment}, the current
 * catalog. With {@code -e}/{@code -f} the statements run one by one, each result printed as it
 * finishes, and the first failing one ends the command (exit code 1); without them it is an
 * interactive shell ({@link SqlShell}).
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = {
      "Run Flink SQL statements against a warehouse (catalog 'sediment'): those of -e or -f, or"
          + " interactively when neither is given.",
      "Statements end with ';' (the last one of -e/-f may omit it)."
    })
public final class SqlCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin VerboseOption verboseOption;

  @Option(names = "--warehouse", required = true, description = "Warehouse path or URI.")
  String warehouse;

  @Option(names = "--streaming", description = "Run in streaming mode instead of batch.")
  boolean streaming;

  @Option(
      names = "--history-file",
      description = "History of the interactive shell (default: ~/.sediment_sql_history).")
  Path historyFile = Paths.get(System.getProperty("user.home"), ".sediment_sql_history");

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Input input;

  static final class Input {
    @Option(
        names = {"-e", "--execute"},
        description = "Statements separated by ';'.")
    String statements;

    @Option(
        names = {"-f", "--file"},
        description = "File with statements separated by ';'; - reads standard input.")
    String file;
  }

  @Override
  public Integer call() throws Exception {
    try (SqlSession session = SqlSession.open(warehouse, streaming)) {
      if (input == null) {
        // dumb(true): without a terminal (input piped in) a plain one, without JLine's warning
        try (Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build()) {
          new SqlShell(session, terminal, historyFile, verboseOption.verbose).run(warehouse);
        }
        return ExitCodes.OK;
      }
      PrintWriter out = spec.commandLine().getOut();
      List<String> statements = SqlStatements.split(script()).all();
      for (int i = 0; i < statements.size(); i++) {
        try {
          session.execute(statements.get(i), out);
        } catch (Exception e) {
          if (statements.size() == 1) {
            throw e;
          }
          // Which of several statements failed: its number and its start.
          return SedimentCli.reportError(
              e,
              verboseOption.verbose,
              spec.commandLine().getErr(),
              " in statement " + (i + 1) + " (" + brief(statements.get(i)) + ")");
        }
      }
    }
    return ExitCodes.OK;
  }

  /** The statement on one line, cut after 40 characters. */
  private static String brief(String statement) {
    String line = statement.strip().replaceAll("\\s+", " ");
    return line.length() <= 40 ? line : line.substring(0, 40) + "...";
  }

  private String script() throws IOException {
    if (input.statements != null) {
      return input.statements;
    }
    if (input.file.equals("-")) {
      return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    }
    return Files.readString(Paths.get(input.file), StandardCharsets.UTF_8);
  }
}
