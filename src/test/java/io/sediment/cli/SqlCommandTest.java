package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sediment sql -e/-f} on its own embedded Flink, as a user runs it (no test cluster as
 * context environment): statements split by Flink's lexer, each result printed as it finishes.
 */
class SqlCommandTest {

  @TempDir Path dir;

  private SedimentCliTest.Result sql(String statements) {
    return SedimentCliTest.run("sql", "--warehouse", dir.toString(), "-e", statements);
  }

  @Test
  void commentsAndQuotesDoNotSplitStatements() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT, name STRING); -- the table's rows; two of them\n"
                + "INSERT INTO t VALUES (1, 'a;b'), /* it's ; in a comment */ (2, 'it''s');\n"
                + "SELECT id, name AS `n;m` FROM t ORDER BY id");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "OK\n"
                + "OK\n"
                + "+----+------+\n"
                + "| id |  n;m |\n"
                + "+----+------+\n"
                + "|  1 |  a;b |\n"
                + "|  2 | it's |\n"
                + "+----+------+\n"
                + "2 rows in set\n");
  }

  /**
   * SET and RESET as in Flink's SQL client: the session's options, table options for the session
   * ({@code sediment.<catalog>.<db>.<table>.<option>}), and a switch of the runtime mode.
   */
  @Test
  void setAndResetChangeTheSession() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT);"
                + " INSERT INTO t VALUES (1);"
                + " INSERT INTO t VALUES (2);"
                + " SET 'sediment.*.default.t.scan.snapshot-id' = '1';"
                + " SET 'table.exec.resource.default-parallelism' = '1';"
                + " SET;"
                + " SELECT * FROM t;"
                + " RESET 'sediment.*.default.t.scan.snapshot-id';"
                + " SELECT COUNT(*) AS n FROM t;"
                + " SET 'execution.runtime-mode' = 'streaming';"
                + " INSERT INTO t SELECT * FROM (VALUES (3)) AS v(id);"
                + " RESET;"
                + " SELECT COUNT(*) AS n FROM t;"
                + " SET");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "OK\nOK\nOK\nOK\nOK\n"
                + "'sediment.*.default.t.scan.snapshot-id' = '1'\n"
                + "'table.exec.resource.default-parallelism' = '1'\n"
                + "+----+\n"
                + "| id |\n"
                + "+----+\n"
                + "|  1 |\n"
                + "+----+\n"
                + "1 row in set\n"
                + "OK\n"
                + "+---+\n"
                + "| n |\n"
                + "+---+\n"
                + "| 2 |\n"
                + "+---+\n"
                + "1 row in set\n"
                + "OK\n"
                + "OK\n" // the streaming INSERT of a bounded input: committed at its end
                + "OK\n"
                + "+---+\n"
                + "| n |\n"
                + "+---+\n"
                + "| 3 |\n"
                + "+---+\n"
                + "1 row in set\n"
                + "No option set in this session\n");
  }

  /**
   * A misspelt or unknown named argument of a procedure is refused, listing the known ones (Flink
   * itself drops it), before anything runs; a {@code =>} inside a string is no argument.
   */
  @Test
  void unknownProcedureArgumentsAreRefusedListingTheKnownOnes() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);"
                + " CALL sys.compact(`table` => 'default.t', foo => 'bar', `where` => 'x => y')");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err())
        .contains("Unknown argument 'foo' of sys.compact; its arguments are table, partitions,")
        .contains("commit_user, mode, dry_run; nothing was run");
    SedimentCliTest.Result dry = sql("CALL sys.compact(`table` => 'default.t', dry_run => true)");
    assertThat(dry.code()).as(dry.err()).isZero();
  }

  @Test
  void aBadRuntimeModeIsRefusedNamingTheAllowedOnes() {
    SedimentCliTest.Result r = sql("SET 'execution.runtime-mode' = 'sideways'");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.err())
        .contains(
            "Invalid value 'sideways' for 'execution.runtime-mode'; allowed: batch, streaming");
  }

  @Test
  void aFailingStatementKeepsTheResultsOfEarlierOnes() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT);"
                + " INSERT INTO t VALUES (1);"
                + " SELECT * FROM nosuch;"
                + " INSERT INTO t VALUES (2)");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    // the CREATE and the committed INSERT are reported, then the error; the last INSERT never ran
    assertThat(r.out()).isEqualTo("OK\nOK\n");
    assertThat(r.err())
        .startsWith("Error in statement 3 (SELECT * FROM nosuch): ")
        .contains("Object 'nosuch' not found");
    assertThat(r.err().lines()).hasSize(1);
    SedimentCliTest.Result after = sql("SELECT * FROM t");
    assertThat(after.out()).contains("|  1 |").doesNotContain("|  2 |").contains("1 row in set");
  }

  @Test
  void aTypoSaysTheParseFailedAndInWhichStatement() {
    SedimentCliTest.Result r = sql("CREATE TABLE t (id INT); SELEC * FROM t");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.out()).isEqualTo("OK\n");
    assertThat(r.err())
        .isEqualTo(
            "Error in statement 2 (SELEC * FROM t): SQL parse failed. Non-query expression"
                + " encountered in illegal context\n");
  }

  @Test
  void fileDashReadsStandardInput() {
    InputStream saved = System.in;
    System.setIn(
        new ByteArrayInputStream(
            ("CREATE TABLE t (id INT);\n"
                    + "INSERT INTO t VALUES (7);\n"
                    + "-- last: it's a query\n"
                    + "SELECT id * 6 AS answer FROM t;\n")
                .getBytes(StandardCharsets.UTF_8)));
    SedimentCliTest.Result r;
    try {
      r = SedimentCliTest.run("sql", "--warehouse", dir.toString(), "-f", "-");
    } finally {
      System.setIn(saved);
    }
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("| answer |").contains("|     42 |").contains("1 row in set");
  }

  @Test
  void callPrintsATableWithColumnNamesAndShowProceduresListsSediments() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT) WITH ('compaction.min.file-num' = '2');"
                + " INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);"
                + " CALL sys.compact(`table` => 'default.t', dry_run => true);"
                + " CALL sys.compact(`table` => 'default.t');"
                + " SHOW PROCEDURES;");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out())
        .containsPattern("\\| tasks \\| snapshotId \\| filesBefore \\| filesAfter \\|.*\n")
        .containsPattern("\\|\\s+1 \\|\\s+3 \\|\\s+2 \\|\\s+1 \\|")
        // a dry run's task descriptions are printed whole, not cut at 30 characters
        .contains("| (unpartitioned) bucket 0: 2 files, ")
        .containsPattern("\\|\\s+procedure name \\|\n")
        .containsPattern("\\|\\s+compact \\|\n")
        .containsPattern("\\|\\s+expire_snapshots \\|\n")
        .containsPattern("\\|\\s+remove_orphan_files \\|\n")
        .contains("| create_tag_from_timestamp |");
  }

  @Test
  void streamingCompactionIsRefusedByTheEmbeddedFlink() {
    SedimentCliTest.Result r =
        sql(
            "CREATE TABLE t (id INT); INSERT INTO t VALUES (1);"
                + " CALL sys.compact(`table` => 'default.t', mode => 'streaming');");
    assertThat(r.code()).isEqualTo(ExitCodes.FAILED);
    assertThat(r.out()).isEqualTo("OK\nOK\n");
    assertThat(r.err())
        .startsWith(
            "Error in statement 3 (CALL sys.compact(`table` => 'default.t',...): 'sediment compact"
                + " (dedicated) default.t' is a streaming job that runs until it is cancelled, but the Flink of `sediment sql` is embedded in the CLI");
  }
}
