package io.sediment.testutil;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.runtime.messages.webmonitor.ClusterOverview;
import org.apache.flink.runtime.rest.messages.ClusterOverviewHeaders;
import org.apache.flink.runtime.rest.messages.EmptyMessageParameters;
import org.apache.flink.runtime.rest.messages.EmptyRequestBody;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A Flink MiniCluster shared by the tests of a class, where every test starts with every slot free:
 * after each test, the jobs it left running are cancelled and the next test waits until all their
 * slots are back.
 *
 * <p>Why: Flink's {@link MiniClusterExtension} keeps a test's jobs running into the next test, and
 * a MiniCluster has no resource manager that could add slots, so a streaming job that finds too few
 * free slots fails at once ({@code NoResourceAvailableException}) instead of waiting. A test then
 * failed or passed depending on how fast the last test's jobs let go of their slots (CI saw it in
 * {@code StreamingReadTest}). Everything else (injection of {@code MiniCluster} and {@code
 * ClusterClient}, the test environment) is the wrapped extension's.
 */
public final class SharedMiniCluster
    implements BeforeAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        AfterAllCallback,
        ParameterResolver {

  /** Generous: cancelling and freeing slots takes well under a second when nothing hangs. */
  private static final Duration SLOTS_BACK = Duration.ofMinutes(2);

  private final MiniClusterExtension cluster;

  /** The slots of the configured task managers: a test that replaces one must start another. */
  private final int slots;

  public SharedMiniCluster(MiniClusterResourceConfiguration configuration) {
    this.cluster = new MiniClusterExtension(configuration);
    this.slots =
        configuration.getNumberTaskManagers() * configuration.getNumberSlotsPerTaskManager();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    cluster.beforeAll(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    cluster.beforeEach(context);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    try {
      cancelJobsAndAwaitFreeSlots();
    } finally {
      cluster.afterEach(context);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    cluster.afterAll(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster.supportsParameter(parameter, context);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster.resolveParameter(parameter, context);
  }

  private void cancelJobsAndAwaitFreeSlots() throws Exception {
    try (RestClusterClient<StandaloneClusterId> client =
        new RestClusterClient<>(
            cluster.getClientConfiguration(), StandaloneClusterId.getInstance())) {
      for (JobStatusMessage job : client.listJobs().get()) {
        if (!job.getJobState().isGloballyTerminalState()) {
          cancel(client, job);
        }
      }
      try {
        await("every job ended and every slot of the shared MiniCluster is free")
            .atMost(SLOTS_BACK)
            .pollInterval(Duration.ofMillis(50))
            .until(() -> allJobsEnded(client) && allSlotsFree(client));
      } catch (ConditionTimeoutException e) {
        ClusterOverview overview = overview(client);
        if (overview.getNumSlotsTotal() < slots) {
          throw new AssertionError(
              "The shared MiniCluster has "
                  + overview.getNumSlotsTotal()
                  + " slots after this test, not its "
                  + slots
                  + ": a task manager was lost (see the test's log for a FATAL error) and not"
                  + " replaced, so the next tests of the class cannot run their jobs",
              e);
        }
        throw e;
      }
    }
  }

  /** Cancels {@code job}; a job that ended meanwhile cannot be cancelled, and needs not be. */
  private static void cancel(RestClusterClient<StandaloneClusterId> client, JobStatusMessage job)
      throws Exception {
    try {
      client.cancel(job.getJobId()).get();
    } catch (ExecutionException e) {
      if (!client.getJobStatus(job.getJobId()).get().isGloballyTerminalState()) {
        throw e;
      }
    }
  }

  private static boolean allJobsEnded(RestClusterClient<StandaloneClusterId> client)
      throws Exception {
    return client.listJobs().get().stream()
        .allMatch(job -> job.getJobState().isGloballyTerminalState());
  }

  private boolean allSlotsFree(RestClusterClient<StandaloneClusterId> client) throws Exception {
    ClusterOverview overview = overview(client);
    return overview.getNumSlotsTotal() == slots
        && overview.getNumSlotsAvailable() == overview.getNumSlotsTotal();
  }

  private static ClusterOverview overview(RestClusterClient<StandaloneClusterId> client)
      throws Exception {
    return client
        .sendRequest(
            ClusterOverviewHeaders.getInstance(),
            EmptyMessageParameters.getInstance(),
            EmptyRequestBody.getInstance())
        .get();
  }
}
