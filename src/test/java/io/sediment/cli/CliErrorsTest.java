package io.sediment.cli;

import static io.sediment.cli.SedimentCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.cli.SedimentCliTest.Result;
import io.sediment.manifest.ManifestCache;
import io.sediment.manifest.Snapshot;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI's errors: one line saying what is wrong and naming the file, table or option (the cause
 * Flink and the SQL planner wrap), no stack trace unless {@code --verbose}.
 */
class CliErrorsTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  /**
   * A query over a corrupt file fails the same way on every attempt: flink-conf/config.yaml's
   * restart strategy (10 restarts, 2 s apart) would only make each such test wait 20 s.
   */
  private static final String NO_RESTARTS = "SET 'restart-strategy.type' = 'none'; ";

  @TempDir Path dir;

  /** db.t, partitioned by p: 4 commits of one file in each of p=a and p=b. */
  private Table table() {
    return SedimentCliTest.partitionedTable(dir);
  }

  private String w() {
    return dir.toString();
  }

  private Path tableDir() {
    return dir.resolve("db.db").resolve("t");
  }

  private static void truncate(Path file, long length) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(length);
    }
  }

  @Test
  void unknownTableOptionInSqlCreateTableIsNamed() {
    Result r =
        run(
            "sql",
            "--warehouse",
            w(),
            "-e",
            "CREATE DATABASE IF NOT EXISTS db; CREATE TABLE db.x (a INT) WITH"
                + " ('no.such.option' = '1')");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine())
        .startsWith(
            "Error in statement 2 (CREATE TABLE db.x (a INT) WITH ('no.such...): Unknown table"
                + " option(s) [no.such.option]; known options are [");
  }

  @Test
  void verboseOnSqlPrintsTheChain() {
    Result r =
        run(
            "sql",
            "--verbose",
            "--warehouse",
            w(),
            "-e",
            "CREATE DATABASE IF NOT EXISTS db; CREATE TABLE db.x (a INT) WITH"
                + " ('no.such.option' = '1')");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .contains("\tat ")
        .contains("Caused by: ")
        .contains("): Unknown table option(s) [no.such.option]");
  }

  @Test
  void missingFileSystemPluginIsNamed() {
    Result r = run("inspect", "--warehouse", "s3://bucket/wh", "--table", "db.t");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine())
        .startsWith(
            "Error: Cannot open the file system of s3://bucket/wh/db.db/t/schema: Could not find"
                + " a file system implementation for scheme 's3'.")
        .contains("flink-s3-fs-hadoop");
  }

  @Test
  void partitionFiltersOfADatabaseAndAMissingScriptAreSaid() {
    table();
    for (String[] filter : new String[][] {{"--partition", "p=a"}, {"--where", "p = 'a'"}}) {
      Result r = run("compact", "--warehouse", w(), "--database", "db", filter[0], filter[1]);
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.errorLine())
          .isEqualTo(
              "Error: Partition filters need a single table (--table), not the tables of"
                  + " database 'db'");
    }
    Path script = dir.resolve("nope.sql");
    Result missing = run("sql", "--warehouse", w(), "-f", script.toString());
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.errorLine()).isEqualTo("Error: No such file: " + script);
  }

  @Test
  void wrongWarehouseOrDatabaseIsSaid() {
    Result warehouse =
        run("inspect", "--warehouse", dir.resolve("nope").toString(), "--table", "db.t");
    assertThat(warehouse.code()).isEqualTo(1);
    assertThat(warehouse.errorLine())
        .isEqualTo(
            "Error: Table 'db.t' does not exist: the warehouse file:"
                + dir.resolve("nope")
                + " does not exist");

    Result ofDatabase =
        run("compact", "--warehouse", dir.resolve("nope").toString(), "--database", "db");
    assertThat(ofDatabase.code()).isEqualTo(2);
    assertThat(ofDatabase.errorLine())
        .isEqualTo(
            "Error: Database 'db' does not exist: the warehouse file:"
                + dir.resolve("nope")
                + " does not exist");

    table();
    Result database = run("inspect", "--warehouse", w(), "--table", "other.t");
    assertThat(database.code()).isEqualTo(1);
    assertThat(database.errorLine())
        .startsWith("Error: Table 'other.t' does not exist: the warehouse file:")
        .endsWith(" has no database 'other'");
  }

  @Test
  void truncatedManifestListIsNamedAsSuch() throws Exception {
    Table t = table();
    Snapshot s = t.latestSnapshot().orElseThrow();
    Path list = tableDir().resolve("manifest").resolve(s.baseManifestList());
    truncate(list, 20);
    ManifestCache.clear(); // as a CLI process: this one wrote the list and keeps it cached

    Result r = run("inspect", "--warehouse", w(), "--table", "db.t");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine())
        .startsWith("Error: Cannot read the Parquet footer of manifest list file:" + list + ": ");
  }

  @Test
  void truncatedDataFileIsNamedByCompactionAndSql() throws Exception {
    table();
    List<Path> files = TestTables.dataFiles(tableDir().resolve("p=a"));
    for (Path f : files) {
      truncate(f, 0);
    }

    Result compact = run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p=a");
    assertThat(compact.code()).isEqualTo(1);
    assertThat(compact.errorLine())
        .matches(
            "Error: Cannot read the Parquet footer of data file file:"
                + tableDir().resolve("p=a").resolve("bucket-0")
                + "/data-\\S+\\.parquet: it ends early \\(truncated\\?\\)");

    Result sql = run("sql", "--warehouse", w(), "-e", NO_RESTARTS + "SELECT count(*) FROM db.t");
    assertThat(sql.code()).isEqualTo(1);
    assertThat(sql.errorLine())
        .matches(
            "Error in statement 2 \\(SELECT count\\(\\*\\) FROM db.t\\): Cannot read the Parquet footer of data file file:"
                + tableDir().resolve("p=a").resolve("bucket-0")
                + "/data-\\S+\\.parquet: it ends early \\(truncated\\?\\)");
  }

  @Test
  void emptyJsonAsTheOnlySnapshotIsNamedInInspectAndSql() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog, "t", Schema.newBuilder().column("id", DataTypes.BIGINT().notNull()).build());
    TestTables.writeBatch(t, List.of(TestTables.row(1L)));
    Path snapshot = tableDir().resolve("snapshot").resolve("snapshot-1");
    Files.writeString(snapshot, "{}");
    String expected =
        "Error: file:"
            + snapshot
            + " is not a valid snapshot file: missing fields version, id, schemaId,"
            + " baseManifestList, deltaManifestList, commitUser, commitIdentifier, commitKind,"
            + " timeMillis, totalRecordCount, deltaRecordCount, totalFileCount";

    Result inspect = run("inspect", "--warehouse", w(), "--table", "db.t");
    assertThat(inspect.code()).isEqualTo(1);
    assertThat(inspect.errorLine()).isEqualTo(expected);

    Result sql = run("sql", "--warehouse", w(), "-e", NO_RESTARTS + "SELECT * FROM db.t");
    assertThat(sql.code()).isEqualTo(1);
    assertThat(sql.errorLine())
        .isEqualTo(expected.replace("Error: ", "Error in statement 2 (SELECT * FROM db.t): "));
  }

  @Test
  void partitionThatCanNeverMatchIsRejected() {
    table();
    Result doubled = run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p==a");
    assertThat(doubled.code()).isEqualTo(2);
    assertThat(doubled.errorLine())
        .isEqualTo("Error: --partition 'p==a': the value of p starts with '=' (write p=a)");

    Result json =
        run("compact", "--warehouse", w(), "--table", "db.t", "--mode", "streaming", "--json");
    assertThat(json.code()).isEqualTo(2);
    assertThat(json.errorLine())
        .isEqualTo(
            "Error: --json needs --mode batch or --dry-run: a streaming job prints only that it"
                + " started");

    Result twice = run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p=a,p=b");
    assertThat(twice.code()).isEqualTo(2);
    assertThat(twice.errorLine())
        .isEqualTo("Error: --partition 'p=a,p=b' gives p twice; a partition has one value per key");
  }

  @Test
  void nothingToCompactSaysWhy() {
    table();
    Result noMatch =
        run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p=zzz", "--dry-run");
    assertThat(noMatch.code()).as(noMatch.err()).isZero();
    assertThat(noMatch.out().strip())
        .isEqualTo("Plan: nothing to compact: no partition matched the partition filter (dry run)");

    Result belowMinFileNum =
        run(
            "compact",
            "--warehouse",
            w(),
            "--table",
            "db.t",
            "--compact-strategy",
            "minor",
            "--option",
            "compaction.min.file-num=10",
            "--dry-run");
    assertThat(belowMinFileNum.out().strip())
        .isEqualTo(
            "Plan: nothing to compact: the fullest bucket selected holds 4 files, below"
                + " compaction.min.file-num (10) (dry run)");

    Result first = run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p=a");
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(first.out()).startsWith("Compacted 1 task: 4 -> 1 file, ");
    assertThat(first.err()).isEmpty();

    Result again = run("compact", "--warehouse", w(), "--table", "db.t", "--partition", "p=a");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out().strip())
        .isEqualTo(
            "Nothing to compact: already compacted: every bucket selected holds at most one file");
    assertThat(again.err()).isEmpty();
  }

  @Test
  void argumentsAreCheckedBeforeTheTableIsRead() {
    String nowhere = dir.resolve("nowhere").toString();
    Result parallelism =
        run("compact", "--warehouse", nowhere, "--table", "db.t", "--parallelism", "0");
    assertThat(parallelism.code()).isEqualTo(2);
    assertThat(parallelism.errorLine()).isEqualTo("Error: --parallelism must be at least 1, got 0");

    Result detached = run("compact", "--warehouse", nowhere, "--table", "db.t", "--detached");
    assertThat(detached.code()).isEqualTo(2);
    assertThat(detached.errorLine()).isEqualTo("Error: --detached needs --mode streaming");
  }

  @Test
  void picocliMessagesAreNotDoubled() {
    Result option = run("compact", "--warehouse", w(), "--table", "db.t", "--option", "foo");
    assertThat(option.code()).isEqualTo(2);
    assertThat(option.err().lines().findFirst().orElseThrow())
        .isEqualTo(
            "Error: Value for option '--option' (<String=String>) should be in KEY=VALUE format"
                + " but was foo");

    Result both = run("sql", "--warehouse", w(), "-e", "SELECT 1", "-f", "x.sql");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err().lines().findFirst().orElseThrow())
        .startsWith("Error: ")
        .doesNotContain("Error: Error:");
  }

  @Test
  void inspectSucceedsWithNothingOnStderr() {
    table();
    Result r = run("inspect", "--warehouse", w(), "--table", "db.t");
    assertThat(r.code()).isZero();
    assertThat(r.err()).isEmpty();
    assertThat(r.out()).contains("p=a: 4 files, 40 rows");
  }

  /** db.t: a primary-key table with deletion vectors, one bucket. */
  private Table deletionVectorTable() {
    return TestTables.create(
        TestTables.catalog(dir),
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "1")
            .option("deletion-vectors.enabled", "true")
            .option("local-cache.enabled", "false")
            .build());
  }

  @Test
  void compactingADeletionVectorTableWithoutTheLocalCacheSaysSo() {
    Table t = deletionVectorTable();
    TestTables.writeBatch(t, List.of(TestTables.row(1L, "a")));
    TestTables.writeBatch(t, List.of(TestTables.row(2L, "b")));

    Result r = run("compact", "--warehouse", w(), "--table", "db.t");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine())
        .isEqualTo(
            "Error: Table db.t: Compacting a deletion-vector table needs its key lookup on local"
                + " disk: set"
                + " 'local-cache.enabled' = 'true' (table option or dynamic option, e.g."
                + " CompactBuilder.withOptions(Map.of(\"local-cache.enabled\", \"true\")));"
                + " nothing was compacted or committed");
  }

  @Test
  void truncatedDeletionVectorFileIsNamed() throws Exception {
    Table t = deletionVectorTable();
    Map<String, String> cache =
        Map.of("local-cache.enabled", "true", "local-cache.dir", dir.resolve("cache").toString());
    TestTables.writeBatch(t, List.of(TestTables.row(1L, "a"), TestTables.row(2L, "b")));
    t.newCompactBuilder().withOptions(cache).execute();
    TestTables.writeBatch(t, List.of(TestTables.row(2L, "b2")));
    t.newCompactBuilder().withOptions(cache).withStrategy("minor").execute();
    Path dv;
    try (Stream<Path> index = Files.list(tableDir().resolve("index"))) {
      dv =
          index.filter(p -> p.getFileName().toString().startsWith("dv-")).findFirst().orElseThrow();
    }
    truncate(dv, 6);

    Result r = run("sql", "--warehouse", w(), "-e", NO_RESTARTS + "SELECT * FROM db.t");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.errorLine())
        .matches(
            "Error in statement 2 \\(SELECT \\* FROM db.t\\): Cannot read the deletion vector of data file data-\\S+\\.parquet in"
                + " deletion-vector file file:"
                + dv
                + ": the vector at offset \\d+ of \\d+ bytes lies beyond the file's 6 bytes"
                + " \\(truncated\\?\\)");
  }
}
