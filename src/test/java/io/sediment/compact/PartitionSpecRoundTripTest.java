package io.sediment.compact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.PartitionComputer;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.TablePaths;
import io.sediment.predicate.Predicate;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partition spec ({@code k=v}, as {@code --partition}, the procedures' {@code partitions} and
 * {@code DROP PARTITION} take it) written the way {@code SHOW PARTITIONS} prints it selects exactly
 * that partition, for every partition column type, the null partition ({@value
 * TablePaths#DEFAULT_PARTITION}) and BINARY values (hexadecimal) included. Generated partitions of
 * each type, each printed name turned back into a filter.
 */
class PartitionSpecRoundTripTest {

  @TempDir Path dir;

  private record Kind(DataType type, Function<Random, Object> value) {}

  private static final Map<String, Kind> KINDS =
      Map.of(
          "STRING",
          new Kind(DataTypes.STRING(), r -> StringData.fromString("v" + r.nextInt(4))),
          "INT",
          new Kind(DataTypes.INT(), r -> r.nextInt(7) - 3),
          "BIGINT",
          new Kind(DataTypes.BIGINT(), r -> (long) r.nextInt(5) * 1_000_000_007L),
          "BOOLEAN",
          new Kind(DataTypes.BOOLEAN(), Random::nextBoolean),
          "DATE",
          new Kind(
              DataTypes.DATE(), r -> (int) LocalDate.of(2024, 1, 1 + r.nextInt(5)).toEpochDay()),
          "DECIMAL",
          new Kind(
              DataTypes.DECIMAL(10, 2),
              r -> DecimalData.fromBigDecimal(BigDecimal.valueOf(r.nextInt(500) - 250, 2), 10, 2)),
          "BINARY",
          new Kind(DataTypes.BYTES(), r -> new byte[] {(byte) r.nextInt(3), (byte) 0xAB}),
          "TIMESTAMP",
          new Kind(
              DataTypes.TIMESTAMP(3),
              r ->
                  TimestampData.fromLocalDateTime(
                      LocalDateTime.of(2024, 1, 1, r.nextInt(3), 30, 15, 250_000_000))));

  private Table partitionedBy(String name, DataType type) {
    return TestTables.create(
        TestTables.catalog(dir),
        name,
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT())
            .column("p", type)
            .partitionKeys("p")
            .build());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"STRING", "INT", "BIGINT", "BOOLEAN", "DATE", "DECIMAL", "BINARY", "TIMESTAMP"})
  void aPrintedPartitionNameSelectsExactlyItsPartition(String kind) {
    Kind k = KINDS.get(kind);
    Table table = partitionedBy("t", k.type());
    Random random = new Random(kind.hashCode());
    List<GenericRowData> rows = new ArrayList<>();
    for (long i = 0; i < 40; i++) {
      rows.add(GenericRowData.of(i, random.nextInt(5) == 0 ? null : k.value().apply(random)));
    }
    TestTables.writeBatch(table, rows);

    RowType partitionType = table.schema().partitionType();
    Map<String, BinaryRowData> partitions = new LinkedHashMap<>();
    for (ManifestEntry e : table.store().newScan().plan(table.latestSnapshot().orElseThrow())) {
      String printed = PartitionComputer.toStrings(partitionType, e.partition()).get(0);
      partitions.put(printed == null ? TablePaths.DEFAULT_PARTITION : printed, e.partition());
    }
    assertThat(partitions).containsKey(TablePaths.DEFAULT_PARTITION).hasSizeGreaterThan(2);
    for (String name : partitions.keySet()) {
      Predicate filter =
          PartitionFilters.ofPartition(
              "db.t", table.schema(), PartitionFilters.parseSpec("p=" + name));
      for (Map.Entry<String, BinaryRowData> p : partitions.entrySet()) {
        assertThat(filter.test(p.getValue()))
            .as("%s: p=%s selects p=%s", kind, name, p.getKey())
            .isEqualTo(p.getKey().equals(name));
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"zz", "abc", "0x0a"})
  void aBinaryValueThatIsNotHexadecimalIsRefusedNamingTheForm(String value) {
    Table table = partitionedBy("b", DataTypes.BYTES());
    assertThatThrownBy(
            () -> PartitionFilters.ofPartition("db.b", table.schema(), Map.of("p", value)))
        .hasMessageContaining("BINARY partition column 'p' of db.b")
        .hasMessageContaining("hexadecimal");
  }
}
