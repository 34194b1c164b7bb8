package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code TableWrite.write} refuses, naming the column, a value its column cannot hold as given, on
 * every kind of table: a primary-key writer stores a binary copy of the row, in which a decimal
 * takes the column's scale, so the check runs on the row handed in. A decimal must have its
 * column's precision and scale, as Flink's rows hold them. On partial-update and aggregation
 * tables, whose files store value columns nullable, an upsert with a null in a NOT NULL column is
 * refused; a delete needs no values.
 */
class WrittenValueChecksTest {

  @TempDir Path dir;

  private Table table(String name, String engine) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("d", DataTypes.DECIMAL(10, 2))
            .column("s", DataTypes.STRING().notNull());
    if (engine != null) {
      b.primaryKey("k").option("bucket", "1").option("merge-engine", engine);
      if (engine.equals("partial-update")) {
        b.option("partial-update.remove-record-on-delete", "true");
      }
      if (engine.equals("first-row")) {
        b.option("ignore-delete", "true");
      }
    }
    return TestTables.create(TestTables.catalog(dir.resolve(name)), "t", b.build());
  }

  private static GenericRowData row(RowKind kind, long k, DecimalData d, String s) {
    GenericRowData r = GenericRowData.of(k, d, s == null ? null : StringData.fromString(s));
    r.setRowKind(kind);
    return r;
  }

  @Test
  void decimalsTheColumnCannotHoldAreRefusedOnEveryTable() throws Exception {
    List<String> engines = new ArrayList<>();
    engines.add(null); // an append table
    engines.addAll(List.of("deduplicate", "partial-update", "aggregation"));
    for (String engine : engines) {
      Table t = table("d-" + engine, engine);
      WriteBuilder wb = t.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        DecimalData wrongScale = DecimalData.fromBigDecimal(new BigDecimal("1.234"), 10, 3);
        assertThatThrownBy(() -> write.write(row(RowKind.INSERT, 1, wrongScale, "a")))
            .as("%s", engine)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Column 'd' is DECIMAL(10, 2) but the row has 1.234");
        DecimalData tooMany = DecimalData.fromBigDecimal(new BigDecimal("123456789012.00"), 14, 2);
        assertThatThrownBy(() -> write.write(row(RowKind.INSERT, 2, tooMany, "b")))
            .as("%s", engine)
            .hasMessageStartingWith("Column 'd' is DECIMAL(10, 2)");
        DecimalData declaredLarger = DecimalData.fromBigDecimal(new BigDecimal("1.50"), 38, 2);
        assertThatThrownBy(() -> write.write(row(RowKind.INSERT, 3, declaredLarger, "c")))
            .as("%s: Flink's rows hold a column's decimals at its precision", engine)
            .hasMessageContaining("give it as DecimalData.fromBigDecimal(value, 10, 2)");
        write.write(
            row(RowKind.INSERT, 3, DecimalData.fromBigDecimal(new BigDecimal("1.50"), 10, 2), "c"));
        wb.newCommit().commit(write.prepareCommit());
      }
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as("%s", engine)
          .containsExactly("(3,1.50,c)");
    }
  }

  /**
   * On every primary-key table a null in a NOT NULL column is refused by {@code write}, before the
   * row is buffered: the write goes on, and the rows around it are committed. On a deduplicate
   * table it used to pass and fail the flush that took the whole window with it. Where the files
   * store such columns nullable (partial-update, aggregation) only upserts must fill them: a delete
   * carries no values.
   */
  @Test
  void aNullInANotNullColumnIsRefusedAndTheWriteGoesOn() throws Exception {
    for (String engine : List.of("deduplicate", "first-row", "partial-update", "aggregation")) {
      Table t = table("nn-" + engine, engine);
      WriteBuilder wb = t.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        write.write(row(RowKind.INSERT, 1, null, "a"));
        assertThatThrownBy(() -> write.write(row(RowKind.INSERT, 2, null, null)))
            .as("%s", engine)
            .isInstanceOf(NullPointerException.class)
            .hasMessageStartingWith("Column 's' is NOT NULL but the row has null");
        write.write(row(RowKind.INSERT, 3, null, "c"));
        if (engine.equals("partial-update")) {
          write.write(row(RowKind.DELETE, 1, null, null));
        }
        wb.newCommit().commit(write.prepareCommit());
      }
      assertThat(TestTables.toStrings(t.rowType(), TestTables.readAll(t)))
          .as("%s", engine)
          .containsExactlyInAnyOrderElementsOf(
              engine.equals("partial-update")
                  ? List.of("(3,null,c)")
                  : List.of("(1,null,a)", "(3,null,c)"));
    }
  }
}
