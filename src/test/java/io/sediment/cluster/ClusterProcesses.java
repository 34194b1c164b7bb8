package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** The end of every cluster test: stop the local cluster and check that no process is left. */
final class ClusterProcesses {

  private ClusterProcesses() {}

  /** Stops every process the cluster's PID files name, also after a failed start. */
  static void stopAndCheckNoneIsLeft(LocalCluster cluster) throws Exception {
    List<Long> started = cluster.pids();
    cluster.stop();
    for (long pid : started) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("process %d is gone after bin/local-cluster stop", pid)
          .isFalse();
    }
  }
}
