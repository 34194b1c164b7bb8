package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partial-update or aggregation table may have NOT NULL value columns: the rows its merges store
 * in between (a delete that removes the row, a retraction merged alone by a writer's flush) hold no
 * value there, and are stored all the same; what a reader gets is a complete row. Such a write
 * failed at every attempt with "Column 'name' is NOT NULL but the row has null".
 */
class NotNullValueColumnsTest {

  @TempDir Path dir;

  private io.sediment.catalog.FileSystemCatalog catalog;

  private Table table(String name, String engine, Map<String, String> options) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("total", DataTypes.BIGINT().notNull())
            .column("name", DataTypes.STRING().notNull())
            .primaryKey("k")
            .option("bucket", "1")
            .option("merge-engine", engine);
    options.forEach(b::option);
    catalog = TestTables.catalog(dir.resolve(name));
    return TestTables.create(catalog, "t", b.build());
  }

  /** The engine's options under which a delete removes the row ({@code total} summed). */
  private static Map<String, String> removingRows(String engine) {
    return engine.equals("aggregation")
        ? Map.of(
            "aggregation.remove-record-on-delete", "true",
            "fields.total.aggregate-function", "sum")
        : Map.of("partial-update.remove-record-on-delete", "true");
  }

  private static GenericRowData row(RowKind kind, long k, long total, String name) {
    GenericRowData r = GenericRowData.of(k, total, StringData.fromString(name));
    r.setRowKind(kind);
    return r;
  }

  /**
   * Partial-update and aggregation with remove-record-on-delete: random upserts and deletes over
   * commits, then a full compaction; the model applies each commit in order.
   */
  @Test
  void deletesThatRemoveRowsAreStored() throws Exception {
    for (String engine : List.of("partial-update", "aggregation")) {
      for (int seed = 1; seed <= 6; seed++) {
        Random rnd = new Random(seed);
        Table t = table(engine + seed, engine, removingRows(engine));
        TreeMap<Long, String> model = new TreeMap<>();
        Map<Long, Long> totals = new TreeMap<>();
        WriteBuilder wb = t.newStreamWriteBuilder();
        TableCommit commit = wb.newCommit();
        try (TableWrite write = wb.newWrite()) {
          for (int c = 1; c <= 2 + rnd.nextInt(5); c++) {
            for (int n = 1 + rnd.nextInt(3); n > 0; n--) {
              long k = rnd.nextInt(3);
              String name = "n" + rnd.nextInt(100);
              if (model.containsKey(k) && rnd.nextInt(3) == 0) {
                write.write(row(RowKind.DELETE, k, 1, name));
                model.remove(k);
                totals.remove(k);
              } else {
                write.write(row(RowKind.INSERT, k, 1, name));
                // aggregation sums the inserts since the last delete; partial-update replaces
                long total = engine.equals("aggregation") ? totals.merge(k, 1L, Long::sum) : 1;
                model.put(k, "(" + k + "," + total + "," + name + ")");
              }
            }
            commit.commit(c, write.prepareCommit());
          }
        }
        assertThat(read(t))
            .as("%s seed %d", engine, seed)
            .containsExactlyElementsOf(model.values());
        t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
        assertThat(read(t))
            .as("%s seed %d, compacted", engine, seed)
            .containsExactlyElementsOf(model.values());
      }
    }
  }

  /**
   * Aggregation fed by a changelog (a Flink GROUP BY): an update's -U reaches the writer in one
   * commit, its +U in the next, so the -U is merged and stored alone.
   */
  @Test
  void aRetractionMergedAloneIsStored() throws Exception {
    Table t = table("agg", "aggregation", Map.of("fields.total.aggregate-function", "sum"));
    WriteBuilder wb = t.newStreamWriteBuilder();
    TableCommit commit = wb.newCommit();
    try (TableWrite write = wb.newWrite()) {
      write.write(row(RowKind.INSERT, 1, 5, "a"));
      commit.commit(1, write.prepareCommit());
      write.write(row(RowKind.UPDATE_BEFORE, 1, 5, "a"));
      commit.commit(2, write.prepareCommit());
      write.write(row(RowKind.UPDATE_AFTER, 1, 7, "b"));
      commit.commit(3, write.prepareCommit());
    }
    assertThat(read(t)).containsExactly("(1,7,b)");
    t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    assertThat(read(t)).containsExactly("(1,7,b)");
  }

  /**
   * Files written before an ALTER TABLE are read through the older schema, whose value columns are
   * NOT NULL while the files store them nullable: reads and compactions of such files work, the
   * rows they stored without values (deletes) included.
   */
  @Test
  void filesOfAnOlderSchemaAreRead() throws Exception {
    for (String engine : List.of("partial-update", "aggregation")) {
      Table t = table("alter-" + engine, engine, removingRows(engine));
      WriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("u");
      TableCommit commit = wb.newCommit();
      try (TableWrite write = wb.newWrite()) {
        write.write(row(RowKind.INSERT, 1, 1, "a"));
        write.write(row(RowKind.INSERT, 2, 1, "b"));
        commit.commit(1, write.prepareCommit());
        write.write(row(RowKind.DELETE, 1, 1, "a")); // stored without values
        commit.commit(2, write.prepareCommit());
      }
      catalog.alterTable(
          new io.sediment.catalog.Identifier("db", "t"),
          List.of(
              io.sediment.schema.SchemaChange.addColumn(
                  "w", DataTypes.INT().getLogicalType(), null, null)));
      Table altered = catalog.getTable("db.t");
      assertThat(read(altered)).as(engine).containsExactly("(2,1,b,null)");
      altered.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
      assertThat(read(altered)).as(engine + ", compacted").containsExactly("(2,1,b,null)");
    }
  }

  private static List<String> read(Table t) {
    List<String> rows = new ArrayList<>(TestTables.toStrings(t.rowType(), TestTables.readAll(t)));
    rows.sort(null);
    return rows;
  }
}
