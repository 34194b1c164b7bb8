package io.sediment.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.bench.BenchResult;
import io.sediment.bench.BenchRunner;
import io.sediment.bench.Scale;
import io.sediment.compact.CompactResult;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sediment bench} on tiny versions of the workloads (hidden --scale). */
class BenchCommandTest {

  @TempDir Path dir;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void w2OnTheTopologyIsVerified() throws Exception {
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench", "W2", "--scale", "2000", "--json", "--dir", dir.resolve("w").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("workload").asText()).isEqualTo("W2");
    assertThat(j.get("mode").asText()).isEqualTo("flink-topology");
    assertThat(j.get("verified").asBoolean()).isTrue();
    assertThat(j.get("filesIn").asLong()).isEqualTo(10); // 5 level-0 runs x 2 buckets
    assertThat(j.get("filesOut").asLong()).isEqualTo(2);
    assertThat(j.has("clusterStartSeconds")).isTrue();
    // the cluster is warmed by two no-op jobs before timing, reported apart from the wall time
    assertThat(j.get("noopJobSeconds").asDouble()).isPositive();
    assertThat(j.get("noopJob2Seconds").asDouble()).isPositive();
    assertThat(j.get("cpuSeconds").asDouble()).isPositive();
    assertThat(Files.exists(dir.resolve("w"))).isFalse(); // not --keep
  }

  @Test
  void w1InProcessAndW3AreVerified() throws Exception {
    SedimentCliTest.Result w1 =
        SedimentCliTest.run(
            "bench",
            "w1",
            "--scale",
            "1000",
            "--in-process",
            "--json",
            "--keep",
            "--dir",
            dir.resolve("w1").toString());
    assertThat(w1.code()).as(w1.err()).isZero();
    assertThat(JSON.readTree(w1.out()).get("rows").asLong())
        .isEqualTo(2 * 50); // 2 commits of 50 rows at scale 1000
    assertThat(Files.exists(dir.resolve("w1"))).isTrue();
    SedimentCliTest.Result w3 = SedimentCliTest.run("bench", "W3", "--scale", "50");
    assertThat(w3.code()).as(w3.err()).isZero();
    assertThat(w3.out()).contains("verified");
  }

  @Test
  void w4ScansTheCompactedW1WithBothReadersAndReportsItsRowGroups() throws Exception {
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W4",
            "--scale",
            "100",
            "--in-process",
            "--json",
            "--dir",
            dir.resolve("w4").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("workload").asText()).isEqualTo("W4");
    assertThat(j.get("verified").asBoolean()).as(j.toString()).isTrue();
    assertThat(j.get("rows").asLong()).isEqualTo(2 * 500); // 2 commits of 500 rows at scale 100
    for (String scan :
        new String[] {"sedimentFull", "sedimentId", "parquetMrFull", "parquetMrId"}) {
      // a scan of 1,000 cached rows can take less than the half millisecond the report rounds to
      assertThat(j.get(scan + "Seconds").asDouble()).as(scan).isNotNegative();
      assertThat(j.get(scan + "RowsPerSecond").asLong()).as(scan).isPositive();
      assertThat(j.get(scan + "CpuSeconds").asDouble()).as(scan).isNotNegative();
    }
    assertThat(j.get("w1WallSeconds").asDouble()).isPositive();
    // the two small inputs are merged into one row group of the one output file
    assertThat(j.get("outputRowGroups").asLong()).isEqualTo(1);
    assertThat(j.get("rowGroupsPerOutputFile").asText()).isEqualTo("[1]");
  }

  /** W6: three layouts of the same input, each queried twice, the same rows returned by each. */
  @Test
  void w6ComparesTheLayoutsOfOneInput() throws Exception {
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W6",
            "--scale",
            "100",
            "--in-process",
            "--json",
            "--dir",
            dir.resolve("w6").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("verified").asBoolean()).as(j.toString()).isTrue();
    for (String layout : new String[] {"unsorted", "linear", "zorder"}) {
      assertThat(j.get(layout + "CompactionSeconds").asDouble()).as(layout).isPositive();
      for (String q : new String[] {"Q1", "Q2"}) {
        assertThat(j.get(layout + q + "RowsReturned").asLong())
            .as(layout + q)
            .isEqualTo(j.get("unsorted" + q + "RowsReturned").asLong());
        assertThat(j.get(layout + q + "RowGroupsRead").asLong())
            .as(layout + q)
            .isLessThanOrEqualTo(j.get(layout + "RowGroups").asLong());
      }
    }
    assertThat(j.get("unsortedQ2RowsReturned").asLong()).isPositive();
  }

  @Test
  void aCompactionThatDoesNothingFailsVerification() throws Exception {
    BenchRunner.Compactor none = (table, options, order) -> CompactResult.nothing(0);
    for (String w : new String[] {"W1", "W2"}) {
      BenchResult r = BenchRunner.run(w, dir.resolve(w), "test", none, Scale.divided(2000));
      assertThat(r.verified()).as(w).isFalse();
      assertThat(r.verification()).as(w).contains("latest snapshot is");
    }
  }

  /** The scale runs are their base workloads with WORKLOAD.md's larger sizes (here divided). */
  @Test
  void scaleRunsAreTheirBaseWorkloadsLarger() throws Exception {
    SedimentCliTest.Result w3 = SedimentCliTest.run("bench", "W3x50", "--scale", "1000", "--json");
    assertThat(w3.code()).as(w3.err()).isZero();
    JsonNode j = JSON.readTree(w3.out());
    assertThat(j.get("workload").asText()).isEqualTo("W3x50");
    assertThat(j.get("baseWorkload").asText()).isEqualTo("W3");
    assertThat(j.get("filesIn").asLong()).isEqualTo(10 * 2); // 10,000 / 1000 partitions of 2 files
    assertThat(j.get("microsPerFile").asDouble()).isPositive();
    SedimentCliTest.Result w1 =
        SedimentCliTest.run("bench", "w1X10", "--scale", "100", "--in-process", "--json");
    assertThat(w1.code()).as(w1.err()).isZero();
    j = JSON.readTree(w1.out());
    assertThat(j.get("workload").asText()).isEqualTo("W1x10");
    assertThat(j.get("rows").asLong()).isEqualTo(20 * 500); // 2,000 / 100 commits of 500 rows
    assertThat(j.get("nanosPerRow").asDouble()).isPositive();
  }

  @Test
  void badArgumentsAreOneLineErrors() {
    SedimentCliTest.Result r = SedimentCliTest.run("bench", "W9");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .isEqualTo(
            "Error: Unknown workload 'W9'; workloads are W1, W2, W3, W4, W5, W5-PK, W5-PK-DV"
                + " and W6, and the scale runs W1x10, W2x4 and W3x50");
    r = SedimentCliTest.run("bench", "W1", "--duration", "5");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .isEqualTo("Error: --duration, --tail and --table-option are options of W5 only");
    r = SedimentCliTest.run("bench", "W2", "--table-option", "write-only.stop-trigger-wait=10s");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .isEqualTo("Error: --duration, --tail and --table-option are options of W5 only");
    r = SedimentCliTest.run("bench", "W5", "--duration", "0");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .isEqualTo(
            "Error: --duration must be at least 1 second and --tail at least 0, got 0 and 60");
    r = SedimentCliTest.run("bench", "W5-PK", "--parallelism", "4");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .startsWith("Error: --parallelism is not an option of W5-PK: it runs a writer");
    r = SedimentCliTest.run("bench", "W5", "--scale", "10");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().trim())
        .startsWith("Error: --scale is not an option of W5: it runs a writer");
  }

  /**
   * W5 for a few seconds: the writer's rows arrive in a file per partition per writer checkpoint,
   * the dedicated job compacts them, and the figures replayed from the snapshots add up.
   */
  @Test
  void w5RunsAWriterAndTheDedicatedJobSideBySide() throws Exception {
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W5",
            "--duration",
            "8",
            "--tail",
            "12",
            "--option",
            "compaction.min.file-num=2",
            "--option",
            "compaction.discovery-interval=1s",
            "--json",
            "--dir",
            dir.resolve("w5").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("verified").asBoolean()).as(j.toString()).isTrue();
    assertThat(j.get("rows").asLong()).isEqualTo(160_000);
    assertThat(j.get("orphan_files").asLong()).isZero();
    // 8 partitions, a file each per writer commit
    assertThat(j.get("filesIn").asLong() % 8).isZero();
    assertThat(j.get("append_commits").asLong() * 8).isEqualTo(j.get("filesIn").asLong());
    assertThat(j.get("compact_commits").asLong()).isPositive();
    assertThat(j.get("writer_files_compacted").asLong()).isPositive();
    assertThat(
            j.get("writer_files_compacted").asLong()
                + j.get("writer_files_never_compacted").asLong())
        .isEqualTo(j.get("filesIn").asLong());
    assertThat(j.get("write_amplification").asDouble()).isPositive();
    assertThat(j.get("lag_p50_s").asDouble())
        .isPositive()
        .isLessThanOrEqualTo(j.get("lag_max_s").asDouble());
    assertThat(j.get("end_max_files_per_partition").asLong())
        .isLessThan(j.get("append_commits").asLong());
    assertThat(j.get("writer_checkpoint_p99_s").asDouble()).isPositive();
    assertThat(j.get("writer_commit_gap_max_s").asDouble()).isPositive();
  }

  /**
   * W5-PK with a writer that waits for the compaction job ({@code write-only.stop-trigger-wait}):
   * the SQL writer blocks at a checkpoint barrier until the job's commit made room, so no commit
   * leaves a bucket past the stop trigger (3 here, room for one window above the compaction trigger
   * 2). One writer checkpoint (every 2 s) adds a run per bucket, and the job, started after the
   * writer, commits first at its checkpoint at 10 s, so the fourth window waits for it (without the
   * wait it would pass the trigger): the writer's gauges, summed by the benchmark's metric
   * reporter, show the time waited and no window passed.
   */
  @Test
  void w5PkWithTheWriterWaitingNeverPassesTheStopTrigger() throws Exception {
    SedimentCliTest.Result r =
        SedimentCliTest.run(
            "bench",
            "W5-PK",
            "--duration",
            "12",
            "--tail",
            "12",
            "--table-option",
            "num-sorted-run.compaction-trigger=2",
            "--table-option",
            "num-sorted-run.stop-trigger=3",
            "--table-option",
            "write-only.stop-trigger-wait=1min",
            "--option",
            "compaction.discovery-interval=1s",
            "--json",
            "--dir",
            dir.resolve("w5pk").toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("verified").asBoolean()).as(j.toString()).isTrue();
    assertThat(j.get("append_commits").asLong()).as(j.toString()).isGreaterThan(4);
    assertThat(j.get("compact_commits").asLong()).as(j.toString()).isPositive();
    assertThat(j.get("max_sorted_runs_any_commit").asLong())
        .as(j.toString())
        .isLessThanOrEqualTo(3);
    assertThat(j.get("writer_stop_trigger_wait_s").asDouble()).as(j.toString()).isPositive();
    assertThat(j.get("writer_stop_trigger_passed").asLong()).as(j.toString()).isZero();
    assertThat(j.get("table_options").toString()).contains("write-only.stop-trigger-wait");
  }
}
