package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.TestClusters;
import io.sediment.testutil.TestTables;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.RowData;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class SedimentCliTest {

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER = TestClusters.oneTaskManagerTwoSlots();

  @TempDir Path dir;

  /** What a command printed and returned. */
  record Result(int code, String out, String err) {

    /** The error line, checking that it is the only line and no stack trace was printed. */
    String errorLine() {
      assertThat(err).doesNotContain("\tat ").doesNotContain("Exception");
      assertThat(err.strip().lines()).as(err).hasSize(1);
      return err.strip();
    }
  }

  static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        SedimentCli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Table table() {
    return partitionedTable(dir);
  }

  /** db.t in warehouse {@code dir}, partitioned by p: 4 commits of one file in each of p=a, p=b. */
  static Table partitionedTable(Path dir) {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("p", DataTypes.STRING())
                .partitionKeys("p")
                .build());
    long id = 0;
    for (int c = 0; c < 4; c++) {
      List<RowData> rows = new ArrayList<>();
      for (String p : new String[] {"a", "b"}) {
        for (int i = 0; i < 10; i++) {
          rows.add(TestTables.row(id++, p));
        }
      }
      TestTables.writeBatch(t, rows);
    }
    return t;
  }

  @Test
  void compactStreamingDetachedStartsTheDedicatedJobAndReturns(
      @InjectClusterClient ClusterClient<?> cluster) throws Exception {
    table();
    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--mode",
            "streaming",
            "--detached",
            "--commit-user",
            "cli",
            "--option",
            "compaction.min.file-num=3");
    assertThat(r.code()).as(r.err()).isZero();
    Matcher m =
        Pattern.compile(
                "Started dedicated compaction job ([0-9a-f]{32}) \\(commit user (cli-compact-\\S+)\\)")
            .matcher(r.out());
    assertThat(m.find()).as(r.out()).isTrue();
    JobID id = JobID.fromHexString(m.group(1));
    try {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(20))
          .until(() -> cluster.getJobStatus(id).get() == JobStatus.RUNNING);
    } finally {
      cluster.cancel(id).get();
    }

    Result batchDetached =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--detached");
    assertThat(batchDetached.code()).isEqualTo(2);
    assertThat(batchDetached.err()).contains("--detached needs --mode streaming");
  }

  @Test
  void compactDryRunThenBatchWithJson() throws Exception {
    Table t = table();
    Result dry =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--dry-run",
            "--json",
            "--option",
            "compaction.min.file-num=3");
    assertThat(dry.code()).as(dry.err()).isZero();
    JsonNode plan = new ObjectMapper().readTree(dry.out());
    assertThat(plan.get("tasks")).hasSize(2);
    assertThat(t.snapshotManager().listIds()).hasSize(4);

    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--partition",
            "p=a",
            "--commit-user",
            "cli",
            "--option",
            "compaction.min.file-num=3",
            "--parallelism",
            "2",
            "--json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("tasks").asInt()).isEqualTo(1);
    assertThat(json.get("snapshotId").asLong()).isEqualTo(5);
    assertThat(json.get("filesBefore").asInt()).isEqualTo(4);
    assertThat(json.get("filesAfter").asInt()).isEqualTo(1);
    assertThat(json.get("rowsRead").asInt()).isEqualTo(40);
    for (String f : List.of("bytesBefore", "bytesAfter", "rowsWritten", "durationMs")) {
      assertThat(json.has(f)).as(f).isTrue();
    }
    assertThat(t.latestSnapshot().orElseThrow().commitUser()).startsWith("cli-compact-");

    Result none =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--partition",
            "p=a",
            "--option",
            "compaction.min.file-num=3",
            "--json");
    assertThat(none.code()).isZero();
    assertThat(new ObjectMapper().readTree(none.out()).get("snapshotId").isNull()).isTrue();
  }

  @Test
  void compactWhereTakesSqlOverPartitionColumns() throws Exception {
    Table t = table();
    Result dry =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--where",
            "p > 'a'",
            "--dry-run",
            "--json",
            "--option",
            "compaction.min.file-num=3");
    assertThat(dry.code()).as(dry.err()).isZero();
    JsonNode plan = new ObjectMapper().readTree(dry.out());
    assertThat(plan.get("tasks")).hasSize(1);
    assertThat(plan.get("tasks").get(0).get("partition").asText()).isEqualTo("p=b");

    Result r =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--where",
            "`p` IN ('b', 'c') AND NOT p IS NULL",
            "--option",
            "compaction.min.file-num=3",
            "--json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(new ObjectMapper().readTree(r.out()).get("filesBefore").asInt()).isEqualTo(4);
    assertThat(
            t.newReadBuilder().newScan().plan().splits().stream()
                .filter(s -> s.partition().getString(0).toString().equals("a"))
                .mapToLong(s -> s.files().size())
                .sum())
        .isEqualTo(4);
  }

  @Test
  void compactWhereRejectsNonPartitionUnknownUnparsableAndPartitionTogether() {
    table();
    Result nonPartition =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--where", "id = 1");
    assertThat(nonPartition.code()).isEqualTo(2);
    assertThat(nonPartition.err().strip())
        .isEqualTo(
            "Error: where 'id = 1' cannot select partitions of db.t: 'id' is not a partition"
                + " column; partition columns are [p]");

    Result unknown =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--where", "nope = 1");
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err().strip())
        .startsWith("Error: where 'nope = 1' cannot select partitions of db.t: ")
        .contains("nope")
        .endsWith("; partition columns are [p]");
    assertThat(unknown.err().strip().lines()).hasSize(1);

    Result unparsable =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--where", "p = 'a' AND");
    assertThat(unparsable.code()).isEqualTo(2);
    assertThat(unparsable.err().strip())
        .startsWith("Error: where 'p = 'a' AND' cannot select partitions of db.t: ")
        .endsWith("; partition columns are [p]");

    Result both =
        run(
            "compact",
            "--warehouse",
            dir.toString(),
            "--table",
            "db.t",
            "--partition",
            "p=a",
            "--where",
            "p = 'b'");
    assertThat(both.code()).isEqualTo(2);
    assertThat(both.err().strip())
        .isEqualTo(
            "Error: --where: partitions and where cannot be used together (as in Paimon): select"
                + " the partitions with one of them (for example, partitions p=a and p=b are the"
                + " where \"p = 'a' OR p = 'b'\")");
  }

  @Test
  void compactRejectsBadArgumentsWithOneLineErrors() {
    table();
    Result noTable = run("compact", "--warehouse", dir.toString());
    assertThat(noTable.code()).isEqualTo(2);
    assertThat(noTable.err()).startsWith("Error: ");

    Result badMode =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--mode", "sometimes");
    assertThat(badMode.code()).isEqualTo(2);
    assertThat(badMode.err().strip()).startsWith("Error: --mode").doesNotContain("\n\tat ");

    Result badPartition =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--partition", "nope");
    assertThat(badPartition.code()).isEqualTo(2);

    Result notPartitionColumn =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--partition", "id=1");
    assertThat(notPartitionColumn.code()).isEqualTo(2);
    assertThat(notPartitionColumn.err()).contains("not a partition column");

    Result badUser =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--commit-user", "a/b");
    assertThat(badUser.code()).isEqualTo(2);

    Result missing = run("compact", "--warehouse", dir.toString(), "--table", "db.missing");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err().strip()).startsWith("Error: ").contains("does not exist");
    assertThat(missing.err().strip().lines()).hasSize(1);

    Result unknownFlag =
        run("compact", "--warehouse", dir.toString(), "--table", "db.t", "--bogus");
    assertThat(unknownFlag.code()).isEqualTo(2);

    Result verbose =
        run("compact", "--warehouse", dir.toString(), "--table", "db.missing", "--verbose");
    assertThat(verbose.code()).isEqualTo(1);
    assertThat(verbose.err()).contains("\tat ");

    assertThat(run().code()).isEqualTo(2);
  }

  @Test
  void inspectShowsPartitionsAndRejectsMissingTable() throws Exception {
    table();
    Result text = run("inspect", "--warehouse", dir.toString(), "--table", "db.t");
    assertThat(text.code()).as(text.err()).isZero();
    assertThat(text.out())
        .contains("Table db.t")
        .contains("latest 4 (APPEND")
        .contains("p=a: 4 files");

    Result json = run("inspect", "--warehouse", dir.toString(), "--table", "db.t", "--json");
    assertThat(json.code()).isZero();
    JsonNode n = new ObjectMapper().readTree(json.out());
    assertThat(n.get("snapshotCount").asInt()).isEqualTo(4);
    assertThat(n.get("latestSnapshot").get("commitKind").asText()).isEqualTo("APPEND");
    assertThat(n.get("partitions")).hasSize(2);
    assertThat(n.get("partitions").get(0).get("rows").asInt()).isEqualTo(40);
    assertThat(n.get("partitions").get(0).get("fileSizeHistogram").get("<16KiB").asInt())
        .isEqualTo(4);

    Result missing = run("inspect", "--warehouse", dir.toString(), "--table", "db.nope");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).startsWith("Error: ");
    Result badName = run("inspect", "--warehouse", dir.toString(), "--table", "nodot");
    assertThat(badName.code()).isEqualTo(2);
    Result noWarehouse = run("inspect", "--table", "db.t");
    assertThat(noWarehouse.code()).isEqualTo(2);
  }

  @Test
  void demoCompactsItsTable() {
    Result r = run("demo", "--warehouse", dir.resolve("wh").toString(), "--commits", "4");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Before compaction").contains("After compaction");
    assertThat(r.out()).contains("2026-01-01: 4 files").contains("2026-01-01: 1 file,");
    // again on the same warehouse: a new table beside the first
    Result again = run("demo", "--warehouse", dir.resolve("wh").toString(), "--commits", "2");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.out()).contains("Table: demo.events_2").contains("After compaction");
    assertThat(again.err()).isEmpty();
    assertThat(run("demo", "--commits", "1").code()).isEqualTo(2);
  }

  @Test
  void aMistypedCommandOrOptionGetsASuggestion() {
    Result command = run("compcat", "--warehouse", dir.toString());
    assertThat(command.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(command.err())
        .contains("Error: Unmatched arguments from index 0: 'compcat'")
        .contains("Did you mean: compact?")
        .contains("Try 'sediment --help'.");

    Result option = run("inspect", "--warehose", dir.toString(), "--table", "db.t");
    assertThat(option.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(option.err()).contains("Did you mean: --warehouse?");
  }

  /**
   * Generated typos (two neighbouring letters swapped, one left out) of every command and of the
   * table and warehouse options: the suggestion is the command or option meant, and only that one.
   */
  @Test
  void aTypoIsSuggestedTheOneCommandOrOptionMeant() {
    List<String> commands =
        List.of(
            "compact",
            "inspect",
            "expire-snapshots",
            "expire-partitions",
            "remove-orphan-files",
            "reset-consumer",
            "clear-consumers");
    for (String name : commands) {
      for (String typo : typos(name)) {
        Result r = run(typo, "--warehouse", dir.toString());
        assertThat(r.err()).as(typo).contains("Did you mean: " + name + "?\n");
      }
    }
    // a prefix names every command it starts
    assertThat(run("re", "--warehouse", dir.toString()).err())
        .contains(
            "Did you mean: remove-orphan-files or reset-consumer or rename-tag or replace-tag?\n");
    for (String name : List.of("--warehouse", "--table")) {
      for (String typo : typos(name.substring(2))) {
        Result r =
            run(
                "inspect",
                "--" + typo,
                "x",
                name.equals("--table") ? "--warehouse" : "--table",
                "x");
        assertThat(r.err()).as(typo).contains("Did you mean: " + name + "?\n");
      }
    }
  }

  private static List<String> typos(String word) {
    List<String> out = new ArrayList<>();
    for (int i = 1; i + 1 < word.length(); i++) {
      if (word.charAt(i) != word.charAt(i + 1)) {
        out.add(word.substring(0, i) + word.charAt(i + 1) + word.charAt(i) + word.substring(i + 2));
      }
      out.add(word.substring(0, i) + word.substring(i + 1));
    }
    return out;
  }

  /** A CLI without the bench jar says where the benchmark is instead of "Unmatched arguments". */
  @Test
  void benchWithoutTheBenchJarSaysWhereItIs() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        SedimentCli.run(
            new String[] {"bench", "W1"},
            new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true),
            List.of());
    assertThat(code).isEqualTo(ExitCodes.USAGE);
    assertThat(err.toString())
        .contains("'bench' is not in this build")
        .contains("sediment-<version>-bench.jar");
  }
}
