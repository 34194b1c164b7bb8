package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statements of {@code sediment sql} that Flink would run wrongly or report badly, on one session:
 * each is refused with the line a user reads ({@link ErrorMessage}) and changes nothing.
 */
class SqlSessionRefusalsTest {

  @TempDir static Path dir;

  private static SqlSession session;

  /** The procedures with a required argument, and one of their optional ones. */
  private static final Map<String, String> OPTIONAL_ARGUMENT =
      Map.ofEntries(
          Map.entry("compact", "mode"),
          Map.entry("expire_snapshots", "retain_max"),
          Map.entry("remove_orphan_files", "dry_run"),
          Map.entry("reset_consumer", "next_snapshot_id"),
          Map.entry("clear_consumers", "including_consumers"),
          Map.entry("expire_partitions", "max_expires"),
          Map.entry("create_tag", "snapshot_id"),
          Map.entry("create_tag_from_timestamp", "time_retained"),
          Map.entry("create_tag_from_watermark", "time_retained"),
          Map.entry("replace_tag", "snapshot_id"),
          Map.entry("expire_tags", "older_than"),
          Map.entry("rollback_to", "snapshot_id"));

  /** The procedures that require an argument besides table, and that argument. */
  private static final Map<String, String> SECOND_REQUIRED =
      Map.of(
          "reset_consumer", "consumer_id",
          "expire_partitions", "expiration_time",
          "create_tag", "tag",
          "create_tag_from_timestamp", "tag, timestamp",
          "create_tag_from_watermark", "tag, watermark",
          "replace_tag", "tag");

  /** The procedures whose arguments are all required, and the one besides table. */
  private static final Map<String, List<String>> NO_OPTIONAL_ARGUMENT =
      Map.of(
          "delete_tag", List.of("tag"),
          "rollback_to_timestamp", List.of("timestamp"),
          "rollback_to_watermark", List.of("watermark"),
          "rename_tag", List.of("tag_name", "target_tag_name"));

  /** The procedures whose arguments are all optional. */
  private static final Set<String> NO_REQUIRED_ARGUMENT = Set.of("compact_database");

  @BeforeAll
  static void open() throws Exception {
    session = SqlSession.open(dir.toString(), false);
    run("CREATE DATABASE db");
    run("CREATE DATABASE other");
    run("CREATE TABLE db.t (id INT, p STRING) PARTITIONED BY (p)");
    // a table of its own: a rename that went through would take db.t from the test after it
    run("CREATE TABLE db.parted (id INT, p STRING) PARTITIONED BY (p)");
  }

  @AfterAll
  static void close() throws Exception {
    session.close();
  }

  private static String run(String statement) throws Exception {
    StringWriter out = new StringWriter();
    session.execute(statement, new PrintWriter(out));
    return out.toString();
  }

  /** The error line of a statement that must fail. */
  private static String refused(String statement) {
    Throwable error = catchThrowable(() -> run(statement));
    assertThat(error).as(statement).isNotNull();
    return ErrorMessage.of(error);
  }

  @Test
  void aMisspeltOrMissingRequiredArgumentIsNamed() throws Exception {
    // every procedure is checked: one added to the catalog must be added here
    Set<String> listed = new TreeSet<>();
    for (String line : run("SHOW PROCEDURES").split("\n")) {
      Matcher m = Pattern.compile("^\\|\\s+([a-z_]+) \\|$").matcher(line);
      if (m.matches() && !m.group(1).equals("procedure_name")) {
        listed.add(m.group(1));
      }
    }
    Set<String> covered = new TreeSet<>(OPTIONAL_ARGUMENT.keySet());
    covered.addAll(NO_OPTIONAL_ARGUMENT.keySet());
    covered.addAll(NO_REQUIRED_ARGUMENT);
    assertThat(listed).isEqualTo(covered);
    OPTIONAL_ARGUMENT.forEach(
        (procedure, optional) -> {
          assertThat(refused("CALL sys." + procedure + "(`tabel` => 'db.t')"))
              .startsWith("Unknown argument 'tabel' of sys." + procedure + "; its arguments are")
              .endsWith("; nothing was run");
          // those of SECOND_REQUIRED require a second argument
          String second = SECOND_REQUIRED.get(procedure);
          String missing =
              second != null
                  ? "Missing arguments [table, " + second + "] of sys."
                  : "Missing argument 'table' of sys.";
          assertThat(refused("CALL sediment.sys." + procedure + "(" + optional + " => NULL)"))
              .startsWith(missing + procedure + " (required); its arguments are table, ");
        });
    NO_OPTIONAL_ARGUMENT.forEach(
        (procedure, others) -> {
          String given = String.join(", ", others.stream().map(a -> "`" + a + "` => 'x'").toList());
          String nulls =
              String.join(", ", others.stream().map(a -> "`" + a + "` => NULL").toList());
          String all = "table, " + String.join(", ", others);
          assertThat(refused("CALL sys." + procedure + "(`tabel` => 'db.t', " + given + ")"))
              .isEqualTo(
                  "Unknown argument 'tabel' of sys."
                      + procedure
                      + "; its arguments are "
                      + all
                      + "; nothing was run");
          assertThat(refused("CALL sediment.sys." + procedure + "(" + nulls + ")"))
              .isEqualTo(
                  "Missing argument 'table' of sys."
                      + procedure
                      + " (required); its arguments are "
                      + all
                      + "; nothing was run");
        });
  }

  /**
   * Paimon's {@code time_retained} of {@code create_tag}: a bad one is refused, naming the
   * argument, and makes no tag; a good one makes the tag with it.
   */
  @Test
  void createTagChecksTimeRetained() throws Exception {
    run("CREATE TABLE db.tagged (id INT)");
    run("INSERT INTO db.tagged VALUES (1)");
    assertThat(
            refused(
                "CALL sys.create_tag(`table` => 'db.tagged', tag => 'x', time_retained => '1 x')"))
        .isEqualTo(
            "Argument 'time_retained': '1 x' is not a duration like '7 d', '12 h' or '30 min'");
    assertThat(run("SELECT * FROM db.`tagged$tags`")).doesNotContain(" x |");
    assertThat(
            run("CALL sys.create_tag(`table` => 'db.tagged', tag => 'x', time_retained => '1 d')"))
        .contains(" x |")
        .contains(" created |");
    assertThat(run("SELECT time_retained FROM db.`tagged$tags`")).contains(" 1 d |");
  }

  @Test
  void anArgumentNamedByAKeywordWithoutBackQuotesGetsAHint() {
    assertThat(refused("CALL sys.compact(table => 'db.t')"))
        .startsWith("SQL parse failed. Encountered \"=>\"")
        .endsWith("is written in back-quotes: `table` => ...)");
  }

  @Test
  void aRenameIntoAnotherDatabaseIsRefused() throws Exception {
    assertThat(refused("ALTER TABLE db.t RENAME TO other.u"))
        .isEqualTo(
            "ALTER TABLE ... RENAME TO cannot move table 'db.t' to database 'other': a table is"
                + " renamed within its database (RENAME TO db.u); nothing was changed");
    assertThat(run("SHOW TABLES FROM db")).contains(" t |");
    assertThat(run("SHOW TABLES FROM other")).doesNotContain(" u |");
  }

  @Test
  void aPartitionColumnThatCannotBeDroppedSaysWhy() {
    assertThat(refused("ALTER TABLE db.parted DROP p"))
        .startsWith("Failed to execute ALTER TABLE statement: ")
        .contains("`p`")
        .contains("partition");
  }
}
