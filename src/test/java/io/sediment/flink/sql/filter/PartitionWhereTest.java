package io.sediment.flink.sql.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.compact.CompactSpec;
import io.sediment.compact.CompactTask;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQL {@code where} of a compaction, judged by the partitions it plans on a real table. */
class PartitionWhereTest {

  @TempDir Path dir;
  Table table;

  @BeforeEach
  void fourPartitionsOfTwoFilesEach() {
    table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("dt", DataTypes.STRING())
                .column("hh", DataTypes.INT())
                .column("day", DataTypes.DATE())
                .column("v", DataTypes.STRING())
                .partitionKeys("dt", "hh", "day")
                .option("compaction.min.file-num", "2")
                .build());
    for (int commit = 0; commit < 2; commit++) {
      List<RowData> rows = new ArrayList<>();
      rows.add(TestTables.row(commit * 10L + 1, "2024-01-01", 10, day("2024-01-01"), "x"));
      rows.add(TestTables.row(commit * 10L + 2, "2024-01-02", 20, day("2024-01-02"), "x"));
      rows.add(TestTables.row(commit * 10L + 3, "2024-01-03", null, day("2024-01-03"), "x"));
      rows.add(TestTables.row(commit * 10L + 4, "it's", 5, day("2024-02-01"), "x"));
      TestTables.writeBatch(table, rows);
    }
  }

  private static int day(String date) {
    return (int) LocalDate.parse(date).toEpochDay();
  }

  /** The dt of every partition the compaction of {@code where} plans. */
  private TreeSet<String> selected(String where) {
    CompactSpec spec =
        CompactSpec.forTable(table.fullName(), table.store())
            .withPartitionFilter(PartitionWhere.parse(table.fullName(), table.schema(), where))
            .build();
    TreeSet<String> dts = new TreeSet<>();
    for (CompactTask task : spec.plan(table.store(), table.fullName())) {
      String path = URLDecoder.decode(task.partitionPath(), StandardCharsets.UTF_8);
      dts.add(path.substring("dt=".length(), path.indexOf('/')));
    }
    return dts;
  }

  @Test
  void sqlComparisonsSelectTheirPartitions() {
    assertThat(selected("dt = '2024-01-01'")).containsExactly("2024-01-01");
    assertThat(selected("dt <> '2024-01-01'")).containsExactly("2024-01-02", "2024-01-03", "it's");
    assertThat(selected("hh < 20")).containsExactly("2024-01-01", "it's");
    assertThat(selected("hh > 5")).containsExactly("2024-01-01", "2024-01-02");
    assertThat(selected("hh <= 10")).containsExactly("2024-01-01", "it's");
    assertThat(selected("hh >= 20")).containsExactly("2024-01-02");
    assertThat(selected("dt = 'it''s'")).containsExactly("it's");
    // Literals that look like plan text are just literals.
    assertThat(selected("dt = 'where=x' OR dt = '2024-01-01' OR dt = 'Calc(x)'"))
        .containsExactly("2024-01-01");
    assertThat(selected("`dt` LIKE '2024-01%'"))
        .containsExactly("2024-01-01", "2024-01-02", "2024-01-03");
  }

  @Test
  void sqlConnectivesListsRangesAndNulls() {
    assertThat(selected("dt > '2024-01-01' and hh <= 20")).containsExactly("2024-01-02", "it's");
    assertThat(selected("dt = '2024-01-01' OR hh = 20"))
        .containsExactly("2024-01-01", "2024-01-02");
    assertThat(selected("NOT (dt = '2024-01-01' OR hh IS NULL)"))
        .containsExactly("2024-01-02", "it's");
    assertThat(selected("dt IN ('2024-01-01', '2024-01-03')"))
        .containsExactly("2024-01-01", "2024-01-03");
    assertThat(selected("hh NOT IN (10, 20)")).containsExactly("it's");
    assertThat(selected("hh BETWEEN 5 AND 10")).containsExactly("2024-01-01", "it's");
    assertThat(selected("hh IS NULL")).containsExactly("2024-01-03");
    assertThat(selected("hh IS NOT NULL")).containsExactly("2024-01-01", "2024-01-02", "it's");
    assertThat(selected("`day` >= DATE '2024-01-02'"))
        .containsExactly("2024-01-02", "2024-01-03", "it's");
  }

  @Test
  void jsonFormStillAccepted() {
    assertThat(selected("{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"2024-01-02\"]}"))
        .containsExactly("2024-01-02");
  }

  @Test
  void rejectsNonPartitionUnknownUnparsableAndUnsupported() {
    assertThatThrownBy(() -> selected("v = 'x'"))
        .hasMessage(
            "where 'v = 'x'' cannot select partitions of db.t: 'v' is not a partition column;"
                + " partition columns are [dt, hh, day]");
    assertThatThrownBy(() -> selected("nope = 1"))
        .hasMessage(
            "where 'nope = 1' cannot select partitions of db.t: Unknown identifier 'nope';"
                + " partition columns are [dt, hh, day]");
    assertThatThrownBy(() -> selected("dt = 'a' AND"))
        .hasMessageStartingWith(
            "where 'dt = 'a' AND' cannot select partitions of db.t: Incorrect syntax near the"
                + " keyword 'AND'")
        .hasMessageEndingWith("; partition columns are [dt, hh, day]");
    assertThatThrownBy(() -> selected("v = 'x' OR dt = 'a'"))
        .hasMessageContaining("'v' is not a partition column");
    assertThatThrownBy(() -> selected("upper(v) = 'X' AND dt = 'a'"))
        .hasMessageContaining("'v' is not a partition column");
    assertThatThrownBy(() -> selected("hh < RAND_INTEGER(10)"))
        .hasMessageStartingWith("where 'hh < RAND_INTEGER(10)' cannot select partitions of db.t: ")
        .hasMessageEndingWith("; partition columns are [dt, hh, day]");
    assertThatThrownBy(() -> selected("true"))
        .hasMessage(
            "where 'true' cannot select partitions of db.t: it is always true or always false,"
                + " not a filter on partition columns; partition columns are [dt, hh, day]");
    assertThatThrownBy(() -> selected("hh = 1 AND hh = 2"))
        .hasMessageContaining("it is always true or always false");
    assertThatThrownBy(() -> selected("upper(dt) = 'A'"))
        .hasMessageStartingWith("where 'upper(dt) = 'A'' cannot select partitions of db.t: ")
        .hasMessageContaining("not a comparison of a column with a literal")
        .hasMessageEndingWith("; partition columns are [dt, hh, day]");
  }
}
