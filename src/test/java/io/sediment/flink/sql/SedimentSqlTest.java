package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.cli.SedimentCli;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.ConsumerManager;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.TagManager;
import io.sediment.systable.SystemTables;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Catalog, DDL, batch INSERT/SELECT/OVERWRITE and sys.compact through Flink SQL. */
class SedimentSqlTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path warehouse;
  TableEnvironment tEnv;

  @BeforeEach
  void setUp() {
    tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
    tEnv.getConfig().set("parallelism.default", "2");
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    tEnv.executeSql("USE CATALOG c");
    tEnv.executeSql("CREATE DATABASE db");
  }

  static List<String> rows(TableResult result) {
    List<String> out = new ArrayList<>();
    try (CloseableIterator<Row> it = result.collect()) {
      it.forEachRemaining(r -> out.add(r.toString()));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return out;
  }

  List<String> query(String sql) {
    return rows(tEnv.executeSql(sql)).stream().sorted().collect(Collectors.toList());
  }

  void exec(String sql) throws Exception {
    tEnv.executeSql(sql).await();
  }

  /**
   * The factory's context of a query of {@code db.<name>} planned with the columns {@code planned}.
   */
  private org.apache.flink.table.factories.DynamicTableFactory.Context plannedContext(
      String name, org.apache.flink.table.catalog.ResolvedSchema planned) {
    return new org.apache.flink.table.factories.FactoryUtil.DefaultDynamicTableContext(
        org.apache.flink.table.catalog.ObjectIdentifier.of("c", "db", name),
        new org.apache.flink.table.catalog.ResolvedCatalogTable(
            org.apache.flink.table.catalog.CatalogTable.newBuilder()
                .schema(
                    org.apache.flink.table.api.Schema.newBuilder()
                        .fromResolvedSchema(planned)
                        .build())
                .options(Map.of())
                .build(),
            planned),
        Map.of(),
        new org.apache.flink.configuration.Configuration(),
        getClass().getClassLoader(),
        false);
  }

  Table table(String name) {
    return new FileSystemCatalog(warehouse.toString()).getTable("db." + name);
  }

  void createAndFill() throws Exception {
    exec(
        "CREATE TABLE db.t (id BIGINT, p STRING, v STRING) PARTITIONED BY (p)"
            + " WITH ('compaction.min.file-num' = '2')");
    for (int batch = 0; batch < 4; batch++) {
      exec(
          "INSERT INTO db.t VALUES ("
              + (batch * 10 + 1)
              + ", 'a', 'x"
              + batch
              + "'), ("
              + (batch * 10 + 2)
              + ", 'b', 'y"
              + batch
              + "')");
    }
  }

  /**
   * An append table with fixed buckets gets each bucket's rows from one writer, as a primary-key
   * table does (and Paimon's bucketed append tables): numbered in one sequence per bucket. Rows
   * rebalanced over two writers were numbered by both from the same start, so a bucket's files
   * overlapped in sequence order.
   */
  @Test
  void aFixedBucketAppendTableNumbersEachBucketInOneSequence() throws Exception {
    exec("CREATE TABLE db.fb (id BIGINT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')");
    // a source of two splits (partitions), read by two subtasks: each holds rows of both buckets
    exec("CREATE TABLE db.src (id BIGINT, v STRING, p INT) PARTITIONED BY (p)");
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      values.append(i == 0 ? "" : ", ").append("(").append(i).append(", 'v', ").append(i % 2);
      values.append(")");
    }
    exec("INSERT INTO db.src VALUES " + values);
    exec("INSERT INTO db.fb SELECT id, v FROM db.src");
    exec("INSERT INTO db.fb SELECT id, v FROM db.src");
    Table t = table("fb");
    Map<Integer, List<long[]>> ranges = new TreeMap<>();
    for (ManifestEntry e : t.store().newScan().plan(t.latestSnapshot().orElseThrow())) {
      ranges
          .computeIfAbsent(e.bucket(), b -> new ArrayList<>())
          .add(new long[] {e.file().minSequenceNumber(), e.file().maxSequenceNumber()});
    }
    assertThat(ranges).hasSize(2);
    ranges.forEach(
        (bucket, files) -> {
          files.sort((a, b) -> Long.compare(a[0], b[0]));
          for (int i = 1; i < files.size(); i++) {
            assertThat(files.get(i)[0])
                .as("bucket %s: files in one sequence", bucket)
                .isGreaterThan(files.get(i - 1)[1]);
          }
        });
    assertThat(query("SELECT COUNT(*) FROM db.fb")).containsExactly("+I[80]");
  }

  /**
   * Time travel in batch: a snapshot by id ({@code scan.snapshot-id}), by time ({@code
   * scan.timestamp-millis}, {@code FOR SYSTEM_TIME AS OF}), and clear errors for snapshots that are
   * not there and for options that do not go together.
   */
  @Test
  void timeTravelBySnapshotIdAndByTime() throws Exception {
    tEnv.getConfig().set("table.local-time-zone", "UTC");
    exec(
        "CREATE TABLE db.k (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '1')");
    exec("INSERT INTO db.k VALUES (1, 'a'), (2, 'b')");
    exec("INSERT INTO db.k VALUES (1, 'a2'), (3, 'c')");
    exec("INSERT INTO db.k VALUES (2, 'b3')");
    Table k = table("k");
    assertThat(k.snapshotManager().listIds()).containsExactly(1L, 2L, 3L);
    long first = k.snapshotManager().snapshot(1).timeMillis();
    long second = k.snapshotManager().snapshot(2).timeMillis();

    assertThat(query("SELECT * FROM db.k /*+ OPTIONS('scan.snapshot-id' = '1') */"))
        .containsExactly("+I[1, a]", "+I[2, b]");
    assertThat(
            query(
                "SELECT * FROM db.k /*+ OPTIONS('scan.mode' = 'from-snapshot',"
                    + " 'scan.snapshot-id' = '2') */"))
        .containsExactly("+I[1, a2]", "+I[2, b]", "+I[3, c]");
    assertThat(
            query(
                "SELECT * FROM db.k /*+ OPTIONS('scan.timestamp-millis' = '"
                    + (second - 1)
                    + "') */"))
        .containsExactly("+I[1, a]", "+I[2, b]");
    String asOf =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
            .withZone(ZoneOffset.UTC)
            .format(Instant.ofEpochMilli(first));
    assertThat(query("SELECT * FROM db.k FOR SYSTEM_TIME AS OF TIMESTAMP '" + asOf + "'"))
        .containsExactly("+I[1, a]", "+I[2, b]");
    assertThat(query("SELECT * FROM db.k")).containsExactly("+I[1, a2]", "+I[2, b3]", "+I[3, c]");

    assertThatThrownBy(() -> query("SELECT * FROM db.k /*+ OPTIONS('scan.snapshot-id' = '9') */"))
        .hasStackTraceContaining(
            "Snapshot 9 (scan.snapshot-id) of table " + k.store().paths().root() + " is not there")
        .hasStackTraceContaining("the earliest snapshot still there is 1")
        .hasStackTraceContaining("the latest 3");
    assertThatThrownBy(
            () ->
                query(
                    "SELECT * FROM db.k /*+ OPTIONS('scan.timestamp-millis' = '"
                        + (first - 1)
                        + "') */"))
        .hasStackTraceContaining("No snapshot of table")
        .hasStackTraceContaining("the earliest snapshot still there is 1 (committed ");
    assertThatThrownBy(
            () -> query("SELECT * FROM db.k /*+ OPTIONS('scan.mode' = 'from-snapshot') */"))
        .hasStackTraceContaining("scan.mode 'from-snapshot' needs 'scan.snapshot-id'");
    assertThatThrownBy(() -> query("SELECT * FROM db.k /*+ OPTIONS('scan.mode' = 'sideways') */"))
        .hasStackTraceContaining(
            "Invalid value 'sideways' for option 'scan.mode': allowed: [default, latest-full,");
  }

  /**
   * Splits a read finds empty (every row filtered out, or deleted) in every position of a reader's
   * queue: Flink's iterator reader emits the first row of each split after the first without asking
   * whether there is one.
   */
  @Test
  void readsWhoseSplitsAreEmptyInAnyOrder() throws Exception {
    exec("CREATE TABLE db.e (id BIGINT, p INT, v INT) PARTITIONED BY (p)");
    StringBuilder values = new StringBuilder();
    for (int p = 0; p < 6; p++) {
      values
          .append(p == 0 ? "" : ", ")
          .append("(" + p + ", " + p + ", 0), (" + (p + 10) + ", " + p + ", 10)");
    }
    exec("INSERT INTO db.e VALUES " + values);
    // 5 lies within every file's [0, 10]: nothing is pruned, and no row matches.
    assertThat(query("SELECT * FROM db.e WHERE v = 5")).isEmpty();
    for (int p = 0; p < 6; p++) {
      assertThat(query("SELECT id FROM db.e WHERE v = 5 OR id = " + p))
          .containsExactly("+I[" + p + "]");
    }
  }

  /**
   * A query planned on columns an {@code ALTER TABLE} changed since: Flink's planner looks the
   * table up again for a compiled plan (and a kept Table API {@code Table}), so it reads the
   * columns by their names; a source or sink created for columns that are not the table's any more
   * (an ALTER between the planner's lookup and the factory's) is refused, naming both column lists,
   * since by position in the old columns it would read or store other columns' values.
   */
  @Test
  void aQueryPlannedBeforeItsColumnsChangedReadsThemByNameOrIsRefused() throws Exception {
    exec("CREATE TABLE db.s (a INT, b INT)");
    exec("CREATE TABLE db.sink_s (b INT)");
    exec("INSERT INTO db.s VALUES (1, 2)");
    org.apache.flink.table.api.CompiledPlan plan =
        tEnv.compilePlanSql("INSERT INTO db.sink_s SELECT b FROM db.s");
    exec("ALTER TABLE db.s ADD x INT FIRST");
    exec("INSERT INTO db.s VALUES (7, 8, 9)");
    plan.execute().await();
    assertThat(query("SELECT b FROM db.sink_s")).containsExactly("+I[2]", "+I[9]");

    var planned =
        org.apache.flink.table.catalog.ResolvedSchema.of(
            org.apache.flink.table.catalog.Column.physical(
                "a", org.apache.flink.table.api.DataTypes.INT()),
            org.apache.flink.table.catalog.Column.physical(
                "b", org.apache.flink.table.api.DataTypes.INT()));
    var context = plannedContext("s", planned);
    // Flink sees key columns as NOT NULL whatever the schema stores: still the same columns
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse.toString());
    TestTables.create(
        catalog,
        "nk",
        io.sediment.schema.Schema.newBuilder()
            .column("k", org.apache.flink.table.api.DataTypes.INT())
            .column("v", org.apache.flink.table.api.DataTypes.STRING())
            .primaryKey("k")
            .option("bucket", "1")
            .build());
    exec("INSERT INTO db.nk VALUES (1, 'a')");
    assertThat(query("SELECT k, v FROM db.nk")).containsExactly("+I[1, a]");

    var factory = new SedimentTableFactory(catalog);
    for (Runnable create :
        List.<Runnable>of(
            () -> factory.createDynamicTableSource(context),
            () -> factory.createDynamicTableSink(context))) {
      assertThatThrownBy(create::run)
          .hasMessageContaining("The columns of db.s changed since this query was planned")
          .hasMessageContaining("planned with ROW<`a` INT, `b` INT>")
          .hasMessageContaining("the table has ROW<`x` INT, `a` INT, `b` INT> (schema 1)")
          .hasMessageContaining("Plan the query again");
    }

    // a column that became nullable since (not a key column): the plan took it for NOT NULL and
    // folded its null checks away, so it is refused too
    exec("CREATE TABLE db.nn (a INT, c INT NOT NULL)");
    exec("ALTER TABLE db.nn MODIFY c INT");
    var plannedNotNull =
        org.apache.flink.table.catalog.ResolvedSchema.of(
            org.apache.flink.table.catalog.Column.physical(
                "a", org.apache.flink.table.api.DataTypes.INT()),
            org.apache.flink.table.catalog.Column.physical(
                "c", org.apache.flink.table.api.DataTypes.INT().notNull()));
    var nnContext = plannedContext("nn", plannedNotNull);
    assertThatThrownBy(() -> factory.createDynamicTableSource(nnContext))
        .hasMessageContaining("The columns of db.nn changed since this query was planned");
  }

  /**
   * ALTER TABLE SET and RESET of options: a new schema version, what the next compaction does
   * follows it; fixed options, unknown ones and unsafe column changes are refused, changing
   * nothing.
   */
  @Test
  void alterTableSetAndResetOptions() throws Exception {
    createAndFill(); // compaction.min.file-num = 2: 4 files per partition compact
    exec("ALTER TABLE db.t SET ('compaction.min.file-num' = '10')");
    Table t = table("t");
    assertThat(t.schema().id()).isEqualTo(1);
    assertThat(t.options().toMap()).containsEntry("compaction.min.file-num", "10");
    assertThat(
            rows(
                tEnv.executeSql(
                    "CALL c.sys.compact(`table` => 'db.t', compact_strategy => 'minor', dry_run => true)")))
        .as("4 files per partition are below the new minimum of 10")
        .isEmpty();
    exec("ALTER TABLE db.t RESET ('compaction.min.file-num')");
    assertThat(table("t").schema().id()).isEqualTo(2);
    assertThat(table("t").options().toMap()).doesNotContainKey("compaction.min.file-num");
    assertThat(
            rows(
                tEnv.executeSql(
                    "CALL c.sys.compact(`table` => 'db.t', compact_strategy => 'minor', dry_run => true)")))
        .as("the default minimum, 5: still nothing")
        .isEmpty();
    exec("ALTER TABLE db.t SET ('compaction.min.file-num' = '2', 'target-file-size' = '64 mb')");
    assertThat(
            rows(
                tEnv.executeSql(
                    "CALL c.sys.compact(`table` => 'db.t', compact_strategy => 'minor')")))
        .hasSize(1);
    assertThat(query("SELECT COUNT(*) FROM db.t")).containsExactly("+I[8]");

    exec(
        "CREATE TABLE db.k (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '2')");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k SET ('bucket' = '4')"))
        .hasStackTraceContaining(
            "Option 'bucket' is fixed when the table is created and cannot be changed by ALTER"
                + " TABLE (rescaling buckets is not supported yet)");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k SET ('nope' = '1')"))
        .hasStackTraceContaining("Unknown table option(s) [nope]");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k SET ('write-buffer-size' = 'lots')"))
        .hasStackTraceContaining("Invalid value 'lots' for option 'write-buffer-size'");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k MODIFY v INT"))
        .hasStackTraceContaining("Cannot change the type of column 'v' from STRING to INT");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k ADD WATERMARK FOR v AS v"))
        .hasStackTraceContaining("ALTER TABLE");
    assertThat(table("k").schema().id()).as("nothing was written").isZero();
    assertThat(warehouse.resolve("db.db/k/schema")).isDirectoryContaining("glob:**/schema-0");
    assertThat(warehouse.resolve("db.db/k/schema").toFile().list()).hasSize(1);
  }

  /**
   * Column changes through SQL on an append and a primary-key table with files of three schema
   * versions: ADD (with AFTER and FIRST), RENAME, MODIFY (widen), DROP; reads, filters on renamed
   * and added columns, then CALL sys.compact (append) and the writer's own compaction (primary
   * key): every row as before, and the compacted files carry the latest schema id.
   */
  @Test
  void columnChangesReadAndCompactAcrossSchemaVersions() throws Exception {
    exec(
        "CREATE TABLE db.e (id BIGINT, p STRING, n INT, s STRING) PARTITIONED BY (p)"
            + " WITH ('compaction.min.file-num' = '2')");
    exec("INSERT INTO db.e VALUES (1, 'a', 10, 'x'), (2, 'a', 20, 'y')");
    exec("ALTER TABLE db.e ADD c DOUBLE AFTER n");
    exec("INSERT INTO db.e VALUES (3, 'a', 30, 1.5, 'z')");
    exec("ALTER TABLE db.e RENAME s TO label");
    exec("ALTER TABLE db.e MODIFY n BIGINT");
    exec("ALTER TABLE db.e ADD (first_col STRING FIRST)");
    exec("INSERT INTO db.e VALUES ('f', 4, 'a', 4000000000, 2.5, 'x')");
    exec("ALTER TABLE db.e DROP c");
    List<String> expected =
        List.of(
            "+I[null, 1, a, 10, x]",
            "+I[null, 2, a, 20, y]",
            "+I[null, 3, a, 30, z]",
            "+I[f, 4, a, 4000000000, x]");
    assertThat(query("SELECT * FROM db.e")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(query("SELECT id FROM db.e WHERE label = 'x'")).containsExactly("+I[1]", "+I[4]");
    assertThat(query("SELECT id FROM db.e WHERE first_col IS NULL"))
        .containsExactly("+I[1]", "+I[2]", "+I[3]");
    assertThat(query("SELECT id FROM db.e WHERE n > 25")).containsExactly("+I[3]", "+I[4]");
    assertThat(query("SELECT DISTINCT schema_id FROM db.`e$files`"))
        .containsExactly("+I[0]", "+I[1]", "+I[4]");
    rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.e')"));
    assertThat(query("SELECT * FROM db.e")).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(query("SELECT schema_id FROM db.`e$files`")).containsExactly("+I[5]");

    exec(
        "CREATE TABLE db.pk (id BIGINT, v INT, w STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '3')");
    exec("INSERT INTO db.pk VALUES (1, 1, 'a'), (2, 2, 'b')");
    exec("ALTER TABLE db.pk ADD x STRING");
    exec("INSERT INTO db.pk VALUES (2, 20, 'b2', 'x2'), (3, 3, 'c', 'x3')");
    exec("ALTER TABLE db.pk MODIFY v BIGINT");
    exec("ALTER TABLE db.pk RENAME w TO word");
    exec("INSERT INTO db.pk VALUES (1, 5000000000, 'a3', 'x1')"); // third run: the writer compacts
    assertThat(query("SELECT * FROM db.pk"))
        .containsExactly("+I[1, 5000000000, a3, x1]", "+I[2, 20, b2, x2]", "+I[3, 3, c, x3]");
    assertThat(query("SELECT schema_id, level > 0 FROM db.`pk$files`"))
        .as("the writer's compaction merged all three runs into one file of the latest schema")
        .containsExactly("+I[3, true]");
  }

  /**
   * ARRAY, MAP, ROW and MULTISET columns through SQL: written, read with element and field access,
   * filtered, compacted by CALL sys.compact (append) and by the writer (primary key), read again.
   */
  @Test
  void nestedColumnsThroughSql() throws Exception {
    exec(
        "CREATE TABLE db.n (id BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, INT>,"
            + " pt ROW<x DOUBLE, label STRING>, grid ARRAY<ARRAY<INT>>)"
            + " WITH ('compaction.min.file-num' = '2')");
    exec(
        "INSERT INTO db.n VALUES (1, ARRAY['a', 'b'], MAP['k', 1], ROW(1.5, 'p'),"
            + " ARRAY[ARRAY[1, 2], ARRAY[3]])");
    exec(
        "INSERT INTO db.n VALUES (2, ARRAY['c'], MAP['k', 2, 'j', 3], ROW(2.5, CAST(NULL AS"
            + " STRING)), ARRAY[ARRAY[4]]), (3, CAST(NULL AS ARRAY<STRING>), CAST(NULL AS"
            + " MAP<STRING, INT>), CAST(NULL AS ROW<x DOUBLE, label STRING>), CAST(NULL AS"
            + " ARRAY<ARRAY<INT>>))");
    List<String> expected =
        List.of(
            "+I[1, [a, b], {k=1}, +I[1.5, p], [[1, 2], [3]]]",
            "+I[2, [c], {j=3, k=2}, +I[2.5, null], [[4]]]",
            "+I[3, null, null, null, null]");
    assertThat(normalizedMaps(query("SELECT * FROM db.n"))).containsExactlyElementsOf(expected);
    assertThat(query("SELECT id, tags[1], attrs['k'], pt.x, grid[1][2] FROM db.n WHERE id < 3"))
        .containsExactly("+I[1, a, 1, 1.5, 2]", "+I[2, c, 2, 2.5, null]");
    assertThat(query("SELECT id FROM db.n WHERE tags IS NULL")).containsExactly("+I[3]");
    rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.n')"));
    assertThat(query("SELECT COUNT(*) FROM db.`n$files`")).containsExactly("+I[1]");
    assertThat(normalizedMaps(query("SELECT * FROM db.n"))).containsExactlyElementsOf(expected);

    exec(
        "CREATE TABLE db.np (id BIGINT, tags ARRAY<STRING>, pt ROW<x INT, y INT>,"
            + " PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'num-sorted-run.compaction-trigger' = '3')");
    exec("INSERT INTO db.np VALUES (1, ARRAY['a'], ROW(1, 1)), (2, ARRAY['b'], ROW(2, 2))");
    exec("INSERT INTO db.np VALUES (1, ARRAY['a2', 'a3'], ROW(10, 11))");
    exec("INSERT INTO db.np VALUES (3, ARRAY_REMOVE(ARRAY['x'], 'x'), ROW(3, CAST(NULL AS INT)))");
    assertThat(query("SELECT * FROM db.np"))
        .containsExactly(
            "+I[1, [a2, a3], +I[10, 11]]", "+I[2, [b], +I[2, 2]]", "+I[3, [], +I[3, null]]");
    exec("INSERT INTO db.np VALUES (2, ARRAY['b2'], ROW(20, 21))"); // a fourth run: more than the
    // trigger
    assertThat(query("SELECT * FROM db.np"))
        .containsExactly(
            "+I[1, [a2, a3], +I[10, 11]]", "+I[2, [b2], +I[20, 21]]", "+I[3, [], +I[3, null]]");
    assertThat(query("SELECT MAX(level) > 0 FROM db.`np$files`"))
        .as("the writer compacted runs of nested rows")
        .containsExactly("+I[true]");
  }

  /** Rows with maps rendered with their entries sorted (a map's iteration order is not fixed). */
  private static List<String> normalizedMaps(List<String> rows) {
    List<String> out = new ArrayList<>();
    for (String r : rows) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{([^}]*)\\}").matcher(r);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        List<String> entries = new ArrayList<>(List.of(m.group(1).split(", ")));
        entries.sort(null);
        m.appendReplacement(sb, "{" + String.join(", ", entries) + "}");
      }
      m.appendTail(sb);
      out.add(sb.toString());
    }
    return out;
  }

  /**
   * Paimon's sort compaction through {@code CALL sys.compact}: a dry run lists the range tasks, the
   * call rewrites each partition into files of disjoint, sorted id ranges in one COMPACT snapshot
   * with the rows unchanged; wrong values name their argument and change nothing. A plain dry run
   * still describes its tasks.
   */
  @Test
  void sortCompactionThroughTheProcedureAndItsErrors() throws Exception {
    createAndFill();
    List<String> rowsBefore = rows(tEnv.executeSql("SELECT * FROM db.t"));
    long before = table("t").latestSnapshot().orElseThrow().id();
    assertThat(rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', dry_run => true)")))
        .hasSize(2)
        .allMatch(r -> r.matches(".*, p=[ab] bucket 0: 4 files, \\d+ bytes -> rewritten\\]"));
    String sort =
        "CALL c.sys.compact(`table` => 'db.t', order_strategy => 'order', order_by => 'id',"
            + " options => 'target-file-size=1b,compaction.parallelism=2'";
    assertThat(rows(tEnv.executeSql(sort + ", dry_run => true)")))
        .hasSize(4)
        .allMatch(
            r ->
                r.matches(
                    ".*bucket 0: 4 files, \\d+ bytes -> sorted, range [12] of 2 \\(order by id\\)\\]"));
    for (String[] bad :
        new String[][] {
          {
            "order_strategy => 'lexical', order_by => 'id'", "Argument 'order_strategy'", "'zorder'"
          },
          {"order_strategy => 'zorder', order_by => 'nope'", "Argument 'order_by'", "'nope'"},
          {"order_strategy => 'zorder'", "Argument 'order_strategy'", "go together"},
          {
            "order_strategy => 'zorder', order_by => 'p'", "Argument 'order_by'", "partition column"
          },
          {
            "order_strategy => 'hilbert', order_by => 'id', mode => 'streaming'",
            "Argument 'mode'",
            "batch mode only"
          },
          {
            "order_strategy => 'order', order_by => 'id', compact_strategy => 'minor'",
            "Argument 'compact_strategy'",
            "'minor' does not go with it"
          }
        }) {
      assertThatThrownBy(
              () -> rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', " + bad[0] + ")")))
          .as(bad[0])
          .hasStackTraceContaining(bad[1])
          .hasStackTraceContaining(bad[2]);
    }
    assertThat(table("t").latestSnapshot().orElseThrow().id()).isEqualTo(before);

    rows(tEnv.executeSql(sort + ")"));

    Table t = table("t");
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(before + 1);
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(rows(tEnv.executeSql("SELECT * FROM db.t")))
        .containsExactlyInAnyOrderElementsOf(rowsBefore);
    for (DataSplit split : t.newReadBuilder().newScan().plan().splits()) {
      // two ranges: the two smaller ids in one file, the two larger in another
      List<List<Long>> idsPerFile = new ArrayList<>();
      for (DataFileMeta f : split.files()) {
        List<Long> ids = new ArrayList<>();
        for (RowData r :
            t.newReadBuilder()
                .newRead()
                .readAll(
                    List.of(
                        new DataSplit(
                            split.snapshotId(), split.partition(), split.bucket(), List.of(f))))) {
          ids.add(r.getLong(0));
        }
        idsPerFile.add(ids);
      }
      idsPerFile.sort(Comparator.comparing(ids -> ids.get(0)));
      assertThat(idsPerFile).hasSize(2).allMatch(ids -> ids.size() == 2);
      List<Long> all = new ArrayList<>();
      idsPerFile.forEach(all::addAll);
      assertThat(all).isSorted();
    }
  }

  /** A column type the data files cannot store fails CREATE TABLE at once, naming the column. */
  @Test
  void unsupportedTypesAreRefusedWhenTheTableIsCreated() throws Exception {
    for (String type : List.of("VARIANT", "ARRAY<VARIANT>", "ROW<a INT, v VARIANT>")) {
      assertThatThrownBy(() -> exec("CREATE TABLE db.n (id INT, tags " + type + ")"))
          .hasStackTraceContaining("for column 'tags'")
          .hasStackTraceContaining("supported: BOOLEAN, TINYINT");
      assertThat(new FileSystemCatalog(warehouse.toString()).listTables("db")).isEmpty();
    }
  }

  /** System tables answer from the table's metadata in SQL, and cannot be written. */
  @Test
  void systemTablesAnswerQueries() throws Exception {
    exec(
        "CREATE TABLE db.k (id BIGINT, p STRING, v STRING, PRIMARY KEY (id, p) NOT ENFORCED)"
            + " PARTITIONED BY (p) WITH ('bucket' = '2', 'write-only' = 'true')");
    for (int i = 0; i < 3; i++) {
      exec("INSERT INTO db.k VALUES (" + i + ", 'a', 'x'), (" + (i + 10) + ", 'b', 'y')");
    }
    exec("ALTER TABLE db.k SET ('num-sorted-run.compaction-trigger' = '3')");
    Table k = table("k");
    new ConsumerManager(k.store().fileIO(), k.store().paths()).record("reader", 2);

    assertThat(query("SELECT snapshot_id, schema_id, commit_kind FROM db.`k$snapshots`"))
        .containsExactly("+I[1, 0, APPEND]", "+I[2, 0, APPEND]", "+I[3, 0, APPEND]");
    exec(
        "CREATE TABLE db.l (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'changelog-producer' = 'lookup')");
    exec("INSERT INTO db.l VALUES (1, 'a')");
    assertThat(
            query("SELECT commit_kind, changelog_manifest_list IS NOT NULL FROM db.`l$snapshots`"))
        .as("the writer's compaction computed the changelog")
        .containsExactly("+I[APPEND, false]", "+I[COMPACT, true]");
    assertThat(query("SELECT schema_id, options FROM db.`k$schemas`"))
        .containsExactly(
            "+I[0, {\"bucket\":\"2\",\"write-only\":\"true\"}]",
            "+I[1, {\"bucket\":\"2\",\"num-sorted-run.compaction-trigger\":\"3\","
                + "\"write-only\":\"true\"}]");
    assertThat(query("SELECT * FROM db.`k$options`"))
        .containsExactly(
            "+I[bucket, 2]", "+I[num-sorted-run.compaction-trigger, 3]", "+I[write-only, true]");
    assertThat(query("SELECT COUNT(*), SUM(record_count) FROM db.`k$files`"))
        .containsExactly("+I[6, 6]");
    assertThat(query("SELECT `partition`, record_count, file_count FROM db.`k$partitions`"))
        .containsExactly("+I[p=a, 3, 3]", "+I[p=b, 3, 3]");
    assertThat(
            query(
                "SELECT SUM(level0_files), SUM(sorted_runs), MIN(compaction_trigger),"
                    + " COUNT(*) FILTER (WHERE needs_compaction <> (sorted_runs >= 3))"
                    + " FROM db.`k$buckets`"))
        .as("every file at level 0; a bucket needs compaction at the trigger ALTER set")
        .containsExactly("+I[6, 6, 3, 0]");
    assertThat(query("SELECT consumer_id, next_snapshot_id FROM db.`k$consumers`"))
        .containsExactly("+I[reader, 2]");
    assertThatThrownBy(() -> exec("INSERT INTO db.`k$options` VALUES ('a', 'b')"))
        .hasStackTraceContaining("System table k$options is read-only");
    assertThatThrownBy(() -> query("SELECT * FROM db.`k$nope`")).hasStackTraceContaining("k$nope");
    // options and time travel are refused, not ignored
    for (String q :
        List.of(
            "SELECT * FROM db.`k$files` /*+ OPTIONS('scan.snapshot-id' = '1') */",
            "SELECT * FROM db.`k$files` /*+ OPTIONS('no.such' = 'x') */",
            "SELECT * FROM db.`k$snapshots` FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00'")) {
      assertThatThrownBy(() -> query(q))
          .as(q)
          .hasStackTraceContaining("takes no table options and no time travel");
    }
  }

  /**
   * Every system table of a table with nothing in it (no snapshot, option or consumer) answers with
   * no rows but its schema, and so do those of a table emptied by TRUNCATE (a system table without
   * rows failed after ten restarts).
   */
  @Test
  void systemTablesOfAnEmptyTableHaveNoRows() throws Exception {
    exec("CREATE TABLE db.blank (id BIGINT, v STRING)");
    exec("CREATE TABLE db.emptied (id BIGINT, v STRING) WITH ('bucket' = '1')");
    exec("INSERT INTO db.emptied VALUES (1, 'a')");
    exec("TRUNCATE TABLE db.emptied");
    for (String name : SystemTables.names()) {
      // the table's first schema is there from its creation on
      assertThat(query("SELECT * FROM db.`blank$" + name + "`"))
          .as(name)
          .hasSize(name.equals("schemas") ? 1 : 0);
    }
    for (String name : List.of("files", "partitions", "buckets", "consumers")) {
      assertThat(query("SELECT * FROM db.`emptied$" + name + "`")).as(name).isEmpty();
    }
  }

  /** ALTER TABLE ... RENAME TO moves the table whole; clashes are refused. */
  @Test
  void alterTableRenameTo() throws Exception {
    createAndFill();
    List<String> rows = query("SELECT * FROM db.t");
    exec("CREATE TABLE db.other (x INT)");
    assertThatThrownBy(() -> exec("ALTER TABLE db.t RENAME TO db.other"))
        .hasStackTraceContaining("table 'db.other' (or its directory) already exists");
    exec("ALTER TABLE db.t RENAME TO db.renamed");
    assertThat(query("SELECT * FROM db.renamed")).isEqualTo(rows);
    assertThat(query("SHOW TABLES IN db")).containsExactly("+I[other]", "+I[renamed]");
    exec("INSERT INTO db.renamed VALUES (99, 'a', 'z')");
    assertThat(query("SELECT COUNT(*) FROM db.renamed")).containsExactly("+I[9]");
  }

  /**
   * A compaction the table refuses (deletion vectors without the local cache) fails the CALL at
   * once, naming the table and the option, before a job starts (it took six restarts before).
   */
  @Test
  void aRefusedCompactionFailsBeforeAJobStarts() throws Exception {
    exec(
        "CREATE TABLE db.dv (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' ="
            + " '1', 'deletion-vectors.enabled' = 'true', 'local-cache.enabled' = 'false')");
    exec("INSERT INTO db.dv VALUES (1, 'a')");
    exec("INSERT INTO db.dv VALUES (2, 'b')");
    assertThatThrownBy(() -> rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.dv')")))
        .hasStackTraceContaining("Table db.dv: Compacting a deletion-vector table")
        .hasStackTraceContaining("'local-cache.enabled' = 'true'")
        .satisfies(e -> assertThat(e.toString()).doesNotContain("Recovery is suppressed"));
    assertThat(table("dv").snapshotManager().listIds()).hasSize(2);
  }

  /** A deletion-vector table written with the defaults shows the committed rows at once. */
  @Test
  void aDeletionVectorTableWithTheDefaultsShowsWhatWasCommitted() throws Exception {
    exec(
        "CREATE TABLE db.dv (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            + " 'bucket' = '2', 'deletion-vectors.enabled' = 'true')");
    exec("INSERT INTO db.dv VALUES (1, 'a'), (2, 'b')");
    assertThat(query("SELECT * FROM db.dv")).containsExactly("+I[1, a]", "+I[2, b]");
    exec("INSERT INTO db.dv VALUES (1, 'c')");
    assertThat(query("SELECT * FROM db.dv")).containsExactly("+I[1, c]", "+I[2, b]");
  }

  /**
   * DELETE and UPDATE on a deletion-vector table whose latest rows are not compacted yet (level 0,
   * which batch SELECTs leave out, as Paimon's): their scan reads level 0 too. Before, the UPDATE
   * wrote the compacted (older) version of the row over the newer one, and the DELETE missed a row
   * that existed only in level 0, which came back at the next compaction.
   */
  @Test
  void rowLevelChangesOnADeletionVectorTableSeeRowsNotCompactedYet() throws Exception {
    exec(
        "CREATE TABLE db.dvw (id INT, a STRING, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            + " 'bucket' = '1', 'deletion-vectors.enabled' = 'true', 'write-only' = 'true')");
    exec("INSERT INTO db.dvw VALUES (5, 'old', 'p'), (6, 'six', 'p')");
    tEnv.executeSql("CALL sys.compact(`table` => 'db.dvw')").await();
    exec("INSERT INTO db.dvw VALUES (5, 'new', 'p'), (7, 'seven', 'p')"); // stays in level 0
    assertThat(query("SELECT id FROM db.dvw"))
        .as("level 0 unread")
        .containsExactly("+I[5]", "+I[6]");
    exec("UPDATE db.dvw SET v = 'q' WHERE id = 5");
    exec("DELETE FROM db.dvw WHERE id = 7");
    tEnv.executeSql("CALL sys.compact(`table` => 'db.dvw')").await();
    assertThat(query("SELECT * FROM db.dvw")).containsExactly("+I[5, new, q]", "+I[6, six, p]");
  }

  /** DELETE, UPDATE and TRUNCATE TABLE in batch mode: one snapshot each, rows as asked. */
  @Test
  void rowLevelDeleteUpdateAndTruncate() throws Exception {
    exec(
        "CREATE TABLE db.k (id BIGINT, p STRING, v STRING, PRIMARY KEY (id, p) NOT ENFORCED)"
            + " PARTITIONED BY (p) WITH ('bucket' = '2')");
    exec(
        "INSERT INTO db.k VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'w'),"
            + " (5, 'b', 'q')");
    Table k = table("k");
    exec("DELETE FROM db.k WHERE id > 3");
    assertThat(query("SELECT * FROM db.k"))
        .containsExactly("+I[1, a, x]", "+I[2, a, y]", "+I[3, b, z]");
    assertThat(k.snapshotManager().listIds()).hasSize(2);
    exec("UPDATE db.k SET v = 'updated' WHERE id = 2 OR p = 'b'");
    assertThat(query("SELECT * FROM db.k"))
        .containsExactly("+I[1, a, x]", "+I[2, a, updated]", "+I[3, b, updated]");
    assertThat(k.snapshotManager().listIds()).hasSize(3);
    assertThatThrownBy(() -> exec("UPDATE db.k SET p = 'c' WHERE id = 1"))
        .hasStackTraceContaining("cannot change primary-key or partition column 'p'");
    exec("ALTER TABLE db.k SET ('scan.snapshot-id' = '1')");
    assertThatThrownBy(() -> exec("DELETE FROM db.k WHERE id = 1"))
        .hasStackTraceContaining("cannot run with 'scan.snapshot-id' = '1' (time travel)");
    exec("ALTER TABLE db.k RESET ('scan.snapshot-id')");
    exec("TRUNCATE TABLE db.k");
    assertThat(query("SELECT * FROM db.k")).isEmpty();
    assertThat(k.snapshotManager().listIds()).hasSize(4);
    assertThat(k.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.OVERWRITE);

    exec("CREATE TABLE db.a (x INT, p STRING) PARTITIONED BY (p)");
    exec("INSERT INTO db.a VALUES (1, 'a'), (2, 'b')");
    assertThatThrownBy(() -> exec("DELETE FROM db.a WHERE x = 1"))
        .hasStackTraceContaining("DELETE FROM db.a needs a primary-key table");
    exec("TRUNCATE TABLE db.a");
    assertThat(query("SELECT * FROM db.a")).isEmpty();
    assertThat(table("a").newReadBuilder().newScan().plan().splits()).isEmpty();

    exec(
        "CREATE TABLE db.f (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'merge-engine' = 'first-row')");
    exec("INSERT INTO db.f VALUES (1, 'a')");
    assertThatThrownBy(() -> exec("DELETE FROM db.f WHERE id = 1"))
        .hasStackTraceContaining("needs a table whose deletes remove rows")
        .hasStackTraceContaining("this table: merge-engine first-row");
    assertThatThrownBy(() -> exec("UPDATE db.f SET v = 'b'"))
        .hasStackTraceContaining("needs merge-engine deduplicate or partial-update");
    assertThat(query("SELECT * FROM db.f")).containsExactly("+I[1, a]");
    assertThat(table("f").snapshotManager().listIds()).hasSize(1);

    // an input changelog would get +U without its -U
    exec(
        "CREATE TABLE db.ic (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " WITH ('bucket' = '1', 'changelog-producer' = 'input')");
    exec("INSERT INTO db.ic VALUES (1, 'a')");
    assertThatThrownBy(() -> exec("UPDATE db.ic SET v = 'b' WHERE id = 1"))
        .hasStackTraceContaining(
            "UPDATE db.ic cannot run on a table with changelog-producer 'input'");
    exec("DELETE FROM db.ic WHERE id = 1"); // a delete carries the whole row: fine
    assertThat(query("SELECT * FROM db.ic")).isEmpty();
    assertThat(table("ic").snapshotManager().listIds()).hasSize(2);
  }

  @Test
  void ddlShowDescribeDrop() throws Exception {
    exec(
        "CREATE TABLE db.k (id BIGINT, p STRING, v STRING, PRIMARY KEY (id, p) NOT ENFORCED)"
            + " PARTITIONED BY (p) WITH ('bucket' = '2')");
    exec("CREATE TABLE db.a (x INT COMMENT 'the x', y DOUBLE)");
    assertThat(query("SHOW TABLES IN db")).containsExactly("+I[a]", "+I[k]");
    assertThat(query("SHOW DATABASES")).contains("+I[db]", "+I[sys]");
    List<String> describe = query("DESCRIBE db.k");
    assertThat(String.join("\n", describe)).contains("id, BIGINT, false, PRI(id, p)");
    Table k = table("k");
    assertThat(k.schema().primaryKeys()).containsExactly("id", "p");
    assertThat(k.schema().partitionKeys()).containsExactly("p");
    assertThat(k.options().bucket()).isEqualTo(2);

    assertThatThrownBy(() -> exec("CREATE TABLE db.bad (x INT) WITH ('no-such-option' = '1')"))
        .hasStackTraceContaining("no-such-option");
    assertThatThrownBy(() -> exec("CREATE TABLE db.bad (x INT) WITH ('bucket' = 'many')"))
        .hasStackTraceContaining("bucket");
    assertThat(new FileSystemCatalog(warehouse.toString()).listTables("db"))
        .containsExactly("a", "k");

    exec("DROP TABLE db.a");
    assertThat(query("SHOW TABLES IN db")).containsExactly("+I[k]");
  }

  @Test
  void insertSelectAndCompactInBatchMode() throws Exception {
    createAndFill();
    List<String> before = query("SELECT * FROM db.t");
    assertThat(before).hasSize(8);

    List<String> result = rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t')"));
    assertThat(result).hasSize(1);
    // +I[tasks, snapshotId, filesBefore, filesAfter, bytesBefore, bytesAfter, rowsRead,
    // rowsWritten, ...]
    String[] f = result.get(0).substring(3, result.get(0).length() - 1).split(", ");
    assertThat(f[0]).isEqualTo("2"); // one task per partition
    assertThat(f[2]).isEqualTo("8");
    assertThat(f[3]).isEqualTo("2");
    assertThat(f[6]).isEqualTo("8");
    assertThat(f[7]).isEqualTo("8");

    assertThat(query("SELECT * FROM db.t")).isEqualTo(before);
    assertThat(table("t").latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(CommitKind.COMPACT);
    assertThat(f[1]).isEqualTo(String.valueOf(table("t").latestSnapshot().orElseThrow().id()));
    // After compaction nothing is left to plan.
    assertThat(rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', dry_run => true)")))
        .isEmpty();

    // Projection and filter pushdown.
    assertThat(query("SELECT v FROM db.t WHERE p = 'b' AND id > 12"))
        .containsExactly("+I[y2]", "+I[y3]");
    assertThat(query("SELECT id FROM db.t WHERE v LIKE 'x%' AND id < 20"))
        .containsExactlyInAnyOrder("+I[1]", "+I[11]");
  }

  @Test
  void primaryKeyTableUpsertsReadMergedAndCompact() throws Exception {
    exec(
        "CREATE TABLE db.k (id BIGINT, p STRING, v STRING, PRIMARY KEY (id, p) NOT ENFORCED)"
            + " PARTITIONED BY (p) WITH ('bucket' = '2', 'write-only' = 'true')");
    exec("INSERT INTO db.k VALUES (1, 'a', 'v0'), (2, 'a', 'v0'), (3, 'b', 'v0')");
    exec("INSERT INTO db.k VALUES (1, 'a', 'v1'), (3, 'b', 'v1')");
    exec("INSERT INTO db.k VALUES (2, 'a', 'v2')");
    List<String> expected = List.of("+I[1, a, v1]", "+I[2, a, v2]", "+I[3, b, v1]");
    assertThat(query("SELECT * FROM db.k")).isEqualTo(expected);

    List<String> result =
        rows(
            tEnv.executeSql(
                "CALL c.sys.compact(`table` => 'db.k', options => 'compaction.full=true')"));
    String[] f = result.get(0).substring(3, result.get(0).length() - 1).split(", ");
    assertThat(Integer.parseInt(f[0])).isPositive();
    assertThat(f[7]).isEqualTo("3"); // rows written: one per key
    assertThat(table("k").latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(CommitKind.COMPACT);
    assertThat(query("SELECT * FROM db.k")).isEqualTo(expected);
  }

  @Test
  void compactOnePartitionLeavesTheOtherUntouched() throws Exception {
    createAndFill();
    Table t = table("t");
    List<String> filesOfB =
        TestTables.dataFiles(warehouse.resolve("db.db/t/p=b")).stream()
            .map(Path::toString)
            .collect(Collectors.toList());
    assertThat(filesOfB).hasSize(4);

    List<String> dry =
        rows(
            tEnv.executeSql(
                "CALL c.sys.compact(`table` => 'db.t', partitions => 'p=a', dry_run => true)"));
    assertThat(dry).hasSize(1);
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);

    List<String> result =
        rows(
            tEnv.executeSql(
                "CALL c.sys.compact(`table` => 'db.t', partitions => 'p=a', commit_user => 'nightly',"
                    + " options => 'target-file-size=64mb')"));
    assertThat(result.get(0)).startsWith("+I[1, ");
    assertThat(t.latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(t.latestSnapshot().orElseThrow().commitUser()).startsWith("nightly-compact-");
    List<String> newFilesOfB =
        TestTables.dataFiles(warehouse.resolve("db.db/t/p=b")).stream()
            .map(Path::toString)
            .collect(Collectors.toList());
    assertThat(newFilesOfB).isEqualTo(filesOfB);
    // Live files of b are still the four appended ones.
    long liveB =
        t.newReadBuilder().newScan().plan().splits().stream()
            .filter(s -> s.partition().getString(0).toString().equals("b"))
            .mapToLong(s -> s.files().size())
            .sum();
    assertThat(liveB).isEqualTo(4);
    assertThat(query("SELECT count(*) FROM db.t")).containsExactly("+I[8]");
  }

  void createAndFillDtHh() throws Exception {
    exec(
        "CREATE TABLE db.w (id BIGINT, dt STRING, hh INT, v STRING) PARTITIONED BY (dt, hh)"
            + " WITH ('compaction.min.file-num' = '2')");
    for (int batch = 0; batch < 2; batch++) {
      exec(
          "INSERT INTO db.w VALUES (1, '2024-01-01', 10, 'x'), (2, '2024-01-02', 10, 'x'),"
              + " (3, '2024-01-02', 21, 'x')");
    }
  }

  /** Live data files per partition "dt/hh" of db.w. */
  Map<String, Long> liveFilesOfW() {
    return table("w").newReadBuilder().newScan().plan().splits().stream()
        .collect(
            Collectors.groupingBy(
                s -> s.partition().getString(0) + "/" + s.partition().getInt(1),
                TreeMap::new,
                Collectors.summingLong(s -> s.files().size())));
  }

  @Test
  void compactWhereTakesSqlOverPartitionColumnsAsPaimonWritesIt() throws Exception {
    createAndFillDtHh();
    assertThat(
            rows(
                tEnv.executeSql(
                    "CALL c.sys.compact(`table` => 'db.w',"
                        + " `where` => 'dt > ''2024-01-01'' and hh < 20', dry_run => true)")))
        .hasSize(1);
    List<String> result =
        rows(
            tEnv.executeSql(
                "CALL c.sys.compact(`table` => 'db.w',"
                    + " `where` => 'dt > ''2024-01-01'' and hh < 20')"));
    assertThat(result.get(0)).startsWith("+I[1, ");
    assertThat(liveFilesOfW())
        .isEqualTo(Map.of("2024-01-01/10", 2L, "2024-01-02/10", 1L, "2024-01-02/21", 2L));

    // IN, quoted identifiers and the JSON form (starts with '{') select partitions too.
    rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.w', `where` => '`hh` IN (21)')"));
    assertThat(liveFilesOfW())
        .isEqualTo(Map.of("2024-01-01/10", 2L, "2024-01-02/10", 1L, "2024-01-02/21", 1L));
    rows(
        tEnv.executeSql(
            "CALL c.sys.compact(`table` => 'db.w', `where` =>"
                + " '{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"2024-01-01\"]}')"));
    assertThat(liveFilesOfW())
        .isEqualTo(Map.of("2024-01-01/10", 1L, "2024-01-02/10", 1L, "2024-01-02/21", 1L));
  }

  @Test
  void compactWhereRejectsNonPartitionUnknownUnparsableAndPartitionsTogether() throws Exception {
    createAndFillDtHh();
    long snapshots = table("w").snapshotManager().listIds().size();
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.compact(`table` => 'db.w', `where` => 'v = ''x''')")))
        .hasStackTraceContaining(
            "Argument 'where': where 'v = 'x'' cannot select partitions of db.w: 'v' is not a"
                + " partition column; partition columns are [dt, hh]");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.compact(`table` => 'db.w', `where` => 'nope = 1')")))
        .hasStackTraceContaining(
            "Argument 'where': where 'nope = 1' cannot select partitions of db.w: ")
        .hasStackTraceContaining("nope")
        .hasStackTraceContaining("; partition columns are [dt, hh]");
    assertThatThrownBy(
            () -> rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.w', `where` => 'dt >')")))
        .hasStackTraceContaining(
            "Argument 'where': where 'dt >' cannot select partitions of db.w: ")
        .hasStackTraceContaining("; partition columns are [dt, hh]");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.compact(`table` => 'db.w', partitions => 'dt=2024-01-01',"
                            + " `where` => 'hh < 20')")))
        .hasStackTraceContaining("Argument 'where': partitions and where cannot be used together");
    assertThat(table("w").snapshotManager().listIds()).hasSize((int) snapshots);
  }

  @Test
  void badProcedureArgumentsNameTheArgument() throws Exception {
    createAndFill();
    assertThatThrownBy(() -> rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.nope')")))
        .hasStackTraceContaining("Argument 'table'");
    assertThatThrownBy(
            () ->
                rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', partitions => 'v=a')")))
        .hasStackTraceContaining("Argument 'partitions'");
    assertThatThrownBy(
            () -> rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', partitions => 'p')")))
        .hasStackTraceContaining("Argument 'partitions'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.compact(`table` => 'db.t', `where` => '{\"method\":\"nope\"}')")))
        .hasStackTraceContaining("Argument 'where'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.compact(`table` => 'db.t', options => 'no.such=1')")))
        .hasStackTraceContaining("Argument 'options'")
        .hasStackTraceContaining("no.such");
    assertThatThrownBy(
            () ->
                rows(tEnv.executeSql("CALL c.sys.compact(`table` => 'db.t', mode => 'sometimes')")))
        .hasStackTraceContaining("Argument 'mode'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 0)")))
        .hasStackTraceContaining("Argument 'retain_max'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 1,"
                            + " max_deletes => 0)")))
        .hasStackTraceContaining("Argument 'max_deletes'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 1,"
                            + " retain_min => 2)")))
        .hasStackTraceContaining("Argument 'retain_min'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.remove_orphan_files(`table` => 'db.t', older_than => 'yesterday')")))
        .hasStackTraceContaining("Argument 'older_than'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.remove_orphan_files(`table` => 'db.t', parallelism => 4)")))
        .hasStackTraceContaining("Argument 'parallelism'");
    assertThatThrownBy(
            () ->
                rows(
                    tEnv.executeSql(
                        "CALL c.sys.remove_orphan_files(`table` => 'db.t', mode => 'distributed')")))
        .hasStackTraceContaining("Argument 'mode'");
    assertThat(
            rows(
                tEnv.executeSql(
                    "CALL c.sys.remove_orphan_files(`table` => 'db.t', mode => 'LOCAL')")))
        .isEmpty();
    assertThat(table("t").latestSnapshot().orElseThrow().commitKind()).isEqualTo(CommitKind.APPEND);
  }

  /**
   * {@code ALTER TABLE ... DROP PARTITION}, as in Paimon: one OVERWRITE snapshot per {@code
   * PARTITION (...)} removing the files of every partition the spec matches (a spec of the first
   * partition column matches all its sub-partitions); other partitions keep their files; a
   * partition that is not there fails unless {@code IF EXISTS}, and a column that is not a
   * partition column is named; neither makes a snapshot.
   */
  @Test
  void alterTableDropPartition() throws Exception {
    createAndFillDtHh(); // partitions 2024-01-01/10, 2024-01-02/10, 2024-01-02/21, two files each
    exec(
        "CREATE TABLE db.k (id BIGINT, dt STRING, v STRING, PRIMARY KEY (id, dt) NOT ENFORCED)"
            + " PARTITIONED BY (dt) WITH ('bucket' = '1', 'deletion-vectors.enabled' = 'true')");
    exec("INSERT INTO db.k VALUES (1, 'a', 'x'), (2, 'b', 'x')");
    exec("INSERT INTO db.k VALUES (1, 'a', 'y'), (3, 'c', 'x')");
    Map<String, Long> before = liveFilesOfW();
    long snapshot = table("w").latestSnapshot().orElseThrow().id();

    exec("ALTER TABLE db.w DROP PARTITION (dt = '2024-01-02', hh = 21)");
    assertThat(query("SELECT id, dt, hh FROM db.w"))
        .containsExactly(
            "+I[1, 2024-01-01, 10]",
            "+I[1, 2024-01-01, 10]",
            "+I[2, 2024-01-02, 10]",
            "+I[2, 2024-01-02, 10]");
    Snapshot dropped = table("w").latestSnapshot().orElseThrow();
    assertThat(dropped.id()).isEqualTo(snapshot + 1);
    assertThat(dropped.commitKind()).isEqualTo(CommitKind.OVERWRITE);
    Map<String, Long> expected = new TreeMap<>(before);
    expected.remove("2024-01-02/21");
    assertThat(liveFilesOfW()).isEqualTo(expected);

    // a spec of the first partition column only; two PARTITION clauses, one snapshot each
    exec(
        "ALTER TABLE db.w DROP PARTITION (dt = '2024-01-02'), PARTITION (dt = '2024-01-01', hh = 10)");
    assertThat(query("SELECT * FROM db.w")).isEmpty();
    assertThat(query("SHOW PARTITIONS db.w")).isEmpty();
    assertThat(table("w").latestSnapshot().orElseThrow().id()).isEqualTo(snapshot + 3);

    assertThatThrownBy(() -> exec("ALTER TABLE db.w DROP PARTITION (dt = '2024-01-01')"))
        .hasStackTraceContaining(
            "Partition dt=2024-01-01 of db.w does not exist; the table has no partition (DROP IF"
                + " EXISTS PARTITION ignores a partition that is not there)");
    assertThatThrownBy(() -> exec("ALTER TABLE db.k DROP PARTITION (dt = 'z')"))
        .hasStackTraceContaining(
            "Partition dt=z of db.k does not exist; its partitions are [dt=a, dt=b, dt=c] (DROP IF");
    exec("ALTER TABLE db.w DROP IF EXISTS PARTITION (dt = '2024-01-01')");
    assertThatThrownBy(() -> exec("ALTER TABLE db.w DROP PARTITION (v = 'x')"))
        .hasStackTraceContaining(
            "'v' is not a partition column of db.w; partition columns are [dt, hh]");
    assertThat(table("w").latestSnapshot().orElseThrow().id()).isEqualTo(snapshot + 3);
    assertThatThrownBy(() -> exec("ALTER TABLE db.w DROP PARTITION (hh = 'x')"))
        .hasStackTraceContaining("'x'");
    assertThat(table("w").latestSnapshot().orElseThrow().id()).isEqualTo(snapshot + 3);

    // values are read as their column's type ('021' of an INT is 21); a null value's partition is
    // named by its directory name, as in Paimon (Flink's parser takes no NULL in a partition spec)
    exec(
        "INSERT INTO db.w VALUES (4, '2024-02-01', 21, 'x'), (5, '2024-02-01', CAST(NULL AS INT), 'x'),"
            + " (6, '2024-02-02', CAST(NULL AS INT), 'x')");
    assertThat(query("SHOW PARTITIONS db.w"))
        .containsExactly(
            "+I[dt=2024-02-01/hh=21]",
            "+I[dt=2024-02-01/hh=__DEFAULT_PARTITION__]",
            "+I[dt=2024-02-02/hh=__DEFAULT_PARTITION__]");
    exec("ALTER TABLE db.w DROP PARTITION (dt = '2024-02-01', hh = '021')");
    assertThat(query("SELECT id FROM db.w")).containsExactly("+I[5]", "+I[6]");
    exec("ALTER TABLE db.w DROP PARTITION (dt = '2024-02-01', hh = '__DEFAULT_PARTITION__')");
    assertThat(query("SELECT id FROM db.w")).containsExactly("+I[6]");
    exec("ALTER TABLE db.w DROP PARTITION (hh = '__DEFAULT_PARTITION__')");
    assertThat(query("SELECT id FROM db.w")).isEmpty();

    // a primary-key table with deletion vectors: the partition's rows are gone, others merged
    exec("ALTER TABLE db.k DROP PARTITION (dt = 'a')");
    assertThat(query("SELECT * FROM db.k")).containsExactly("+I[2, b, x]", "+I[3, c, x]");
    assertThat(query("SHOW PARTITIONS db.k")).containsExactly("+I[dt=b]", "+I[dt=c]");
  }

  /**
   * {@code sys.expire_partitions}, Paimon's procedure: the partitions whose time is older than the
   * expiration go in one OVERWRITE snapshot, a row each; bad arguments name the argument. Then the
   * table option {@code partition.expiration-time}: a write's commit drops them.
   */
  @Test
  void expirePartitionsDropsTheOldOnes() throws Exception {
    String today = java.time.LocalDate.now().toString();
    exec("CREATE TABLE db.e (id BIGINT, dt STRING) PARTITIONED BY (dt)");
    exec(
        "INSERT INTO db.e VALUES (1, '2000-01-01'), (2, '2000-01-02'), (3, '"
            + today
            + "'),"
            + " (4, 'no-date')");
    String call = "CALL c.sys.expire_partitions(`table` => 'db.e', expiration_time => ";
    assertThat(query(call + "'1 d', timestamp_formatter => 'yyyy-MM-dd')"))
        .containsExactly("+I[dt=2000-01-01]", "+I[dt=2000-01-02]");
    assertThat(query("SELECT id FROM db.e")).containsExactly("+I[3]", "+I[4]");
    assertThat(table("e").latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    assertThat(query(call + "'1 d')")).isEmpty();

    assertThatThrownBy(() -> query(call + "'soon')"))
        .hasStackTraceContaining("Argument 'expiration_time': 'soon' is not a duration like ");
    assertThatThrownBy(() -> query(call + "'1 d', expire_strategy => 'x')"))
        .hasStackTraceContaining("Argument 'expire_strategy': Unknown expire strategy 'x'");
    assertThatThrownBy(() -> query(call + "'1 d', timestamp_pattern => '$day')"))
        .hasStackTraceContaining("Argument 'timestamp_pattern': '$day' names $day, which is not");
    assertThat(query("SELECT id FROM db.e")).containsExactly("+I[3]", "+I[4]");

    // Paimon's partition.expiration-time: the writers drop them (here at every commit's check)
    exec(
        "ALTER TABLE db.e SET ('partition.expiration-time' = '1 d',"
            + " 'partition.expiration-check-interval' = '0 s')");
    exec("INSERT INTO db.e VALUES (5, '2000-01-03'), (6, '" + today + "')");
    assertThat(query("SELECT id FROM db.e")).containsExactly("+I[3]", "+I[4]", "+I[6]");
    assertThat(table("e").latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    assertThatThrownBy(() -> exec("ALTER TABLE db.e SET ('partition.timestamp-pattern' = '$day')"))
        .hasStackTraceContaining(
            "Option 'partition.timestamp-pattern': '$day' names $day, which is not a partition"
                + " column");
  }

  /**
   * Paimon's consumer procedures: {@code reset_consumer} creates, moves and (without a snapshot)
   * deletes a consumer, {@code clear_consumers} deletes those its patterns select; each returns a
   * row per consumer changed, {@code t$consumers} shows the result, and bad arguments name the
   * argument and change nothing.
   */
  @Test
  void consumerProceduresResetDeleteAndClear() throws Exception {
    createAndFill(); // snapshots 1 to 4
    String reset = "CALL c.sys.reset_consumer(`table` => 'db.t', consumer_id => ";
    assertThat(query(reset + "'etl-1', next_snapshot_id => 2)"))
        .containsExactly("+I[etl-1, null, 2, created]");
    assertThat(query(reset + "'etl-1', next_snapshot_id => 5)"))
        .containsExactly("+I[etl-1, 2, 5, reset]");
    assertThat(query(reset + "'etl-2', next_snapshot_id => 3)"))
        .containsExactly("+I[etl-2, null, 3, created]");
    assertThat(query(reset + "'app', next_snapshot_id => 4)"))
        .containsExactly("+I[app, null, 4, created]");
    assertThat(query("SELECT consumer_id, next_snapshot_id FROM db.`t$consumers`"))
        .containsExactly("+I[app, 4]", "+I[etl-1, 5]", "+I[etl-2, 3]");

    assertThatThrownBy(() -> query(reset + "'app', next_snapshot_id => 9)"))
        .hasStackTraceContaining(
            "Argument 'next_snapshot_id': Snapshot 9 is not one a read can resume at; db.t has"
                + " snapshots 1 to 4: give one of them, or 5 to read only later commits");
    assertThatThrownBy(() -> query(reset + "'nobody')"))
        .hasStackTraceContaining(
            "Argument 'consumer_id': db.t has no consumer 'nobody'; its consumers are [app, etl-1,"
                + " etl-2]");
    assertThatThrownBy(() -> query(reset + "'../x', next_snapshot_id => 1)"))
        .hasStackTraceContaining("Argument 'consumer_id': Invalid consumer-id '../x'");
    assertThatThrownBy(
            () ->
                query(
                    "CALL c.sys.clear_consumers(`table` => 'db.t', including_consumers =>"
                        + " 'etl[')"))
        .hasStackTraceContaining(
            "Argument 'including_consumers': 'etl[' is not a regular expression");
    assertThat(query("SELECT consumer_id, next_snapshot_id FROM db.`t$consumers`"))
        .containsExactly("+I[app, 4]", "+I[etl-1, 5]", "+I[etl-2, 3]");

    assertThat(
            query(
                "CALL c.sys.clear_consumers(`table` => 'db.t', including_consumers => 'etl.*',"
                    + " excluding_consumers => 'etl-2')"))
        .containsExactly("+I[etl-1, 5, null, deleted]");
    assertThat(query(reset + "'app')")).containsExactly("+I[app, 4, null, deleted]");
    assertThat(query("CALL c.sys.clear_consumers(`table` => 'db.t')"))
        .containsExactly("+I[etl-2, 3, null, deleted]");
    assertThat(query("SELECT * FROM db.`t$consumers`")).isEmpty();
  }

  /**
   * Paimon's tag procedures (and, last, its automatic tags): {@code create_tag} tags the latest or
   * a given snapshot, {@code t$tags} lists the tags by name, a batch read with {@code
   * scan.tag-name} reads the tag's snapshot after later commits and after expiry retired it, and
   * {@code delete_tag} deletes a list of tags and the files only they held; bad arguments name the
   * argument and change nothing.
   */
  @Test
  void tagProceduresCreateListReadAndDelete() throws Exception {
    createAndFill(); // snapshots 1 to 4, two rows each
    String create = "CALL c.sys.create_tag(`table` => 'db.t', tag => ";
    assertThat(query(create + "'v2', snapshot_id => 2)")).containsExactly("+I[v2, 2, created]");
    assertThat(query(create + "'latest')")).containsExactly("+I[latest, 4, created]");
    Table t = table("t");
    // Paimon's create_tag_from_timestamp: the oldest snapshot committed at or after the time
    String fromTime = "CALL c.sys.create_tag_from_timestamp(`table` => 'db.t', tag => ";
    long third = t.snapshotManager().snapshot(3).timeMillis();
    assertThat(query(fromTime + "'at3', `timestamp` => " + third + ")"))
        .containsExactly("+I[at3, 3, created]");
    assertThat(query(fromTime + "'from0', `timestamp` => 0)"))
        .containsExactly("+I[from0, 1, created]");
    assertThatThrownBy(() -> query(fromTime + "'late', `timestamp` => 9999999999999)"))
        .hasStackTraceContaining(
            "Argument 'timestamp': No snapshot of db.t was committed at or after");
    assertThatThrownBy(() -> query(fromTime + "'x', `timestamp` => 0, time_retained => 'soon')"))
        .hasStackTraceContaining("Argument 'time_retained': 'soon' is not a duration");
    query("CALL c.sys.delete_tag(`table` => 'db.t', tag => 'at3,from0')");
    TagManager tags = new TagManager(t.store().fileIO(), t.store().paths());
    List<String> expected = new ArrayList<>();
    for (String name : List.of("latest", "v2")) {
      TagManager.Tag tag = tags.get(name).orElseThrow();
      Snapshot s = t.snapshotManager().snapshot(tag.snapshot().id());
      expected.add(
          "+I["
              + name
              + ", "
              + s.id()
              + ", 0, "
              + utc(s.timeMillis())
              + ", "
              + s.totalRecordCount()
              + ", "
              + utc(tag.createdMillis())
              + ", null]");
    }
    assertThat(rows(tEnv.executeSql("SELECT * FROM db.`t$tags`")))
        .as("sorted by name")
        .containsExactlyElementsOf(expected);
    assertThat(query("SELECT tag_name, snapshot_id, record_count FROM db.`t$tags`"))
        .containsExactly("+I[latest, 4, 8]", "+I[v2, 2, 4]");

    String v2 = "SELECT * FROM db.t /*+ OPTIONS('scan.tag-name' = 'v2') */";
    String latest = "SELECT * FROM db.t /*+ OPTIONS('scan.tag-name' = 'latest') */";
    List<String> asOf2 = query("SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id' = '2') */");
    List<String> asOf4 = query("SELECT * FROM db.t");
    assertThat(asOf2).hasSize(4);
    exec("INSERT OVERWRITE db.t VALUES (100, 'a', 'z'), (200, 'b', 'w')"); // snapshot 5
    assertThat(query(v2)).isEqualTo(asOf2);
    assertThat(query(latest)).isEqualTo(asOf4).hasSize(8);
    query("CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 1, max_deletes => 1)");
    assertThat(t.snapshotManager().listIds()).as("max_deletes").containsExactly(2L, 3L, 4L, 5L);
    query("CALL c.sys.expire_snapshots(`table` => 'db.t', retain_max => 1)");
    assertThat(t.snapshotManager().listIds()).containsExactly(5L);
    assertThat(query(v2)).as("the tag keeps its files from expiry").isEqualTo(asOf2);
    assertThat(query(latest)).isEqualTo(asOf4);

    assertThatThrownBy(() -> query(create + "'latest')"))
        .hasStackTraceContaining(
            "Argument 'tag': Tag 'latest' of db.t exists already; delete it first");
    assertThatThrownBy(() -> query(create + "'../x')"))
        .hasStackTraceContaining("Argument 'tag': Invalid tag name '../x': use letters, digits");
    assertThatThrownBy(() -> query(create + "'12')"))
        .hasStackTraceContaining("Argument 'tag': Invalid tag name '12': a tag name of digits");
    assertThatThrownBy(() -> query(create + "'v3', snapshot_id => 3)"))
        .hasStackTraceContaining(
            "Argument 'snapshot_id': Snapshot 3 is not there; db.t has snapshots 5 to 5");
    assertThatThrownBy(() -> query(create + "'v9', snapshot_id => 9)"))
        .hasStackTraceContaining("Argument 'snapshot_id': Snapshot 9 is not there");
    assertThatThrownBy(() -> query(create + "'v5', time_retained => '0 s')"))
        .hasStackTraceContaining("Argument 'time_retained': must be longer than zero");
    String delete = "CALL c.sys.delete_tag(`table` => 'db.t', tag => ";
    assertThatThrownBy(() -> query(delete + "'v2,nope')"))
        .hasStackTraceContaining(
            "Argument 'tag': db.t has no tag 'nope'; its tags are [latest, v2]");
    assertThatThrownBy(() -> query(delete + "'v2,a/b')"))
        .hasStackTraceContaining("Argument 'tag': Invalid tag name 'a/b'");
    assertThatThrownBy(() -> query(delete + "' , ')"))
        .hasStackTraceContaining("Argument 'tag': Give the name of a tag to delete");
    assertThat(query("SELECT tag_name, snapshot_id FROM db.`t$tags`"))
        .as("nothing changed")
        .containsExactly("+I[latest, 4]", "+I[v2, 2]");

    assertThat(dataFiles()).hasSizeGreaterThan(2);
    assertThat(rows(tEnv.executeSql(delete + "' latest , v2,')")))
        .containsExactly("+I[latest, 4, deleted]", "+I[v2, 2, deleted]");
    assertThat(query("SELECT * FROM db.`t$tags`")).isEmpty();
    assertThat(dataFiles())
        .as("the files only the tags held are deleted")
        .containsExactlyInAnyOrderElementsOf(
            query("SELECT file_path FROM db.`t$files`").stream()
                .map(r -> r.substring(r.lastIndexOf('/') + 1, r.length() - 1))
                .toList());
    assertThat(query("SELECT id FROM db.t")).containsExactly("+I[100]", "+I[200]");
    assertThatThrownBy(() -> query(v2))
        .hasStackTraceContaining("Tag 'v2' (scan.tag-name) of table ")
        .hasStackTraceContaining("db.db/t is not there; the table has no tag");

    // Paimon's automatic tags: on a table without one, the next commit tags the earliest snapshot
    // with the day before it was committed
    exec("ALTER TABLE db.t SET ('tag.automatic-creation' = 'process-time')");
    exec("INSERT INTO db.t VALUES (300, 'a', 'y')");
    Snapshot earliest = table("t").snapshotManager().snapshot(5);
    String yesterday =
        java.time.LocalDateTime.ofInstant(
                Instant.ofEpochMilli(earliest.timeMillis()), java.time.ZoneId.systemDefault())
            .toLocalDate()
            .minusDays(1)
            .toString();
    assertThat(query("SELECT tag_name, snapshot_id FROM db.`t$tags`"))
        .containsExactly("+I[" + yesterday + ", " + earliest.id() + "]");
    assertThatThrownBy(() -> exec("ALTER TABLE db.t SET ('tag.automatic-creation' = 'event-time')"))
        .hasStackTraceContaining("allowed: [none, process-time, watermark, batch]");
  }

  /**
   * Paimon's rollback procedures: {@code rollback_to} a snapshot or a tag and {@code
   * rollback_to_timestamp} make one OVERWRITE snapshot that reads what the target read (the later
   * snapshots stay, so a rollback can be rolled back); a rerun finds it done; bad arguments name
   * the argument and change nothing.
   */
  @Test
  void rollbackProceduresRestoreASnapshotATagOrAPointInTime() throws Exception {
    createAndFill(); // snapshots 1 to 4, two rows (two files) each
    query("CALL c.sys.create_tag(`table` => 'db.t', tag => 'v2', snapshot_id => 2)");
    List<String> asOf2 = query("SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id' = '2') */");
    List<String> asOf4 = query("SELECT * FROM db.t");
    exec("INSERT OVERWRITE db.t VALUES (100, 'a', 'z'), (200, 'b', 'w')"); // snapshot 5
    List<String> asOf5 = query("SELECT * FROM db.t");
    String to = "CALL c.sys.rollback_to(`table` => 'db.t', ";
    // previous, target, new snapshot, data files removed, copied back
    assertThat(query(to + "snapshot_id => 4)")).containsExactly("+I[5, 4, 6, 2, 8]");
    assertThat(query("SELECT * FROM db.t")).containsExactlyInAnyOrderElementsOf(asOf4);
    assertThat(query(to + "tag => 'v2')")).containsExactly("+I[6, 2, 7, 8, 4]");
    assertThat(query("SELECT * FROM db.t")).containsExactlyInAnyOrderElementsOf(asOf2);
    String toTime = "CALL c.sys.rollback_to_timestamp(`table` => 'db.t', `timestamp` => ";
    long fifth = table("t").snapshotManager().snapshot(5).timeMillis();
    assertThat(query(toTime + fifth + ")")).containsExactly("+I[7, 5, 8, 4, 2]");
    assertThat(query("SELECT * FROM db.t")).containsExactlyInAnyOrderElementsOf(asOf5);
    assertThat(query(toTime + fifth + ")"))
        .as("done already")
        .containsExactly("+I[8, 5, null, 0, 0]");
    assertThat(query("SELECT snapshot_id, commit_kind FROM db.`t$snapshots` WHERE snapshot_id > 5"))
        .containsExactly("+I[6, OVERWRITE]", "+I[7, OVERWRITE]", "+I[8, OVERWRITE]");

    assertThatThrownBy(() -> query("CALL c.sys.rollback_to(`table` => 'db.t')"))
        .hasStackTraceContaining("Argument 'tag': give either tag or snapshot_id");
    assertThatThrownBy(() -> query(to + "tag => 'v2', snapshot_id => 2)"))
        .hasStackTraceContaining("Argument 'snapshot_id': give either tag or snapshot_id");
    assertThatThrownBy(() -> query(to + "tag => 'nope')"))
        .hasStackTraceContaining("Argument 'tag': db.t has no tag 'nope'; its tags are [v2]");
    assertThatThrownBy(() -> query(to + "snapshot_id => 99)"))
        .hasStackTraceContaining(
            "Argument 'snapshot_id': Snapshot 99 is not there; db.t has snapshots 1 to 8");
    assertThatThrownBy(() -> query(toTime + "0)"))
        .hasStackTraceContaining(
            "Argument 'timestamp': No snapshot of db.t still there was committed at or before");
    assertThat(table("t").snapshotManager().listIds()).as("nothing changed").hasSize(8);
    assertThat(query("SELECT * FROM db.t")).containsExactlyInAnyOrderElementsOf(asOf5);
  }

  /**
   * Watermarks through SQL: a batch INSERT records {@code end-input.watermark} (a hint), a later
   * one without it keeps the table's; {@code t$snapshots} shows them; {@code
   * create_tag_from_watermark} and {@code rollback_to_watermark} find their snapshots by them, and
   * refuse a watermark no snapshot reaches, naming the watermarks there are.
   */
  @Test
  void watermarksInSnapshotsTagsAndRollbacks() throws Exception {
    exec("CREATE TABLE db.w (id BIGINT, v STRING)");
    exec("INSERT INTO db.w VALUES (1, 'a')"); // no watermark
    exec("INSERT INTO db.w /*+ OPTIONS('end-input.watermark' = '1000') */ VALUES (2, 'b')");
    exec("INSERT INTO db.w /*+ OPTIONS('end-input.watermark' = '2000') */ VALUES (3, 'c')");
    exec("INSERT INTO db.w /*+ OPTIONS('end-input.watermark' = '1500') */ VALUES (4, 'd')");
    assertThat(query("SELECT snapshot_id, `watermark` FROM db.`w$snapshots`"))
        .containsExactly("+I[1, null]", "+I[2, 1000]", "+I[3, 2000]", "+I[4, 2000]");
    String tag = "CALL c.sys.create_tag_from_watermark(`table` => 'db.w', tag => ";
    assertThat(query(tag + "'w1', `watermark` => 1001)")).containsExactly("+I[w1, 3, created]");
    assertThat(query(tag + "'w0', `watermark` => 0, time_retained => '1 d')"))
        .containsExactly("+I[w0, 2, created]");
    assertThatThrownBy(() -> query(tag + "'w9', `watermark` => 2001)"))
        .hasStackTraceContaining(
            "Argument 'watermark': No snapshot of db.w has a watermark at or after 2001; the"
                + " watermarks of its snapshots still there go from 1000 (snapshot 2) to 2000"
                + " (snapshot 4)");
    // time travel by watermark: the oldest snapshot whose watermark is at or after it
    assertThat(query("SELECT * FROM db.w /*+ OPTIONS('scan.watermark' = '1001') */"))
        .containsExactly("+I[1, a]", "+I[2, b]", "+I[3, c]");
    assertThatThrownBy(() -> query("SELECT * FROM db.w /*+ OPTIONS('scan.watermark' = '2001') */"))
        .hasStackTraceContaining(
            "has a watermark at or after 2001 (scan.watermark); the watermarks");
    String back = "CALL c.sys.rollback_to_watermark(`table` => 'db.w', `watermark` => ";
    assertThatThrownBy(() -> query(back + "999)"))
        .hasStackTraceContaining(
            "Argument 'watermark': No snapshot of db.w still there has a watermark at or before"
                + " 999; the watermarks");
    // previous, target, new snapshot, data files removed, copied back
    assertThat(query(back + "1999)")).containsExactly("+I[4, 2, 5, 2, 0]");
    assertThat(query("SELECT * FROM db.w")).containsExactly("+I[1, a]", "+I[2, b]");
    assertThat(query("SELECT snapshot_id, `watermark` FROM db.`w$snapshots` WHERE snapshot_id = 5"))
        .as("a rollback keeps the table's watermark")
        .containsExactly("+I[5, 2000]");
    assertThat(query("SELECT * FROM db.w /*+ OPTIONS('scan.tag-name' = 'w1') */"))
        .containsExactly("+I[1, a]", "+I[2, b]", "+I[3, c]");
  }

  /**
   * {@code replace_tag} moves a tag to another snapshot; {@code tag.automatic-creation = batch}
   * tags the latest snapshot of each batch INSERT {@code batch-write-<day>}, replacing the day's.
   */
  @Test
  void replaceTagAndBatchTags() throws Exception {
    exec("CREATE TABLE db.b (id BIGINT) WITH ('tag.automatic-creation' = 'batch')");
    exec("INSERT INTO db.b VALUES (1)");
    String day =
        "batch-write-"
            + java.time.LocalDate.ofInstant(
                Instant.ofEpochMilli(table("b").snapshotManager().snapshot(1).timeMillis()),
                java.time.ZoneId.systemDefault());
    assertThat(query("SELECT tag_name, snapshot_id FROM db.`b$tags`"))
        .containsExactly("+I[" + day + ", 1]");
    exec("INSERT INTO db.b VALUES (2)");
    assertThat(query("SELECT tag_name, snapshot_id FROM db.`b$tags`"))
        .as("the day's tag keeps its last load")
        .containsExactly("+I[" + day + ", 2]");
    String replace = "CALL c.sys.replace_tag(`table` => 'db.b', tag => ";
    assertThat(query(replace + "'" + day + "', snapshot_id => 1)"))
        .containsExactly("+I[" + day + ", 1, replaced]");
    assertThat(query("SELECT * FROM db.b /*+ OPTIONS('scan.tag-name' = '" + day + "') */"))
        .containsExactly("+I[1]");
    assertThatThrownBy(() -> query(replace + "'nope')"))
        .hasStackTraceContaining(
            "Argument 'tag': db.b has no tag 'nope'; its tags are [" + day + "]");
    assertThatThrownBy(() -> query(replace + "'" + day + "', snapshot_id => 9)"))
        .hasStackTraceContaining("Argument 'snapshot_id': Snapshot 9 is not there");
  }

  /**
   * Paimon's {@code time_retained} and {@code expire_tags}: a tag made with a retention shows it in
   * {@code t$tags}; {@code expire_tags} deletes the tags whose time ran out, and with {@code
   * older_than} every tag made before it.
   */
  @Test
  void tagsWithATimeRetainedAndExpireTags() throws Exception {
    createAndFill();
    String create = "CALL c.sys.create_tag(`table` => 'db.t', tag => ";
    query(create + "'keep')");
    assertThat(query(create + "'short', snapshot_id => 2, time_retained => '90 min')"))
        .containsExactly("+I[short, 2, created]");
    assertThat(query("SELECT tag_name, time_retained FROM db.`t$tags`"))
        .containsExactly("+I[keep, null]", "+I[short, 90 min]");
    String rename = "CALL c.sys.rename_tag(`table` => 'db.t', tag_name => ";
    assertThat(query(rename + "'short', target_tag_name => 'brief')"))
        .containsExactly("+I[brief, 2, renamed]");
    assertThat(query("SELECT tag_name, time_retained FROM db.`t$tags`"))
        .as("the same tag, renamed")
        .containsExactly("+I[brief, 90 min]", "+I[keep, null]");
    assertThatThrownBy(() -> query(rename + "'brief', target_tag_name => 'keep')"))
        .hasStackTraceContaining(
            "Argument 'target_tag_name': Tag 'keep' of db.t exists already; delete it first");
    assertThatThrownBy(() -> query(rename + "'short', target_tag_name => 'x')"))
        .hasStackTraceContaining("Argument 'tag_name': db.t has no tag 'short'; its tags are");
    assertThatThrownBy(() -> query(rename + "'brief', target_tag_name => '12')"))
        .hasStackTraceContaining("Argument 'target_tag_name': Invalid tag name '12'");
    assertThat(query("CALL c.sys.expire_tags(`table` => 'db.t')")).as("none ran out").isEmpty();
    assertThat(
            query("CALL c.sys.expire_tags(`table` => 'db.t', older_than => '2000-01-01 00:00:00')"))
        .isEmpty();
    assertThat(
            query("CALL c.sys.expire_tags(`table` => 'db.t', older_than => '2999-01-01 00:00:00')"))
        .containsExactlyInAnyOrder("+I[keep, 4, expired]", "+I[brief, 2, expired]");
    assertThat(query("SELECT * FROM db.`t$tags`")).isEmpty();
    assertThatThrownBy(() -> query("CALL c.sys.expire_tags(`table` => 'db.t', older_than => 'x')"))
        .hasStackTraceContaining("Argument 'older_than': 'x' is neither a timestamp");
    exec("ALTER TABLE db.t SET ('tag.default-time-retained' = '7 d')");
    query(create + "'weekly')");
    query(create + "'forever', time_retained => '200000 d')"); // beyond what nanoseconds hold
    assertThat(query("SELECT tag_name, time_retained FROM db.`t$tags`"))
        .containsExactly("+I[forever, 200000 d]", "+I[weekly, 7 d]");
    assertThatThrownBy(() -> exec("ALTER TABLE db.t SET ('tag.default-time-retained' = '0 s')"))
        .hasStackTraceContaining("tag.default-time-retained");
  }

  private static String utc(long millis) {
    return Instant.ofEpochMilli(millis).atZone(ZoneOffset.UTC).toLocalDateTime().toString();
  }

  /** The names of the data files under db.t's directory. */
  private List<String> dataFiles() throws Exception {
    try (var files = Files.walk(warehouse.resolve("db.db/t"))) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.startsWith("data-") && n.endsWith(".parquet"))
          .toList();
    }
  }

  /** A real orphan removal says it deleted; its dry run says it kept. */
  @Test
  void removeOrphanFilesSaysWhatItDid() throws Exception {
    createAndFill();
    Path orphan = warehouse.resolve("db.db/t/p=a/bucket-0/data-orphan-0.parquet");
    Files.writeString(orphan, "not referenced");
    Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minusSeconds(3 * 86400)));
    String call = "CALL c.sys.remove_orphan_files(`table` => 'db.t', older_than => '1 d'";
    assertThat(rows(tEnv.executeSql(call + ", dry_run => true)")))
        .singleElement()
        .satisfies(r -> assertThat(r).endsWith("/data-orphan-0.parquet, found (dry run, kept)]"));
    assertThat(orphan).exists();
    assertThat(rows(tEnv.executeSql(call + ")")))
        .singleElement()
        .satisfies(r -> assertThat(r).endsWith("/data-orphan-0.parquet, deleted]"));
    assertThat(orphan).doesNotExist();
  }

  @Test
  void insertOverwritePartition() throws Exception {
    createAndFill();
    exec("INSERT OVERWRITE db.t PARTITION (p = 'a') SELECT 100, 'z'");
    assertThat(query("SELECT id, p, v FROM db.t WHERE p = 'a'")).containsExactly("+I[100, a, z]");
    assertThat(query("SELECT count(*) FROM db.t WHERE p = 'b'")).containsExactly("+I[4]");
    assertThat(table("t").latestSnapshot().orElseThrow().commitKind())
        .isEqualTo(CommitKind.OVERWRITE);
    // Dynamic overwrite: only the partitions written to are replaced.
    exec("INSERT OVERWRITE db.t SELECT 200, 'b', 'w'");
    assertThat(query("SELECT id, p, v FROM db.t"))
        .containsExactly("+I[100, a, z]", "+I[200, b, w]");
  }

  /**
   * {@code dynamic-partition-overwrite} (Paimon's name and default true): only the partitions
   * written to are replaced, also with a PARTITION clause (an empty query replaces nothing); false
   * replaces what the clause names (all of its sub-partitions), or the whole table without one.
   */
  @Test
  void insertOverwriteFollowsDynamicPartitionOverwrite() throws Exception {
    exec("CREATE TABLE db.o (id INT, dt STRING, hh INT) PARTITIONED BY (dt, hh)");
    exec("INSERT INTO db.o VALUES (1, 'd1', 1), (2, 'd1', 2), (3, 'd2', 1)");
    exec("INSERT OVERWRITE db.o PARTITION (dt = 'd1') SELECT 4, 1");
    assertThat(query("SELECT * FROM db.o"))
        .containsExactly("+I[2, d1, 2]", "+I[3, d2, 1]", "+I[4, d1, 1]");
    exec("INSERT OVERWRITE db.o PARTITION (dt = 'd2') SELECT id, hh FROM db.o WHERE false");
    assertThat(query("SELECT count(*) FROM db.o")).containsExactly("+I[3]");
    String staticMode = " /*+ OPTIONS('dynamic-partition-overwrite' = 'false') */ ";
    exec("INSERT OVERWRITE db.o" + staticMode + "PARTITION (dt = 'd1') SELECT 5, 7");
    assertThat(query("SELECT * FROM db.o")).containsExactly("+I[3, d2, 1]", "+I[5, d1, 7]");
    exec(
        "INSERT OVERWRITE db.o"
            + staticMode
            + "PARTITION (dt = 'd2') SELECT id, hh FROM db.o WHERE false");
    assertThat(query("SELECT * FROM db.o")).containsExactly("+I[5, d1, 7]");
    exec("INSERT INTO db.o VALUES (8, 'd2', 2)");
    exec("INSERT OVERWRITE db.o" + staticMode + "SELECT 6, 'd3', 1");
    assertThat(query("SELECT * FROM db.o")).containsExactly("+I[6, d3, 1]");
  }

  /**
   * {@code DISTRIBUTED BY [HASH](k) INTO n BUCKETS} sets {@code bucket} and {@code bucket-key}, as
   * in Paimon; by range, or against the options in WITH, it is refused. It was ignored.
   */
  @Test
  void distributedByMapsToBucketOptions() throws Exception {
    exec("CREATE TABLE db.d1 (id INT, v STRING) DISTRIBUTED BY HASH(id) INTO 4 BUCKETS");
    assertThat(table("d1").schema().options())
        .containsEntry("bucket", "4")
        .containsEntry("bucket-key", "id");
    exec(
        "CREATE TABLE db.d2 (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)"
            + " DISTRIBUTED INTO 3 BUCKETS");
    assertThat(table("d2").schema().options()).containsEntry("bucket", "3");
    exec("INSERT INTO db.d1 VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    assertThat(query("SELECT id FROM db.d1")).containsExactly("+I[1]", "+I[2]", "+I[3]");
    assertThatThrownBy(
            () ->
                exec(
                    "CREATE TABLE db.d3 (id INT, v STRING) DISTRIBUTED BY HASH(id) INTO 4 BUCKETS"
                        + " WITH ('bucket' = '2')"))
        .hasStackTraceContaining(
            "INTO n BUCKETS says 'bucket' = '4' but the option in WITH is '2'");
    assertThatThrownBy(
            () ->
                exec(
                    "CREATE TABLE db.d4 (id INT, v STRING) DISTRIBUTED BY RANGE(id) INTO 2 BUCKETS"))
        .hasStackTraceContaining("DISTRIBUTED BY RANGE is not supported");
    assertThatThrownBy(() -> exec("CREATE TABLE db.d5 (id INT, v STRING) DISTRIBUTED BY HASH(id)"))
        .hasStackTraceContaining("DISTRIBUTED BY needs INTO n BUCKETS");
  }

  /** A database comment, which a directory cannot keep, is refused rather than dropped unseen. */
  @Test
  void createDatabaseRefusesAComment() throws Exception {
    assertThatThrownBy(() -> exec("CREATE DATABASE commented COMMENT 'sales'"))
        .hasStackTraceContaining("Sediment databases take no comment, got 'sales'");
    assertThat(new FileSystemCatalog(warehouse.toString()).databaseExists("commented")).isFalse();
    exec("CREATE DATABASE plain");
    assertThat(new FileSystemCatalog(warehouse.toString()).databaseExists("plain")).isTrue();
  }

  /**
   * INSERT OVERWRITE into primary-key tables whose writers compact what they write (deletion
   * vectors and the lookup producer move level 0 up at once; a small buffer hits the stop trigger):
   * the writer ignores the table's files, its compactions are folded into the one OVERWRITE
   * snapshot. It failed before ("An overwrite commit takes only new files").
   */
  @Test
  void insertOverwriteIntoPrimaryKeyTables() throws Exception {
    String[] kinds = {
      "'deletion-vectors.enabled' = 'true'",
      "'changelog-producer' = 'lookup'",
      "'write-buffer-size' = '1 kb', 'num-sorted-run.stop-trigger' = '2'"
    };
    for (int i = 0; i < kinds.length; i++) {
      String t = "db.pk" + i;
      exec(
          "CREATE TABLE "
              + t
              + " (id INT, p STRING, v STRING, PRIMARY KEY (id, p) NOT ENFORCED)"
              + " PARTITIONED BY (p) WITH ('bucket' = '2', "
              + kinds[i]
              + ")");
      exec(
          "INSERT INTO "
              + t
              + " SELECT id, IF(id < 100, 'a', 'b'), 'old' FROM"
              + " (VALUES (1), (2), (150)) AS x(id)");
      List<String> values = new ArrayList<>();
      List<String> expected = new ArrayList<>();
      for (int n = 2; n <= 60; n++) {
        values.add("(" + n + ", 'a', 'new" + n + "')");
        expected.add("+I[" + n + ", a, new" + n + "]");
      }
      exec("INSERT OVERWRITE " + t + " VALUES " + String.join(", ", values));
      expected.add("+I[150, b, old]");
      assertThat(query("SELECT * FROM " + t))
          .as(kinds[i])
          .containsExactlyInAnyOrderElementsOf(expected);
      assertThat(table("pk" + i).latestSnapshot().orElseThrow().commitKind())
          .isEqualTo(CommitKind.OVERWRITE);
    }
  }

  @Test
  void sqlCommandRunsStatementsAndPrintsTables() {
    String out =
        sql(
            warehouse.toString(),
            "CREATE TABLE db.q (id INT, name STRING);"
                + " INSERT INTO db.q VALUES (1, 'a;b'), (2, 'c');"
                + " SELECT * FROM db.q ORDER BY id");
    assertThat(out).contains("OK").contains("a;b").contains("name |").contains("2 rows in set");
  }

  /** The walk-through of docs/flink-sql.md, statement for statement. */
  @Test
  void docsWalkThroughRuns() {
    String out =
        sql(
            warehouse.resolve("demo").toUri().toString(),
            "CREATE DATABASE db;"
                + " CREATE TABLE db.events (id BIGINT, p STRING, v STRING) PARTITIONED BY (p)"
                + "   WITH ('compaction.min.file-num' = '2');"
                + " INSERT INTO db.events VALUES (1, 'a', 'x'), (2, 'b', 'y');"
                + " INSERT INTO db.events VALUES (3, 'a', 'x'), (4, 'b', 'y');"
                + " INSERT INTO db.events VALUES (5, 'a', 'x'), (6, 'b', 'y');"
                + " SHOW PARTITIONS db.events;"
                + " CALL sediment.sys.compact(`table` => 'db.events', dry_run => true);"
                + " CALL sediment.sys.compact(`table` => 'db.events', partitions => 'p=a');"
                + " CALL sediment.sys.compact(`table` => 'db.events');"
                + " SELECT p, count(*) AS n FROM db.events GROUP BY p;"
                + " CALL sediment.sys.expire_snapshots(`table` => 'db.events', retain_max => 1);"
                + " SELECT * FROM db.events WHERE p = 'b'");
    assertThat(out).contains("p=a").contains("p=b").contains("3 rows in set");
  }

  /** {@code sediment sql --warehouse W -e STATEMENTS}: what it prints; it must succeed. */
  private static String sql(String warehouse, String statements) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        SedimentCli.run(
            new String[] {"sql", "--warehouse", warehouse, "-e", statements},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }
}
