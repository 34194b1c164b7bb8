package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.schema.TableSchema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a primary-key table does with each row kind, over every merge engine and combination of
 * Paimon's delete options: the planner's answer ({@link RowKindPolicy#refusal}) and the writer's
 * ({@link RowKindPolicy#stored}) agree, and a refused write through the Java API leaves nothing.
 */
class RowKindPolicyTest {

  @TempDir Path dir;

  /** Every engine with every combination of the options that decide what happens to deletes. */
  static List<Map<String, String>> optionSets() {
    List<Map<String, String>> out = new ArrayList<>();
    for (String engine : List.of("deduplicate", "first-row", "partial-update", "aggregation")) {
      for (int bits = 0; bits < 8; bits++) {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("merge-engine", engine);
        o.put("ignore-delete", String.valueOf((bits & 1) != 0));
        boolean remove = (bits & 2) != 0;
        if (engine.equals("partial-update")) {
          o.put("partial-update.remove-record-on-delete", String.valueOf(remove));
        }
        if (engine.equals("aggregation")) {
          o.put("aggregation.remove-record-on-delete", String.valueOf(remove));
          o.put("fields.v.aggregate-function", "sum");
          o.put("fields.name.aggregate-function", (bits & 4) != 0 ? "max" : "last_value");
          o.put("fields.name.ignore-retract", String.valueOf(remove && (bits & 4) != 0));
        }
        out.add(o);
      }
    }
    return out;
  }

  private static RowKindPolicy policy(Map<String, String> options) {
    Schema.Builder b = PrimaryKeyTableTest.schema();
    options.forEach(b::option);
    return RowKindPolicy.of("db.t", TableSchema.create(b.build(), 0).tableOptions());
  }

  @Test
  void theWriterRefusesExactlyWhatThePlannerRefusesWithTheSameMessage() {
    int refused = 0;
    int dropped = 0;
    for (Map<String, String> options : optionSets()) {
      RowKindPolicy p = policy(options);
      for (RowKind kind : RowKind.values()) {
        Optional<String> planner = p.refusal(Set.of(kind));
        if (planner.isPresent()) {
          refused++;
          assertThatThrownBy(() -> p.stored(kind))
              .as("%s %s", options, kind)
              .isInstanceOf(IllegalArgumentException.class)
              .hasMessage(planner.get())
              .hasMessageContaining("db.t")
              .hasMessageContaining("'ignore-delete' = 'true'");
          continue;
        }
        RowKind stored = p.stored(kind);
        boolean retract = kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE;
        if (stored == null) {
          dropped++;
          assertThat(retract && options.get("ignore-delete").equals("true"))
              .as("only ignore-delete drops rows: %s %s", options, kind)
              .isTrue();
        } else {
          assertThat(stored == RowKind.DELETE || stored == RowKind.UPDATE_BEFORE)
              .as("a retraction stays a retraction and an upsert an upsert: %s %s", options, kind)
              .isEqualTo(retract);
        }
      }
      assertThat(p.refusal(Set.of(RowKind.INSERT, RowKind.UPDATE_AFTER))).isEmpty();
    }
    assertThat(refused).as("some combinations refuse").isPositive();
    assertThat(dropped).as("some combinations drop").isPositive();
  }

  @Test
  void aRefusedWriteThroughTheJavaApiCommitsAndLeavesNothing() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog, "t", PrimaryKeyTableTest.schema().option("merge-engine", "first-row").build());
    GenericRowData delete = row(1L, "a", 1);
    delete.setRowKind(RowKind.DELETE);
    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(row(2L, "b", 2), delete)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not accept DELETE rows; set 'ignore-delete' = 'true'");
    assertThat(t.latestSnapshot()).isEmpty();
    try (Stream<Path> files = Files.walk(dir)) {
      assertThat(files.filter(p -> p.toString().endsWith(".parquet")).toList()).isEmpty();
    }
  }
}
