package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.YearMonthIntervalType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

public class DataFileRoundTripTest {

  @TempDir java.nio.file.Path tempDir;

  public static final RowType ALL =
      RowType.of(
          new LogicalType[] {
            new BooleanType(),
            new TinyIntType(),
            new SmallIntType(),
            new IntType(),
            new BigIntType(),
            new FloatType(),
            new DoubleType(),
            new CharType(5),
            VarCharType.STRING_TYPE,
            new BinaryType(4),
            new VarBinaryType(VarBinaryType.MAX_LENGTH),
            new DecimalType(9, 2),
            new DecimalType(18, 4),
            new DecimalType(38, 10),
            new DateType(),
            new TimeType(3),
            new TimestampType(3),
            new TimestampType(6),
            new TimestampType(9),
            new LocalZonedTimestampType(6),
            new LocalZonedTimestampType(3),
            new IntType(false),
            new VarCharType(false, VarCharType.MAX_LENGTH),
            new TimestampType(false, 9),
            new DecimalType(false, 38, 0),
            new BooleanType(false),
            new BigIntType(false),
          },
          new String[] {
            "b",
            "ti",
            "si",
            "i",
            "l",
            "f",
            "d",
            "c",
            "s",
            "bin",
            "vb",
            "dec9",
            "dec18",
            "dec38",
            "dt",
            "tm",
            "ts3",
            "ts6",
            "ts9",
            "ltz6",
            "ltz3",
            "i_nn",
            "s_nn",
            "ts9_nn",
            "dec38_nn",
            "b_nn",
            "l_nn"
          });

  static TimestampData ts(String iso) {
    return TimestampData.fromLocalDateTime(LocalDateTime.parse(iso));
  }

  static DecimalData dec(String v, int p, int s) {
    return DecimalData.fromBigDecimal(new BigDecimal(v), p, s);
  }

  public static List<RowData> sampleRows() {
    List<RowData> rows = new ArrayList<>();
    // maxima
    rows.add(
        GenericRowData.of(
            true,
            Byte.MAX_VALUE,
            Short.MAX_VALUE,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            Float.MAX_VALUE,
            Double.MAX_VALUE,
            StringData.fromString("abcde"),
            StringData.fromString("héllo wörld ✓ 𝄞 日本"),
            new byte[] {(byte) 0xff, 0, 1, 2},
            new byte[] {(byte) 0x80, (byte) 0xff},
            dec("9999999.99", 9, 2),
            dec("99999999999999.9999", 18, 4),
            dec("9999999999999999999999999999.9999999999", 38, 10),
            2932896, // 9999-12-31
            86_399_999,
            ts("9999-12-31T23:59:59.999"),
            ts("2262-04-11T23:47:16.854775"),
            ts("2262-04-11T23:47:16.854775807"),
            ts("2200-01-01T00:00:00.123456"),
            ts("2200-01-01T00:00:00.123"),
            Integer.MAX_VALUE,
            StringData.fromString("zzz"),
            ts("2262-04-11T23:47:16.854775807"),
            dec("99999999999999999999999999999999999999", 38, 0),
            true,
            Long.MAX_VALUE));
    // minima / negatives
    rows.add(
        GenericRowData.of(
            false,
            Byte.MIN_VALUE,
            Short.MIN_VALUE,
            Integer.MIN_VALUE,
            Long.MIN_VALUE,
            -Float.MAX_VALUE,
            -Double.MAX_VALUE,
            StringData.fromString(""),
            StringData.fromString(""),
            new byte[] {0, 0, 0, 0},
            new byte[0],
            dec("-9999999.99", 9, 2),
            dec("-99999999999999.9999", 18, 4),
            dec("-9999999999999999999999999999.9999999999", 38, 10),
            -719162, // 0001-01-01
            0,
            ts("0001-01-01T00:00:00"),
            ts("1677-09-21T00:12:43.145225"),
            ts("1677-09-21T00:12:43.145224193"),
            ts("1969-12-31T23:59:59.999999"),
            ts("1969-12-31T23:59:59.999"),
            Integer.MIN_VALUE,
            StringData.fromString(""),
            ts("1677-09-21T00:12:43.145224193"),
            dec("-99999999999999999999999999999999999999", 38, 0),
            false,
            Long.MIN_VALUE));
    // nulls in every nullable column
    GenericRowData nulls = new GenericRowData(ALL.getFieldCount());
    nulls.setField(21, 0);
    nulls.setField(22, StringData.fromString("null row"));
    nulls.setField(23, ts("1970-01-01T00:00:00"));
    nulls.setField(24, dec("0", 38, 0));
    nulls.setField(25, false);
    nulls.setField(26, 0L);
    rows.add(nulls);
    // ordinary values, small decimals and sub-ms timestamps
    rows.add(
        GenericRowData.of(
            true,
            (byte) 7,
            (short) -300,
            42,
            -1L,
            Float.NaN,
            -0.0d,
            StringData.fromString("a"),
            StringData.fromString("plain"),
            new byte[] {1, 2, 3, 4},
            new byte[] {1},
            dec("-0.01", 9, 2),
            dec("0.0001", 18, 4),
            dec("-0.0000000001", 38, 10),
            19000,
            12_345,
            ts("2024-02-29T12:34:56.789"),
            ts("2024-02-29T12:34:56.789012"),
            ts("2024-02-29T12:34:56.789012345"),
            ts("1960-06-15T01:02:03.000004"),
            ts("1960-06-15T01:02:03.004"),
            -5,
            StringData.fromString("ü"),
            ts("1960-06-15T01:02:03.000000001"),
            dec("-1", 38, 0),
            true,
            123L));
    return rows;
  }

  Path newPath(String name) {
    return new Path(tempDir.resolve(name).toUri());
  }

  WrittenFile write(Path path, RowType type, List<RowData> rows, FileFormatOptions options)
      throws Exception {
    try (DataFileWriter writer = DataFileWriter.create(path, type, options)) {
      for (RowData row : rows) {
        writer.write(row);
      }
      return writer.finish();
    }
  }

  /**
   * NOT NULL columns of a file read as nullable ones (a primary-key table's layout made its value
   * columns nullable after the file was written): the same values, whole or projected.
   */
  @Test
  void requiredColumnsReadAsNullableOnes() throws Exception {
    List<RowData> rows = sampleRows();
    Path path = newPath("required.parquet");
    write(path, ALL, rows, FileFormatOptions.defaults());
    List<RowType.RowField> nullable = new ArrayList<>();
    for (RowType.RowField f : ALL.getFields()) {
      nullable.add(new RowType.RowField(f.getName(), f.getType().copy(true)));
    }
    RowType asNullable = new RowType(nullable);
    assertThat(asNullable).isNotEqualTo(ALL);
    try (DataFileReader reader = DataFileReader.open(path, asNullable, null)) {
      assertThat(TestRows.all(ALL, reader.readAll())).isEqualTo(TestRows.all(ALL, rows));
    }
    int[] projection = {ALL.getFieldCount() - 1, 0, ALL.getFieldIndex("s_nn")};
    try (DataFileReader reader = DataFileReader.open(path, asNullable, projection)) {
      List<RowData> expected = new ArrayList<>();
      rows.forEach(r -> expected.add(project(r, projection)));
      RowType projected = DataFileReader.project(ALL, projection);
      assertThat(TestRows.all(projected, reader.readAll()))
          .isEqualTo(TestRows.all(projected, expected));
    }
  }

  @Test
  void roundTripsEveryTypeWithNullsAndEdgeValues() throws Exception {
    List<RowData> rows = sampleRows();
    Path path = newPath("all.parquet");
    WrittenFile file = write(path, ALL, rows, FileFormatOptions.defaults());

    assertThat(file.path()).isEqualTo(path);
    assertThat(file.rowCount()).isEqualTo(rows.size());
    assertThat(file.fileSize()).isEqualTo(Files.size(tempDir.resolve("all.parquet")));

    try (DataFileReader reader = DataFileReader.open(path, ALL, null)) {
      assertThat(reader.rowCount()).isEqualTo(rows.size());
      assertThat(reader.producedType()).isEqualTo(ALL);
      List<RowData> read = reader.readAll();
      assertThat(TestRows.all(ALL, read)).isEqualTo(TestRows.all(ALL, rows));
      assertThat(reader.next()).isNull();
    }
  }

  @Test
  void roundTripsBinaryRowsAndWithoutDictionary() throws Exception {
    List<RowData> rows = new ArrayList<>();
    for (RowData row : sampleRows()) {
      rows.add(BinaryRows.toBinary(ALL, row));
    }
    Path path = newPath("binary.parquet");
    write(path, ALL, rows, FileFormatOptions.defaults().withDictionary(false));
    assertThat(TestRows.all(ALL, DataFileReader.readAll(path, ALL, null)))
        .isEqualTo(TestRows.all(ALL, sampleRows()));
  }

  @Test
  void aReturnedRowStaysValidUntilTheSecondNextAndReadAllCopies() throws Exception {
    Path path = newPath("reuse.parquet");
    List<RowData> rows = sampleRows();
    write(path, ALL, rows, FileFormatOptions.defaults());
    // the record-assembly path (DECIMAL columns) and the columnar path (all other columns)
    for (int[] projection : new int[][] {null, {0, 3, 8, 18, 22}}) {
      RowType produced = DataFileReader.project(ALL, projection);
      try (DataFileReader reader = DataFileReader.open(path, ALL, projection)) {
        assertThat(reader.isColumnar()).isEqualTo(projection != null);
        RowData first = reader.next();
        RowData second = reader.next();
        assertThat(second).isNotSameAs(first);
        assertThat(TestRows.fields(produced, first))
            .isEqualTo(TestRows.fields(produced, project(rows.get(0), projection)));
        RowData copy = reader.copy(second);
        RowData third = reader.next();
        assertThat(third).isSameAs(first);
        assertThat(TestRows.fields(produced, second))
            .isEqualTo(TestRows.fields(produced, project(rows.get(1), projection)));
        assertThat(TestRows.fields(produced, copy))
            .isEqualTo(TestRows.fields(produced, project(rows.get(1), projection)));
        // skipping does not invalidate the row last returned
        assertThat(reader.skip()).isTrue();
        assertThat(TestRows.fields(produced, third))
            .isEqualTo(TestRows.fields(produced, project(rows.get(2), projection)));
        assertThat(reader.next()).isNull();
        assertThat(reader.skip()).isFalse();
      }
    }
  }

  private static RowData project(RowData row, int[] projection) {
    if (projection == null) {
      return row;
    }
    GenericRowData out = new GenericRowData(projection.length);
    for (int i = 0; i < projection.length; i++) {
      int p = projection[i];
      out.setField(i, RowData.createFieldGetter(ALL.getTypeAt(p), p).getFieldOrNull(row));
    }
    return out;
  }

  @Test
  void columnarReadMatchesAcrossPagesBatchesRowGroupsAndCodecs() throws Exception {
    // every column but the decimals: decoded column-wise
    int[] simple = {
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 25, 26
    };
    RowType produced = DataFileReader.project(ALL, simple);
    List<RowData> samples = sampleRows();
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      GenericRowData r = (GenericRowData) samples.get(i % samples.size());
      GenericRowData copy = new GenericRowData(ALL.getFieldCount());
      for (int f = 0; f < ALL.getFieldCount(); f++) {
        copy.setField(f, r.getField(f));
      }
      copy.setField(8, StringData.fromString("row-" + i)); // distinct, not dictionary-friendly
      if (i % 7 == 0) {
        copy.setField(22, StringData.fromString("k" + (i % 3)));
      }
      rows.add(copy);
    }
    for (FileFormatOptions options :
        List.of(
            FileFormatOptions.defaults().withRowGroupSize(64 * 1024).withPageSize(4 * 1024),
            FileFormatOptions.defaults().withDictionary(false),
            FileFormatOptions.defaults().withCompression("snappy").withPageSize(8 * 1024),
            FileFormatOptions.defaults().withCompression("uncompressed"),
            FileFormatOptions.defaults().withCompression("gzip").withDictionary(false))) {
      Path path = newPath("columnar-" + options.hashCode() + "-" + System.nanoTime() + ".parquet");
      write(path, ALL, rows, options);
      List<Object> heldStrings = new ArrayList<>();
      List<Object> heldBytes = new ArrayList<>();
      try (DataFileReader reader = DataFileReader.open(path, ALL, simple)) {
        assertThat(reader.isColumnar()).as(options.toString()).isTrue();
        int r = 0;
        RowData row;
        while ((row = reader.next()) != null) {
          List<Object> full = TestRows.fields(ALL, rows.get(r));
          List<Object> expected = new ArrayList<>();
          for (int p : simple) {
            expected.add(full.get(p));
          }
          assertThat(TestRows.fields(produced, row)).as(options + " row " + r).isEqualTo(expected);
          heldStrings.add(row.getString(8));
          heldBytes.add(row.isNullAt(10) ? null : row.getBinary(10));
          r++;
        }
        assertThat(r).isEqualTo(rows.size());
        assertThat(reader.next()).isNull();
      }
      for (int i = 0; i < rows.size(); i++) {
        assertThat(heldStrings.get(i).toString()).isEqualTo("row-" + i);
        byte[] expectedBytes = rows.get(i).isNullAt(10) ? null : rows.get(i).getBinary(10);
        assertThat((byte[]) heldBytes.get(i)).isEqualTo(expectedBytes);
      }
    }
  }

  /** A file written by plain parquet-mr with v2 data pages, as another engine might write it. */
  private Path writeV2(String name, RowType type, int rows, int distinct) throws Exception {
    Path path = newPath(name);
    org.apache.parquet.example.data.simple.SimpleGroupFactory groups =
        new org.apache.parquet.example.data.simple.SimpleGroupFactory(
            ParquetSchemas.toParquet(type));
    try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> w =
        org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(new FlinkOutputFile(path))
            .withType(ParquetSchemas.toParquet(type))
            .withWriterVersion(
                org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_2_0)
            .withPageSize(2048)
            .withDictionaryEncoding(true)
            .withCompressionCodec(org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY)
            .withConf(new org.apache.hadoop.conf.Configuration(false))
            .build()) {
      for (int i = 0; i < rows; i++) {
        org.apache.parquet.example.data.Group g = groups.newGroup();
        g.add("id", (long) (i % distinct));
        if (i % 5 != 0) {
          g.add("name", "n" + (i % distinct));
        }
        w.write(g);
      }
    }
    return path;
  }

  @Test
  void readsDataPagesV2OfOtherWritersColumnWiseOrByRecordAssembly() throws Exception {
    RowType type =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new VarCharType(100)},
            new String[] {"id", "name"});
    // few distinct values: dictionary-encoded v2 pages, decoded column-wise;
    // many: parquet-mr falls back to DELTA encodings, read through record assembly
    for (int distinct : new int[] {37, 1_000_000}) {
      Path path = writeV2("v2-" + distinct + ".parquet", type, 20_000, distinct);
      try (DataFileReader reader = DataFileReader.open(path, type, null)) {
        assertThat(reader.isColumnar()).isEqualTo(distinct == 37);
        for (int i = 0; i < 20_000; i++) {
          RowData row = reader.next();
          assertThat(row.getLong(0)).isEqualTo(i % distinct);
          if (i % 5 == 0) {
            assertThat(row.isNullAt(1)).as("row %d", i).isTrue();
          } else {
            assertThat(row.getString(1).toString()).isEqualTo("n" + (i % distinct));
          }
        }
        assertThat(reader.next()).isNull();
      }
    }
  }

  @Test
  void readsRleEncodedBooleansOfDataPagesV2() throws Exception {
    // parquet-mr's v2 writer encodes BOOLEAN values with RLE: the column chunk's encodings are
    // then just {RLE}, the same as the definition levels of a plain column
    RowType type =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new BooleanType()},
            new String[] {"id", "flag"});
    Path path = newPath("v2-boolean.parquet");
    org.apache.parquet.example.data.simple.SimpleGroupFactory groups =
        new org.apache.parquet.example.data.simple.SimpleGroupFactory(
            ParquetSchemas.toParquet(type));
    try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> w =
        org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(new FlinkOutputFile(path))
            .withType(ParquetSchemas.toParquet(type))
            .withWriterVersion(
                org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_2_0)
            .withDictionaryEncoding(true)
            .withConf(new org.apache.hadoop.conf.Configuration(false))
            .build()) {
      for (int i = 0; i < 1000; i++) {
        org.apache.parquet.example.data.Group g = groups.newGroup();
        g.add("id", (long) (i % 7));
        if (i % 3 != 0) {
          g.add("flag", i % 2 == 0);
        }
        w.write(g);
      }
    }
    try (DataFileReader reader = DataFileReader.open(path, type, null)) {
      for (int i = 0; i < 1000; i++) {
        RowData row = reader.next();
        assertThat(row.getLong(0)).isEqualTo(i % 7);
        if (i % 3 == 0) {
          assertThat(row.isNullAt(1)).as("row %d", i).isTrue();
        } else {
          assertThat(row.getBoolean(1)).as("row %d", i).isEqualTo(i % 2 == 0);
        }
      }
      assertThat(reader.next()).isNull();
    }
  }

  @Test
  void aCorruptPageIsAnErrorNamingTheFile() throws Exception {
    Path path = newPath("corrupt.parquet");
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      rows.add(GenericRowData.of((long) i, StringData.fromString("v" + i)));
    }
    RowType type =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new VarCharType(100)},
            new String[] {"id", "v"});
    write(path, type, rows, FileFormatOptions.defaults().withCompression("uncompressed"));
    java.nio.file.Path file = tempDir.resolve("corrupt.parquet");
    byte[] bytes = Files.readAllBytes(file);
    // overwrite the start of the first column chunk (its page header) with garbage
    for (int i = 4; i < 40; i++) {
      bytes[i] = (byte) 0xFF;
    }
    Files.write(file, bytes);
    assertThatThrownBy(() -> DataFileReader.readAll(path, type, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("corrupt.parquet")
        .hasMessageContaining("column 'id'");
  }

  private static final RowType ID_AND_V =
      RowType.of(
          new LogicalType[] {new BigIntType(false), new VarCharType(100)},
          new String[] {"id", "v"});

  /** 5000 rows of ID_AND_V in two row groups, each column with a dictionary and data pages. */
  private java.nio.file.Path writeIdAndV(String name, String compression) throws Exception {
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      rows.add(GenericRowData.of((long) (i % 700), StringData.fromString("v" + (i % 300))));
    }
    write(
        newPath(name),
        ID_AND_V,
        rows,
        FileFormatOptions.defaults()
            .withCompression(compression)
            .withRowGroupSize(32 * 1024)
            .withPageSize(64 * 1024));
    return tempDir.resolve(name);
  }

  @ParameterizedTest(name = "{0} {1} of {2}")
  @CsvSource({
    "zstd, DATA_PAGE, v",
    "zstd, DICTIONARY_PAGE, id",
    "uncompressed, DATA_PAGE, v",
    "uncompressed, DICTIONARY_PAGE, id",
    "uncompressed, DICTIONARY_PAGE, v"
  })
  void aFlippedByteInAPageIsCaughtByItsCrcNamingFileColumnAndRowGroup(
      String compression, org.apache.parquet.format.PageType type, String column) throws Exception {
    java.nio.file.Path file = writeIdAndV("flipped-" + compression + ".parquet", compression);
    assertThat(ParquetPages.footer(file).getBlocks()).hasSizeGreaterThan(1);
    ParquetPages.flipBodyByte(file, ParquetPages.page(file, 1, column, type));

    // the uncompressed pages decode without complaint: only the CRC tells
    assertThatThrownBy(() -> DataFileReader.readAll(new Path(file.toUri()), ID_AND_V, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining(file.getFileName().toString())
        .hasMessageContaining("column '" + column + "'")
        .hasMessageContaining("row group 1")
        .hasMessageContaining("CRC32");
  }

  @Test
  void aFlippedByteIsCaughtByItsCrcWhenRecordsAreAssembledToo() throws Exception {
    // DECIMAL columns are read through parquet-mr's record assembly, not column-wise
    RowType type =
        RowType.of(
            new LogicalType[] {new BigIntType(false), new DecimalType(18, 2)},
            new String[] {"id", "amount"});
    List<RowData> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(GenericRowData.of((long) i, DecimalData.fromUnscaledLong(i * 7L, 18, 2)));
    }
    Path path = newPath("assembled.parquet");
    write(path, type, rows, FileFormatOptions.defaults().withCompression("uncompressed"));
    java.nio.file.Path file = tempDir.resolve("assembled.parquet");
    try (DataFileReader reader = DataFileReader.open(path, type, null)) {
      assertThat(reader.isColumnar()).isFalse();
    }
    ParquetPages.flipBodyByte(
        file, ParquetPages.page(file, 0, "amount", org.apache.parquet.format.PageType.DATA_PAGE));

    assertThatThrownBy(() -> DataFileReader.readAll(path, type, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("assembled.parquet")
        .hasMessageContaining("row group 0")
        .hasRootCauseMessage("could not verify page integrity, CRC checksum verification failed");
  }

  @Test
  void pagesWithoutACrcAreStillDecoded() throws Exception {
    java.nio.file.Path file = writeIdAndV("no-crc.parquet", "zstd");
    List<RowData> expected = DataFileReader.readAll(new Path(file.toUri()), ID_AND_V, null);
    ParquetPages.stripCrcs(file);
    assertThat(ParquetPages.pages(file)).noneMatch(ParquetPages.Page::hasCrc);

    List<RowData> read = DataFileReader.readAll(new Path(file.toUri()), ID_AND_V, null);
    assertThat(TestRows.all(ID_AND_V, read)).isEqualTo(TestRows.all(ID_AND_V, expected));
  }

  @Test
  void aTruncatedFileOrABadFooterIsAnErrorNamingTheFile() throws Exception {
    java.nio.file.Path truncated = writeIdAndV("truncated.parquet", "zstd");
    final byte[] bytes = Files.readAllBytes(truncated);
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    assertThatThrownBy(() -> DataFileReader.readAll(new Path(truncated.toUri()), ID_AND_V, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("Cannot read the Parquet footer of data file")
        .hasMessageContaining("truncated.parquet");
    // at the size its manifest entry gives
    assertThatThrownBy(
            () -> DataFileReader.open(new Path(truncated.toUri()), ID_AND_V, null, bytes.length))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("Cannot read the Parquet footer of data file")
        .hasMessageContaining("truncated.parquet")
        .hasMessageContaining("ends early (truncated?)");

    // the footer's bytes (before its length and the magic) overwritten
    java.nio.file.Path badFooter = writeIdAndV("bad-footer.parquet", "zstd");
    byte[] footerDamaged = Files.readAllBytes(badFooter);
    for (int i = footerDamaged.length - 60; i < footerDamaged.length - 8; i++) {
      footerDamaged[i] = (byte) 0xA5;
    }
    Files.write(badFooter, footerDamaged);
    assertThatThrownBy(() -> DataFileReader.readAll(new Path(badFooter.toUri()), ID_AND_V, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("Cannot read the Parquet footer of data file")
        .hasMessageContaining("bad-footer.parquet");
  }

  @Test
  void aFooterRowCountOtherThanTheManifestsIsAnErrorNamingTheFile() throws Exception {
    java.nio.file.Path file = writeIdAndV("count.parquet", "zstd");
    Path path = new Path(file.toUri());
    assertThatThrownBy(() -> DataFileReader.open(path, ID_AND_V, null, Files.size(file), 4999))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("count.parquet")
        .hasMessageContaining("holds 5000 rows by its footer")
        .hasMessageContaining("says 4999");
    try (DataFileReader reader =
        DataFileReader.open(path, ID_AND_V, null, Files.size(file), 5000)) {
      assertThat(reader.readAll()).hasSize(5000);
    }
  }

  /** Makes the footer of {@code file} claim one row less in its last row group than it holds. */
  private static void footerLosesARow(java.nio.file.Path file) {
    ParquetPages.rewriteFooter(
        file,
        meta -> {
          org.apache.parquet.format.RowGroup last =
              meta.getRow_groups().get(meta.getRow_groupsSize() - 1);
          last.setNum_rows(last.getNum_rows() - 1);
          meta.setNum_rows(meta.getNum_rows() - 1);
        });
  }

  @Test
  void aFooterClaimingFewerRowsThanThePagesHoldIsAnError() throws Exception {
    java.nio.file.Path file = writeIdAndV("fewer.parquet", "zstd");
    int last = ParquetPages.footer(file).getBlocks().size() - 1;
    footerLosesARow(file);
    Path path = new Path(file.toUri());

    assertThatThrownBy(() -> DataFileReader.readAll(path, ID_AND_V, null))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("fewer.parquet")
        .hasMessageContaining("row group " + last)
        .hasMessageContaining("holds more values than the row group has rows");
  }

  @Test
  void theRowGroupCopyRefusesAFooterClaimingFewerRowsThanTheValues() throws Exception {
    java.nio.file.Path file = writeIdAndV("copy-fewer.parquet", "zstd");
    int last = ParquetPages.footer(file).getBlocks().size() - 1;
    long rows;
    try (DataFileReader reader = DataFileReader.open(new Path(file.toUri()), ID_AND_V, null)) {
      rows = reader.rowCount();
    }
    // the footer and the manifest agree on a row less than the pages hold
    footerLosesARow(file);
    ColumnStats stats =
        new ColumnStats(
            BinaryRows.toBinary(ID_AND_V, GenericRowData.of(0L, StringData.fromString("a"))),
            BinaryRows.toBinary(ID_AND_V, GenericRowData.of(1L, StringData.fromString("b"))),
            new long[2]);
    RowGroupCopier.Input input =
        new RowGroupCopier.Input(new Path(file.toUri()), Files.size(file), rows - 1, stats);
    Path out = newPath("copy-out.parquet");

    assertThatThrownBy(
            () ->
                RowGroupCopier.copy(
                    List.of(input), out, ID_AND_V, FileFormatOptions.defaults(), () -> false))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("copy-fewer.parquet")
        .hasMessageContaining("row group " + last)
        .hasMessageContaining("values for");
    assertThat(tempDir.resolve("copy-out.parquet")).doesNotExist();
  }

  @Test
  void projectsSubsetAndReorderedFields() throws Exception {
    List<RowData> rows = sampleRows();
    Path path = newPath("proj.parquet");
    write(path, ALL, rows, FileFormatOptions.defaults());
    int[] projection = {18, 8, 3, 13};
    try (DataFileReader reader = DataFileReader.open(path, ALL, projection)) {
      RowType produced = reader.producedType();
      assertThat(produced.getFieldNames()).containsExactly("ts9", "s", "i", "dec38");
      List<RowData> read = reader.readAll();
      assertThat(read).hasSize(rows.size());
      for (int r = 0; r < rows.size(); r++) {
        List<Object> full = TestRows.fields(ALL, rows.get(r));
        List<Object> expected = new ArrayList<>();
        for (int p : projection) {
          expected.add(full.get(p));
        }
        assertThat(TestRows.fields(produced, read.get(r))).isEqualTo(expected);
      }
    }
    // single column, and an empty projection
    assertThat(
            TestRows.all(
                DataFileReader.project(ALL, new int[] {22}),
                DataFileReader.readAll(path, ALL, new int[] {22})))
        .extracting(l -> l.get(0).toString())
        .containsExactly("zzz", "", "null row", "ü");
    assertThatThrownBy(() -> DataFileReader.open(path, ALL, new int[] {99}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("99");
  }

  @Test
  void schemaMapping() {
    MessageType schema = ParquetSchemas.toParquet(ALL);
    assertThat(schema.getFieldCount()).isEqualTo(ALL.getFieldCount());
    assertThat(schema.getType("i").getRepetition()).isEqualTo(Type.Repetition.OPTIONAL);
    assertThat(schema.getType("i_nn").getRepetition()).isEqualTo(Type.Repetition.REQUIRED);
    assertThat(schema.getType("ti").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.intType(8, true));
    assertThat(schema.getType("s").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.stringType());
    PrimitiveType dec9 = schema.getType("dec9").asPrimitiveType();
    PrimitiveType dec18 = schema.getType("dec18").asPrimitiveType();
    PrimitiveType dec38 = schema.getType("dec38").asPrimitiveType();
    assertThat(dec9.getPrimitiveTypeName()).isEqualTo(PrimitiveType.PrimitiveTypeName.INT32);
    assertThat(dec18.getPrimitiveTypeName()).isEqualTo(PrimitiveType.PrimitiveTypeName.INT64);
    assertThat(dec38.getPrimitiveTypeName())
        .isEqualTo(PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY);
    assertThat(dec38.getTypeLength()).isEqualTo(16);
    assertThat(dec38.getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.decimalType(10, 38));
    assertThat(schema.getType("ts3").getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MILLIS));
    assertThat(schema.getType("ts6").getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS));
    assertThat(schema.getType("ts9").getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.NANOS));
    assertThat(schema.getType("ltz6").getLogicalTypeAnnotation())
        .isEqualTo(
            LogicalTypeAnnotation.timestampType(true, LogicalTypeAnnotation.TimeUnit.MICROS));
    assertThat(schema.getType("tm").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.timeType(false, LogicalTypeAnnotation.TimeUnit.MILLIS));
    assertThat(schema.getType("dt").getLogicalTypeAnnotation())
        .isEqualTo(LogicalTypeAnnotation.dateType());
    assertThat(ParquetSchemas.decimalFixedLength(19)).isEqualTo(9);
  }

  @Test
  void unsupportedTypesAreRejectedWithoutCreatingAFile() {
    // supported nested types holding an unsupported one: refused, naming the column
    LogicalType interval =
        new YearMonthIntervalType(YearMonthIntervalType.YearMonthResolution.YEAR);
    RowType withArray =
        RowType.of(
            new LogicalType[] {new IntType(), new ArrayType(interval)},
            new String[] {"id", "tags"});
    Path path = newPath("array.parquet");
    assertThatThrownBy(() -> DataFileWriter.create(path, withArray, FileFormatOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tags")
        .hasMessageContaining("INTERVAL");
    assertThat(tempDir.resolve("array.parquet")).doesNotExist();

    RowType withMap =
        RowType.of(new LogicalType[] {new MapType(new IntType(), interval)}, new String[] {"m"});
    assertThatThrownBy(() -> ParquetSchemas.toParquet(withMap))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'m")
        .hasMessageContaining("INTERVAL");
  }

  @Test
  void nullInNotNullColumnIsRejected() throws Exception {
    RowType type =
        RowType.of(new LogicalType[] {new IntType(false), new IntType()}, new String[] {"k", "v"});
    Path path = newPath("nn.parquet");
    try (DataFileWriter writer = DataFileWriter.create(path, type, FileFormatOptions.defaults())) {
      writer.write(GenericRowData.of(1, 2));
      assertThatThrownBy(() -> writer.write(GenericRowData.of(null, 3)))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("'k'");
      writer.write(GenericRowData.of(4, null));
      WrittenFile file = writer.finish();
      assertThat(file.rowCount()).isEqualTo(2);
    }
    assertThat(TestRows.all(type, DataFileReader.readAll(path, type, null)))
        .containsExactly(List.of(1, 2), java.util.Arrays.asList(4, null));
  }

  @Test
  void writtenFileAndStatsAreJavaSerializable() throws Exception {
    Path path = newPath("ser.parquet");
    WrittenFile file = write(path, ALL, sampleRows(), FileFormatOptions.defaults());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(file);
      out.writeObject(FileFormatOptions.defaults());
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      WrittenFile copy = (WrittenFile) in.readObject();
      assertThat(copy).isEqualTo(file);
      assertThat(copy.stats().nullCounts()).isEqualTo(file.stats().nullCounts());
      assertThat(in.readObject()).isEqualTo(FileFormatOptions.defaults());
    }
  }

  @Test
  void emptyFile() throws Exception {
    Path path = newPath("empty.parquet");
    WrittenFile file = write(path, ALL, List.of(), FileFormatOptions.defaults());
    assertThat(file.rowCount()).isZero();
    assertThat(file.stats().nullCounts()).containsOnly(0L);
    for (int i = 0; i < ALL.getFieldCount(); i++) {
      assertThat(file.stats().min().isNullAt(i)).isTrue();
      assertThat(file.stats().max().isNullAt(i)).isTrue();
    }
    try (DataFileReader reader = DataFileReader.open(path, ALL, null)) {
      assertThat(reader.rowCount()).isZero();
      assertThat(reader.next()).isNull();
    }
  }
}
