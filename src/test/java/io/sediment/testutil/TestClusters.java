package io.sediment.testutil;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;

/** The Flink MiniCluster of the tests that run jobs. */
public final class TestClusters {

  private TestClusters() {}

  /**
   * One task manager with two slots, shared by the tests of a class: parallelism 2 as on the
   * benchmark machine.
   */
  public static SharedMiniCluster oneTaskManagerTwoSlots() {
    return new SharedMiniCluster(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(2)
            .build());
  }

  /**
   * One task manager with four slots: room for a writer job, a compaction job and a reading job of
   * parallelism 2 at once.
   */
  public static SharedMiniCluster oneTaskManagerFourSlots() {
    return new SharedMiniCluster(
        new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1)
            .setNumberSlotsPerTaskManager(4)
            .build());
  }
}
