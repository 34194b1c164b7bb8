package io.sediment.testutil;

import static io.sediment.testutil.TestTables.row;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.ManifestEntry;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;

/**
 * Tables of each kind in a state where a full and a minor compaction end differently, for the tests
 * of {@code compact_strategy} through every entry point. Every table is unpartitioned with one
 * bucket of small files; after a full compaction it holds one file.
 */
public enum StrategyTables {
  /** Three small files: minor waits for compaction.min.file-num (5), full packs them into one. */
  APPEND(3) {
    @Override
    Schema schema() {
      return Schema.newBuilder()
          .column("id", DataTypes.BIGINT().notNull())
          .column("v", DataTypes.STRING())
          .build();
    }

    @Override
    void fill(Table table) {
      for (int c = 0; c < 3; c++) {
        TestTables.writeBatch(table, batch(c * 10, 10, "v" + c));
      }
    }
  },

  /**
   * A write-only primary-key table with two sorted runs: minor (universal compaction) waits for
   * num-sorted-run.compaction-trigger (5) runs, full merges both into one file.
   */
  PRIMARY_KEY(2) {
    @Override
    Schema schema() {
      return primaryKeySchema(Map.of("write-only", "true"));
    }

    @Override
    void fill(Table table) {
      TestTables.writeBatch(table, batch(0, 20, "a"));
      TestTables.writeBatch(table, batch(10, 20, "b")); // updates ids 10..19
    }
  },

  /**
   * A deletion-vector table with a top-level file and a newer level-0 file: minor moves the level-0
   * file up one level below the top (two files), full merges both into one.
   */
  DELETION_VECTORS(2) {
    @Override
    Schema schema() {
      return primaryKeySchema(
          Map.of(
              "write-only", "true",
              "deletion-vectors.enabled", "true",
              "local-cache.enabled", "true"));
    }

    @Override
    void fill(Table table) throws Exception {
      TestTables.writeBatch(table, batch(0, 20, "a"));
      table.newCompactBuilder().withStrategy("full").execute();
      TestTables.writeBatch(table, batch(10, 20, "b"));
    }
  };

  private final int filesAfterMinor;

  StrategyTables(int filesAfterMinor) {
    this.filesAfterMinor = filesAfterMinor;
  }

  abstract Schema schema();

  abstract void fill(Table table) throws Exception;

  /** Creates {@code db.<name>} and brings it to the state described above. */
  public Table create(FileSystemCatalog catalog, String name) throws Exception {
    Table table = TestTables.create(catalog, name, schema());
    fill(table);
    return table;
  }

  /** Live files after a minor compaction (or none) of the table {@link #create} made. */
  public int filesAfterMinor() {
    return filesAfterMinor;
  }

  /** Live files after a full compaction. */
  public int filesAfterFull() {
    return 1;
  }

  /**
   * The rows the table holds once compacted, rendered and sorted as {@link #rows}: all written
   * rows, the later value winning per key. (A deletion-vector table shows level-0 rows only once
   * they are compacted.)
   */
  public List<String> expectedRows() {
    List<String> out = new ArrayList<>();
    if (this == APPEND) {
      for (int c = 0; c < 3; c++) {
        for (long id = c * 10; id < c * 10 + 10; id++) {
          out.add("(" + id + ",v" + c + id + ")");
        }
      }
    } else {
      for (long id = 0; id < 30; id++) {
        out.add("(" + id + "," + (id < 10 ? "a" : "b") + id + ")");
      }
    }
    return out.stream().sorted().toList();
  }

  /** The rows the table holds, rendered, sorted. */
  public static List<String> rows(Table table) {
    return TestTables.toStrings(table.rowType(), TestTables.readAll(table)).stream()
        .sorted()
        .toList();
  }

  /** The live data files of the latest snapshot. */
  public static List<DataFileMeta> liveFiles(Table table) {
    List<DataFileMeta> out = new ArrayList<>();
    table
        .latestSnapshot()
        .ifPresent(
            s -> {
              for (ManifestEntry e : table.store().newScan().plan(s)) {
                out.add(e.file());
              }
            });
    return out;
  }

  private static Schema primaryKeySchema(Map<String, String> options) {
    Schema.Builder b =
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("v", DataTypes.STRING())
            .primaryKey("id")
            .option("bucket", "1");
    options.forEach(b::option);
    return b.build();
  }

  private static List<RowData> batch(long firstId, int count, String value) {
    List<RowData> out = new ArrayList<>();
    for (long id = firstId; id < firstId + count; id++) {
      out.add(row(id, value + id));
    }
    return out;
  }
}
