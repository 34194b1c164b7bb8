package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.DumbTerminal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interactive {@code sediment sql}, typed into through JLine's dumb terminal. */
class SqlShellTest {

  @TempDir Path dir;

  private String type(String keystrokes, Path history, boolean verbose) throws Exception {
    ByteArrayOutputStream screen = new ByteArrayOutputStream();
    try (SqlSession session = SqlSession.open(dir.resolve("wh").toString(), false);
        Terminal terminal =
            new DumbTerminal(
                "test",
                "dumb",
                new ByteArrayInputStream(keystrokes.getBytes(StandardCharsets.UTF_8)),
                screen,
                StandardCharsets.UTF_8)) {
      new SqlShell(session, terminal, history, verbose).run("wh");
    }
    return screen.toString(StandardCharsets.UTF_8);
  }

  @Test
  void multiLineStatementsCommentsWithQuotesAndAFailureInBetween() throws Exception {
    Path history = dir.resolve("history");
    String screen =
        type(
            "CREATE TABLE t (\n"
                + "  id INT, -- the key; it's unique\n"
                + "  name STRING);\n"
                + "INSERT INTO t VALUES (1, 'a;b');\n"
                + "INSERT INTO t VALUES (2, 'c'); SELECT * FROM nosuch;\n"
                + "SELECT id, name /* it's\n"
                + "   ordered; by id */\n"
                + "FROM t ORDER BY id;\n"
                + "quit;\n",
            history,
            false);

    assertThat(screen).startsWith("Sediment SQL shell on wh (catalog 'sediment').");
    // one prompt per input: the CREATE and the SELECT of three lines each are one input each
    assertThat(screen.split("Sediment SQL> ", -1)).hasSize(6);
    int create = screen.indexOf("OK\n");
    int insert1 = screen.indexOf("OK\n", create + 1);
    int insert2 = screen.indexOf("OK\n", insert1 + 1);
    int error = screen.indexOf("Error: ");
    int rows = screen.indexOf("2 rows in set");
    assertThat(create).isPositive();
    assertThat(insert1).isGreaterThan(create);
    // the INSERT before the failing statement is reported, and its rows are there afterwards
    assertThat(insert2).isGreaterThan(insert1).isLessThan(error);
    assertThat(screen.substring(error, screen.indexOf('\n', error)))
        .contains("Object 'nosuch' not found");
    assertThat(rows).isGreaterThan(error);
    assertThat(screen.substring(error, rows))
        .contains("|  1 |  a;b |")
        .contains("|  2 |    c |")
        .doesNotContain("\tat ");

    // every input is one history entry, multi-line statements included
    assertThat(Files.readString(history))
        .contains("CREATE TABLE t (\\n  id INT, -- the key; it's unique\\n  name STRING);")
        .contains("INSERT INTO t VALUES (2, 'c'); SELECT * FROM nosuch;");
  }

  @Test
  void endOfInputLeavesAndVerbosePrintsTheChain() throws Exception {
    String screen = type("SELECT * FROM nosuch;\n", dir.resolve("history"), true);
    assertThat(screen)
        .contains("org.apache.flink.table.api.ValidationException")
        .contains("Caused by: ")
        .contains("Error: ");
  }
}
