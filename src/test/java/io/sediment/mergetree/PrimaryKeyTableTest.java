package io.sediment.mergetree;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrimaryKeyTableTest {

  @TempDir Path dir;

  static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("name", DataTypes.STRING())
        .column("v", DataTypes.INT())
        .primaryKey("id")
        .option("bucket", "1");
  }

  static GenericRowData kind(RowKind k, GenericRowData r) {
    r.setRowKind(k);
    return r;
  }

  static List<DataFileMeta> files(Table t) {
    List<DataFileMeta> out = new ArrayList<>();
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      out.addAll(s.files());
    }
    return out;
  }

  static List<String> read(Table t) {
    return TestTables.toStrings(t.rowType(), TestTables.readAll(t));
  }

  @Test
  void writeOnlyTwoCommitsLeaveTwoRunsAndFullCompactionMergesThem() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "t", schema().option("write-only", "true").build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2), row(3L, "c", 3)));
    TestTables.writeBatch(
        t, List.of(row(2L, "b2", 20), kind(RowKind.DELETE, row(3L, "c", 3)), row(4L, "d", 4)));
    List<DataFileMeta> before = files(t);
    assertThat(before).hasSize(2).allMatch(f -> f.level() == 0);
    assertThat(before.stream().mapToLong(DataFileMeta::deleteRowCount).sum()).isEqualTo(1);
    assertThat(before.get(0).minKey().getLong(0)).isEqualTo(1L);
    assertThat(before.get(0).maxKey().getLong(0)).isEqualTo(3L);
    assertThat(read(t)).containsExactly("(1,a,1)", "(2,b2,20)", "(4,d,4)");

    CompactResult r =
        t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    assertThat(r.tasks()).isEqualTo(1);
    assertThat(t.latestSnapshot().get().commitKind()).isEqualTo(CommitKind.COMPACT);
    List<DataFileMeta> after = files(t);
    assertThat(after).hasSize(1);
    assertThat(after.get(0).level()).isEqualTo(t.options().numLevels() - 1);
    assertThat(after.get(0).deleteRowCount()).isZero();
    assertThat(after.get(0).rowCount()).isEqualTo(3);
    assertThat(read(t)).containsExactly("(1,a,1)", "(2,b2,20)", "(4,d,4)");
    // Nothing left to do.
    assertThat(t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).plan())
        .isEmpty();
  }

  @Test
  void minorCompactionByRunCountMergesRuns() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            schema()
                .option("write-only", "true")
                .option("num-sorted-run.compaction-trigger", "2")
                .build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2)));
    assertThat(t.newCompactBuilder().withStrategy("minor").plan())
        .isEmpty(); // one run: below the trigger
    TestTables.writeBatch(t, List.of(row(2L, "b2", 2), row(3L, "c", 3)));
    List<CompactTask> plan = t.newCompactBuilder().withStrategy("minor").plan();
    assertThat(plan).hasSize(1);
    assertThat(plan.get(0).kind()).isEqualTo(CompactTask.Kind.MERGE_TREE);
    assertThat(plan.get(0).inputs()).hasSize(2);
    assertThat(plan.get(0).outputLevel()).isEqualTo(t.options().numLevels() - 1);
    assertThat(plan.get(0).dropDeletes()).isTrue();
    t.newCompactBuilder().withStrategy("minor").execute();
    assertThat(files(t)).hasSize(1);
    assertThat(read(t)).containsExactly("(1,a,1)", "(2,b2,2)", "(3,c,3)");
  }

  @Test
  void writerCompactsByItselfUnlessWriteOnly() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog, "t", schema().option("num-sorted-run.compaction-trigger", "2").build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(2L, "b", 2)));
    List<Long> ids = TestTables.writeBatch(t, List.of(row(2L, "b2", 2), row(3L, "c", 3)));
    assertThat(ids).hasSize(2); // APPEND then COMPACT
    assertThat(t.snapshotManager().latest().get().commitKind()).isEqualTo(CommitKind.COMPACT);
    assertThat(files(t)).hasSize(1);
    assertThat(read(t)).containsExactly("(1,a,1)", "(2,b2,2)", "(3,c,3)");
  }

  @Test
  void writerStallsAndCompactsWhenLevelZeroRunsPileUp() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            schema()
                .option("write-buffer-size", "2 kb")
                .option("num-sorted-run.compaction-trigger", "2")
                .option("num-sorted-run.stop-trigger", "3")
                .build());
    List<GenericRowData> rows = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (long i = 0; i < 300; i++) {
      rows.add(row(i % 100, "n" + i, (int) i));
    }
    for (long i = 0; i < 100; i++) {
      expected.add("(" + i + ",n" + (i + 200) + "," + (i + 200) + ")");
    }
    TestTables.writeBatch(t, rows);
    assertThat(files(t).stream().filter(f -> f.level() == 0).count()).isLessThan(3);
    assertThat(read(t)).containsExactlyElementsOf(expected);
  }

  @Test
  void readFilterOnKeysAndValuesIsExactAfterMerge() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "t", schema().option("write-only", "true").build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 10), row(2L, "b", 10), row(3L, "c", 10)));
    TestTables.writeBatch(t, List.of(row(1L, "a", 1)));
    PredicateBuilder pb = new PredicateBuilder(t.rowType());
    TableRead read = t.newReadBuilder().withFilter(pb.greaterThan("v", 5)).newRead();
    var splits = t.newReadBuilder().withFilter(pb.greaterThan("v", 5)).newScan().plan().splits();
    assertThat(TestTables.toStrings(t.rowType(), readAll(read, splits)))
        .containsExactly("(2,b,10)", "(3,c,10)");
    var keyFiltered = t.newReadBuilder().withFilter(pb.equal("id", 5L)).newScan().plan();
    assertThat(keyFiltered.filesPruned()).isEqualTo(2);
  }

  @Test
  void commitRejectsOverlappingFilesAtOneLevel() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "t", schema().option("write-only", "true").build());
    TestTables.writeBatch(t, List.of(row(1L, "a", 1), row(5L, "b", 2)));
    t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    DataFileMeta top = files(t).get(0);
    DataFileMeta overlapping =
        new DataFileMeta(
            "data-overlap.parquet",
            top.fileSize(),
            top.rowCount(),
            top.minKey(),
            top.maxKey(),
            top.minValues(),
            top.maxValues(),
            top.nullCounts(),
            100,
            101,
            top.schemaId(),
            top.level(),
            top.creationTimeMillis(),
            io.sediment.manifest.FileSource.COMPACT,
            0);
    // The file must exist: a commit refuses files that are missing.
    java.nio.file.Files.copy(
        dir.resolve("db.db/t/bucket-0/" + top.fileName()),
        dir.resolve("db.db/t/bucket-0/data-overlap.parquet"));
    long before = t.latestSnapshot().get().id();
    io.sediment.commit.FileStoreCommit commit =
        new io.sediment.commit.FileStoreCommit(t.store(), "test");
    assertThatThrownBy(
            () ->
                commit.commit(
                    List.of(
                        io.sediment.commit.CommitMessage.compact(
                            io.sediment.data.BinaryRows.EMPTY,
                            0,
                            1,
                            List.of(),
                            List.of(overlapping))),
                    1,
                    false))
        .isInstanceOf(io.sediment.commit.CommitConflictException.class)
        .hasMessageContaining(top.fileName())
        .hasMessageContaining("data-overlap.parquet");
    assertThat(t.latestSnapshot().get().id()).isEqualTo(before);
  }

  static List<RowData> readAll(TableRead read, List<DataSplit> splits) {
    try {
      return read.readAll(splits);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static String name(long id) {
    // the first 16,000 keys share 50 names (dictionary pages fill first), then every name differs
    return id < 16_000 ? "common-" + (id % 50) : String.format("%040d", id * 7919);
  }

  @Test
  void compactionWritesPlainTheColumnsWhoseDictionaryOverflowedInEveryInput() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            schema().option("write-only", "true").option("parquet.page-size", "4 kb").build());
    for (int c = 0; c < 2; c++) {
      List<GenericRowData> rows = new ArrayList<>();
      for (int i = 0; i < 20_000; i++) {
        long id = i * 2L + c;
        rows.add(row(id, name(id), (int) (id % 10)));
      }
      TestTables.writeBatch(t, rows);
    }
    for (DataFileMeta f : files(t)) {
      // name: dictionary pages first, then parquet-mr fell back to plain; v: dictionary only
      assertThat(encodings(f, "name").hasDictionaryEncodedPages()).isTrue();
      assertThat(encodings(f, "name").hasNonDictionaryEncodedPages()).isTrue();
      assertThat(encodings(f, "v").hasNonDictionaryEncodedPages()).isFalse();
    }
    t.newCompactBuilder().withOptions(Map.of("compaction.full", "true")).execute();
    List<DataFileMeta> after = files(t);
    assertThat(after).hasSize(1);
    // without the inputs' hint the output would start with a dictionary for name, as they did
    assertThat(encodings(after.get(0), "name").hasDictionaryPages()).isFalse();
    assertThat(encodings(after.get(0), "v").hasDictionaryEncodedPages()).isTrue();
    assertThat(encodings(after.get(0), "v").hasNonDictionaryEncodedPages()).isFalse();
    List<RowData> rows = TestTables.readAll(t);
    assertThat(rows).hasSize(40_000);
    for (int i = 0; i < rows.size(); i++) {
      assertThat(rows.get(i).getLong(0)).isEqualTo(i);
      assertThat(rows.get(i).getString(1).toString()).isEqualTo(name(i));
    }
  }

  private org.apache.parquet.column.EncodingStats encodings(DataFileMeta f, String column)
      throws java.io.IOException {
    org.apache.flink.core.fs.Path path =
        new org.apache.flink.core.fs.Path(dir.resolve("db.db/t/bucket-0/" + f.fileName()).toUri());
    RowType fileType =
        new KeyValueLayout(TestTables.catalog(dir).getTable("db.t").schema()).fileType();
    try (io.sediment.format.DataFileReader reader =
        io.sediment.format.DataFileReader.open(path, fileType, null)) {
      for (org.apache.parquet.hadoop.metadata.ColumnChunkMetaData chunk :
          reader.footer().getBlocks().get(0).getColumns()) {
        if (chunk.getPath().toDotString().equals(column)) {
          return chunk.getEncodingStats();
        }
      }
    }
    throw new AssertionError("no column " + column);
  }
}
