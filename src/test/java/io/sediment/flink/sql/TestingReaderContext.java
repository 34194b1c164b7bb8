package io.sediment.flink.sql;

import java.util.function.Consumer;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * The context of a source reader outside Flink: subtask {@code subtask} of {@code parallelism},
 * whose events to the enumerator go to {@code events} (Flink's own testing context is in its
 * connector test utilities, which the build does not pull in).
 */
final class TestingReaderContext implements SourceReaderContext {

  private final int subtask;
  private final int parallelism;
  private final Consumer<SourceEvent> events;

  TestingReaderContext(int subtask, int parallelism, Consumer<SourceEvent> events) {
    this.subtask = subtask;
    this.parallelism = parallelism;
    this.events = events;
  }

  @Override
  public SourceReaderMetricGroup metricGroup() {
    return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
  }

  @Override
  public Configuration getConfiguration() {
    return new Configuration();
  }

  @Override
  public String getLocalHostName() {
    return "localhost";
  }

  @Override
  public int getIndexOfSubtask() {
    return subtask;
  }

  @Override
  public void sendSplitRequest() {}

  @Override
  public void sendSourceEventToCoordinator(SourceEvent event) {
    events.accept(event);
  }

  @Override
  public UserCodeClassLoader getUserCodeClassLoader() {
    return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
  }

  @Override
  public int currentParallelism() {
    return parallelism;
  }
}
