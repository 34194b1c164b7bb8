package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.compact.CompactBuilder;
import io.sediment.format.DataFileRoundTripTest;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.ManifestEntry;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import io.sediment.testutil.TestTables;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.utils.TypeConversions;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A deletion-vector compaction writes the lookup file of each file it writes along with it, and
 * that file is the one a later compaction would build from the data file: generated rows of every
 * column type Sediment stores (nulls, extremes, sub-millisecond timestamps, decimals of each
 * width), outputs rolled into several files, compactions into several levels.
 */
class LookupFileWriteThroughTest {

  @TempDir Path dir;
  @TempDir Path cache;

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6})
  void aCompactionLeavesTheLookupFilesItsOutputWouldBuild(int seed) throws Exception {
    RowType all = DataFileRoundTripTest.ALL;
    Schema.Builder schema = Schema.newBuilder();
    for (RowType.RowField f : all.getFields()) {
      schema.column(f.getName(), TypeConversions.fromLogicalToDataType(f.getType()));
    }
    schema
        .primaryKey("l_nn")
        .option("bucket", "1")
        .option("deletion-vectors.enabled", "true")
        .option("local-cache.dir", cache.toString())
        .option("target-file-size", "16 kb") // outputs roll into several files
        .option("write-only", "true");
    Table t = TestTables.create(TestTables.catalog(dir), "t", schema.build());
    List<RowData> samples = DataFileRoundTripTest.sampleRows();
    int key = all.getFieldIndex("l_nn");
    Random rnd = new Random(seed);
    TreeMap<Long, String> model = new TreeMap<>();
    for (int commit = 0; commit < 6; commit++) {
      WriteBuilder wb = t.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        // a large first commit, then small ones: a minor compaction leaves the large run alone
        // and looks keys up in it
        for (int i = 0, n = commit == 0 ? 1500 : 20 + rnd.nextInt(100); i < n; i++) {
          // each column's value from one of the sample rows, the key from a range that overlaps
          GenericRowData row = new GenericRowData(all.getFieldCount());
          for (int c = 0; c < row.getArity(); c++) {
            row.setField(c, fieldOf(samples.get(rnd.nextInt(samples.size())), all, c));
          }
          long k = rnd.nextInt(1000);
          row.setField(key, k);
          if (rnd.nextInt(8) == 0) {
            row.setRowKind(RowKind.DELETE);
            model.remove(k);
          } else {
            model.put(k, TestTables.render(all, row));
          }
          write.write(row);
        }
        wb.newCommit().commit(write.prepareCommit());
      }
      if (commit % 2 == 1) {
        // a full compaction, then minor ones: their outputs go to a lower level and look keys up
        // in the first one's files through the lookup files it wrote
        CompactBuilder compact = t.newCompactBuilder();
        if (commit > 1) {
          compact.withStrategy("minor");
        }
        compact.execute();
        assertLookupFilesAreTheBuiltOnes(t);
        assertThat(TestTables.toStrings(all, TestTables.readAll(t)))
            .as("after commit %d", commit)
            .containsExactlyInAnyOrderElementsOf(model.values());
      }
    }
    assertThat(t.latestSnapshot().orElseThrow().indexManifest())
        .as("older versions were found through the lookup files and marked deleted")
        .isNotNull();
  }

  private static Object fieldOf(RowData row, RowType type, int pos) {
    return RowData.createFieldGetter(type.getTypeAt(pos), pos).getFieldOrNull(row);
  }

  /** Every live file's lookup file is in the cache, equal to one built from the data file. */
  private void assertLookupFilesAreTheBuiltOnes(Table t) throws Exception {
    FileStore store = t.store();
    LocalKeyCache keys = new LocalKeyCache(store, new KeyValueLayout(store.schema()));
    int checked = 0;
    for (ManifestEntry e : store.newScan().plan(t.latestSnapshot().orElseThrow())) {
      DataFileMeta f = e.file();
      if (f.level() == 0) {
        continue;
      }
      File written =
          new File(keys.directory(), f.fileName() + ".s" + store.schema().id() + ".keys");
      assertThat(written).as("lookup file of %s written with it", f.fileName()).exists();
      byte[] writtenBytes = Files.readAllBytes(written.toPath());
      assertThat(written.delete()).isTrue();
      File built = keys.lookupFile(e.partition(), e.bucket(), f);
      assertThat(built).isEqualTo(written);
      assertThat(Files.readAllBytes(built.toPath()))
          .as("lookup file of %s (%d rows)", f.fileName(), f.rowCount())
          .isEqualTo(writtenBytes);
      checked++;
    }
    assertThat(checked).isPositive();
    List<String> unfinished = new ArrayList<>();
    try (Stream<Path> s = Files.walk(cache)) {
      s.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".tmp"))
          .forEach(unfinished::add);
    }
    assertThat(unfinished).as("unfinished lookup files").isEmpty();
  }
}
