package io.sediment.table;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.types.RowKind;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WriteReadTest {

  @TempDir Path dir;
  FileSystemCatalog catalog;

  @BeforeEach
  void setUp() {
    catalog = TestTables.catalog(dir);
  }

  private static Schema.Builder schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("p", DataTypes.STRING())
        .column("name", DataTypes.STRING())
        .column("price", DataTypes.DECIMAL(10, 2))
        .column("ts", DataTypes.TIMESTAMP(3));
  }

  private static List<RowData> rows(int from, int to) {
    List<RowData> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(
          row(
              (long) i,
              i % 2 == 0 ? "a" : "b",
              i % 7 == 0 ? null : "name-" + i,
              DecimalData.fromBigDecimal(BigDecimal.valueOf(i * 125L, 2), 10, 2),
              TimestampData.fromLocalDateTime(LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(i))));
    }
    return out;
  }

  @Test
  void roundTripWithProjectionAndFilter() {
    Table table = TestTables.create(catalog, "t", schema().partitionKeys("p").build());
    List<RowData> written = rows(0, 1000);
    List<Long> ids = TestTables.writeBatch(table, written);
    assertThat(ids).containsExactly(1L);
    Snapshot s = table.latestSnapshot().orElseThrow();
    assertThat(s.commitKind()).isEqualTo(CommitKind.APPEND);
    assertThat(s.totalRecordCount()).isEqualTo(1000);

    assertThat(TestTables.toStrings(table.rowType(), TestTables.readAll(table)))
        .containsExactlyInAnyOrderElementsOf(TestTables.toStrings(table.rowType(), written));

    // Projection and a filter on a column that is not projected.
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    ReadBuilder rb =
        table
            .newReadBuilder()
            .withFilter(PredicateBuilder.and(pb.equal("p", "a"), pb.lessThan("id", 10L)))
            .withProjection("name", "id");
    List<RowData> got = read(rb);
    assertThat(TestTables.toStrings(rb.readType(), got))
        .containsExactlyInAnyOrder(
            "(null,0)", "(name-2,2)", "(name-4,4)", "(name-6,6)", "(name-8,8)");

    // The JSON filter form gives the same rows.
    ReadBuilder json =
        table
            .newReadBuilder()
            .withFilter(
                "{\"method\":\"and\",\"children\":[{\"method\":\"equal\",\"field\":\"p\",\"literals\":[\"a\"]},"
                    + "{\"method\":\"lessThan\",\"field\":\"id\",\"literals\":[10]}]}")
            .withProjection("name", "id");
    assertThat(TestTables.toStrings(json.readType(), read(json)))
        .containsExactlyInAnyOrderElementsOf(TestTables.toStrings(rb.readType(), got));
  }

  private static List<RowData> read(ReadBuilder rb) {
    try {
      return rb.newRead().readAll(rb.newScan().plan().splits());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void filesArePrunedByColumnStatistics() {
    Table table = TestTables.create(catalog, "t", schema().build());
    for (int c = 0; c < 5; c++) {
      TestTables.writeBatch(table, rows(c * 100, (c + 1) * 100));
    }
    PredicateBuilder pb = new PredicateBuilder(table.rowType());
    TableScan.Plan plan =
        table.newReadBuilder().withFilter(pb.between("id", 210L, 250L)).newScan().plan();
    assertThat(plan.filesPruned()).isEqualTo(4);
    assertThat(plan.splits()).hasSize(1);
    assertThat(plan.splits().get(0).files()).hasSize(1);
  }

  @Test
  void dataFilesAreZstdParquetRolledAtTargetSizeUnderPartitionAndBucketDirs() throws Exception {
    Table table =
        TestTables.create(
            catalog, "t", schema().partitionKeys("p").option("target-file-size", "16 kb").build());
    TestTables.writeBatch(table, rows(0, 20_000));
    Path tableDir = dir.resolve("db.db/t");
    List<Path> files = TestTables.dataFiles(tableDir);
    assertThat(files.size()).isGreaterThan(4);
    assertThat(files)
        .allMatch(
            f ->
                f.toString().contains("/p=a/bucket-0/") || f.toString().contains("/p=b/bucket-0/"));
    assertThat(files).allMatch(f -> f.getFileName().toString().endsWith(".parquet"));
    try (ParquetFileReader r =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(files.get(0).toUri()),
                new org.apache.hadoop.conf.Configuration()))) {
      assertThat(r.getFooter().getBlocks().get(0).getColumns().get(0).getCodec().name())
          .isEqualTo("ZSTD");
    }
    assertThat(TestTables.readAll(table)).hasSize(20_000);
    assertThat(table.latestSnapshot().orElseThrow().totalFileCount()).isEqualTo(files.size());
  }

  @Test
  void compressionOptionIsHonoured() throws Exception {
    Table table =
        TestTables.create(catalog, "t", schema().option("file.compression", "snappy").build());
    TestTables.writeBatch(table, rows(0, 10));
    Path f = TestTables.dataFiles(dir.resolve("db.db/t")).get(0);
    try (ParquetFileReader r =
        ParquetFileReader.open(
            HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(f.toUri()),
                new org.apache.hadoop.conf.Configuration()))) {
      assertThat(r.getFooter().getBlocks().get(0).getColumns().get(0).getCodec().name())
          .isEqualTo("SNAPPY");
    }
  }

  @Test
  void fixedBucketsSpreadRowsByBucketKeyAndKeepSequenceOrder() {
    Table table =
        TestTables.create(
            catalog, "t", schema().option("bucket", "4").option("bucket-key", "id").build());
    TestTables.writeBatch(table, rows(0, 400));
    TestTables.writeBatch(table, rows(400, 800));
    TableScan.Plan plan = table.newReadBuilder().newScan().plan();
    assertThat(plan.splits()).hasSize(4);
    for (DataSplit split : plan.splits()) {
      assertThat(split.files()).hasSize(2);
      // The second commit's file continues the bucket's sequence numbers.
      assertThat(split.files().get(1).minSequenceNumber())
          .isEqualTo(split.files().get(0).maxSequenceNumber() + 1);
    }
    assertThat(TestTables.readAll(table)).hasSize(800);
    // Same key, same bucket: writing id 5 again lands in the bucket that holds id 5.
    int bucketOf5 = -1;
    for (DataSplit split : plan.splits()) {
      for (RowData r : readSplit(table, split)) {
        if (r.getLong(0) == 5) {
          bucketOf5 = split.bucket();
        }
      }
    }
    TestTables.writeBatch(table, List.of(rows(5, 6).get(0)));
    Snapshot latest = table.latestSnapshot().orElseThrow();
    TableScan.Plan after = table.newReadBuilder().newScan().plan(latest);
    int finalBucket = bucketOf5;
    assertThat(
            after.splits().stream()
                .filter(s -> s.bucket() == finalBucket)
                .findFirst()
                .orElseThrow()
                .files())
        .hasSize(3);
  }

  private static List<RowData> readSplit(Table table, DataSplit split) {
    try {
      return table.newReadBuilder().newRead().readAll(List.of(split));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void streamCommitWithSameIdentifierLandsOnce() throws Exception {
    Table table = TestTables.create(catalog, "t", schema().build());
    WriteBuilder wb = table.newStreamWriteBuilder().withCommitUser("job-1");
    TableWrite write = wb.newWrite();
    TableCommit commit = wb.newCommit();
    for (RowData r : rows(0, 10)) {
      write.write(r);
    }
    List<CommitMessage> first = write.prepareCommit();
    assertThat(commit.commit(1, first)).containsExactly(1L);
    // A restarted committer retries checkpoint 1: skipped.
    TableCommit again = table.newStreamWriteBuilder().withCommitUser("job-1").newCommit();
    assertThat(again.commit(1, first)).isEmpty();
    for (RowData r : rows(10, 15)) {
      write.write(r);
    }
    assertThat(commit.commit(2, write.prepareCommit())).containsExactly(2L);
    write.close();
    assertThat(TestTables.readAll(table)).hasSize(15);
    Snapshot s = table.latestSnapshot().orElseThrow();
    assertThat(s.commitUser()).isEqualTo("job-1");
    assertThat(s.commitIdentifier()).isEqualTo(2);
  }

  @Test
  void commitMessagesAreSerializable() throws Exception {
    Table table = TestTables.create(catalog, "t", schema().partitionKeys("p").build());
    WriteBuilder wb = table.newBatchWriteBuilder();
    List<CommitMessage> messages;
    try (TableWrite write = wb.newWrite()) {
      for (RowData r : rows(0, 10)) {
        write.write(r);
      }
      messages = write.prepareCommit();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new ArrayList<>(messages));
    }
    @SuppressWarnings("unchecked")
    List<CommitMessage> copy =
        (List<CommitMessage>)
            new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray())).readObject();
    wb.newCommit().commit(copy);
    assertThat(TestTables.readAll(table)).hasSize(10);
  }

  @Test
  void badWritesAndCommitUsersAreRejected() throws Exception {
    Table table = TestTables.create(catalog, "t", schema().build());
    for (String bad : new String[] {"", ".", "..", " x", "x ", "a/b", "a\\b", "a\u0001b"}) {
      assertThatThrownBy(() -> table.newStreamWriteBuilder().withCommitUser(bad))
          .as("user '%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Commit user");
    }
    try (TableWrite write = table.newBatchWriteBuilder().newWrite()) {
      GenericRowData delete = (GenericRowData) rows(0, 1).get(0);
      delete.setRowKind(RowKind.DELETE);
      assertThatThrownBy(() -> write.write(delete)).hasMessageContaining("only INSERT rows");
      assertThatThrownBy(() -> write.write(GenericRowData.of(1L)))
          .hasMessageContaining("Row has 1 fields");
    }
    assertThat(table.latestSnapshot()).isEmpty();
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).isEmpty();
  }

  @Test
  void badReadInputIsRejected() {
    Table table = TestTables.create(catalog, "t", schema().build());
    assertThatThrownBy(() -> table.newReadBuilder().withProjection("nope"))
        .hasMessageContaining("Unknown field 'nope'");
    assertThatThrownBy(() -> table.newReadBuilder().withProjection(new int[] {9}))
        .hasMessageContaining("out of range");
    // a column twice: the readers returned another column, or failed
    assertThatThrownBy(() -> table.newReadBuilder().withProjection(new int[] {1, 1}))
        .hasMessage("Projection index 1 is given twice; give each column once");
    assertThatThrownBy(() -> table.newReadBuilder().withProjection("id", "id"))
        .hasMessageContaining("given twice");
    assertThatThrownBy(
            () ->
                table
                    .newReadBuilder()
                    .withFilter("{\"method\":\"equal\",\"field\":\"nope\",\"literals\":[1]}"))
        .hasMessageContaining("nope");
    assertThatThrownBy(
            () ->
                table
                    .newReadBuilder()
                    .withFilter("{\"method\":\"like\",\"field\":\"id\",\"literals\":[1]}"))
        .hasMessageContaining("like");
    assertThatThrownBy(
            () ->
                table
                    .newReadBuilder()
                    .withFilter("{\"method\":\"equal\",\"field\":\"id\",\"literals\":[\"abc\"]}"))
        .hasMessageContaining("id");
    assertThat(Files.exists(dir.resolve("db.db/t/snapshot"))).isFalse();
  }

  @Test
  void abortDeletesWrittenFiles() throws Exception {
    Table table = TestTables.create(catalog, "t", schema().build());
    WriteBuilder wb = table.newBatchWriteBuilder();
    List<CommitMessage> messages;
    try (TableWrite write = wb.newWrite()) {
      for (RowData r : rows(0, 10)) {
        write.write(r);
      }
      messages = write.prepareCommit();
    }
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).hasSize(1);
    wb.newCommit().abort(messages);
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).isEmpty();
    assertThat(table.latestSnapshot()).isEmpty();
  }
}
