package io.sediment.cli;

import java.io.File;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Flink environment of the CLI's jobs: the cluster's when run by {@code flink run}, otherwise
 * an embedded local one configured by {@code flink-conf/config.yaml} (directory from {@code
 * SEDIMENT_FLINK_CONF}, else {@code ./flink-conf} when it exists).
 */
final class FlinkEnvironments {

  private FlinkEnvironments() {}

  static Configuration configuration() {
    String dir = System.getenv("SEDIMENT_FLINK_CONF");
    if (dir == null || dir.isBlank()) {
      dir = "flink-conf";
    }
    if (new File(dir).isDirectory()) {
      return GlobalConfiguration.loadConfiguration(dir);
    }
    return new Configuration();
  }

  /**
   * Whether {@code env} runs jobs on an embedded Flink started in this JVM for the job (no
   * {@code flink run} and no other context, such as a test's MiniCluster).
   */
  static boolean isEmbedded(StreamExecutionEnvironment env) {
    return env instanceof LocalStreamEnvironment;
  }

  static StreamExecutionEnvironment create() {
    return StreamExecutionEnvironment.getExecutionEnvironment(configuration());
  }
}
