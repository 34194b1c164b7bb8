package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A compaction reads strings into buffers that each batch overwrites ({@link
 * RunReader#reuseValueBuffers()}), so whatever it keeps of a row past the row's life must be a
 * copy. Generated cases: string keys and values over several merge engines, each commit one file of
 * thousands of rows (several batches), and a last commit whose last live key is followed by two
 * batches of deletes that the full compaction drops, so that the file's last key is read long after
 * its row. The compacted table must read as the merged read of the uncompacted one (a scan, which
 * keeps fresh buffers), and the files' key ranges must be the keys they hold.
 */
class CompactionValueBuffersTest {

  private static final int KEYS = 20_000;
  private static final int TAIL = 10_000; // keys [KEYS - TAIL, KEYS) are deleted by the last commit
  private static final String[] ENGINES = {"deduplicate", "partial-update", "aggregation"};

  @TempDir Path dir;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void compactedStringsAndKeyRangesMatchTheMergedRead(long seed) throws Exception {
    Random rnd = new Random(seed);
    String engine = ENGINES[(int) (seed % ENGINES.length)];
    boolean deletes = !engine.equals("aggregation");
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.STRING().notNull())
            .column("v", DataTypes.STRING())
            .column("w", DataTypes.STRING())
            .column("n", DataTypes.BIGINT())
            .primaryKey("k")
            .option("bucket", "1")
            .option("write-only", "true")
            .option("write-buffer-size", "256 mb")
            .option("merge-engine", engine);
    if (engine.equals("partial-update")) {
      b.option("partial-update.remove-record-on-delete", "true");
    } else if (engine.equals("aggregation")) {
      b.option("fields.v.aggregate-function", "max")
          .option("fields.w.aggregate-function", "last_non_null_value")
          .option("fields.n.aggregate-function", "sum");
    }
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "t", b.build());

    int commits = 3 + rnd.nextInt(3);
    for (int c = 0; c < commits; c++) {
      boolean last = c == commits - 1;
      List<RowData> rows = new ArrayList<>();
      int liveKeys = last && deletes ? KEYS - TAIL : KEYS;
      for (int k = 0; k < liveKeys; k++) {
        if (rnd.nextInt(5) < 2 || (last && k == liveKeys - 1)) {
          rows.add(row(key(k), text(rnd), text(rnd), (long) rnd.nextInt(1000)));
        }
      }
      if (last && deletes) {
        for (int k = liveKeys; k < KEYS; k++) {
          GenericRowData d = row(key(k), null, null, null);
          d.setRowKind(RowKind.DELETE);
          rows.add(d);
        }
      }
      TestTables.writeBatch(t, rows);
    }
    assertThat(PrimaryKeyTableTest.files(t)).hasSize(commits).allMatch(f -> f.level() == 0);
    List<String> merged = PrimaryKeyTableTest.read(t);

    Map<String, String> compaction = new HashMap<>(Map.of("compaction.full", "true"));
    if (seed % 2 == 0) {
      compaction.put("target-file-size", "64 kb"); // several outputs: rolled files' ends too
    }
    t.newCompactBuilder().withOptions(compaction).execute();

    assertThat(PrimaryKeyTableTest.read(t)).containsExactlyInAnyOrderElementsOf(merged);
    List<String> keys = new ArrayList<>();
    for (String r : merged) {
      keys.add(r.substring(1, r.indexOf(',')));
    }
    keys.sort(Comparator.naturalOrder());
    List<DataFileMeta> files = new ArrayList<>(PrimaryKeyTableTest.files(t));
    files.sort(Comparator.comparing(f -> f.minKey().getString(0).toString()));
    assertThat(files).isNotEmpty().allMatch(f -> f.level() == t.options().numLevels() - 1);
    assertThat(files.stream().mapToLong(DataFileMeta::rowCount).sum()).isEqualTo(keys.size());
    assertThat(files.get(0).minKey().getString(0).toString()).isEqualTo(keys.get(0));
    assertThat(files.get(files.size() - 1).maxKey().getString(0).toString())
        .as("the last file's max key (read after the run moved on through the deletes)")
        .isEqualTo(keys.get(keys.size() - 1));
    long before = 0;
    for (DataFileMeta f : files) {
      String min = f.minKey().getString(0).toString();
      String max = f.maxKey().getString(0).toString();
      // each file holds the keys from its min to its max, in order and without gaps between files
      assertThat(min).isEqualTo(keys.get((int) before));
      before += f.rowCount();
      assertThat(max).isEqualTo(keys.get((int) before - 1));
    }
  }

  private static String key(int k) {
    return String.format("key-%06d", k);
  }

  /** A value of 0 to 40 characters, some of them two bytes in UTF-8; sometimes null. */
  private static String text(Random rnd) {
    if (rnd.nextInt(8) == 0) {
      return null;
    }
    StringBuilder s = new StringBuilder();
    int n = rnd.nextInt(41);
    for (int i = 0; i < n; i++) {
      s.append(rnd.nextInt(10) == 0 ? 'ä' : (char) ('a' + rnd.nextInt(26)));
    }
    return s.toString();
  }
}
