package io.sediment.flink.sql.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.cli.SedimentCli;
import io.sediment.compact.CompactArgumentException;
import io.sediment.compact.CompactSpec;
import io.sediment.compact.ExecutionMode;
import io.sediment.flink.CompactJob;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The rules of a compaction request are coded once ({@link CompactSpec.Builder#build()}, {@link
 * CompactSpec#checkMode}, {@link ExecutionMode#parse}) and every front end keeps them: each rule is
 * tried through the Java spec builder, the in-process {@code newCompactBuilder()}, the job builder,
 * the CLI, {@code sys.compact} and {@code sys.compact_database} (where the front end has the
 * arguments), and each refuses it naming the argument in its own words, and changes nothing.
 */
class CompactRequestRulesTest {

  /** A front end: how it is asked for each rule's case; null where it has no such arguments. */
  enum FrontEnd {
    JAVA_SPEC,
    IN_PROCESS_BUILDER,
    JOB_BUILDER,
    CLI,
    SYS_COMPACT,
    SYS_COMPACT_DATABASE
  }

  @TempDir Path dir;
  private Table table;

  @BeforeEach
  void partitionedTable() {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    table =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.BIGINT())
                .column("p", DataTypes.STRING())
                .partitionKeys("p")
                .build());
    for (int c = 0; c < 3; c++) {
      List<RowData> rows = new ArrayList<>();
      for (String p : new String[] {"a", "b"}) {
        rows.add(TestTables.row((long) c, 2L * c, StringData.fromString(p)));
      }
      TestTables.writeBatch(table, rows);
    }
  }

  @ParameterizedTest
  @EnumSource(FrontEnd.class)
  void partitionsAndAWhereTogetherAreRefused(FrontEnd frontEnd) {
    Runnable ask =
        switch (frontEnd) {
          case JAVA_SPEC ->
              () ->
                  CompactSpec.forTable("db.t", table.store())
                      .withPartition(Map.of("p", "a"))
                      .withPartitionFilter(whereP("b"))
                      .build();
          case JOB_BUILDER ->
              () ->
                  CompactJob.builder(dir.toString(), "db.t")
                      .partition(Map.of("p", "a"))
                      .where("p = 'b'")
                      .build();
          case CLI -> cli("--partition", "p=a", "--where", "p = 'b'");
          case SYS_COMPACT ->
              sysCompact("p=a", "p = 'b'", null, ExecutionMode.BATCH, null, null, null);
          case IN_PROCESS_BUILDER, SYS_COMPACT_DATABASE -> null; // no partitions argument
        };
    refused(frontEnd, ask, "where", "partitions and where cannot be used together");
  }

  @ParameterizedTest
  @EnumSource(FrontEnd.class)
  void aSortCompactionRunsInBatchModeOnly(FrontEnd frontEnd) {
    Runnable ask =
        switch (frontEnd) {
          case JAVA_SPEC ->
              () ->
                  CompactSpec.forTable("db.t", table.store())
                      .withSortOrder("order", "id")
                      .build()
                      .checkMode(ExecutionMode.STREAMING);
          case JOB_BUILDER ->
              () ->
                  CompactJob.builder(dir.toString(), "db.t")
                      .sortOrder("order", "id")
                      .build()
                      .plan(ExecutionMode.STREAMING);
          case CLI -> cli("--mode", "streaming", "--order-strategy", "order", "--order-by", "id");
          case SYS_COMPACT ->
              sysCompact(null, null, null, ExecutionMode.STREAMING, null, "order", "id");
          case IN_PROCESS_BUILDER, SYS_COMPACT_DATABASE -> null; // batch only, or no sort
        };
    refused(frontEnd, ask, "mode", "runs in batch mode only");
  }

  @ParameterizedTest
  @EnumSource(FrontEnd.class)
  void aSortCompactionDoesNotGoWithTheMinorStrategy(FrontEnd frontEnd) {
    Runnable ask =
        switch (frontEnd) {
          case JAVA_SPEC ->
              () ->
                  CompactSpec.forTable("db.t", table.store())
                      .withSortOrder("zorder", "id,v")
                      .withStrategy("minor")
                      .build();
          case IN_PROCESS_BUILDER ->
              () ->
                  table
                      .newCompactBuilder()
                      .withSortOrder("zorder", "id,v")
                      .withStrategy("minor")
                      .plan();
          case JOB_BUILDER ->
              () ->
                  CompactJob.builder(dir.toString(), "db.t")
                      .sortOrder("zorder", "id,v")
                      .strategy("minor")
                      .build();
          case CLI ->
              cli(
                  "--order-strategy",
                  "zorder",
                  "--order-by",
                  "id,v",
                  "--compact-strategy",
                  "minor");
          case SYS_COMPACT ->
              sysCompact(null, null, null, ExecutionMode.BATCH, "minor", "zorder", "id,v");
          case SYS_COMPACT_DATABASE -> null; // no sort
        };
    refused(frontEnd, ask, "compact_strategy", "compact_strategy 'minor' does not go with it");
  }

  @ParameterizedTest
  @EnumSource(FrontEnd.class)
  void partialProgressIsForBatchRuns(FrontEnd frontEnd) {
    Map<String, String> partial = Map.of("partial-progress.enabled", "true");
    Runnable ask =
        switch (frontEnd) {
          case JAVA_SPEC ->
              () ->
                  CompactSpec.forTable("db.t", table.store())
                      .withOptions(partial)
                      .build()
                      .checkMode(ExecutionMode.STREAMING);
          case JOB_BUILDER ->
              () ->
                  CompactJob.builder(dir.toString(), "db.t")
                      .options(partial)
                      .build()
                      .plan(ExecutionMode.STREAMING);
          case CLI -> cli("--mode", "streaming", "--option", "partial-progress.enabled=true");
          case SYS_COMPACT ->
              sysCompact(
                  null,
                  null,
                  "partial-progress.enabled=true",
                  ExecutionMode.STREAMING,
                  null,
                  null,
                  null);
          case SYS_COMPACT_DATABASE ->
              () ->
                  CompactDatabaseProcedure.configure(
                      "db",
                      null,
                      null,
                      "partial-progress.enabled=true",
                      null,
                      ExecutionMode.STREAMING,
                      null,
                      null);
          case IN_PROCESS_BUILDER -> null; // batch only
        };
    refused(frontEnd, ask, "mode", "partial-progress.enabled applies to batch compactions");
  }

  @ParameterizedTest
  @EnumSource(FrontEnd.class)
  void aModeIsBatchOrStreaming(FrontEnd frontEnd) {
    Runnable ask =
        switch (frontEnd) {
          case JAVA_SPEC, JOB_BUILDER -> () -> ExecutionMode.parse("weekly");
          case CLI -> cli("--mode", "weekly");
          case SYS_COMPACT -> () -> ProcedureArgs.mode("weekly");
          case SYS_COMPACT_DATABASE -> () -> CompactDatabaseProcedure.mode("weekly", null);
          case IN_PROCESS_BUILDER -> null; // batch only
        };
    refused(frontEnd, ask, "mode", "Unknown mode 'weekly'; allowed: 'batch', 'streaming'");
    for (String word : List.of("batch", "BATCH", " streaming ", "Streaming")) {
      assertThat(ExecutionMode.parse(word).toString()).isEqualTo(word.strip().toLowerCase());
      assertThat(ProcedureArgs.mode(word)).isEqualTo(ExecutionMode.parse(word));
    }
    assertThat(ExecutionMode.parse(null)).isEqualTo(ExecutionMode.BATCH);
  }

  // ---- helpers ----------------------------------------------------------------------------

  private Predicate whereP(String value) {
    return new PredicateBuilder(table.rowType()).equal("p", StringData.fromString(value));
  }

  /**
   * {@code sys.compact}'s arguments of db.t into a request (commit user and idle time not given).
   */
  private Runnable sysCompact(
      String partitions,
      String where,
      String options,
      ExecutionMode mode,
      String strategy,
      String orderStrategy,
      String orderBy) {
    return () ->
        CompactProcedure.configure(
            table, partitions, where, options, null, mode, strategy, null, orderStrategy, orderBy);
  }

  /** The CLI's compaction of db.t with {@code args}; a dry run, so a rule not kept shows a plan. */
  private Runnable cli(String... args) {
    return () -> {
      List<String> all = new ArrayList<>(List.of("compact", "--warehouse", dir.toString()));
      all.addAll(List.of("--table", "db.t", "--dry-run"));
      all.addAll(List.of(args));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code =
          SedimentCli.run(
              all.toArray(new String[0]),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err, true, StandardCharsets.UTF_8));
      if (code != 0) {
        throw new IllegalArgumentException(err.toString(StandardCharsets.UTF_8).strip());
      }
    };
  }

  /**
   * {@code ask} fails with {@code rule}'s message, naming {@code argument} as the front end names
   * it, and the table has the same snapshots as before.
   */
  private void refused(FrontEnd frontEnd, Runnable ask, String argument, String rule) {
    assumeTrue(ask != null, frontEnd + " has no arguments for this rule");
    long before = table.latestSnapshot().orElseThrow().id();
    Throwable error = catchThrowable(ask::run);
    assertThat(error).as(frontEnd + " refuses").isInstanceOf(IllegalArgumentException.class);
    assertThat(error.getMessage()).contains(rule);
    switch (frontEnd) {
      case JAVA_SPEC, IN_PROCESS_BUILDER, JOB_BUILDER -> {
        if (error instanceof CompactArgumentException e) {
          assertThat(e.argument()).isEqualTo(argument);
        }
      }
      case CLI ->
          assertThat(error.getMessage())
              .startsWith("Error: --" + argument.replace('_', '-') + ": ")
              .doesNotContain("\n");
      case SYS_COMPACT, SYS_COMPACT_DATABASE ->
          assertThat(error.getMessage()).startsWith("Argument '" + argument + "': ");
    }
    assertThat(table.latestSnapshot().orElseThrow().id()).isEqualTo(before);
  }
}
