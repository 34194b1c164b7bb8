package io.sediment.mergetree;

import static io.sediment.mergetree.PrimaryKeyTableTest.files;
import static io.sediment.mergetree.PrimaryKeyTableTest.read;
import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each merge engine: commits of versions read the same before and after full compaction. */
class MergeEngineTest {

  @TempDir Path dir;

  static GenericRowData ins(Object... v) {
    return row(v);
  }

  static GenericRowData upd(Object... v) {
    GenericRowData r = row(v);
    r.setRowKind(RowKind.UPDATE_AFTER);
    return r;
  }

  static GenericRowData ub(Object... v) {
    GenericRowData r = row(v);
    r.setRowKind(RowKind.UPDATE_BEFORE);
    return r;
  }

  static GenericRowData del(Object... v) {
    GenericRowData r = row(v);
    r.setRowKind(RowKind.DELETE);
    return r;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(
            "deduplicate",
            Map.of(),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2), ins(3L, "c", 3)),
                List.of(ub(1L, "a", 1), upd(1L, "a2", null), del(2L, "b", 2)),
                List.of(ins(2L, "b3", 5), ins(4L, null, null), ins(5L, "x", 1), upd(5L, "y", 2))),
            List.of("(1,a2,null)", "(2,b3,5)", "(3,c,3)", "(4,null,null)", "(5,y,2)")),
        Arguments.of(
            "deduplicate, delete last",
            Map.of(),
            List.of(
                List.of(ins(1L, "a", 1)),
                List.of(ins(1L, "b", 1), del(1L, "b", 1)),
                List.of(ins(2L, "c", 2))),
            List.of("(2,c,2)")),
        Arguments.of(
            "partial-update, remove-record-on-delete",
            Map.of(
                "merge-engine", "partial-update", "partial-update.remove-record-on-delete", "true"),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2), ins(3L, "c", 3)),
                List.of(ins(1L, null, 10), upd(3L, "c3", null)),
                List.of(del(2L, null, null), ins(2L, null, 7)),
                List.of(del(3L, null, null))),
            List.of("(1,a,10)", "(2,null,7)")),
        Arguments.of(
            "aggregation",
            Map.of(
                "merge-engine", "aggregation",
                "fields.v.aggregate-function", "sum",
                "fields.name.aggregate-function", "max",
                "fields.name.ignore-retract", "true"),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2)),
                List.of(ins(1L, "c", 10), ins(2L, null, null)),
                List.of(ins(1L, "b", 5), del(2L, "b", 2), ins(3L, null, 4))),
            List.of("(1,c,16)", "(2,b,0)", "(3,null,4)")),
        Arguments.of(
            "aggregation count, last_value",
            Map.of(
                "merge-engine", "aggregation",
                "fields.v.aggregate-function", "count",
                "fields.name.aggregate-function", "last_value"),
            List.of(
                List.of(ins(1L, "a", 7), ins(1L, "b", null)),
                List.of(ins(1L, "c", 3), ins(2L, "x", 0)),
                List.of(ins(1L, null, 1))),
            List.of("(1,null,3)", "(2,x,1)")),
        Arguments.of(
            "first-row, ignore-delete",
            Map.of("merge-engine", "first-row", "ignore-delete", "true"),
            List.of(
                List.of(ins(1L, "a", 1)),
                List.of(ins(1L, "b", 2), ins(2L, "x", 1)),
                List.of(del(1L, "a", 1), upd(2L, "y", 2), ins(3L, "z", null))),
            List.of("(1,a,1)", "(2,x,1)", "(3,z,null)")),
        Arguments.of(
            "aggregation, remove-record-on-delete",
            Map.of(
                "merge-engine", "aggregation",
                "fields.v.aggregate-function", "sum",
                "aggregation.remove-record-on-delete", "true"),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2), ins(3L, "c", 3)),
                List.of(ins(1L, "c", 10), del(2L, "b", 2), ins(2L, null, 5), ub(3L, "c", 1)),
                List.of(ins(2L, "x", 1), upd(3L, null, 4)),
                List.of(del(1L, null, null))),
            List.of("(2,x,6)", "(3,c,6)")),
        Arguments.of(
            "partial-update, remove-record-on-delete, sequence.field",
            Map.of(
                "merge-engine", "partial-update",
                "partial-update.remove-record-on-delete", "true",
                "sequence.field", "v"),
            List.of(
                List.of(ins(1L, "a", 5), ins(2L, "b", 1)),
                List.of(del(1L, "a", 5)),
                List.of(ins(2L, "c", 3))),
            List.of("(2,c,3)")),
        Arguments.of(
            "aggregation, last_value retracted",
            Map.of(
                "merge-engine", "aggregation",
                "fields.v.aggregate-function", "sum",
                "fields.name.aggregate-function", "last_value"),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2)),
                List.of(del(1L, "a", 1)),
                List.of(ub(2L, "b", 2), upd(2L, "c", 3))),
            List.of("(1,null,0)", "(2,c,3)")),
        Arguments.of(
            "deduplicate, ignore-delete",
            Map.of("ignore-delete", "true"),
            List.of(
                List.of(ins(1L, "a", 1), ins(2L, "b", 2)),
                List.of(del(1L, "a", 1), ub(2L, "b", 2), upd(2L, "c", 3))),
            List.of("(1,a,1)", "(2,c,3)")),
        Arguments.of(
            "deduplicate, sequence.field out of order",
            Map.of("sequence.field", "v"),
            List.of(
                List.of(ins(1L, "a", 5), ins(2L, "c", 1)),
                List.of(ins(1L, "b", 3), ins(2L, "d", 2), ins(3L, "e", 9), ins(3L, "f", 8)),
                List.of(ins(2L, "g", 2))),
            List.of("(1,a,5)", "(2,g,2)", "(3,e,9)")),
        Arguments.of(
            "partial-update, sequence.field out of order",
            Map.of("merge-engine", "partial-update", "sequence.field", "v"),
            List.of(List.of(ins(1L, "a", 5)), List.of(ins(1L, "b", 3)), List.of(ins(1L, null, 6))),
            List.of("(1,a,6)")),
        Arguments.of(
            "first-row, sequence.field out of order",
            Map.of("merge-engine", "first-row", "sequence.field", "v"),
            List.of(List.of(ins(1L, "a", 5)), List.of(ins(1L, "b", 3)), List.of(ins(1L, "c", 4))),
            List.of("(1,b,3)")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void sameRowsBeforeAndAfterFullCompaction(
      String name,
      Map<String, String> options,
      List<List<GenericRowData>> commits,
      List<String> expected)
      throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Schema.Builder b = PrimaryKeyTableTest.schema().option("write-only", "true");
    options.forEach(b::option);
    Table t = TestTables.create(catalog, "t", b.build());
    for (List<GenericRowData> c : commits) {
      TestTables.writeBatch(t, c);
    }
    assertThat(files(t)).hasSize(commits.size());
    assertThat(read(t)).as("before compaction").containsExactlyElementsOf(expected);
    t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    assertThat(files(t)).hasSize(1);
    assertThat(read(t)).as("after full compaction").containsExactlyElementsOf(expected);

    // Minor compactions of newer runs only must merge consistently with the older ones.
    Table t2 = TestTables.create(catalog, "t2", b.build());
    for (List<GenericRowData> c : commits) {
      TestTables.writeBatch(t2, c);
      t2.newCompactBuilder()
          .withOptions(
              Map.of(
                  "num-sorted-run.compaction-trigger",
                  "2",
                  "compaction.size-ratio",
                  "0",
                  "compaction.max-size-amplification-percent",
                  "100000"))
          .execute();
      assertThat(read(t2)).isNotNull();
    }
    assertThat(read(t2)).as("after minor compactions").containsExactlyElementsOf(expected);
  }

  /** count stores 1 or 0 per written row: only an INT or BIGINT column can hold it. */
  @Test
  void countOfANonIntegerColumnIsRefusedNamingTheField() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Schema.Builder b =
        PrimaryKeyTableTest.schema()
            .option("merge-engine", "aggregation")
            .option("fields.name.aggregate-function", "count");
    assertThatThrownBy(
            () -> {
              Table t = TestTables.create(catalog, "t", b.build());
              TestTables.writeBatch(t, List.of(ins(1L, "a", 1)));
            })
        .hasStackTraceContaining("count of field 'name' needs type INT or BIGINT");
    assertThat(dir.resolve("db.db/t/data")).doesNotExist();
  }
}
