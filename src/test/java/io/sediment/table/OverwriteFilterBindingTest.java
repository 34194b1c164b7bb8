package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An overwrite's partition filter names partition columns; it is bound by name whether it was built
 * on the table's row type or on its partition type. Built on the row type, its positions were taken
 * as positions in the partition row: {@code dt = 3} dropped every partition with {@code hh = 3}. A
 * filter on another column is refused, nothing changed.
 */
class OverwriteFilterBindingTest {

  @TempDir Path dir;

  @Test
  void theFilterSelectsThePartitionsItNames() throws Exception {
    Random rnd = new Random(5);
    for (int round = 0; round < 8; round++) {
      Table t =
          TestTables.create(
              TestTables.catalog(dir.resolve("r" + round)),
              "t",
              Schema.newBuilder()
                  .column("id", DataTypes.BIGINT())
                  .column("v", DataTypes.STRING())
                  .column("dt", DataTypes.INT())
                  .column("hh", DataTypes.INT())
                  .partitionKeys("dt", "hh")
                  .build());
      List<GenericRowData> rows = new ArrayList<>();
      for (int dt = 1; dt <= 3; dt++) {
        for (int hh = 1; hh <= 3; hh++) {
          rows.add(row((long) (dt * 10 + hh), "x", dt, hh));
        }
      }
      TestTables.writeBatch(t, rows);
      String column = rnd.nextBoolean() ? "dt" : "hh";
      int value = 1 + rnd.nextInt(3);
      RowType on = rnd.nextBoolean() ? t.rowType() : t.store().partitionType();
      Predicate filter = new PredicateBuilder(on).equal(column, value);

      t.newBatchWriteBuilder().newCommit().overwrite(List.of(), filter);

      List<String> expected = new ArrayList<>();
      for (GenericRowData r : rows) {
        if (r.getInt(column.equals("dt") ? 2 : 3) != value) {
          expected.add(TestTables.render(t.rowType(), r));
        }
      }
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as("%s = %d, built on %s", column, value, on)
          .containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  @Test
  void aFilterOnAnotherColumnIsRefusedAndChangesNothing() throws Exception {
    Table t =
        TestTables.create(
            TestTables.catalog(dir), "t", TestTables.idIntPartitionValueSchema().build());
    TestTables.writeBatch(t, List.of(row(1L, 1, "a"), row(2L, 2, "b")));
    TableCommit commit = t.newBatchWriteBuilder().newCommit();

    assertThatThrownBy(
            () -> commit.overwrite(List.of(), new PredicateBuilder(t.rowType()).equal("id", 1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Partition filter may reference only partition columns [p]");
    assertThat(t.snapshotManager().listIds()).containsExactly(1L);
    // the commit may still be made, with a valid filter
    commit.overwrite(List.of(), new PredicateBuilder(t.rowType()).equal("p", 1));
    assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t))).containsExactly("(2,2,b)");
  }
}
