package io.sediment.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;

/**
 * The interactive {@code sediment sql}: reads statements with JLine (line editing, history in a
 * file, statements over several lines until {@code ;}), runs them one by one and prints each result
 * as it finishes. A failing statement prints one error line (the chain with {@code --verbose}) and
 * the shell goes on. {@code QUIT;}, {@code EXIT;} or Ctrl-D end it; Ctrl-C clears the line being
 * typed, or cancels the job of the statement that runs.
 */
final class SqlShell {

  static final String PROMPT = "Sediment SQL> ";

  private final SqlSession session;
  private final Terminal terminal;
  private final Path historyFile;
  private final boolean verbose;

  SqlShell(SqlSession session, Terminal terminal, Path historyFile, boolean verbose) {
    this.session = session;
    this.terminal = terminal;
    this.historyFile = historyFile;
    this.verbose = verbose;
  }

  void run(String warehouse) throws IOException {
    LineReader reader =
        LineReaderBuilder.builder()
            .appName("sediment sql")
            .terminal(terminal)
            .parser(new SqlShellParser())
            .variable(LineReader.HISTORY_FILE, historyFile)
            // continuation lines: "> " under the prompt's own "> "
            .variable(LineReader.SECONDARY_PROMPT_PATTERN, "%P > ")
            // '!' is SQL (<>, !=), not a history reference
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
            .build();
    PrintWriter out = terminal.writer();
    // Ctrl-C while a statement runs cancels its job (while typing, JLine clears the line instead).
    terminal.handle(Terminal.Signal.INT, signal -> session.cancelRunningJob());
    out.println(
        "Sediment SQL shell on "
            + warehouse
            + " (catalog '"
            + SqlSession.CATALOG
            + "'). End statements with ';'; QUIT; or Ctrl-D leaves.");
    out.flush();
    try {
      while (readAndRun(reader, out)) {
        // next input
      }
    } finally {
      reader.getHistory().save();
    }
  }

  /** Reads one input (one or more statements) and runs it; false when the user leaves. */
  private boolean readAndRun(LineReader reader, PrintWriter out) {
    String input;
    try {
      input = reader.readLine(PROMPT);
    } catch (UserInterruptException e) {
      return true;
    } catch (EndOfFileException e) {
      return false;
    }
    for (String statement : SqlStatements.split(input).all()) {
      if (statement.equalsIgnoreCase("quit") || statement.equalsIgnoreCase("exit")) {
        return false;
      }
      try {
        session.execute(statement, out);
      } catch (Exception e) {
        if (session.cancelled()) {
          out.println("Cancelled.");
        } else {
          SedimentCli.reportError(e, verbose, out);
        }
      }
      out.flush();
    }
    return true;
  }
}
