package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The local cluster of a test class ({@code bin/local-cluster}): started with the given number of
 * TaskManagers before the class's tests, stopped after them (also when the start or a test failed),
 * checking that no process the PID files named is left.
 */
final class LocalClusterExtension implements BeforeAllCallback, AfterAllCallback {

  private final LocalCluster cluster;
  private final int taskManagers;

  LocalClusterExtension(String dir, int taskManagers) {
    this(dir, taskManagers, Map.of());
  }

  /** {@code environment}: extra variables for {@code bin/local-cluster}. */
  LocalClusterExtension(String dir, int taskManagers, Map<String, String> environment) {
    this.cluster = new LocalCluster(Path.of(dir), environment);
    this.taskManagers = taskManagers;
  }

  LocalCluster cluster() {
    return cluster;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    assertThat(cluster.jobJar()).as("built by mvn package").exists();
    cluster.start(taskManagers);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    List<Long> started = cluster.pids();
    cluster.stop();
    for (long pid : started) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("process %d is gone after bin/local-cluster stop", pid)
          .isFalse();
    }
  }
}
