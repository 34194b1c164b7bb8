package io.sediment.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ResultKind;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sediment sql --warehouse URI (-e 'STATEMENTS' | -f FILE)}: runs SQL statements on an
 * embedded Flink (batch mode by default) with the warehouse registered as catalog {@code sediment}
 * (the current catalog), and prints results as tables.
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    description = "Run Flink SQL statements against a warehouse (catalog 'sediment').")
public final class SqlCommand implements Callable<Integer> {

  @Option(names = "--warehouse", required = true, description = "Warehouse path or URI.")
  String warehouse;

  @Option(names = "--streaming", description = "Run in streaming mode instead of batch.")
  boolean streaming;

  @Mixin VerboseOption verbose;

  @ArgGroup(exclusive = true, multiplicity = "1")
  Input input;

  static final class Input {
    @Option(
        names = {"-e", "--execute"},
        description = "Statements separated by ';'.")
    String statements;

    @Option(
        names = {"-f", "--file"},
        description = "File with statements separated by ';'.")
    Path file;
  }

  @Override
  public Integer call() throws IOException {
    String sql =
        input.statements != null
            ? input.statements
            : Files.readString(input.file, StandardCharsets.UTF_8);
    System.out.print(run(warehouse, sql, streaming));
    return 0;
  }

  /** Runs the statements in order and returns what they print. Errors are thrown. */
  public static String run(String warehouse, String sql, boolean streaming) {
    TableEnvironment tEnv =
        TableEnvironment.create(
            streaming ? EnvironmentSettings.inStreamingMode() : EnvironmentSettings.inBatchMode());
    tEnv.executeSql(
        "CREATE CATALOG sediment WITH ('type' = 'sediment', 'warehouse' = '"
            + warehouse.replace("'", "''")
            + "')");
    tEnv.useCatalog("sediment");
    StringBuilder out = new StringBuilder();
    for (String statement : split(sql)) {
      TableResult r = tEnv.executeSql(statement);
      boolean isInsert = statement.regionMatches(true, 0, "INSERT", 0, 6);
      if (r.getResultKind() == ResultKind.SUCCESS_WITH_CONTENT && !isInsert) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
          System.setOut(ps);
          r.print();
        } finally {
          System.setOut(saved);
        }
        out.append(buf.toString(StandardCharsets.UTF_8));
      } else {
        try {
          r.await();
        } catch (Exception e) {
          throw new IllegalStateException("Statement failed: " + statement, e);
        }
        out.append("OK\n");
      }
    }
    return out.toString();
  }

  /** Splits on ';' outside single-quoted strings and backquoted names; drops empty statements. */
  static List<String> split(String sql) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
      } else if (c == '\'' || c == '`') {
        quote = c;
      } else if (c == ';') {
        if (!cur.toString().isBlank()) {
          out.add(cur.toString().strip());
        }
        cur.setLength(0);
        continue;
      }
      cur.append(c);
    }
    if (!cur.toString().isBlank()) {
      out.add(cur.toString().strip());
    }
    return out;
  }
}
