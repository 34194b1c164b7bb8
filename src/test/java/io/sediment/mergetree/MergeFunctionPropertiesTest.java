package io.sediment.mergetree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.schema.TableSchema;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The merge engines, table-driven over engines, options and field types, on generated histories of
 * one key: what an LSM tree relies on, and what each aggregate computes.
 *
 * <ul>
 *   <li>Merging a key's versions all at once gives what merging them in consecutive runs first
 *       (minor compactions, at any depth) and then merging the runs' results gives: a compaction
 *       may stop anywhere.
 *   <li>One merge function serves key after key ({@code reset} between): no key sees another's
 *       state (sequence field, partial-update after a delete, aggregates).
 *   <li>Each aggregate function on each type it accepts, against values computed here.
 * </ul>
 */
class MergeFunctionPropertiesTest {

  @TempDir static Path dir;

  private static FileSystemCatalog catalog;
  private static int tables;

  /** The value columns every non-aggregation engine is tested with. */
  private static Schema.Builder plain() {
    return Schema.newBuilder()
        .column("k", DataTypes.BIGINT().notNull())
        .column("s", DataTypes.STRING())
        .column("i", DataTypes.INT())
        .column("d", DataTypes.DECIMAL(10, 2))
        .column("q", DataTypes.BIGINT())
        .primaryKey("k")
        .option("bucket", "1");
  }

  /** One column per aggregate function and type. */
  private static Schema.Builder aggregated() {
    Schema.Builder b =
        Schema.newBuilder()
            .column("k", DataTypes.BIGINT().notNull())
            .column("t", DataTypes.TINYINT())
            .column("sm", DataTypes.SMALLINT())
            .column("i", DataTypes.INT())
            .column("b", DataTypes.BIGINT())
            .column("f", DataTypes.FLOAT())
            .column("db", DataTypes.DOUBLE())
            .column("dc", DataTypes.DECIMAL(12, 2))
            .column("mn", DataTypes.INT())
            .column("mx", DataTypes.STRING())
            .column("mxd", DataTypes.DECIMAL(12, 2))
            .column("lv", DataTypes.STRING())
            .column("lnn", DataTypes.STRING())
            .column("c", DataTypes.BIGINT())
            .primaryKey("k")
            .option("bucket", "1")
            .option("merge-engine", "aggregation");
    for (String sum : List.of("t", "sm", "i", "b", "f", "db", "dc")) {
      b.option("fields." + sum + ".aggregate-function", "sum");
    }
    b.option("fields.mn.aggregate-function", "min")
        .option("fields.mn.ignore-retract", "true")
        .option("fields.mx.aggregate-function", "max")
        .option("fields.mx.ignore-retract", "true")
        .option("fields.mxd.aggregate-function", "max")
        .option("fields.mxd.ignore-retract", "true")
        .option("fields.lv.aggregate-function", "last_value")
        .option("fields.c.aggregate-function", "count");
    // lnn: last_non_null_value, the default
    return b;
  }

  /** {@link #aggregated} without its last_value and last_non_null_value fields. */
  private static Schema.Builder orderIndependentAggregates() {
    return aggregated()
        .option("fields.lv.aggregate-function", "max")
        .option("fields.lnn.aggregate-function", "min")
        .option("fields.lv.ignore-retract", "true")
        .option("fields.lnn.ignore-retract", "true");
  }

  /**
   * The engines whose result depends on the order of a key's versions, with sequence.field: a
   * compaction merges some versions into one row placed by their largest sequence-field value, so
   * what a later merge gives depends on how compactions grouped the versions (a documented limit,
   * shared with Paimon, whose answer is sequence groups: docs/primary-key-tables.md). Not in {@link
   * #engines}; each still resets between keys.
   */
  static Stream<Arguments> orderDependentWithSequenceField() {
    return Stream.of(
        Arguments.of(
            "partial-update, sequence.field",
            plain().option("merge-engine", "partial-update").option("sequence.field", "q")),
        Arguments.of(
            "partial-update, remove-record-on-delete, sequence.field",
            plain()
                .option("merge-engine", "partial-update")
                .option("partial-update.remove-record-on-delete", "true")
                .option("sequence.field", "q")),
        Arguments.of(
            "aggregation with last_value, sequence.field",
            aggregated().option("sequence.field", "mx")));
  }

  static Stream<Arguments> allEngines() {
    return Stream.concat(engines(), orderDependentWithSequenceField());
  }

  static Stream<Arguments> engines() {
    return Stream.of(
        Arguments.of("deduplicate", plain()),
        Arguments.of("deduplicate, sequence.field", plain().option("sequence.field", "q")),
        Arguments.of("first-row", plain().option("merge-engine", "first-row")),
        Arguments.of("partial-update", plain().option("merge-engine", "partial-update")),
        Arguments.of(
            "first-row, sequence.field",
            plain().option("merge-engine", "first-row").option("sequence.field", "q")),
        Arguments.of(
            "aggregation of sums, counts, minima and maxima, sequence.field",
            orderIndependentAggregates().option("sequence.field", "mx")),
        Arguments.of(
            "partial-update, remove-record-on-delete",
            plain()
                .option("merge-engine", "partial-update")
                .option("partial-update.remove-record-on-delete", "true")),
        Arguments.of("aggregation", aggregated()),
        Arguments.of(
            "aggregation, remove-record-on-delete",
            aggregated().option("aggregation.remove-record-on-delete", "true")));
  }

  private static TableSchema schema(Schema.Builder builder) {
    if (catalog == null) {
      catalog = TestTables.catalog(dir);
    }
    return TestTables.create(catalog, "t" + tables++, builder.build()).schema();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("engines")
  void mergingInRunsFirstGivesWhatMergingAllAtOnceGives(String name, Schema.Builder builder) {
    Engine e = new Engine(name, schema(builder));
    MergeFunction f = e.newFunction();
    int nonNull = 0;
    for (int seed = 0; seed < 2_000; seed++) {
      Random random = new Random(seed);
      List<RowData> versions = e.history(random);
      String all = e.render(merge(f, versions, e.copier));
      String inRuns = e.render(mergeInRuns(f, versions, e.copier, random));
      assertThat(inRuns).as("%s seed %s: %s", name, seed, e.renderAll(versions)).isEqualTo(all);
      if (!all.equals("null")) {
        nonNull++;
      }
    }
    assertThat(nonNull).as("histories with a result").isGreaterThan(1_000);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("allEngines")
  void oneMergeFunctionServesKeyAfterKeyWithoutSharingState(String name, Schema.Builder builder) {
    Engine e = new Engine(name, schema(builder));
    MergeFunction shared = e.newFunction();
    Random random = new Random(name.hashCode());
    for (int key = 0; key < 2_000; key++) {
      List<RowData> versions = e.history(random);
      assertThat(e.render(merge(shared, versions, e.copier)))
          .as("%s key %s: %s", name, key, e.renderAll(versions))
          .isEqualTo(e.render(merge(e.newFunction(), versions, e.copier)));
    }
  }

  /** Each aggregate on each of its types: +I 3, +I -1, +I null, +I 5, -U 5, in that order. */
  @Test
  void eachAggregateComputesItsValueOnEachType() {
    TableSchema schema = schema(aggregated());
    KeyValueLayout layout = new KeyValueLayout(schema);
    MergeFunction f = MergeFunctions.create(schema, layout);
    Object[][] values = {{3, "b"}, {-1, "a"}, {null, null}, {5, "c"}, {5, "c"}};
    RowKind[] kinds = {
      RowKind.INSERT, RowKind.INSERT, RowKind.INSERT, RowKind.INSERT, RowKind.UPDATE_BEFORE
    };
    List<RowData> versions = new ArrayList<>();
    for (int v = 0; v < values.length; v++) {
      GenericRowData row = new GenericRowData(layout.fileType().getFieldCount());
      row.setField(0, 7L);
      for (int i = 1; i < layout.arity(); i++) {
        String field = schema.fieldNames().get(i);
        Object n = values[v][0];
        Object s = values[v][1];
        row.setField(
            i,
            switch (field) {
              case "mx", "lv", "lnn" -> s == null ? null : StringData.fromString((String) s);
              case "c" -> n == null ? 0L : 1L;
              default -> n == null ? null : number(schema.rowType().getTypeAt(i), (Integer) n);
            });
      }
      row.setField(layout.sequenceIndex(), (long) v);
      row.setField(layout.kindIndex(), kinds[v].toByteValue());
      versions.add(row);
    }
    RowData r = merge(f, versions, new KeyValueLayout.RowCopier(layout.fileType()));

    Map<String, Object> got = new HashMap<>();
    for (int i = 0; i < layout.arity(); i++) {
      got.put(schema.fieldNames().get(i), ((GenericRowData) r).getField(i));
    }
    // sums subtract the retraction: 3 - 1 + 5 - 5
    assertThat(got.get("t")).isEqualTo((byte) 2);
    assertThat(got.get("sm")).isEqualTo((short) 2);
    assertThat(got.get("i")).isEqualTo(2);
    assertThat(got.get("b")).isEqualTo(2L);
    assertThat(got.get("f")).isEqualTo(2f);
    assertThat(got.get("db")).isEqualTo(2d);
    assertThat(got.get("dc")).isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("2.00"), 12, 2));
    // min and max ignore the retraction (ignore-retract) and nulls
    assertThat(got.get("mn")).isEqualTo(-1);
    assertThat(got.get("mx")).isEqualTo(StringData.fromString("c"));
    assertThat(got.get("mxd")).isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("5.00"), 12, 2));
    // last_value: the retraction sets it null; last_non_null_value keeps the last non-null value
    assertThat(got.get("lv")).isNull();
    assertThat(got.get("lnn")).isEqualTo(StringData.fromString("c"));
    // count: the writer stores 1 per row with a value, 0 for a null; the retraction subtracts one
    assertThat(got.get("c")).isEqualTo(2L);
    assertThat(layout.kind(r)).isEqualTo(RowKind.INSERT);
    assertThat(layout.sequence(r)).isEqualTo(4L);
  }

  /** One table's merge set-up: its layout, the kinds its writer stores, a row copier. */
  private static final class Engine {
    final TableSchema schema;
    final KeyValueLayout layout;
    final RowKindPolicy policy;
    final KeyValueLayout.RowCopier copier;

    Engine(String name, TableSchema schema) {
      this.schema = schema;
      this.layout = new KeyValueLayout(schema);
      this.policy = RowKindPolicy.of(name, schema.tableOptions());
      this.copier = new KeyValueLayout.RowCopier(layout.fileType());
    }

    MergeFunction newFunction() {
      return MergeFunctions.create(schema, layout);
    }

    List<RowData> history(Random random) {
      return MergeFunctionPropertiesTest.history(random, schema, layout, policy);
    }

    String render(RowData r) {
      return MergeFunctionPropertiesTest.render(layout, r);
    }

    String renderAll(List<RowData> versions) {
      return MergeFunctionPropertiesTest.renderAll(layout, versions);
    }
  }

  // ---- generation ----

  /** 1 to 8 versions of key 7 as the writer stores them (kinds by the table's policy). */
  private static List<RowData> history(
      Random random, TableSchema schema, KeyValueLayout layout, RowKindPolicy policy) {
    List<RowData> versions = new ArrayList<>();
    int n = 1 + random.nextInt(8);
    RowKind[] written = {
      RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.UPDATE_BEFORE, RowKind.DELETE
    };
    long seq = random.nextInt(100);
    while (versions.size() < n) {
      RowKind kind = written[random.nextInt(random.nextInt(3) == 0 ? 4 : 2)];
      RowKind stored;
      try {
        stored = policy.stored(kind);
      } catch (IllegalArgumentException refused) {
        continue;
      }
      if (stored == null) {
        continue;
      }
      GenericRowData row = new GenericRowData(layout.fileType().getFieldCount());
      row.setField(0, 7L);
      for (int i = 1; i < layout.arity(); i++) {
        row.setField(i, value(random, schema.fieldNames().get(i), schema.rowType().getTypeAt(i)));
      }
      row.setField(layout.sequenceIndex(), seq++);
      row.setField(layout.kindIndex(), stored.toByteValue());
      versions.add(row);
    }
    return versions;
  }

  private static Object value(Random random, String field, LogicalType type) {
    if (field.equals("c")) {
      return random.nextInt(4) == 0 ? 0L : 1L; // count fields hold 1 or 0 per row
    }
    if (random.nextInt(5) == 0) {
      return null;
    }
    int n = random.nextInt(11) - 5; // small: float sums stay exact in any order
    return switch (type.getTypeRoot()) {
      case VARCHAR -> StringData.fromString("v" + (n + 5));
      default -> number(type, n);
    };
  }

  private static Object number(LogicalType type, int n) {
    return switch (type.getTypeRoot()) {
      case TINYINT -> (byte) n;
      case SMALLINT -> (short) n;
      case INTEGER -> n;
      case BIGINT -> (long) n;
      case FLOAT -> (float) n;
      case DOUBLE -> (double) n;
      case DECIMAL -> {
        var d = (org.apache.flink.table.types.logical.DecimalType) type;
        yield DecimalData.fromBigDecimal(
            BigDecimal.valueOf(n).setScale(d.getScale()), d.getPrecision(), d.getScale());
      }
      default -> throw new IllegalArgumentException(type.toString());
    };
  }

  // ---- merging ----

  /** The merge of {@code versions} (a copy, or null). */
  private static GenericRowData merge(
      MergeFunction f, List<RowData> versions, KeyValueLayout.RowCopier copier) {
    f.reset();
    for (RowData v : versions) {
      f.add(v);
    }
    RowData r = f.result();
    return r == null ? null : copier.copy(r);
  }

  /** Merges consecutive runs of the versions first (recursively), then their results. */
  private static GenericRowData mergeInRuns(
      MergeFunction f, List<RowData> versions, KeyValueLayout.RowCopier copier, Random random) {
    if (versions.size() < 2 || random.nextInt(4) == 0) {
      return merge(f, versions, copier);
    }
    List<RowData> results = new ArrayList<>();
    int start = 0;
    while (start < versions.size()) {
      int end = start + 1 + random.nextInt(versions.size() - start);
      GenericRowData r =
          end - start == versions.size()
              ? merge(f, versions, copier)
              : mergeInRuns(f, versions.subList(start, end), copier, random);
      if (r != null) {
        results.add(r);
      }
      start = end;
    }
    return results.isEmpty() ? null : merge(f, results, copier);
  }

  private static String render(KeyValueLayout layout, RowData r) {
    if (r == null) {
      return "null";
    }
    StringBuilder s = new StringBuilder(layout.kind(r).shortString()).append('(');
    for (int i = 0; i < layout.arity() + 1; i++) {
      s.append(i == 0 ? "" : ",").append(((GenericRowData) r).getField(i));
    }
    return s.append(')').toString();
  }

  private static String renderAll(KeyValueLayout layout, List<RowData> versions) {
    List<String> out = new ArrayList<>();
    for (RowData v : versions) {
      out.add(render(layout, v));
    }
    return String.join(" ", out);
  }
}
