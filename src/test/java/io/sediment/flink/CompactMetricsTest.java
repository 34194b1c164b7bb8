package io.sediment.flink;

import static io.sediment.flink.FlinkTestSupport.fill;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactTask;
import io.sediment.manifest.DataFileMeta;
import io.sediment.table.Table;
import io.sediment.testutil.SharedMiniCluster;
import io.sediment.testutil.StreamingJobs;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The topology's Flink metrics after a batch job, read through an in-memory reporter. */
class CompactMetricsTest {

  private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

  @RegisterExtension
  static final SharedMiniCluster MINI_CLUSTER =
      new SharedMiniCluster(
          new MiniClusterResourceConfiguration.Builder()
              .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  @TempDir Path dir;

  @Test
  void batchJobReportsPlannedReadWrittenAndCommitted() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "t", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 20, "a", "b");

    CompactJob job =
        CompactJob.builder(dir.toString(), "db.t")
            .commitUser("metrics")
            .option("compaction.min.file-num", "3")
            .parallelism(2)
            .build();
    List<CompactTask> plan = job.plan();
    long inputFiles = plan.stream().mapToLong(t -> t.inputs().size()).sum();
    long inputBytes =
        plan.stream().flatMap(t -> t.inputs().stream()).mapToLong(DataFileMeta::fileSize).sum();
    assertThat(plan).hasSize(2);

    CompactResult result = job.runBatch(StreamExecutionEnvironment.getExecutionEnvironment());
    Table t = catalog.getTable("db.t");
    long outputFiles = FlinkTestSupport.liveFiles(t).size();
    long outputBytes =
        FlinkTestSupport.liveFileMetas(t).stream().mapToLong(DataFileMeta::fileSize).sum();
    assertThat(result.filesAfter()).isEqualTo(outputFiles);

    assertThat(sum(".enumerator.", "tasksPlanned")).isEqualTo(plan.size());
    assertThat(sum(".enumerator.", "tasksPending")).isZero();
    assertThat(sum(".enumerator.", "tasksRunning")).isZero();
    assertThat(sum(".enumerator.", "backlog")).isZero();
    assertThat(sum(".Compact rewrite.", "tasksDone")).isEqualTo(plan.size());
    assertThat(sum(".Compact rewrite.", "tasksFailed")).isZero();
    assertThat(sum(".Compact rewrite.", "tasksRunning")).isZero();
    assertThat(sum(".Compact rewrite.", "filesRead")).isEqualTo(inputFiles).isEqualTo(12);
    assertThat(sum(".Compact rewrite.", "bytesRead")).isEqualTo(inputBytes);
    assertThat(sum(".Compact rewrite.", "filesWritten")).isEqualTo(outputFiles);
    assertThat(sum(".Compact rewrite.", "bytesWritten")).isEqualTo(outputBytes);
    assertThat(sum(".Compact commit.", "commits")).isEqualTo(1);
    assertThat(sum(".Compact commit.", "failedWindows")).isZero();
    assertThat(sum(".Compact commit.", "consecutiveFailures")).isZero();
    assertThat(metrics(".Compact commit.", "lastCommitDurationMs")).hasSize(1);
    assertThat(sum(".Compact commit.", "lastCommitDurationMs")).isNotNegative();
  }

  @Test
  void backlogCountsSmallFilesWaitingAndDropsToZeroWhenCompacted() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table table = TestTables.create(catalog, "s", FlinkTestSupport.partitioned().build());
    fill(table, 0, 6, 10, "a", "b");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.enableCheckpointing(300);
    JobClient client =
        CompactJob.builder(dir.toString(), "db.s")
            .option("compaction.min.file-num", "3")
            .option("compaction.discovery-interval", "100ms")
            .parallelism(2)
            .build()
            .submitStreaming(env);
    try {
      String job = "sediment compact (dedicated) db.s";
      // 6 small files per partition: planned, compacted to one file each; nothing waits.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(FlinkTestSupport.filesPerPartition(table).values()).containsOnly(1);
                assertThat(gauge(job, "backlog")).as("backlog").isZero();
              });
      // One more small file per partition: two small files each, below min.file-num, wait.
      fill(table, 100, 1, 10, "a", "b");
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(gauge(job, "backlog")).as("backlog").isEqualTo(4));
      assertThat(FlinkTestSupport.filesPerPartition(table).values()).containsOnly(2);
      // A third small file per partition reaches min.file-num: compacted, the backlog empties.
      fill(table, 200, 1, 10, "a", "b");
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(FlinkTestSupport.filesPerPartition(table).values()).containsOnly(1);
                assertThat(gauge(job, "backlog")).as("backlog").isZero();
              });
    } finally {
      StreamingJobs.cancelAndWait(client);
    }
  }

  /** The value of the enumerator gauge {@code name} of the running job named {@code job}. */
  private static long gauge(String job, String name) {
    long total = 0;
    boolean found = false;
    for (Map.Entry<MetricGroup, Map<String, Metric>> g : REPORTER.getMetricsByGroup().entrySet()) {
      if (!job.equals(g.getKey().getAllVariables().get("<job_name>"))) {
        continue;
      }
      Metric m = g.getValue().get(name);
      if (m instanceof Gauge<?> gauge
          && g.getKey().getMetricIdentifier(name).contains(".enumerator.")) {
        total += ((Number) gauge.getValue()).longValue();
        found = true;
      }
    }
    return found ? total : -1;
  }

  /**
   * Metrics {@code name} of the batch job of table db.t whose identifier contains {@code scope}.
   */
  static List<Metric> metrics(String scope, String name) {
    List<Metric> out = new java.util.ArrayList<>();
    for (Map.Entry<MetricGroup, Map<String, Metric>> g : REPORTER.getMetricsByGroup().entrySet()) {
      if (!"sediment compact db.t".equals(g.getKey().getAllVariables().get("<job_name>"))) {
        continue;
      }
      for (Map.Entry<String, Metric> m : g.getValue().entrySet()) {
        String id = g.getKey().getMetricIdentifier(m.getKey());
        if (m.getKey().equals(name) && id.contains(scope)) {
          out.add(m.getValue());
        }
      }
    }
    return out;
  }

  /** The sum over subtasks of a counter or numeric gauge; fails when there is none. */
  static long sum(String scope, String name) {
    List<Metric> ms = metrics(scope, name);
    assertThat(ms).as("metric %s of %s; known: %s", name, scope, known(name)).isNotEmpty();
    long total = 0;
    for (Metric m : ms) {
      if (m instanceof Counter c) {
        total += c.getCount();
      } else if (m instanceof Gauge<?> g) {
        total += ((Number) g.getValue()).longValue();
      }
    }
    return total;
  }

  private static List<String> known(String name) {
    List<String> ids = new java.util.ArrayList<>();
    REPORTER
        .getMetricsByGroup()
        .forEach(
            (g, ms) ->
                ms.keySet()
                    .forEach(
                        k -> {
                          String id = g.getMetricIdentifier(k);
                          if (k.equals(name)) {
                            ids.add(id);
                          }
                        }));
    return ids;
  }
}
