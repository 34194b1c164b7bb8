package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.catalog.CatalogPartitionSpec;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SHOW PARTITIONS t PARTITION (...)} and the catalog's partition lookups read a spec as
 * {@code DROP PARTITION} does: values typed, {@code __DEFAULT_PARTITION__} the null value. They
 * compared the text, so {@code hh='03'} listed nothing while dropping {@code hh=3}.
 */
class TablePartitionsTest {

  @TempDir Path dir;

  @Test
  void aSpecMatchesThePartitionsItsTypedValuesSelect() {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("dt", DataTypes.STRING())
                .column("hh", DataTypes.INT())
                .partitionKeys("dt", "hh")
                .build());
    TestTables.writeBatch(
        table,
        List.of(
            GenericRowData.of(1L, StringData.fromString("d1"), 3),
            GenericRowData.of(2L, StringData.fromString("d1"), 4),
            GenericRowData.of(3L, null, 3)));

    assertThat(specs(table, Map.of("hh", "03")))
        .containsExactlyInAnyOrder(
            Map.of("dt", "d1", "hh", "3"), Map.of("dt", "__DEFAULT_PARTITION__", "hh", "3"));
    assertThat(specs(table, Map.of("dt", "__DEFAULT_PARTITION__")))
        .containsExactly(Map.of("dt", "__DEFAULT_PARTITION__", "hh", "3"));
    assertThat(specs(table, Map.of("dt", "d1", "hh", "4")))
        .containsExactly(Map.of("dt", "d1", "hh", "4"));
    assertThat(specs(table, Map.of("dt", "d2"))).isEmpty();
  }

  private static List<Map<String, String>> specs(Table table, Map<String, String> spec) {
    return TablePartitions.matching(table, new CatalogPartitionSpec(spec)).stream()
        .map(CatalogPartitionSpec::getPartitionSpec)
        .toList();
  }
}
