package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The merge options are checked when the table is created, so that no write or read fails on them
 * later: every combination of engine, aggregate function, column type and column role (value, key,
 * sequence.field) is either refused at CREATE naming the option, or accepted and then written,
 * compacted and read. An aggregate on a key column used to be accepted, and {@code count} there
 * overwrote the key with 1 (rows collapsed, one key in several buckets); a type mismatch failed
 * every write; an aggregate on partial-update was ignored.
 */
class MergeOptionRulesTest {

  @TempDir Path dir;

  /** A column type, and a value of it. */
  private record Typed(String name, DataType type, Object value) {}

  private static final List<Typed> TYPES =
      List.of(
          new Typed("INT", DataTypes.INT(), 7),
          new Typed("BIGINT", DataTypes.BIGINT(), 7L),
          new Typed("DOUBLE", DataTypes.DOUBLE(), 7.5),
          new Typed(
              "DECIMAL",
              DataTypes.DECIMAL(10, 2),
              DecimalData.fromBigDecimal(BigDecimal.ONE, 10, 2)),
          new Typed("STRING", DataTypes.STRING(), StringData.fromString("s")),
          new Typed("DATE", DataTypes.DATE(), (int) LocalDate.of(2024, 1, 1).toEpochDay()),
          new Typed(
              "ARRAY", DataTypes.ARRAY(DataTypes.INT()), new GenericArrayData(new Integer[] {1})));

  private static final List<String> FUNCTIONS =
      List.of("sum", "count", "min", "max", "last_value", "last_non_null_value");

  /** What the rules allow, written independently of the code that checks them. */
  private static String refusal(String engine, String function, Typed t, String role) {
    if (!engine.equals("aggregation")) {
      return "applies to merge-engine aggregation only";
    }
    if (role.equals("key")) {
      return "is a primary-key column";
    }
    boolean numeric = List.of("INT", "BIGINT", "DOUBLE", "DECIMAL").contains(t.name());
    boolean ordered = !t.name().equals("ARRAY");
    if (role.equals("sequence.field") && !ordered) {
      return "which has no order";
    }
    if (role.equals("sequence.field") && List.of("sum", "count", "min").contains(function)) {
      return "is the sequence.field, which orders the versions";
    }
    return switch (function) {
      case "sum" -> numeric ? null : "needs a numeric type";
      case "count" -> t.name().equals("INT") || t.name().equals("BIGINT") ? null : "needs type INT";
      case "min", "max" -> ordered ? null : "needs an ordered type";
      default -> null;
    };
  }

  @Test
  void everyCombinationIsRefusedAtCreateOrWorks() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    int n = 0;
    int accepted = 0;
    for (String engine : List.of("aggregation", "deduplicate", "partial-update")) {
      for (String function : FUNCTIONS) {
        for (Typed t : TYPES) {
          for (String role : List.of("value", "key", "sequence.field")) {
            if (role.equals("key") && t.name().equals("ARRAY")) {
              continue; // a nested key is refused on its own
            }
            String name = "t" + n++;
            Schema.Builder b =
                Schema.newBuilder()
                    .column("id", DataTypes.BIGINT().notNull())
                    .column("c", role.equals("key") ? t.type().notNull() : t.type())
                    .primaryKey(role.equals("key") ? List.of("id", "c") : List.of("id"))
                    .option("bucket", "2")
                    .option("merge-engine", engine)
                    .option("fields.c.aggregate-function", function);
            if (role.equals("sequence.field")) {
              b.option("sequence.field", "c");
            }
            if (function.equals("min") || function.equals("max")) {
              b.option("fields.c.ignore-retract", "true");
            }
            String expected = refusal(engine, function, t, role);
            String at = engine + " " + function + " " + t.name() + " " + role;
            if (expected != null) {
              Throwable refused = catchThrowable(() -> TestTables.create(catalog, name, b.build()));
              assertThat(refused).as(at).isInstanceOf(IllegalArgumentException.class);
              assertThat(refused.getMessage()).as(at).contains(expected);
              assertThat(catalog.tableExists(Identifier.parse("db." + name))).as(at).isFalse();
              continue;
            }
            accepted++;
            Table table = TestTables.create(catalog, name, b.build());
            List<GenericRowData> rows = new ArrayList<>();
            for (long id = 0; id < 20; id++) {
              rows.add(GenericRowData.of(id, t.value()));
              rows.add(GenericRowData.of(id, t.value()));
            }
            assertThatCode(
                    () -> {
                      TestTables.writeBatch(table, rows);
                      TestTables.writeBatch(table, rows);
                      table.newCompactBuilder().withStrategy("full").execute();
                    })
                .as(at)
                .doesNotThrowAnyException();
            List<GenericRowData> read = new ArrayList<>();
            TestTables.readAll(table).forEach(r -> read.add((GenericRowData) r));
            assertThat(read).as(at).hasSize(20);
            assertThat(read.stream().map(r -> r.getLong(0)).distinct().count())
                .as(at)
                .isEqualTo(20);
          }
        }
      }
    }
    assertThat(accepted).as("combinations accepted and written").isGreaterThan(20);
  }

  /**
   * A table created before these rules, with options they refuse (written here into its schema
   * file), can still be altered; a valid table cannot be altered into breaking them.
   */
  @Test
  void tablesCreatedBeforeTheRulesCanStillBeAltered() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "old", PrimaryKeyTableTest.schema().build());
    Path schema0 = dir.resolve("db.db/old/schema/schema-0");
    String json = java.nio.file.Files.readString(schema0);
    String legacy =
        json.replace("\"bucket\"", "\"fields.v.aggregate-function\" : \"sum\", \"bucket\"");
    assertThat(legacy).isNotEqualTo(json);
    java.nio.file.Files.writeString(schema0, legacy);
    Identifier old = Identifier.parse("db.old");
    catalog.alterTable(
        old, List.of(io.sediment.schema.SchemaChange.setOption("snapshot.num-retained.max", "50")));
    assertThat(catalog.getTable("db.old").schema().options())
        .containsEntry("snapshot.num-retained.max", "50");

    TestTables.create(
        catalog, "agg", PrimaryKeyTableTest.schema().option("merge-engine", "aggregation").build());
    assertThatThrownBy(
            () ->
                catalog.alterTable(
                    Identifier.parse("db.agg"),
                    List.of(io.sediment.schema.SchemaChange.setOption("sequence.field", "id"))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * {@code fields.<f>.ignore-retract} given dynamically is checked against the schema as at
   * creation: only on min/max fields of a column; it was accepted on a sum (and did nothing) or on
   * a misspelled column.
   */
  @Test
  void ignoreRetractGivenDynamicallyIsCheckedAgainstTheSchema() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "a",
            PrimaryKeyTableTest.schema()
                .option("merge-engine", "aggregation")
                .option("fields.v.aggregate-function", "sum")
                .option("fields.name.aggregate-function", "max")
                .build());
    assertThatThrownBy(() -> t.copy(Map.of("fields.v.ignore-retract", "true")))
        .hasMessageContaining("applies to fields aggregated with min or max");
    assertThatThrownBy(() -> t.copy(Map.of("fields.nmae.ignore-retract", "true")))
        .hasMessageContaining("names an unknown column");
    assertThat(t.copy(Map.of("fields.name.ignore-retract", "true")).options().ignoreRetractFields())
        .containsExactly("name");
  }

  /**
   * {@code ignore-delete} and {@code partial-update.remove-record-on-delete} given as dynamic
   * options (a SQL hint, {@code Table.copy}) are honoured by the writer, as in Paimon: they were
   * validated, then ignored, so deletes still removed keys.
   */
  @Test
  void deleteOptionsGivenDynamicallyDecideWhatTheWriterDoes() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table dedup = TestTables.create(catalog, "d", PrimaryKeyTableTest.schema().build());
    TestTables.writeBatch(dedup, List.of(MergeEngineTest.ins(1L, "a", 1)));
    Table ignoring = dedup.copy(Map.of("ignore-delete", "true"));
    TestTables.writeBatch(ignoring, List.of(MergeEngineTest.del(1L, "a", 1)));
    assertThat(TestTables.toStrings(dedup.rowType(), TestTables.readAll(dedup)))
        .containsExactly("(1,a,1)");
    TestTables.writeBatch(dedup, List.of(MergeEngineTest.del(1L, "a", 1)));
    assertThat(TestTables.readAll(dedup)).isEmpty();

    Table firstRow =
        TestTables.create(
            catalog, "f", PrimaryKeyTableTest.schema().option("merge-engine", "first-row").build());
    TestTables.writeBatch(firstRow, List.of(MergeEngineTest.ins(1L, "a", 1)));
    assertThatThrownBy(
            () -> TestTables.writeBatch(firstRow, List.of(MergeEngineTest.del(1L, "a", 1))))
        .hasStackTraceContaining("set 'ignore-delete' = 'true'");
    TestTables.writeBatch(
        firstRow.copy(Map.of("ignore-delete", "true")), List.of(MergeEngineTest.del(1L, "a", 1)));
    assertThat(TestTables.toStrings(firstRow.rowType(), TestTables.readAll(firstRow)))
        .containsExactly("(1,a,1)");

    Table partial =
        TestTables.create(
            catalog,
            "p",
            PrimaryKeyTableTest.schema().option("merge-engine", "partial-update").build());
    TestTables.writeBatch(partial, List.of(MergeEngineTest.ins(1L, "a", 1)));
    GenericRowData delete = MergeEngineTest.del(1L, null, null);
    assertThat(delete.getRowKind()).isEqualTo(RowKind.DELETE);
    TestTables.writeBatch(
        partial.copy(Map.of("partial-update.remove-record-on-delete", "true")), List.of(delete));
    assertThat(TestTables.readAll(partial)).isEmpty();
  }
}
