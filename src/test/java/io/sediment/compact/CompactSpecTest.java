package io.sediment.compact;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.predicate.PredicateJson;
import io.sediment.predicate.Predicates;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The compaction request's builder: validation when called, partition specs, combination. */
class CompactSpecTest {

  @TempDir Path dir;

  /** Partitioned by a DATE and an INT column, so partition values must be parsed to types. */
  private Table dated() {
    return TestTables.create(
        TestTables.catalog(dir),
        "t",
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("dt", DataTypes.DATE())
            .column("hh", DataTypes.INT())
            .column("note", DataTypes.STRING())
            .partitionKeys("dt", "hh")
            .build());
  }

  private Table byString(String name, String... partitionKeys) {
    return TestTables.create(
        TestTables.catalog(dir),
        name,
        Schema.newBuilder()
            .column("id", DataTypes.BIGINT().notNull())
            .column("p", DataTypes.STRING())
            .partitionKeys(partitionKeys)
            .build());
  }

  private static CompactSpec.Builder spec(Table t) {
    return CompactSpec.forTable(t.fullName(), t.store());
  }

  private static Map<String, String> partition(String... kvs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kvs.length; i += 2) {
      m.put(kvs[i], kvs[i + 1]);
    }
    return m;
  }

  /** A partition row (dt, hh) of {@link #dated()}. */
  private static RowData datedPartition(String dt, int hh) {
    return GenericRowData.of((int) LocalDate.parse(dt).toEpochDay(), hh);
  }

  @Test
  void partitionMapBecomesTypedEqualitiesOnThePartitionRowType() {
    Table t = dated();
    Predicate filter =
        spec(t).withPartition(partition("dt", "2024-01-01", "hh", "3")).build().partitionFilter();

    PredicateBuilder onPartition = new PredicateBuilder(t.schema().partitionType());
    assertThat(filter)
        .isEqualTo(
            PredicateBuilder.and(
                onPartition.equal("dt", LocalDate.of(2024, 1, 1)), onPartition.equal("hh", 3)));
    // The same filter as the JSON form gives, re-bound to the partition row type.
    Predicate json =
        PredicateJson.parse(
            "{\"method\":\"and\",\"children\":["
                + "{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\"2024-01-01\"]},"
                + "{\"method\":\"equal\",\"field\":\"hh\",\"literals\":[\"3\"]}]}",
            t.rowType());
    assertThat(filter).isEqualTo(Predicates.rebind(json, t.schema().partitionType()));
    assertThat(filter.test(datedPartition("2024-01-01", 3))).isTrue();
    assertThat(filter.test(datedPartition("2024-01-01", 4))).isFalse();
    assertThat(filter.test(datedPartition("2024-01-02", 3))).isFalse();
  }

  @Test
  void severalPartitionsAreAnyOfThemAndFiltersCombineWithAnd() {
    Table t = dated();
    Predicate filter =
        spec(t)
            .withPartitions(
                List.of(partition("dt", "2024-01-01"), partition("dt", "2024-01-02", "hh", "5")))
            .build()
            .partitionFilter();
    assertThat(filter.test(datedPartition("2024-01-01", 3))).isTrue();
    assertThat(filter.test(datedPartition("2024-01-02", 5))).isTrue();
    assertThat(filter.test(datedPartition("2024-01-02", 6))).as("not a given partition").isFalse();
    assertThat(filter.test(datedPartition("2024-01-03", 3))).isFalse();

    // Wheres combine with AND (partitions and a where together are refused: the request's rule).
    Predicate wheres =
        spec(t)
            .withPartitionFilter("{\"method\":\"lessThan\",\"field\":\"hh\",\"literals\":[10]}")
            .withPartitionFilter(new PredicateBuilder(t.rowType()).greaterThan("hh", 1))
            .build()
            .partitionFilter();
    assertThat(wheres.test(datedPartition("2024-01-01", 3))).isTrue();
    assertThat(wheres.test(datedPartition("2024-01-01", 10))).as("hh < 10 fails").isFalse();
    assertThat(wheres.test(datedPartition("2024-01-01", 1))).as("hh > 1 fails").isFalse();

    // Two single partitions given one by one must both hold (AND): no partition does.
    Predicate both =
        spec(t)
            .withPartition(partition("hh", "3"))
            .withPartition(partition("hh", "4"))
            .build()
            .partitionFilter();
    assertThat(both.test(datedPartition("2024-01-01", 3))).isFalse();
    assertThat(both.test(datedPartition("2024-01-01", 4))).isFalse();
  }

  @Test
  void badPartitionSpecsAreRejectedWhenGivenNamingTheColumn() {
    Table t = dated();
    CompactSpec.Builder b = spec(t);
    assertThatThrownBy(() -> b.withPartition(partition("note", "x")))
        .hasMessage("'note' is not a partition column of db.t; partition columns are [dt, hh]");
    assertThatThrownBy(() -> b.withPartition(partition("hh", "three")))
        .hasMessageContaining("hh")
        .hasMessageContaining("three");
    assertThatThrownBy(() -> b.withPartition(partition("dt", "yesterday")))
        .hasMessageContaining("dt")
        .hasMessageContaining("yesterday");
    assertThatThrownBy(() -> b.withPartition(Map.of()))
        .hasMessage("Partition spec must not be empty");
    assertThatThrownBy(() -> b.withPartitions(List.of()))
        .hasMessage("Partition spec must not be empty");
    assertThatThrownBy(() -> spec(byString("u")).withPartition(partition("p", "a")))
        .hasMessage("'p' is not a partition column of db.u; the table is not partitioned");
    // Nothing of the rejected calls stuck.
    assertThat(b.build().partitionFilter()).isNull();
  }

  @Test
  void badFiltersOptionsUsersAndParallelismAreRejectedWhenGiven() {
    Table t = dated();
    CompactSpec.Builder b = spec(t);
    assertThatThrownBy(
            () -> b.withPartitionFilter(new PredicateBuilder(t.rowType()).equal("id", 1L)))
        .hasMessage(
            "Partition filter may reference only partition columns [dt, hh], but references 'id'");
    assertThatThrownBy(() -> b.withPartitionFilter((Predicate) null))
        .hasMessage("Partition filter must not be null");
    assertThatThrownBy(() -> b.withPartitionFilter(" "))
        .hasMessage("Partition filter JSON must not be empty");
    assertThatThrownBy(() -> b.withPartitionFilter("{\"method\":\"nope\"}"))
        .hasMessageContaining("nope");
    assertThatThrownBy(() -> b.withOptions(Map.of("compaction.min.file-num", "zero")))
        .hasMessageContaining("compaction.min.file-num");
    assertThatThrownBy(() -> b.withOptions(Map.of("no.such.option", "1")))
        .hasMessageContaining("no.such.option");
    for (String bad : new String[] {"", ".", "..", " a", "a ", "a/b", "a\\b", "a\tb"}) {
      assertThatThrownBy(() -> b.withCommitUser(bad)).as(bad).hasMessageContaining("Commit user");
    }
    assertThatThrownBy(() -> b.withParallelism(0))
        .hasMessage("Parallelism must be at least 1, got 0");

    CompactSpec spec = b.build();
    assertThat(spec.partitionFilter()).isNull();
    assertThat(spec.options()).isEmpty();
    assertThat(spec.commitUser()).isEqualTo(CompactSpec.DEFAULT_COMMIT_USER);
    assertThat(spec.parallelism()).isEmpty();
  }

  @Test
  void aDatabaseSpecTakesNoPartitionFilterAndChecksItsPattern() {
    CompactSpec.Builder b = CompactSpec.forDatabase("db", "t.*");
    assertThatThrownBy(() -> b.withPartition(partition("p", "a")))
        .hasMessageContaining("Partition filters need a single table")
        .hasMessageContaining("'db'")
        .hasMessageContaining("'t.*'");
    assertThatThrownBy(() -> b.withPartitionFilter("{\"method\":\"isNull\",\"field\":\"p\"}"))
        .hasMessageContaining("Partition filters need a single table");
    assertThatThrownBy(() -> CompactSpec.forDatabase("db", "t[")).hasMessageContaining("t[");

    CompactSpec spec = b.withOptions(Map.of("target-file-size", "1 mb")).build();
    assertThat(spec.tables()).isEmpty();
    assertThat(spec.database()).hasValue("db");
    assertThat(spec.tablePattern()).hasValue("t.*");
    assertThat(spec.options()).containsEntry("target-file-size", "1 mb");
  }

  @Test
  void aDatabaseSpecFollowsIncludingAndExcludingRegexesByNameOrFullName() {
    CompactSpec spec =
        CompactSpec.forDatabase("db|sales", "orders.*|db\\.users")
            .withExcludingTables(".*_tmp")
            .build();
    assertThat(spec.followsDatabase("sales")).isTrue();
    assertThat(spec.followsDatabase("sales2")).isFalse();
    assertThat(spec.followsTable("db", "orders")).isTrue();
    assertThat(spec.followsTable("sales", "orders_eu")).isTrue();
    assertThat(spec.followsTable("db", "orders_tmp")).isFalse();
    assertThat(spec.followsTable("db", "users")).isTrue();
    assertThat(spec.followsTable("sales", "users")).isFalse();
    assertThat(spec.followsTable("other", "orders")).isFalse();

    assertThatThrownBy(() -> CompactSpec.forDatabase("db", ".*").withExcludingTables("a["))
        .hasMessageContaining("excluding_tables")
        .hasMessageContaining("'a['");
    assertThatThrownBy(() -> CompactSpec.forDatabase("d[", ".*"))
        .hasMessageContaining("including_databases");
    Table t = byString("t", "p");
    assertThatThrownBy(() -> spec(t).withExcludingTables(".*"))
        .hasMessageContaining("Excluding tables needs a database compaction");
  }

  @Test
  void theStrategyIsValidatedAndDefaultsByExecution() {
    Table t = byString("t", "p");
    assertThatThrownBy(() -> spec(t).withStrategy("major"))
        .hasMessage("Unknown compact strategy 'major': allowed are 'full', 'minor'");
    CompactSpec none = spec(t).build();
    assertThat(none.givenStrategy()).isEmpty();
    assertThat(none.strategy(t.options(), ExecutionMode.BATCH)).isEqualTo(CompactStrategy.FULL);
    assertThat(none.strategy(t.options(), ExecutionMode.STREAMING))
        .isEqualTo(CompactStrategy.MINOR);
    CompactSpec minor = spec(t).withStrategy("Minor").build();
    assertThat(minor.strategy(t.options(), ExecutionMode.BATCH)).isEqualTo(CompactStrategy.MINOR);
    assertThat(minor.toString()).contains("strategy minor");
  }

  @Test
  void aBuiltSpecIsImmutableAndSerializable() throws Exception {
    Table t = byString("t", "p");
    CompactSpec.Builder b = spec(t);
    Map<String, String> options = new HashMap<>(Map.of("compaction.min.file-num", "2"));
    b.withOptions(options).withPartition(partition("p", "a")).withCommitUser("nightly");
    CompactSpec first = b.withParallelism(3).build();

    options.put("target-file-size", "1 mb"); // the caller's map is copied
    b.withOptions(Map.of("compaction.full", "true"))
        .withPartition(partition("p", "b"))
        .withCommitUser("other")
        .withParallelism(5);

    assertThat(first.tables()).containsExactly("db.t");
    assertThat(first.options()).containsExactly(Map.entry("compaction.min.file-num", "2"));
    assertThat(first.commitUser()).isEqualTo("nightly");
    assertThat(first.parallelism()).hasValue(3);
    RowData a = GenericRowData.of(StringData.fromString("a"));
    assertThat(first.partitionFilter().test(a)).isTrue();
    assertThatThrownBy(() -> first.options().put("k", "v"))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> first.tables().add("db.x"))
        .isInstanceOf(UnsupportedOperationException.class);

    CompactSpec second = b.build();
    assertThat(second.options()).containsKeys("compaction.min.file-num", "compaction.full");
    assertThat(second.partitionFilter().test(a)).as("p=a AND p=b").isFalse();

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(first);
    }
    CompactSpec copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (CompactSpec) in.readObject();
    }
    assertThat(copy.partitionFilter()).isEqualTo(first.partitionFilter());
    assertThat(copy.options()).isEqualTo(first.options());
    assertThat(copy.commitUser()).isEqualTo("nightly");
    assertThat(copy.parallelism()).hasValue(3);
  }

  @Test
  void planCoversOnlyTheSelectedPartitionsAndCommitsNothing() {
    Table t = byString("t", "p");
    CompactSpec.Builder b = spec(t).withOptions(Map.of("compaction.min.file-num", "2"));
    assertThat(b.build().plan(t.store(), t.fullName())).as("no snapshot yet").isEmpty();
    for (int c = 0; c < 3; c++) {
      List<RowData> rows = new ArrayList<>();
      rows.add(row((long) c, "a"));
      rows.add(row((long) c + 100, "b"));
      TestTables.writeBatch(t, rows);
    }
    long snapshot = t.latestSnapshot().orElseThrow().id();

    assertThat(b.build().plan(t.store(), t.fullName()))
        .extracting(CompactTask::partitionPath)
        .containsExactlyInAnyOrder("p=a", "p=b");
    List<CompactTask> onlyA =
        b.withPartition(partition("p", "a")).build().plan(t.store(), t.fullName());
    assertThat(onlyA).extracting(CompactTask::partitionPath).containsExactly("p=a");
    assertThat(onlyA.get(0).inputs()).hasSize(3);
    assertThat(t.latestSnapshot().orElseThrow().id()).isEqualTo(snapshot);
  }
}
