package io.sediment.testutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Every test of a class sharing a MiniCluster starts with every slot free, whatever the test before
 * it left running. The tests of {@link TwoTestsOnTwoSlots} run in a launcher of their own (surefire
 * skips nested classes).
 */
class SharedMiniClusterTest {

  /** The first test leaves a job on every slot; the second needs every slot. */
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class TwoTestsOnTwoSlots {
    @RegisterExtension
    static final SharedMiniCluster CLUSTER =
        new SharedMiniCluster(
            new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(2)
                .build());

    @Test
    @Order(1)
    void leavesAJobRunningOnEverySlot() throws Exception {
      everySubtaskRuns(unboundedJobOnTwoSlots());
    }

    @Test
    @Order(2)
    void findsEverySlotFree() throws Exception {
      JobClient job = unboundedJobOnTwoSlots();
      everySubtaskRuns(job);
      StreamingJobs.cancelAndWait(job);
    }
  }

  /** Subtasks of the fixture's jobs that opened (the MiniCluster runs in this JVM). */
  static final AtomicInteger OPENED = new AtomicInteger();

  /** A job of parallelism 2 that never ends and does not restart. */
  private static JobClient unboundedJobOnTwoSlots() throws Exception {
    OPENED.set(0);
    Configuration noRestart = new Configuration();
    noRestart.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(noRestart);
    env.setParallelism(2);
    env.fromSource(
            new DataGeneratorSource<>(x -> x, Long.MAX_VALUE, Types.LONG),
            WatermarkStrategy.noWatermarks(),
            "longs")
        .map(new CountsOpens())
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("on every slot");
  }

  /** Waits until both subtasks run; fails with the job's error if the job ends first. */
  private static void everySubtaskRuns(JobClient job) {
    await("both subtasks of the job run")
        .atMost(Duration.ofMinutes(2))
        .until(
            () -> {
              if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new AssertionError("the job ended");
              }
              return OPENED.get() == 2;
            });
  }

  private static final class CountsOpens extends RichMapFunction<Long, Long> {
    @Override
    public void open(OpenContext context) {
      OPENED.incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  @Test
  void aTestFindsEverySlotFreeWhateverTheTestBeforeLeftRunning() {
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    launcher.execute(
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(TwoTestsOnTwoSlots.class))
            .build(),
        summary);
    TestExecutionSummary result = summary.getSummary();
    assertThat(result.getFailures())
        .extracting(f -> f.getTestIdentifier().getDisplayName() + ": " + f.getException())
        .isEmpty();
    assertThat(result.getTestsSucceededCount()).isEqualTo(2);
  }

  /** The rule holds by construction: no test class registers Flink's extension itself. */
  @Test
  void everyTestClusterIsShared() throws IOException {
    List<String> direct;
    try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
      direct =
          files
              .filter(f -> f.toString().endsWith(".java"))
              .filter(f -> !f.getFileName().toString().startsWith("SharedMiniCluster"))
              .filter(SharedMiniClusterTest::registersFlinksExtension)
              .map(Path::toString)
              .toList();
    }
    assertThat(direct).as("use TestClusters or SharedMiniCluster").isEmpty();
  }

  private static boolean registersFlinksExtension(Path file) {
    try {
      return Files.readString(file).contains("new MiniClusterExtension(");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
