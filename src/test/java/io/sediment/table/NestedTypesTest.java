package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactBuilder;
import io.sediment.manifest.DataFileMeta;
import io.sediment.schema.Schema;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.MultisetType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ARRAY, MAP, MULTISET and ROW columns, nested in each other, with nulls and empty values at every
 * level: generated rows survive writes, reads, the writers' and the batch compaction, on append and
 * primary-key tables; and parquet-mr's own reader reads a file Sediment wrote in Parquet's standard
 * nested layout.
 */
class NestedTypesTest {

  @TempDir Path dir;

  private static Schema.Builder columns() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("tags", DataTypes.ARRAY(DataTypes.STRING()))
        .column("attrs", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
        .column(
            "point",
            DataTypes.ROW(
                DataTypes.FIELD("x", DataTypes.DOUBLE()),
                DataTypes.FIELD("label", DataTypes.STRING()),
                DataTypes.FIELD("hits", DataTypes.ARRAY(DataTypes.BIGINT().notNull()))))
        .column("grid", DataTypes.ARRAY(DataTypes.ARRAY(DataTypes.INT())))
        .column("bag", DataTypes.MULTISET(DataTypes.STRING()))
        .column("money", DataTypes.ARRAY(DataTypes.DECIMAL(22, 2)))
        .column("small", DataTypes.MAP(DataTypes.INT(), DataTypes.DECIMAL(7, 3)))
        .column("times", DataTypes.ARRAY(DataTypes.TIMESTAMP(6)))
        .column("v", DataTypes.STRING());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"append", "deduplicate", "partial-update"})
  void generatedNestedRowsSurviveWritesCompactionsAndReads(String kind) throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Schema.Builder b = columns();
    if (!kind.equals("append")) {
      b.primaryKey("id")
          .option("bucket", "2")
          .option("num-sorted-run.compaction-trigger", "3")
          .option("merge-engine", kind);
    }
    Table t = TestTables.create(catalog, "t", b.build());
    RowType type = t.rowType();
    Random random = new Random(kind.hashCode());
    Map<Long, List<Object>> model = new TreeMap<>();
    long nextId = 0;
    for (int batch = 0; batch < 8; batch++) {
      List<RowData> rows = new ArrayList<>();
      Map<Long, Boolean> seen = new HashMap<>();
      for (int i = 0; i < 25; i++) {
        long id = kind.equals("append") ? nextId++ : random.nextInt(40);
        if (seen.put(id, true) != null) {
          continue;
        }
        GenericRowData row = new GenericRowData(type.getFieldCount());
        row.setField(0, id);
        for (int f = 1; f < type.getFieldCount(); f++) {
          row.setField(f, random.nextInt(6) == 0 ? null : value(type.getTypeAt(f), random, 0));
        }
        rows.add(row);
        List<Object> java = toJava(type, row);
        List<Object> old = model.get(id);
        if (kind.equals("partial-update") && old != null) {
          for (int f = 1; f < java.size(); f++) {
            if (java.get(f) == null) {
              java.set(f, old.get(f)); // a null field does not overwrite
            }
          }
        }
        model.put(id, java);
      }
      TestTables.writeBatch(t, rows);
    }
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model.values());
    t.newCompactBuilder().execute();
    assertThat(read(t)).containsExactlyInAnyOrderElementsOf(model.values());
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).isNotEmpty();
  }

  /**
   * Append compaction of nested files: row groups copied byte for byte (a copy threshold of 1 byte:
   * the output has every input row group), and small ones merged through record assembly (the
   * default: one row group).
   */
  @Test
  void appendCompactionCopiesAndMergesNestedRowGroups() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    for (String copyMin : List.of("1 b", "default")) {
      String name = copyMin.equals("default") ? "merged" : "copied";
      Table t = TestTables.create(catalog, name, columns().build());
      RowType type = t.rowType();
      Random random = new Random(7);
      List<List<Object>> expected = new ArrayList<>();
      for (int batch = 0; batch < 6; batch++) {
        List<RowData> rows = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          GenericRowData row = new GenericRowData(type.getFieldCount());
          row.setField(0, (long) (batch * 100 + i));
          for (int f = 1; f < type.getFieldCount(); f++) {
            row.setField(f, random.nextInt(6) == 0 ? null : value(type.getTypeAt(f), random, 0));
          }
          rows.add(row);
          expected.add(toJava(type, row));
        }
        TestTables.writeBatch(t, rows);
      }
      CompactBuilder compact = t.newCompactBuilder();
      if (!copyMin.equals("default")) {
        compact.withOptions(Map.of("compaction.copy.min-row-group-size", copyMin));
      }
      compact.execute();
      List<Path> files = TestTables.dataFiles(dir.resolve("db.db/" + name));
      List<DataFileMeta> live = new ArrayList<>();
      t.newReadBuilder().newScan().plan().splits().forEach(s -> live.addAll(s.files()));
      assertThat(live).hasSize(1);
      Path out = dir.resolve("db.db/" + name).resolve("bucket-0").resolve(live.get(0).fileName());
      int rowGroups;
      try (ParquetFileReader r =
          ParquetFileReader.open(
              HadoopInputFile.fromPath(
                  new org.apache.hadoop.fs.Path(out.toUri()), new Configuration(false)))) {
        rowGroups = r.getRowGroups().size();
      }
      assertThat(rowGroups)
          .as("%s: row groups of %s", name, files)
          .isEqualTo(name.equals("copied") ? 6 : 1);
      assertThat(read(t)).as(name).containsExactlyElementsOf(expected);
    }
  }

  /** Rows Sediment wrote, read by parquet-mr's example reader: the standard nested layout. */
  @Test
  void parquetMrReadsTheStandardNestedLayout() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t = TestTables.create(catalog, "t", columns().build());
    RowType type = t.rowType();
    GenericRowData full = new GenericRowData(type.getFieldCount());
    full.setField(0, 1L);
    full.setField(
        1,
        new GenericArrayData(
            new Object[] {StringData.fromString("a"), null, StringData.fromString("c")}));
    Map<Object, Object> attrs = new LinkedHashMap<>();
    attrs.put(StringData.fromString("k1"), 7);
    attrs.put(StringData.fromString("k2"), null);
    full.setField(2, new GenericMapData(attrs));
    full.setField(3, GenericRowData.of(2.5, null, new GenericArrayData(new long[] {3L, 4L})));
    full.setField(
        4,
        new GenericArrayData(
            new Object[] {
              new GenericArrayData(new Object[] {1, 2}), new GenericArrayData(new Object[0]), null
            }));
    GenericRowData empty = new GenericRowData(type.getFieldCount());
    empty.setField(0, 2L);
    empty.setField(1, new GenericArrayData(new Object[0]));
    TestTables.writeBatch(t, List.of(full, empty));

    Path file = TestTables.dataFiles(dir.resolve("db.db/t")).get(0);
    List<Group> groups = new ArrayList<>();
    try (ParquetReader<Group> reader =
        ParquetReader.builder(new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
            .withConf(new Configuration(false))
            .build()) {
      Group g;
      while ((g = reader.read()) != null) {
        groups.add(g);
      }
    }
    assertThat(groups).hasSize(2);
    Group first = groups.get(0);
    assertThat(first.getLong("id", 0)).isEqualTo(1);
    Group tags = first.getGroup("tags", 0);
    assertThat(tags.getFieldRepetitionCount("list")).isEqualTo(3);
    assertThat(tags.getGroup("list", 0).getString("element", 0)).isEqualTo("a");
    assertThat(tags.getGroup("list", 1).getFieldRepetitionCount("element")).as("null").isZero();
    assertThat(tags.getGroup("list", 2).getString("element", 0)).isEqualTo("c");
    Group attrsGroup = first.getGroup("attrs", 0);
    assertThat(attrsGroup.getFieldRepetitionCount("key_value")).isEqualTo(2);
    assertThat(attrsGroup.getGroup("key_value", 0).getString("key", 0)).isEqualTo("k1");
    assertThat(attrsGroup.getGroup("key_value", 0).getInteger("value", 0)).isEqualTo(7);
    assertThat(attrsGroup.getGroup("key_value", 1).getFieldRepetitionCount("value")).isZero();
    Group point = first.getGroup("point", 0);
    assertThat(point.getDouble("x", 0)).isEqualTo(2.5);
    assertThat(point.getFieldRepetitionCount("label")).isZero();
    assertThat(point.getGroup("hits", 0).getGroup("list", 1).getLong("element", 0)).isEqualTo(4);
    Group grid = first.getGroup("grid", 0);
    assertThat(grid.getFieldRepetitionCount("list")).isEqualTo(3);
    assertThat(
            grid.getGroup("list", 0)
                .getGroup("element", 0)
                .getGroup("list", 1)
                .getInteger("element", 0))
        .isEqualTo(2);
    assertThat(grid.getGroup("list", 1).getGroup("element", 0).getFieldRepetitionCount("list"))
        .as("an empty inner list")
        .isZero();
    assertThat(grid.getGroup("list", 2).getFieldRepetitionCount("element"))
        .as("a null one")
        .isZero();
    Group second = groups.get(1);
    assertThat(second.getGroup("tags", 0).getFieldRepetitionCount("list")).as("empty").isZero();
    assertThat(second.getFieldRepetitionCount("attrs")).as("null").isZero();
    // and Sediment reads them back as written
    assertThat(read(t)).containsExactlyInAnyOrder(toJava(type, full), toJava(type, empty));
    assertThat(Files.size(file)).isPositive();
  }

  /**
   * A null where a nested type says NOT NULL, or a null map key, fails the write before anything of
   * the row is written, naming where; nothing is committed.
   */
  @Test
  void nullsANestedTypeForbidsAreRefusedNamingWhere() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column(
                    "r",
                    DataTypes.ROW(
                        DataTypes.FIELD(
                            "inner",
                            DataTypes.ROW(DataTypes.FIELD("x", DataTypes.INT())).notNull())))
                .column("a", DataTypes.ARRAY(DataTypes.INT().notNull()))
                .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .build());
    GenericRowData nullInner = GenericRowData.of(1L, GenericRowData.of((Object) null), null, null);
    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(nullInner)))
        .hasStackTraceContaining("'r.inner' is NOT NULL but the value has null");
    GenericRowData nullElement =
        GenericRowData.of(2L, null, new GenericArrayData(new Object[] {1, null}), null);
    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(nullElement)))
        .hasStackTraceContaining("'a[1]' is NOT NULL but the value has null");
    Map<Object, Object> nullKey = new HashMap<>();
    nullKey.put(null, 1);
    GenericRowData nullMapKey = GenericRowData.of(3L, null, null, new GenericMapData(nullKey));
    assertThatThrownBy(() -> TestTables.writeBatch(t, List.of(nullMapKey)))
        .hasStackTraceContaining("Column 'm' has a null map key");
    assertThat(t.latestSnapshot()).as("nothing committed").isEmpty();
    assertThat(TestTables.dataFiles(dir.resolve("db.db/t"))).as("no file left").isEmpty();
  }

  @Test
  void nestedKeysAndPartitionsAreRefused() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "k",
                    Schema.newBuilder()
                        .column("tags", DataTypes.ARRAY(DataTypes.STRING()).notNull())
                        .column("v", DataTypes.STRING())
                        .primaryKey("tags")
                        .option("bucket", "1")
                        .build()))
        .hasMessageContaining("Primary key column 'tags' cannot have the nested type");
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "p",
                    Schema.newBuilder()
                        .column("r", DataTypes.ROW(DataTypes.FIELD("a", DataTypes.INT())))
                        .column("v", DataTypes.STRING())
                        .partitionKeys("r")
                        .build()))
        .hasMessageContaining("Partition column 'r' cannot have the nested type");
    assertThatThrownBy(
            () ->
                TestTables.create(
                    catalog,
                    "i",
                    Schema.newBuilder()
                        .column("x", DataTypes.ARRAY(DataTypes.INTERVAL(DataTypes.SECOND(3))))
                        .build()))
        .hasMessageContaining("Unsupported type for column 'x'");
  }

  private static List<List<Object>> read(Table t) throws Exception {
    RowType type = t.rowType();
    List<List<Object>> out = new ArrayList<>();
    for (RowData r : TestTables.readAll(t)) {
      out.add(toJava(type, r));
    }
    return out;
  }

  /** A random internal value of {@code type}, with nulls and empty collections inside. */
  private static Object value(LogicalType type, Random random, int depth) {
    switch (type.getTypeRoot()) {
      case ARRAY:
        {
          LogicalType element = ((ArrayType) type).getElementType();
          Object[] values = new Object[random.nextInt(4)];
          for (int i = 0; i < values.length; i++) {
            values[i] =
                element.isNullable() && random.nextInt(5) == 0
                    ? null
                    : value(element, random, depth + 1);
          }
          return new GenericArrayData(values);
        }
      case MAP:
      case MULTISET:
        {
          LogicalType k =
              type instanceof MapType m ? m.getKeyType() : ((MultisetType) type).getElementType();
          LogicalType v =
              type instanceof MapType m ? m.getValueType() : DataTypes.INT().getLogicalType();
          Map<Object, Object> map = new LinkedHashMap<>();
          int n = random.nextInt(4);
          for (int i = 0; i < n; i++) {
            map.put(
                value(k, random, depth + 1),
                type instanceof MultisetType
                    ? 1 + random.nextInt(3)
                    : random.nextInt(4) == 0 ? null : value(v, random, depth + 1));
          }
          return new GenericMapData(map);
        }
      case ROW:
        {
          RowType row = (RowType) type;
          GenericRowData r = new GenericRowData(row.getFieldCount());
          for (int i = 0; i < row.getFieldCount(); i++) {
            LogicalType f = row.getTypeAt(i);
            r.setField(
                i, f.isNullable() && random.nextInt(4) == 0 ? null : value(f, random, depth + 1));
          }
          return r;
        }
      case VARCHAR:
        return StringData.fromString("s" + random.nextInt(20));
      case INTEGER:
        return random.nextInt(100) - 50;
      case BIGINT:
        return (long) random.nextInt(1000);
      case DOUBLE:
        return random.nextInt(100) / 4.0;
      case DECIMAL:
        {
          DecimalType d = (DecimalType) type;
          return DecimalData.fromBigDecimal(
              BigDecimal.valueOf(random.nextInt(2_000_000) - 1_000_000, d.getScale()),
              d.getPrecision(),
              d.getScale());
        }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return TimestampData.fromLocalDateTime(
            LocalDateTime.of(2024, 1, 1, 0, 0).plusNanos(random.nextInt(1_000_000) * 1000L));
      default:
        throw new IllegalArgumentException(type.toString());
    }
  }

  /** An internal value as plain Java values (lists, maps, strings), comparable by equals. */
  static List<Object> toJava(RowType type, RowData row) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < type.getFieldCount(); i++) {
      out.add(
          toJava(
              type.getTypeAt(i),
              RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row)));
    }
    return out;
  }

  private static Object toJava(LogicalType type, Object v) {
    if (v == null) {
      return null;
    }
    switch (type.getTypeRoot()) {
      case ARRAY:
        {
          LogicalType element = ((ArrayType) type).getElementType();
          ArrayData a = (ArrayData) v;
          ArrayData.ElementGetter g = ArrayData.createElementGetter(element);
          List<Object> out = new ArrayList<>();
          for (int i = 0; i < a.size(); i++) {
            out.add(toJava(element, g.getElementOrNull(a, i)));
          }
          return out;
        }
      case MAP:
      case MULTISET:
        {
          LogicalType k =
              type instanceof MapType m ? m.getKeyType() : ((MultisetType) type).getElementType();
          LogicalType val =
              type instanceof MapType m ? m.getValueType() : DataTypes.INT().getLogicalType();
          MapData m = (MapData) v;
          Map<Object, Object> out = new HashMap<>();
          ArrayData.ElementGetter kg = ArrayData.createElementGetter(k);
          ArrayData.ElementGetter vg = ArrayData.createElementGetter(val);
          for (int i = 0; i < m.size(); i++) {
            out.put(
                toJava(k, kg.getElementOrNull(m.keyArray(), i)),
                toJava(val, vg.getElementOrNull(m.valueArray(), i)));
          }
          return out;
        }
      case ROW:
        return toJava((RowType) type, (RowData) v);
      case VARCHAR:
        return v.toString();
      case DECIMAL:
        return ((DecimalData) v).toBigDecimal();
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((TimestampData) v).toLocalDateTime();
      case VARBINARY:
        return Arrays.toString((byte[]) v);
      default:
        return v;
    }
  }
}
