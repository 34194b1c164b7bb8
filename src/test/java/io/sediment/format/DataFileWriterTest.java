package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DataFileWriterTest {

  @TempDir java.nio.file.Path tempDir;

  static final RowType TYPE =
      RowType.of(
          new LogicalType[] {
            new BigIntType(false),
            VarCharType.STRING_TYPE,
            new IntType(),
            new DecimalType(38, 2),
            new DecimalType(10, 3),
            new TimestampType(9),
            new VarBinaryType(VarBinaryType.MAX_LENGTH),
            new BooleanType(),
            new DoubleType(),
            new IntType(),
          },
          new String[] {
            "id", "name", "qty", "big", "small", "ts", "raw", "flag", "score", "empty"
          });

  Path newPath(String name) {
    return new Path(tempDir.resolve(name).toUri());
  }

  static RowData row(long id) {
    return GenericRowData.of(
        id,
        id % 7 == 0 ? null : StringData.fromString("name-" + (id % 1000)),
        id % 5 == 0 ? null : (int) (id % 1000) - 500,
        DecimalData.fromBigDecimal(BigDecimal.valueOf(id * 31 - 1000, 2), 38, 2),
        id % 3 == 0 ? null : DecimalData.fromUnscaledLong(id - 50, 10, 3),
        TimestampData.fromEpochMillis(1_700_000_000_000L + id, (int) (id % 1_000_000)),
        new byte[] {(byte) (id % 256), (byte) (id / 256)},
        id % 2 == 0,
        id % 11 == 0 ? null : id * 0.5,
        null);
  }

  @Test
  void statsHaveMinMaxAndNullCounts() throws Exception {
    RowType type =
        RowType.of(
            new LogicalType[] {
              new IntType(),
              VarCharType.STRING_TYPE,
              new VarBinaryType(VarBinaryType.MAX_LENGTH),
              new DecimalType(38, 2),
              new DecimalType(9, 2),
              new TimestampType(9),
              new BooleanType(),
              new IntType(),
              new BigIntType(false),
              new DoubleType(),
            },
            new String[] {"i", "s", "b", "d38", "d9", "ts", "flag", "allnull", "nn", "dbl"});
    List<RowData> rows = new ArrayList<>();
    rows.add(
        GenericRowData.of(
            5,
            StringData.fromString("banana"),
            new byte[] {(byte) 0x80},
            DecimalData.fromBigDecimal(new BigDecimal("-12345678901234567890.12"), 38, 2),
            DecimalData.fromBigDecimal(new BigDecimal("1.50"), 9, 2),
            TimestampData.fromLocalDateTime(LocalDateTime.parse("2024-01-01T00:00:00.000000001")),
            true,
            null,
            10L,
            -0.0));
    rows.add(
        GenericRowData.of(
            null,
            StringData.fromString("apple"),
            new byte[] {0x7f, 0x01},
            DecimalData.fromBigDecimal(new BigDecimal("99999999999999999999.99"), 38, 2),
            null,
            TimestampData.fromLocalDateTime(LocalDateTime.parse("1969-12-31T23:59:59.999999999")),
            null,
            null,
            -3L,
            2.5));
    rows.add(
        GenericRowData.of(
            -7,
            null,
            null,
            null,
            DecimalData.fromBigDecimal(new BigDecimal("-0.01"), 9, 2),
            null,
            true,
            null,
            Long.MAX_VALUE,
            null));
    rows.add(
        GenericRowData.of(
            3,
            StringData.fromString("Ärger"), // non-ASCII sorts after ASCII by UTF-8 bytes
            new byte[] {(byte) 0x80, 0x00},
            null,
            null,
            null,
            null,
            null,
            0L,
            null));

    Path path = newPath("stats.parquet");
    WrittenFile file;
    try (DataFileWriter writer = DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
      for (RowData r : rows) {
        writer.write(r);
      }
      file = writer.finish();
    }
    ColumnStats stats = file.stats();
    assertThat(stats.arity()).isEqualTo(10);
    assertThat(stats.nullCounts()).containsExactly(1, 1, 1, 2, 2, 2, 2, 4, 0, 2);
    BinaryRowData min = stats.min();
    BinaryRowData max = stats.max();

    assertThat(min.getInt(0)).isEqualTo(-7);
    assertThat(max.getInt(0)).isEqualTo(5);
    assertThat(min.getString(1).toString()).isEqualTo("apple");
    assertThat(max.getString(1).toString()).isEqualTo("Ärger");
    assertThat(min.getBinary(2)).containsExactly(0x7f, 0x01);
    assertThat(max.getBinary(2)).containsExactly(0x80, 0x00);
    assertThat(min.getDecimal(3, 38, 2).toBigDecimal())
        .isEqualByComparingTo("-12345678901234567890.12");
    assertThat(max.getDecimal(3, 38, 2).toBigDecimal())
        .isEqualByComparingTo("99999999999999999999.99");
    assertThat(min.getDecimal(4, 9, 2).toBigDecimal()).isEqualByComparingTo("-0.01");
    assertThat(max.getDecimal(4, 9, 2).toBigDecimal()).isEqualByComparingTo("1.50");
    assertThat(min.getTimestamp(5, 9).toLocalDateTime())
        .isEqualTo(LocalDateTime.parse("1969-12-31T23:59:59.999999999"));
    assertThat(max.getTimestamp(5, 9).toLocalDateTime())
        .isEqualTo(LocalDateTime.parse("2024-01-01T00:00:00.000000001"));
    assertThat(min.getBoolean(6)).isTrue();
    assertThat(max.getBoolean(6)).isTrue();
    // all-null column
    assertThat(min.isNullAt(7)).isTrue();
    assertThat(max.isNullAt(7)).isTrue();
    assertThat(stats.nullCounts()[7]).isEqualTo(file.rowCount());
    assertThat(min.getLong(8)).isEqualTo(-3L);
    assertThat(max.getLong(8)).isEqualTo(Long.MAX_VALUE);
    assertThat(min.getDouble(9)).isEqualTo(-0.0);
    assertThat(max.getDouble(9)).isEqualTo(2.5);
  }

  /**
   * A value the column cannot hold as it is, a decimal of another scale or a larger precision, or a
   * TIMESTAMP(9) outside INT64 nanoseconds, is refused naming the column, and the file goes on: the
   * rows around it are written. A decimal of another scale was stored shifted (1.5 in DECIMAL(9, 2)
   * given as DECIMAL(2, 1) read as 0.15), one of a larger precision narrowed.
   */
  @Test
  void valuesTheColumnCannotHoldAreRefusedAndTheFileGoesOn() throws Exception {
    java.util.Random rnd = new java.util.Random(3);
    for (int precision : new int[] {5, 9, 18, 30}) {
      for (int scale : new int[] {0, 2}) {
        RowType type =
            RowType.of(
                new LogicalType[] {new DecimalType(precision, scale), new TimestampType(9)},
                new String[] {"d", "ts"});
        Path path = newPath("d" + precision + "-" + scale + ".parquet");
        List<BigDecimal> written = new ArrayList<>();
        try (DataFileWriter writer =
            DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
          for (int i = 0; i < 20; i++) {
            BigDecimal v = BigDecimal.valueOf(rnd.nextInt(1000), scale);
            int wrongScale = scale + 1 + rnd.nextInt(2);
            BigDecimal tooLarge = BigDecimal.TEN.pow(precision - scale).add(BigDecimal.ONE);
            DecimalData bad =
                rnd.nextBoolean()
                    ? DecimalData.fromBigDecimal(v.setScale(wrongScale), precision + 2, wrongScale)
                    : DecimalData.fromBigDecimal(tooLarge.setScale(scale), precision + 2, scale);
            assertThat(bad).isNotNull();
            assertThatThrownBy(() -> writer.write(GenericRowData.of(bad, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Column 'd' is DECIMAL(" + precision + ", " + scale + ")");
            TimestampData tooEarly =
                TimestampData.fromLocalDateTime(
                    LocalDateTime.of(1600 + rnd.nextInt(60), 1, 1, 0, 0));
            assertThatThrownBy(() -> writer.write(GenericRowData.of(null, tooEarly)))
                .hasMessageContaining("Column 'ts'");
            DecimalData declaredLarger = DecimalData.fromBigDecimal(v, precision + 5, scale);
            assertThatThrownBy(() -> writer.write(GenericRowData.of(declaredLarger, null)))
                .as("Flink's rows hold a column's decimals at its precision")
                .hasMessageContaining("DecimalData.fromBigDecimal(value, " + precision);
            writer.write(GenericRowData.of(DecimalData.fromBigDecimal(v, precision, scale), null));
            written.add(v);
          }
          writer.finish();
        }
        try (DataFileReader reader = DataFileReader.open(path, type, null)) {
          List<BigDecimal> read = new ArrayList<>();
          for (RowData r : reader.readAll()) {
            read.add(r.getDecimal(0, precision, scale).toBigDecimal());
          }
          assertThat(read).as("DECIMAL(%d, %d)", precision, scale).isEqualTo(written);
        }
      }
    }
  }

  @Test
  void statsDoNotAliasCallerBuffers() throws Exception {
    RowType type =
        RowType.of(
            new LogicalType[] {new VarBinaryType(VarBinaryType.MAX_LENGTH), new BooleanType()},
            new String[] {"b", "flag"});
    Path path = newPath("alias.parquet");
    byte[] buffer = {5};
    GenericRowData reused = new GenericRowData(2);
    WrittenFile file;
    try (DataFileWriter writer = DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
      for (byte v : new byte[] {5, 1, 9, 3}) {
        buffer[0] = v;
        reused.setField(0, buffer);
        reused.setField(1, v > 4);
        writer.write(reused);
      }
      file = writer.finish();
    }
    assertThat(file.stats().min().getBinary(0)).containsExactly(1);
    assertThat(file.stats().max().getBinary(0)).containsExactly(9);
    assertThat(file.stats().min().getBoolean(1)).isFalse();
    assertThat(file.stats().max().getBoolean(1)).isTrue();
    assertThat(
            TestRows.all(
                DataFileReader.project(type, new int[] {0}),
                DataFileReader.readAll(path, type, new int[] {0})))
        .extracting(l -> ((java.nio.ByteBuffer) l.get(0)).get(0))
        .containsExactly((byte) 5, (byte) 1, (byte) 9, (byte) 3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "snappy", "gzip", "lz4_raw", "uncompressed", "ZSTD"})
  void compressionCodecsProduceReadableFiles(String compression) throws Exception {
    FileFormatOptions options = FileFormatOptions.defaults().withCompression(compression);
    Path path = newPath("c-" + compression + ".parquet");
    List<RowData> rows = new ArrayList<>();
    for (long i = 0; i < 2_000; i++) {
      rows.add(row(i));
    }
    try (DataFileWriter writer = DataFileWriter.create(path, TYPE, options)) {
      for (RowData r : rows) {
        writer.write(r);
      }
      writer.finish();
    }
    try (DataFileReader reader = DataFileReader.open(path, TYPE, null)) {
      CompressionCodecName expected = options.codec();
      for (BlockMetaData block : reader.footer().getBlocks()) {
        for (ColumnChunkMetaData column : block.getColumns()) {
          assertThat(column.getCodec()).isEqualTo(expected);
        }
      }
      assertThat(TestRows.all(TYPE, reader.readAll())).isEqualTo(TestRows.all(TYPE, rows));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"zstd", "snappy", "uncompressed"})
  void everyPageDictionaryPagesIncludedCarriesAMatchingCrc(String compression) throws Exception {
    FileFormatOptions options =
        FileFormatOptions.defaults()
            .withCompression(compression)
            .withRowGroupSize(256 * 1024)
            .withPageSize(32 * 1024);
    Path path = newPath("crc-" + compression + ".parquet");
    try (DataFileWriter writer = DataFileWriter.create(path, TYPE, options)) {
      for (long i = 0; i < 20_000; i++) {
        writer.write(row(i));
      }
      writer.finish();
    }
    List<ParquetPages.Page> pages = ParquetPages.pages(tempDir.resolve(path.getName()));
    assertThat(pages)
        .extracting(ParquetPages.Page::type)
        .contains(
            org.apache.parquet.format.PageType.DICTIONARY_PAGE,
            org.apache.parquet.format.PageType.DATA_PAGE);
    assertThat(pages).extracting(ParquetPages.Page::rowGroup).contains(0, 1);
    assertThat(pages)
        .allSatisfy(
            p -> {
              assertThat(p.hasCrc()).as("crc of %s", p).isTrue();
              assertThat(p.crcMatches()).as("crc of %s", p).isTrue();
            });
  }

  @Test
  void zstdLevelIsApplied() throws Exception {
    long size1 = writeCompressible("z1.parquet", FileFormatOptions.defaults().withZstdLevel(1));
    long size19 = writeCompressible("z19.parquet", FileFormatOptions.defaults().withZstdLevel(19));
    assertThat(size19).isLessThan(size1);
  }

  private long writeCompressible(String name, FileFormatOptions options) throws IOException {
    RowType type = RowType.of(new LogicalType[] {VarCharType.STRING_TYPE}, new String[] {"s"});
    Path path = newPath(name);
    try (DataFileWriter writer = DataFileWriter.create(path, type, options.withDictionary(false))) {
      java.util.Random random = new java.util.Random(42);
      for (int i = 0; i < 20_000; i++) {
        StringBuilder sb = new StringBuilder();
        for (int j = 0; j < 20; j++) {
          sb.append((char) ('a' + random.nextInt(6)));
        }
        writer.write(GenericRowData.of(StringData.fromString(sb.toString())));
      }
      return writer.finish().fileSize();
    }
  }

  @Test
  void unknownCompressionIsRejectedClearly() {
    assertThatThrownBy(() -> FileFormatOptions.defaults().withCompression("brotli2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("brotli2")
        .hasMessageContaining("zstd")
        .hasMessageContaining("snappy")
        .hasMessageContaining("uncompressed");
    assertThatThrownBy(() -> new FileFormatOptions("lzo", 1, 1024, 1024, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lzo");
  }

  @Test
  void defaults() {
    FileFormatOptions d = FileFormatOptions.defaults();
    assertThat(d.compression()).isEqualTo("zstd");
    assertThat(d.zstdLevel()).isEqualTo(1);
    assertThat(d.rowGroupSize()).isEqualTo(128L * 1024 * 1024);
    assertThat(d.pageSize()).isEqualTo(1024 * 1024);
    assertThat(d.dictionary()).isTrue();
  }

  @Test
  void anotherWriterCreatedMeanwhileDoesNotChangeAnOpenWritersEncodings() throws Exception {
    // parquet-mr's default values-writer factory is one static instance re-pointed at the
    // properties of the writer built last: an open writer's next row groups then took that
    // writer's dictionary setting and buffer allocator (shared across threads, it broke)
    RowType type =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
            new String[] {"id", "c"});
    FileFormatOptions small =
        FileFormatOptions.defaults().withRowGroupSize(16 * 1024).withPageSize(4 * 1024);
    Path a = newPath("a.parquet");
    Path b = newPath("b.parquet");
    try (DataFileWriter first = DataFileWriter.create(a, type, small)) {
      for (long i = 0; i < 20_000; i++) {
        first.write(GenericRowData.of(i, StringData.fromString("k" + (i % 5))));
      }
      try (DataFileWriter second =
          DataFileWriter.create(b, type, FileFormatOptions.defaults().withDictionary(false))) {
        second.write(GenericRowData.of(0L, StringData.fromString("x")));
        for (long i = 20_000; i < 40_000; i++) {
          first.write(GenericRowData.of(i, StringData.fromString("k" + (i % 5))));
        }
        second.finish();
      }
      first.finish();
    }
    try (DataFileReader reader = DataFileReader.open(a, type, null)) {
      List<BlockMetaData> groups = reader.footer().getBlocks();
      assertThat(groups.size()).isGreaterThan(2);
      for (BlockMetaData group : groups) {
        ColumnChunkMetaData c = group.getColumns().get(1);
        assertThat(c.getEncodingStats().hasDictionaryPages())
            .as("row group at row " + group.getRowIndexOffset())
            .isTrue();
        assertThat(c.getEncodingStats().hasNonDictionaryEncodedPages()).isFalse();
      }
      assertThat(reader.rowCount()).isEqualTo(40_000);
    }
  }

  @Test
  void manyRowsAcrossRowGroups() throws Exception {
    FileFormatOptions options =
        FileFormatOptions.defaults().withRowGroupSize(64 * 1024).withPageSize(8 * 1024);
    Path path = newPath("many.parquet");
    int n = 100_000;
    WrittenFile file;
    try (DataFileWriter writer = DataFileWriter.create(path, TYPE, options)) {
      long last = writer.estimatedLength();
      long grownAt = 0;
      for (long i = 0; i < n; i++) {
        writer.write(row(i));
        if (i % 10_000 == 9_999) {
          long now = writer.estimatedLength();
          assertThat(now).isGreaterThan(last);
          last = now;
          grownAt++;
        }
      }
      assertThat(grownAt).isEqualTo(10);
      assertThat(writer.rowCount()).isEqualTo(n);
      file = writer.finish();
      // finish is idempotent
      assertThat(writer.finish()).isSameAs(file);
    }
    assertThat(file.rowCount()).isEqualTo(n);
    assertThat(file.fileSize()).isEqualTo(Files.size(tempDir.resolve("many.parquet")));
    assertThat(file.stats().min().getLong(0)).isZero();
    assertThat(file.stats().max().getLong(0)).isEqualTo(n - 1);
    assertThat(file.stats().nullCounts()[9]).isEqualTo(n);

    try (DataFileReader reader = DataFileReader.open(path, TYPE, new int[] {0, 5, 1, 3})) {
      assertThat(reader.footer().getBlocks().size()).isGreaterThan(3);
      assertThat(reader.rowCount()).isEqualTo(n);
      RowType produced = reader.producedType();
      long expectedId = 0;
      RowData r;
      while ((r = reader.next()) != null) {
        RowData expected = row(expectedId);
        assertThat(r.getLong(0)).isEqualTo(expectedId);
        assertThat(r.getTimestamp(1, 9)).isEqualTo(expected.getTimestamp(5, 9));
        if (expected.isNullAt(1)) {
          assertThat(r.isNullAt(2)).isTrue();
        } else {
          assertThat(r.getString(2)).isEqualTo(expected.getString(1));
        }
        assertThat(r.getDecimal(3, 38, 2)).isEqualTo(expected.getDecimal(3, 38, 2));
        expectedId++;
      }
      assertThat(expectedId).isEqualTo(n);
      assertThat(produced.getFieldNames()).containsExactly("id", "ts", "name", "big");
    }
  }

  @Test
  void closeWithoutFinishDeletesThePartialFile() throws Exception {
    Path path = newPath("aborted.parquet");
    try (DataFileWriter writer = DataFileWriter.create(path, TYPE, FileFormatOptions.defaults())) {
      for (long i = 0; i < 1000; i++) {
        writer.write(row(i));
      }
      assertThat(tempDir.resolve("aborted.parquet")).exists();
    }
    assertThat(tempDir.resolve("aborted.parquet")).doesNotExist();
  }

  @Test
  void createFailsIfTheFileExistsAndKeepsIt() throws Exception {
    java.nio.file.Path local = tempDir.resolve("exists.parquet");
    Files.write(local, new byte[] {1, 2, 3});
    Path path = newPath("exists.parquet");
    assertThatThrownBy(() -> DataFileWriter.create(path, TYPE, FileFormatOptions.defaults()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exists");
    assertThat(Files.readAllBytes(local)).containsExactly(1, 2, 3);
  }

  @Test
  void writeAfterFinishFails() throws Exception {
    Path path = newPath("done.parquet");
    DataFileWriter writer = DataFileWriter.create(path, TYPE, FileFormatOptions.defaults());
    writer.write(row(1));
    writer.finish();
    assertThatThrownBy(() -> writer.write(row(2))).isInstanceOf(IllegalStateException.class);
    writer.close(); // no-op after finish: keeps the file
    assertThat(tempDir.resolve("done.parquet")).exists();
  }

  /**
   * Every precision holds the years 0001 to 9999 but 7 to 9 (INT64 nanoseconds: 1677 to 2262),
   * whose limits are refused naming the column, also inside a nested column (it was an
   * ArithmeticException naming nothing); TIMESTAMP(6) holds 9999-12-31.
   */
  @Test
  void timestampsOutsideWhatAPrecisionStoresAreRefusedNamingTheColumn() throws Exception {
    for (int precision = 0; precision <= 9; precision++) {
      for (String text :
          List.of(
              "0001-01-01T00:00",
              "1677-09-21T00:12:44",
              "2262-04-11T23:47:16",
              "9999-12-31T23:59:59.999999999")) {
        LocalDateTime time = LocalDateTime.parse(text);
        boolean fits =
            precision <= 6
                || (time.getYear() > 1677 && time.getYear() < 2262)
                || text.startsWith("1677")
                || text.startsWith("2262");
        for (boolean nested : new boolean[] {false, true}) {
          LogicalType ts = new TimestampType(precision);
          RowType type =
              nested
                  ? RowType.of(new LogicalType[] {new ArrayType(ts)}, new String[] {"a"})
                  : RowType.of(new LogicalType[] {ts}, new String[] {"ts"});
          TimestampData value = TimestampData.fromLocalDateTime(time);
          GenericRowData row =
              GenericRowData.of(nested ? new GenericArrayData(new Object[] {value}) : value);
          Path path = newPath("p" + precision + nested + text.substring(0, 4) + ".parquet");
          try (DataFileWriter writer =
              DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
            String at = "TIMESTAMP(" + precision + ") " + text + (nested ? " nested" : "");
            if (fits) {
              writer.write(row);
              writer.finish();
            } else {
              assertThatThrownBy(() -> writer.write(row))
                  .as(at)
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessageStartingWith("Column '" + (nested ? "a" : "ts"))
                  .hasMessageContaining("cannot be stored with precision 7 to 9");
            }
          }
        }
      }
    }
  }

  /**
   * A failure while a row is handed to Parquet (here a value that cannot be read) leaves the writer
   * unusable: later writes and finish fail, and the file is deleted.
   */
  @Test
  void failedWriteMakesFinishAbortAndDeleteTheFile() throws Exception {
    RowType type =
        RowType.of(new LogicalType[] {new IntType(), new BigIntType()}, new String[] {"i", "l"});
    Path path = newPath("overflow.parquet");
    try (DataFileWriter writer = DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
      writer.write(GenericRowData.of(1, 1L));
      RowData unreadable =
          (RowData)
              java.lang.reflect.Proxy.newProxyInstance(
                  RowData.class.getClassLoader(),
                  new Class<?>[] {RowData.class},
                  (proxy, method, args) ->
                      switch (method.getName()) {
                        case "getArity" -> 2;
                        case "getRowKind" -> org.apache.flink.types.RowKind.INSERT;
                        case "isNullAt" -> false;
                        case "getInt" -> 2;
                        case "toString" -> "a row whose BIGINT cannot be read";
                        default ->
                            throw new IllegalStateException("Injected: the value cannot be read");
                      });
      assertThatThrownBy(() -> writer.write(unreadable))
          .hasMessageContaining("Injected: the value cannot be read");
      assertThatThrownBy(() -> writer.write(GenericRowData.of(3, 3L)))
          .isInstanceOf(IOException.class);
      assertThatThrownBy(writer::finish).isInstanceOf(IOException.class);
    }
    assertThat(tempDir.resolve("overflow.parquet")).doesNotExist();
  }

  /**
   * A job's cancellation interrupts the thread that writes (the rewrite of a compaction task); the
   * local file system then closes the file's channel, and every later call on the stream fails.
   * Wherever the interrupt lands (before the file is created, after any row of a file of many pages
   * and row groups, before it is finished), the write either completes or fails leaving no file: a
   * partial file nothing references is an orphan. CI found one left by a rewrite cancelled while it
   * created its file (closing the stream failed, and the delete was skipped).
   */
  @Test
  void aWriteInterruptedAnywhereCompletesOrLeavesNoFile() throws Exception {
    FileFormatOptions options =
        FileFormatOptions.defaults().withRowGroupSize(16 * 1024).withPageSize(1024);
    int rows = 600;
    // classes load first, as in a running job (class loading under an interrupt fails apart)
    try (DataFileWriter warm = DataFileWriter.create(newPath("warm.parquet"), TYPE, options)) {
      warm.write(row(0));
      warm.finish();
    }
    for (int at = -1; at <= rows; at += at < 40 ? 1 : 23) {
      java.nio.file.Path local = tempDir.resolve("interrupted-" + at + ".parquet");
      WrittenFile written = null;
      Throwable failure = null;
      try {
        if (at == -1) {
          Thread.currentThread().interrupt();
        }
        try (DataFileWriter writer =
            DataFileWriter.create(new Path(local.toUri()), TYPE, options)) {
          for (int i = 0; i < rows; i++) {
            if (i == at) {
              Thread.currentThread().interrupt();
            }
            writer.write(row(i));
          }
          if (at == rows) {
            Thread.currentThread().interrupt();
          }
          written = writer.finish();
        }
      } catch (IOException | RuntimeException e) {
        failure = e;
      } finally {
        Thread.interrupted(); // the next case starts without the flag
      }
      if (failure != null) {
        assertThat(local).as("interrupted at %s: %s", at, failure).doesNotExist();
      } else {
        assertThat(Files.size(local)).as("interrupted at %s", at).isEqualTo(written.fileSize());
        try (DataFileReader reader =
            DataFileReader.open(new Path(local.toUri()), TYPE, new int[] {0})) {
          assertThat(reader.rowCount()).isEqualTo(rows);
        }
      }
    }
  }
}
