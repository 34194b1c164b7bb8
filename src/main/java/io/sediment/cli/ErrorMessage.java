package io.sediment.cli;

import java.io.EOFException;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.SqlParserException;

/**
 * The one line the CLI prints for a failure. Flink and the SQL planner wrap Sediment's errors
 * ({@code Could not execute CreateTable ...}, {@code Job execution failed}, {@code Global failure
 * triggered by OperatorCoordinator ...}), so the outermost message rarely says what is wrong. The
 * line is the innermost message Sediment wrote (it names the file, table or option), followed by
 * the root cause when that is another library's and adds something (the missing file system plugin,
 * the JVM's reason); without a message of Sediment's, the root cause's.
 */
final class ErrorMessage {

  private ErrorMessage() {}

  static String of(Throwable error) {
    List<Throwable> chain = chain(error);
    for (Throwable t : chain) {
      // "SQL parse failed. <Calcite's reason>": the reason alone does not say it is the syntax.
      if (t instanceof SqlParserException && message(t) != null) {
        String line = firstLine(message(t));
        // CALL sys.compact(table => ...): Calcite stops at the keyword's "=>"
        return line.contains("Encountered \"=>\"")
            ? line
                + " (an argument named by a SQL keyword, such as table or where, is written in"
                + " back-quotes: `table` => ...)"
            : line;
      }
    }
    Throwable root = chain.get(chain.size() - 1);
    int innermost = -1;
    for (int i = 0; i < chain.size(); i++) {
      if (isSediments(chain.get(i)) && message(chain.get(i)) != null) {
        innermost = i;
      }
    }
    // Sediment's wrappers that repeat the message add the file it came from: take the outermost.
    while (innermost > 0
        && isSediments(chain.get(innermost - 1))
        && message(chain.get(innermost - 1)) != null
        && message(chain.get(innermost - 1)).contains(message(chain.get(innermost)))) {
      innermost--;
    }
    Throwable own = innermost < 0 ? null : chain.get(innermost);
    String line;
    if (own == null) {
      line = innermostMessage(chain);
    } else {
      line = message(own);
      String rootMessage = describe(root);
      if (root != own && !isSediments(root) && !says(line, root, rootMessage)) {
        line = line + ": " + rootMessage;
      }
    }
    return firstLine(line);
  }

  /** Throwables from {@code error} to its root cause, each once. */
  private static List<Throwable> chain(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, true) == null; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }

  /** Thrown by Sediment's code (its own class, or raised in one of its methods). */
  private static boolean isSediments(Throwable t) {
    if (t.getClass().getName().startsWith("io.sediment.")) {
      return true;
    }
    StackTraceElement[] trace = t.getStackTrace();
    return trace.length > 0 && trace[0].getClassName().startsWith("io.sediment.");
  }

  /**
   * The message, or null when it says nothing of its own: blank, or the default message of a
   * wrapper ({@code new RuntimeException(cause)} repeats {@code cause.toString()}).
   */
  private static String message(Throwable t) {
    String m = t.getMessage();
    if (m == null || m.isBlank()) {
      return null;
    }
    if (t.getCause() != null && m.equals(t.getCause().toString())) {
      return null;
    }
    if (t instanceof FileSystemException f && f.getReason() == null && m.equals(f.getFile())) {
      // java.nio's exceptions of a file say only its name
      return switch (t.getClass().getSimpleName()) {
        case "NoSuchFileException" -> "No such file: " + m;
        case "AccessDeniedException" -> "Permission denied: " + m;
        case "FileAlreadyExistsException" -> "Already exists: " + m;
        case "NotDirectoryException" -> "Not a directory: " + m;
        case "DirectoryNotEmptyException" -> "Directory not empty: " + m;
        default -> t.getClass().getSimpleName() + ": " + m;
      };
    }
    return m.strip();
  }

  /** Whether {@code line} already says what the root cause says. */
  private static boolean says(String line, Throwable root, String rootMessage) {
    if (line.contains(rootMessage)) {
      return true;
    }
    // Sediment's readers explain an EOFException themselves ("it ends early (truncated?)")
    return root instanceof EOFException && line.contains("truncated");
  }

  /** A root cause for users: its message, or what its class says (an EOFException has none). */
  private static String describe(Throwable root) {
    String m = message(root);
    if (m != null && !(root instanceof NullPointerException)) {
      return m;
    }
    return switch (root.getClass().getSimpleName()) {
      case "EOFException" -> "the file ends early (truncated?)";
      case "NullPointerException" -> "a required value is missing (a bug: run with --verbose)";
      default -> root.getClass().getSimpleName();
    };
  }

  private static String innermostMessage(List<Throwable> chain) {
    Throwable root = chain.get(chain.size() - 1);
    if (message(root) != null && !(root instanceof NullPointerException)) {
      return message(root);
    }
    for (int i = chain.size() - 1; i >= 0; i--) {
      Throwable t = chain.get(i);
      if (t != root && message(t) != null) {
        return message(t) + ": " + describe(root);
      }
    }
    return describe(root);
  }

  /**
   * The first line of a message; with the next one when the first only says which statement failed
   * (Flink's "Failed to execute ALTER TABLE statement.", its reason on the next line).
   */
  private static String firstLine(String s) {
    String[] lines = s.strip().split("\\R+");
    String first = lines[0].strip();
    if (lines.length > 1 && first.matches("Failed to execute .* statement\\.?")) {
      return first.replaceFirst("\\.$", "") + ": " + lines[1].strip();
    }
    return first;
  }
}
