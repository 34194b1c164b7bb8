package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.manifest.DataFileMeta;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.schema.SchemaChange;
import io.sediment.schema.TableSchema;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Schema evolution through the data path, generated: per seed and table kind, a random sequence of
 * writes (some by writers that loaded the table before the last ALTER), column changes (add at any
 * position, rename, drop, re-add a dropped name, widen, move), compactions (some by a job that
 * loaded an older schema) and reads, checked against a model that keeps each row's values by field
 * id. Seeds: {@code -Dsediment.evolution.seeds=N} (default 6 per kind).
 */
class SchemaEvolutionTest {

  private static final int SEEDS = Integer.getInteger("sediment.evolution.seeds", 6);

  @TempDir Path dir;

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (String kind : List.of("append", "deduplicate", "deletion-vectors", "partial-update")) {
      for (int seed = 0; seed < SEEDS; seed++) {
        out.add(Arguments.of(kind, seed));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("cases")
  void everyRowReadsAsTheModelSaysThroughAltersWritesAndCompactions(String kind, int seed)
      throws Exception {
    new Run(kind, seed, TestTables.catalog(dir.resolve(kind + "-" + seed))).run();
  }

  /** A dropped column's values never come back, even when a column of its name is added again. */
  @Test
  void aDroppedColumnDoesNotComeBackUnderItsName() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING())
                .build());
    TestTables.writeBatch(t, List.of(TestTables.row(1L, "old")));
    TestTables.writeBatch(t, List.of(TestTables.row(2L, "old2")));
    catalog.alterTable(id, List.of(SchemaChange.dropColumn("v")));
    catalog.alterTable(
        id, List.of(SchemaChange.addColumn("v", DataTypes.STRING().getLogicalType())));
    t = catalog.getTable(id);
    TestTables.writeBatch(t, List.of(TestTables.row(3L, "new")));
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,null)", "(2,null)", "(3,new)");
    assertThat(t.schema().fields().get(1).id()).as("a new field id").isEqualTo(2);
    // compaction rewrites the old files by id, not by their Parquet column named v
    t.newCompactBuilder().execute();
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
        .containsExactlyInAnyOrder("(1,null)", "(2,null)", "(3,new)");
    assertThat(files(t)).allSatisfy(f -> assertThat(f.schemaId()).isEqualTo(2));
  }

  /**
   * A streaming writer opened before an ALTER goes on writing and committing with the schema it
   * loaded; its files say so, and every row reads right in the new schema, before and after a
   * compaction by a job that loaded the new schema.
   */
  @Test
  void aWriterStartedBeforeAnAlterCommitsCorrectly() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("n", DataTypes.INT())
                .column("s", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .build());
    WriteBuilder wb = t.newStreamWriteBuilder();
    try (TableWrite write = wb.newWrite()) {
      TableCommit commit = wb.newCommit();
      write.write(TestTables.row(1L, 1, "a"));
      commit.commit(1, write.prepareCommit());
      catalog.alterTable(
          id,
          List.of(
              SchemaChange.updateColumnType("n", DataTypes.BIGINT().getLogicalType()),
              SchemaChange.renameColumn("s", "label"),
              SchemaChange.addColumn("extra", DataTypes.STRING().getLogicalType()),
              SchemaChange.updateColumnPosition(SchemaChange.Move.first("extra"))));
      Table altered = catalog.getTable(id);
      TestTables.writeBatch(altered, List.of(TestTables.row("x", 2L, 5_000_000_000L, "b")));
      write.write(TestTables.row(3L, 3, "c")); // the writer's old schema
      write.write(TestTables.row(1L, 10, "a2"));
      commit.commit(2, write.prepareCommit());
    }
    Table now = catalog.getTable(id);
    List<String> expected = List.of("(null,1,10,a2)", "(x,2,5000000000,b)", "(null,3,3,c)");
    assertThat(TestTables.toStrings(now.rowType(), TestTables.readAll(now)))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(files(now).stream().map(DataFileMeta::schemaId))
        .as("the old writer's files carry its schema")
        .contains(0L, 1L);
    now.newCompactBuilder().execute();
    assertThat(TestTables.toStrings(now.rowType(), TestTables.readAll(now)))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(files(now)).allSatisfy(f -> assertThat(f.schemaId()).isEqualTo(1L));
  }

  /**
   * A reader that loaded an older schema never returns null in a column its type says NOT NULL: a
   * file of a newer schema that made the column nullable (or dropped it) is refused, saying to
   * restart.
   */
  @Test
  void aReaderOfAnOlderSchemaRefusesNullsItsTypeForbids() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    Table old =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("n", DataTypes.INT().notNull())
                .build());
    TestTables.writeBatch(old, List.of(TestTables.row(1L, 1)));
    catalog.alterTable(id, List.of(SchemaChange.updateColumnNullability("n", true)));
    TestTables.writeBatch(catalog.getTable(id), List.of(TestTables.row(2L, null)));
    assertThatThrownBy(() -> TestTables.readAll(old))
        .hasStackTraceContaining("Column 'n': a file of schema 1 may hold nulls in it")
        .hasStackTraceContaining("restart it to read the table's latest schema");
    assertThat(
            TestTables.toStrings(
                catalog.getTable(id).rowType(), TestTables.readAll(catalog.getTable(id))))
        .containsExactlyInAnyOrder("(1,1)", "(2,null)");
  }

  /** Refused changes name what is wrong and write no schema version. */
  @Test
  void unsafeChangesAreRefusedAndChangeNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Identifier id = new Identifier("db", "t");
    TestTables.create(
        catalog,
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING().notNull())
            .column("n", DataTypes.INT())
            .column("s", DataTypes.STRING())
            .column("q", DataTypes.BIGINT().notNull())
            .partitionKeys("p")
            .primaryKey("id", "p")
            .options(Map.of("bucket", "2", "sequence.field", "n"))
            .build());
    Map<SchemaChange, String> refused = new LinkedHashMap<>();
    refused.put(
        SchemaChange.addColumn("c", DataTypes.INT().notNull().getLogicalType()),
        "Cannot add column 'c' as NOT NULL");
    refused.put(SchemaChange.addColumn("s", DataTypes.INT().getLogicalType()), "already exists");
    refused.put(
        SchemaChange.addColumn("_ROW_KIND", DataTypes.INT().getLogicalType()), "is reserved");
    refused.put(SchemaChange.renameColumn("id", "key"), "Primary-key column 'id' cannot be");
    refused.put(SchemaChange.dropColumn("p"), "Partition column 'p' cannot be dropped");
    refused.put(SchemaChange.dropColumn("n"), "option(s) [sequence.field] name it");
    refused.put(SchemaChange.dropColumn("nope"), "There is no column 'nope'");
    refused.put(
        SchemaChange.updateColumnType("s", DataTypes.INT().getLogicalType()),
        "Cannot change the type of column 's' from STRING to INT");
    refused.put(
        SchemaChange.updateColumnType("q", DataTypes.INT().notNull().getLogicalType()),
        "from BIGINT NOT NULL to INT NOT NULL");
    refused.put(SchemaChange.updateColumnNullability("s", false), "Cannot make column 's' NOT");
    refused.put(
        SchemaChange.updateColumnPosition(SchemaChange.Move.after("s", "x")),
        "there is no column 'x'");
    for (Map.Entry<SchemaChange, String> e : refused.entrySet()) {
      assertThatThrownBy(() -> catalog.alterTable(id, List.of(e.getKey())))
          .as(e.getKey().toString())
          .hasMessageContaining(e.getValue());
    }
    assertThat(catalog.getTable(id).schema().id()).isZero();
    assertThat(dir.resolve("db.db/t/schema").toFile().list()).containsExactly("schema-0");
    // allowed: widen, NOT NULL -> NULL, comment, position
    catalog.alterTable(
        id,
        List.of(
            SchemaChange.updateColumnNullability("q", true),
            SchemaChange.updateColumnComment("s", "text"),
            SchemaChange.updateColumnPosition(SchemaChange.Move.first("s"))));
    TableSchema s = catalog.getTable(id).schema();
    assertThat(s.fieldNames()).containsExactly("s", "id", "p", "n", "q");
    assertThat(s.rowType().getTypeAt(4).isNullable()).isTrue();
    assertThat(s.fields().get(0).description()).isEqualTo("text");
  }

  private static List<DataFileMeta> files(Table t) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  /** One generated run: operations on a table, and the model of what it must hold. */
  private static final class Run {
    private final String kind;
    private final Random random;
    private final FileSystemCatalog catalog;
    private final Identifier id = new Identifier("db", "t");
    private final boolean primaryKey;
    // key -> values by field id (append: a unique id per row as key)
    private final Map<Long, Map<Integer, Object>> model = new HashMap<>();
    private final List<String> log = new ArrayList<>();
    private final Set<String> dropped = new HashSet<>();
    private Table stale; // loaded before the last ALTER
    private long nextAppendId = 1_000;
    private int names;

    Run(String kind, int seed, FileSystemCatalog catalog) {
      this.kind = kind;
      this.random = new Random(seed * 7919L + kind.hashCode());
      this.catalog = catalog;
      this.primaryKey = !kind.equals("append");
    }

    void run() throws Exception {
      Schema.Builder b =
          Schema.newBuilder()
              .column("id", DataTypes.BIGINT().notNull())
              .column("p", DataTypes.STRING().notNull())
              .column("a", DataTypes.INT())
              .column("b", DataTypes.STRING())
              .column("f", DataTypes.FLOAT())
              .column("d", DataTypes.DECIMAL(5, 2))
              .partitionKeys("p");
      Map<String, String> options = new HashMap<>();
      if (primaryKey) {
        b.primaryKey("id", "p");
        options.put("bucket", "2");
        options.put("num-sorted-run.compaction-trigger", "3");
      }
      if (kind.equals("deletion-vectors")) {
        options.put("deletion-vectors.enabled", "true");
      }
      if (kind.equals("partial-update")) {
        options.put("merge-engine", "partial-update");
      }
      b.options(options);
      TestTables.create(catalog, "t", b.build());
      int steps = 30;
      for (int step = 0; step < steps; step++) {
        int r = random.nextInt(100);
        if (r < 40) {
          write(stale != null && random.nextInt(4) == 0 ? stale : table());
        } else if (r < 70) {
          alter();
        } else if (r < 85) {
          compact(stale != null && random.nextInt(4) == 0 ? stale : table());
        } else {
          check();
        }
      }
      compact(table());
      check();
    }

    private Table table() {
      return catalog.getTable(id);
    }

    private void write(Table t) {
      List<RowData> rows = new ArrayList<>();
      Set<Long> keys = new HashSet<>();
      int n = 1 + random.nextInt(15);
      for (int i = 0; i < n; i++) {
        long key = primaryKey ? random.nextInt(40) : nextAppendId++;
        if (!keys.add(key)) {
          continue;
        }
        List<TableSchema.DataField> fields = t.schema().fields();
        GenericRowData row = new GenericRowData(fields.size());
        Map<Integer, Object> values = new HashMap<>();
        for (int f = 0; f < fields.size(); f++) {
          TableSchema.DataField field = fields.get(f);
          Object v;
          if (field.name().equals("id")) {
            v = key;
          } else if (field.name().equals("p")) {
            v = StringData.fromString(key % 2 == 0 ? "x" : "y");
          } else {
            v = value(field.logicalType());
          }
          row.setField(f, v);
          values.put(field.id(), normalize(v));
        }
        rows.add(row);
        Map<Integer, Object> old = model.get(key);
        if (kind.equals("partial-update") && old != null) {
          Map<Integer, Object> merged = new HashMap<>(old);
          values.forEach(
              (fid, v) -> {
                if (v != null) {
                  merged.put(fid, v);
                }
              });
          values = merged;
        }
        model.put(key, values);
      }
      log.add("write " + rows.size() + " rows with schema " + t.schema().id());
      TestTables.writeBatch(t, rows);
    }

    private void alter() {
      Table before = table();
      TableSchema s = before.schema();
      List<String> free = new ArrayList<>();
      for (String name : s.fieldNames()) {
        if (!name.equals("id") && !name.equals("p")) {
          free.add(name);
        }
      }
      SchemaChange change;
      int r = random.nextInt(6);
      if (r == 0 || free.size() < 2) {
        String name = "c" + names++;
        List<String> reusable = new ArrayList<>(dropped);
        reusable.removeAll(s.fieldNames());
        if (!reusable.isEmpty() && random.nextBoolean()) {
          name = reusable.get(random.nextInt(reusable.size()));
        }
        LogicalType type =
            List.of(
                    DataTypes.INT().getLogicalType(),
                    DataTypes.BIGINT().getLogicalType(),
                    DataTypes.STRING().getLogicalType(),
                    DataTypes.DOUBLE().getLogicalType(),
                    DataTypes.FLOAT().getLogicalType(),
                    DataTypes.DECIMAL(7, 2).getLogicalType())
                .get(random.nextInt(6));
        SchemaChange.Move move =
            switch (random.nextInt(3)) {
              case 0 -> SchemaChange.Move.first(name);
              case 1 ->
                  SchemaChange.Move.after(
                      name, s.fieldNames().get(random.nextInt(s.fieldNames().size())));
              default -> null;
            };
        change = SchemaChange.addColumn(name, type, null, move);
      } else if (r == 1) {
        change = SchemaChange.renameColumn(free.get(random.nextInt(free.size())), "r" + names++);
      } else if (r == 2) {
        String victim = free.get(random.nextInt(free.size()));
        dropped.add(victim);
        change = SchemaChange.dropColumn(victim);
      } else if (r == 3) {
        String name = s.fieldNames().get(random.nextInt(s.fieldNames().size()));
        change = SchemaChange.updateColumnPosition(SchemaChange.Move.first(name));
      } else {
        List<SchemaChange> widenings = new ArrayList<>();
        for (TableSchema.DataField f : s.fields()) {
          if (!free.contains(f.name())) {
            continue;
          }
          LogicalType t = f.logicalType();
          switch (t.getTypeRoot()) {
            case INTEGER ->
                widenings.add(
                    SchemaChange.updateColumnType(f.name(), DataTypes.BIGINT().getLogicalType()));
            case FLOAT ->
                widenings.add(
                    SchemaChange.updateColumnType(f.name(), DataTypes.DOUBLE().getLogicalType()));
            case DECIMAL -> {
              int p = ((DecimalType) t).getPrecision();
              if (p + 6 <= 38) {
                widenings.add(
                    SchemaChange.updateColumnType(
                        f.name(), DataTypes.DECIMAL(p + 6, 2).getLogicalType()));
              }
            }
            default -> {}
          }
        }
        if (widenings.isEmpty()) {
          return;
        }
        change = widenings.get(random.nextInt(widenings.size()));
      }
      log.add("alter " + change);
      catalog.alterTable(id, List.of(change));
      stale = before;
    }

    private void compact(Table t) throws Exception {
      Set<String> before = new HashSet<>();
      files(t).forEach(f -> before.add(f.fileName()));
      log.add("compact with schema " + t.schema().id());
      t.newCompactBuilder().execute();
      Table now = table();
      long newestInputSchema = t.schema().id();
      for (DataFileMeta f : files(now)) {
        if (!before.contains(f.fileName())) {
          assertThat(f.schemaId())
              .as("%s: an output of a compaction carries its schema or a newer one\n%s", f, log)
              .isGreaterThanOrEqualTo(newestInputSchema);
        }
      }
    }

    private void check() throws Exception {
      Table t = table();
      TableSchema s = t.schema();
      List<List<Object>> expected = new ArrayList<>();
      for (Map<Integer, Object> values : model.values()) {
        expected.add(expectedRow(s, values));
      }
      assertThat(read(t, null))
          .as("all rows, after %s", log)
          .containsExactlyInAnyOrderElementsOf(expected);

      // a filter on a random column: pruning by the statistics of files of older schemas is right
      int f = random.nextInt(s.fields().size());
      String name = s.fields().get(f).name();
      Object probe =
          expected.isEmpty() ? null : expected.get(random.nextInt(expected.size())).get(f);
      PredicateBuilder pb = new PredicateBuilder(t.rowType());
      List<List<Object>> matching = new ArrayList<>();
      for (List<Object> row : expected) {
        if (probe == null ? row.get(f) == null : probe.equals(row.get(f))) {
          matching.add(row);
        }
      }
      var filter = probe == null ? pb.isNull(name) : pb.equalText(name, text(probe));
      assertThat(read(t, filter))
          .as("rows where %s = %s, after %s", name, probe, log)
          .containsExactlyInAnyOrderElementsOf(matching);
    }

    private static String text(Object v) {
      return v instanceof BigDecimal d ? d.toPlainString() : String.valueOf(v);
    }

    private List<List<Object>> read(Table t, io.sediment.predicate.Predicate filter)
        throws Exception {
      ReadBuilder rb = t.newReadBuilder();
      if (filter != null) {
        rb.withFilter(filter);
      }
      RowType type = t.rowType();
      List<List<Object>> out = new ArrayList<>();
      for (RowData r : rb.newRead().readAll(rb.newScan().plan().splits())) {
        List<Object> row = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
          row.add(normalize(RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(r)));
        }
        out.add(row);
      }
      return out;
    }

    private static List<Object> expectedRow(TableSchema s, Map<Integer, Object> values) {
      List<Object> row = new ArrayList<>();
      for (TableSchema.DataField f : s.fields()) {
        row.add(values.get(f.id()));
      }
      return row;
    }

    private Object value(LogicalType type) {
      if (random.nextInt(8) == 0) {
        return null;
      }
      int k = random.nextInt(40) - 20;
      return switch (type.getTypeRoot()) {
        case INTEGER -> k;
        case BIGINT -> (long) k * 1_000_000_007L;
        case FLOAT -> k * 0.5f;
        case DOUBLE -> k * 0.25;
        case DECIMAL ->
            DecimalData.fromBigDecimal(
                BigDecimal.valueOf(k * 37L, 2),
                ((DecimalType) type).getPrecision(),
                ((DecimalType) type).getScale());
        default -> StringData.fromString("s" + k);
      };
    }

    /** Values compared across widenings: integers as long, floats as double. */
    private static Object normalize(Object v) {
      if (v instanceof Integer i) {
        return (long) i;
      }
      if (v instanceof Float x) {
        return (double) x;
      }
      if (v instanceof StringData sd) {
        return sd.toString();
      }
      if (v instanceof DecimalData d) {
        return d.toBigDecimal();
      }
      return v;
    }
  }
}
