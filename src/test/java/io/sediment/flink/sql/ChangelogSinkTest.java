package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.StreamingJobs.FailOnce;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A changelog from Flink SQL into primary-key tables: an aggregation's updates, a CDC stream with
 * every row kind into each merge engine (against a model of the engine), and the statements the
 * sink refuses at planning.
 */
class ChangelogSinkTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path warehouse;

  private StreamExecutionEnvironment env;

  private static final TypeInformation<Row> CDC_TYPE =
      Types.ROW_NAMED(new String[] {"k", "v", "s"}, Types.LONG, Types.INT, Types.STRING);

  private StreamTableEnvironment streaming(int parallelism) {
    env = StreamingJobs.restarting(parallelism, 100);
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG c WITH ('type' = 'sediment', 'warehouse' = '" + warehouse.toUri() + "')");
    tEnv.executeSql("CREATE DATABASE c.db");
    return tEnv;
  }

  private Table table(String name) {
    return new FileSystemCatalog(warehouse.toString()).getTable("db." + name);
  }

  private static TreeMap<Long, String> rowsByKey(Table table) {
    TreeMap<Long, String> out = new TreeMap<>();
    for (RowData r : TestTables.readAll(table)) {
      String row = TestTables.render(table.rowType(), r);
      assertThat(out.put(r.getLong(0), row)).as("key %s twice", r.getLong(0)).isNull();
    }
    return out;
  }

  /**
   * {@code GROUP BY ... COUNT(*)} in streaming mode, with a failure after a committed checkpoint:
   * deduplicate takes the upserts, aggregation ({@code sum}) the retractions too; the counts are
   * exact either way.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"deduplicate", "aggregation"})
  void groupByCountsAreExactAcrossAFailover(String engine) throws Exception {
    FailOnce.reset(true);
    long n = 1500;
    StreamTableEnvironment tEnv = streaming(2);
    String agg = engine.equals("aggregation") ? ", 'fields.c.aggregate-function' = 'sum'" : "";
    tEnv.executeSql(
        "CREATE TABLE c.db.cnt (k BIGINT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH"
            + " ('bucket' = '2', 'merge-engine' = '"
            + engine
            + "'"
            + agg
            + ")");
    DataStream<Long> ids =
        env.fromSource(
                new DataGeneratorSource<>(
                    x -> x, n, RateLimiterStrategy.perSecond(500), Types.LONG),
                WatermarkStrategy.noWatermarks(),
                "ids")
            .map(new FailOnce<Long>())
            .returns(Types.LONG);
    tEnv.createTemporaryView("ids", ids);
    tEnv.executeSql("INSERT INTO c.db.cnt SELECT f0 % 7, COUNT(*) FROM ids GROUP BY f0 % 7")
        .await();

    assertThat(FailOnce.FAILED).as("the injected failure happened").isTrue();
    TreeMap<Long, String> expected = new TreeMap<>();
    for (long k = 0; k < 7; k++) {
      long count = n / 7 + (k < n % 7 ? 1 : 0);
      expected.put(k, "(" + k + "," + count + ")");
    }
    assertThat(rowsByKey(table("cnt"))).isEqualTo(expected);
  }

  static Stream<Arguments> engines() {
    return Stream.of(
        Arguments.of("deduplicate", ""),
        Arguments.of("first-row", ", 'ignore-delete' = 'true'"),
        Arguments.of("partial-update", ", 'partial-update.remove-record-on-delete' = 'true'"),
        Arguments.of("aggregation", ", 'fields.v.aggregate-function' = 'sum'"),
        Arguments.of(
            "aggregation",
            ", 'fields.v.aggregate-function' = 'sum', 'aggregation.remove-record-on-delete' ="
                + " 'true'"));
  }

  /**
   * A CDC stream (+I, -U/+U pairs, -D, re-inserts; some fields null) into each engine: the table
   * holds what the engine's semantics, written out here, make of the changes in order.
   */
  @ParameterizedTest(name = "{0}{1}")
  @MethodSource("engines")
  void aCdcStreamLandsAsTheEngineSays(String engine, String options) throws Exception {
    StreamTableEnvironment tEnv = streaming(2);
    tEnv.executeSql(
        "CREATE TABLE c.db.t (k BIGINT, v INT, s STRING, PRIMARY KEY (k) NOT ENFORCED) WITH"
            + " ('bucket' = '3', 'merge-engine' = '"
            + engine
            + "'"
            + options
            + ")");
    List<Row> changes = new ArrayList<>();
    Map<Long, String> model =
        cdcAndModel(
            new Random(engine.hashCode() + options.length()),
            changes,
            engine,
            options.contains("remove-record-on-delete"));
    cdcView(tEnv, changes);
    tEnv.executeSql("INSERT INTO c.db.t SELECT k, v, s FROM cdc").await();
    assertThat(rowsByKey(table("t"))).isEqualTo(new TreeMap<>(model));
  }

  /**
   * {@code changelog-producer} = input: the sink takes the whole changelog ({@code -U} too) and a
   * streaming read from the first snapshot gives back each key's changes exactly as they came.
   */
  @Test
  void aCdcStreamIntoAnInputChangelogTableIsReadBackAsItCame() throws Exception {
    StreamTableEnvironment tEnv = streaming(2);
    tEnv.executeSql(
        "CREATE TABLE c.db.t (k BIGINT, v INT, s STRING, PRIMARY KEY (k) NOT ENFORCED) WITH"
            + " ('bucket' = '3', 'changelog-producer' = 'input')");
    List<Row> changes = new ArrayList<>();
    Map<Long, String> model = cdcAndModel(new Random(5), changes, "deduplicate", false);
    cdcView(tEnv, changes);
    tEnv.executeSql("INSERT INTO c.db.t SELECT k, v, s FROM cdc").await();
    assertThat(rowsByKey(table("t"))).isEqualTo(new TreeMap<>(model));

    Map<Long, List<String>> expected = new TreeMap<>();
    for (Row r : changes) {
      expected.computeIfAbsent((Long) r.getField(0), k -> new ArrayList<>()).add(r.toString());
    }
    Map<Long, List<String>> received = new TreeMap<>();
    try (CloseableIterator<Row> it =
        tEnv.toChangelogStream(
                tEnv.sqlQuery(
                    "SELECT * FROM c.db.t /*+ OPTIONS('scan.mode' = 'from-snapshot',"
                        + " 'scan.snapshot-id' = '1', 'continuous.discovery-interval' = '50 ms')"
                        + " */"))
            .executeAndCollect()) {
      for (int i = 0; i < changes.size(); i++) {
        Row r = it.next();
        received.computeIfAbsent((Long) r.getField(0), k -> new ArrayList<>()).add(r.toString());
      }
    }
    assertThat(received).as("every key's changes, -U included, in order").isEqualTo(expected);
  }

  /** Registers the changes as the changelog view {@code cdc} (k BIGINT key, v INT, s STRING). */
  private void cdcView(StreamTableEnvironment tEnv, List<Row> changes) {
    DataStream<Row> stream = env.fromData(changes, CDC_TYPE).setParallelism(1);
    tEnv.createTemporaryView(
        "cdc",
        tEnv.fromChangelogStream(
            stream,
            Schema.newBuilder()
                .column("k", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .primaryKey("k")
                .build(),
            ChangelogMode.all()));
  }

  /**
   * A consistent CDC stream over 30 keys and the rows the engine must hold after it. Deduplicate
   * and the remove-on-delete engines hold the source's final state (partial-update: a null field
   * keeps the older value); first-row the first insert of each key; aggregation sums {@code v} with
   * retractions subtracted and keeps the last non-null {@code s}, deletes leaving the row.
   */
  static Map<Long, String> cdcAndModel(
      Random random, List<Row> out, String engine, boolean removeOnDelete) {
    Map<Long, Object[]> source = new TreeMap<>(); // the source table's current rows
    Map<Long, Object[]> table = new TreeMap<>(); // what the engine holds
    for (int i = 0; i < 400; i++) {
      long k = random.nextInt(30);
      Object[] old = source.get(k);
      Integer v = random.nextInt(5) == 0 ? null : random.nextInt(100);
      String s = random.nextInt(5) == 0 ? null : "s" + random.nextInt(1000);
      List<Row> rows = new ArrayList<>();
      if (old == null) {
        rows.add(Row.ofKind(RowKind.INSERT, k, v, s));
        source.put(k, new Object[] {v, s});
      } else if (random.nextInt(4) == 0) {
        rows.add(Row.ofKind(RowKind.DELETE, k, old[0], old[1]));
        source.remove(k);
      } else {
        rows.add(Row.ofKind(RowKind.UPDATE_BEFORE, k, old[0], old[1]));
        rows.add(Row.ofKind(RowKind.UPDATE_AFTER, k, v, s));
        source.put(k, new Object[] {v, s});
      }
      for (Row r : rows) {
        out.add(r);
        applyToModel(table, r, engine, removeOnDelete);
      }
    }
    Map<Long, String> rendered = new TreeMap<>();
    table.forEach((k, r) -> rendered.put(k, "(" + k + "," + r[0] + "," + r[1] + ")"));
    return rendered;
  }

  private static void applyToModel(
      Map<Long, Object[]> table, Row r, String engine, boolean removeOnDelete) {
    long k = (Long) r.getField(0);
    Integer v = (Integer) r.getField(1);
    String s = (String) r.getField(2);
    RowKind kind = r.getKind();
    boolean retract = kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE;
    Object[] row = table.get(k);
    switch (engine) {
      case "deduplicate" -> {
        if (kind == RowKind.DELETE) {
          table.remove(k);
        } else if (!retract) {
          table.put(k, new Object[] {v, s});
        } // -U is dropped by Flink before the upsert sink
      }
      case "first-row" -> {
        if (!retract) {
          table.putIfAbsent(k, new Object[] {v, s});
        }
      }
      case "partial-update" -> {
        if (kind == RowKind.DELETE) {
          table.remove(k);
        } else if (!retract) {
          if (row == null) {
            table.put(k, new Object[] {v, s});
          } else {
            row[0] = v != null ? v : row[0];
            row[1] = s != null ? s : row[1];
          }
        }
      }
      case "aggregation" -> {
        if (removeOnDelete && kind == RowKind.DELETE) {
          table.remove(k);
          return;
        }
        Integer delta = v == null ? null : retract ? -v : v;
        if (row == null) {
          table.put(k, new Object[] {delta, retract ? null : s});
        } else {
          if (delta != null) {
            row[0] = row[0] == null ? delta : (Integer) row[0] + delta;
          }
          if (!retract && s != null) {
            row[1] = s;
          }
        }
      }
      default -> throw new IllegalArgumentException(engine);
    }
  }

  @Test
  void anUpdateStreamIntoAnAppendTableIsRefusedAtPlanningNamingThePrimaryKey() throws Exception {
    StreamTableEnvironment tEnv = streaming(1);
    tEnv.executeSql("CREATE TABLE c.db.a (k BIGINT, c BIGINT)");
    tEnv.executeSql("CREATE TEMPORARY VIEW src AS SELECT * FROM (VALUES (1), (2), (1)) AS v(x)");
    assertThatThrownBy(
            () -> tEnv.executeSql("INSERT INTO c.db.a SELECT x, COUNT(*) FROM src GROUP BY x"))
        .satisfies(
            e ->
                assertThat(messages(e))
                    .contains(
                        "db.a", "append table", "primary key", "PRIMARY KEY (k) NOT ENFORCED"));
    assertNothingWritten("a");
  }

  /** Deletes into engines that refuse them fail when the statement is planned, naming the fix. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("refusals")
  void deletesAnEngineRefusesFailAtPlanning(String engine, String options, String fix)
      throws Exception {
    StreamTableEnvironment tEnv = streaming(1);
    tEnv.executeSql(
        "CREATE TABLE c.db.t (k BIGINT, v INT, s STRING, PRIMARY KEY (k) NOT ENFORCED) WITH"
            + " ('bucket' = '1', 'merge-engine' = '"
            + engine
            + "'"
            + options
            + ")");
    List<Row> changes =
        List.of(Row.ofKind(RowKind.INSERT, 1L, 1, "a"), Row.ofKind(RowKind.DELETE, 1L, 1, "a"));
    DataStream<Row> stream = env.fromData(changes, CDC_TYPE);
    tEnv.createTemporaryView("cdc", tEnv.fromChangelogStream(stream));
    assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO c.db.t SELECT * FROM cdc"))
        .satisfies(e -> assertThat(messages(e)).contains("db.t", "does not accept", fix));
    assertNothingWritten("t");
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of("first-row", "", "'ignore-delete' = 'true'"),
        Arguments.of("partial-update", "", "'partial-update.remove-record-on-delete' = 'true'"),
        Arguments.of(
            "aggregation",
            ", 'fields.v.aggregate-function' = 'max'",
            "'fields.<field>.ignore-retract' = 'true'"));
  }

  /** The messages of an exception and its causes: the planner wraps what a sink throws. */
  private static String messages(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      b.append(t.getMessage()).append('\n');
    }
    return b.toString();
  }

  private void assertNothingWritten(String name) throws IOException {
    Table t = table(name);
    assertThat(t.latestSnapshot()).isEmpty();
    Path dir = warehouse.resolve("db.db").resolve(name);
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(p -> p.toString().endsWith(".parquet")).toList()).isEmpty();
    }
  }
}
