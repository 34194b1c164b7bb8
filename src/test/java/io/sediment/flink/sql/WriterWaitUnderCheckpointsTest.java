package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A SQL writer that waits for a compaction job ({@code write-only.stop-trigger-wait}) holds its
 * checkpoint barrier meanwhile: under periodic checkpoints its wait is at most half the checkpoint
 * timeout of its job's configuration, so that the checkpoint completes instead of timing out.
 */
class WriterWaitUnderCheckpointsTest {

  @TempDir Path dir;

  static Stream<Arguments> jobs() {
    String interval = "execution.checkpointing.interval";
    String timeout = "execution.checkpointing.timeout";
    return Stream.of(
        Arguments.of("no checkpoints", "true", Map.of(), 10_000L),
        Arguments.of("default timeout (10 min)", "true", Map.of(interval, "1 s"), 10_000L),
        Arguments.of("timeout 4 s", "true", Map.of(interval, "1 s", timeout, "4 s"), 2_000L),
        Arguments.of("timeout 20 s", "true", Map.of(interval, "1 s", timeout, "20 s"), 10_000L),
        Arguments.of("timeout 15 ms", "true", Map.of(interval, "1 s", timeout, "15 ms"), 7L),
        Arguments.of(
            "batch job",
            "true",
            Map.of(interval, "1 s", timeout, "4 s", "execution.runtime-mode", "BATCH"),
            10_000L),
        Arguments.of("not write-only", "false", Map.of(interval, "1 s", timeout, "4 s"), 0L));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("jobs")
  void theWaitEndsInsideTheCheckpointTimeout(
      String job, String writeOnly, Map<String, String> configuration, long expectedMillis)
      throws Exception {
    Table table =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            TestTables.idValueSchema()
                .primaryKey("id")
                .option("bucket", "1")
                .option("write-only", writeOnly)
                .option("write-only.stop-trigger-wait", "10 s")
                .build());
    MockEnvironment env = new MockEnvironmentBuilder().build();
    configuration.forEach((k, v) -> env.getJobConfiguration().setString(k, v));
    SedimentWriteOperator writer = new SedimentWriteOperator(table, "sql-job");
    try (var harness =
        new OneInputStreamOperatorTestHarness<RowData, Tuple2<Long, byte[]>>(writer, env)) {
      harness.open();
      assertThat(writer.stopTriggerMaxWaitMillis()).isEqualTo(expectedMillis);
    } finally {
      env.close();
    }
  }
}
