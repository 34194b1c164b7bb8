package io.sediment.bench;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A Flink metric reporter for the embedded cluster of {@code sediment bench W5}: it sums a named
 * numeric gauge over a job's subtasks, including subtasks that have finished (their last value is
 * read when Flink removes the gauge). W5 reports the writer's {@code stopTriggerWaitMillis} and
 * {@code stopTriggerPassed} with it, gauges a finished writer job no longer shows anywhere else.
 *
 * <p>Flink finds the reporter through {@link Factory} ({@code META-INF/services}); {@link
 * #addTo(Configuration)} names it in a cluster's configuration. One process runs one benchmark, so
 * the totals are static.
 */
public final class GaugeTotals implements MetricReporter {

  private static final String NAME = "sediment_bench_gauges";
  private static final String PREFIX = "metrics.reporter." + NAME + ".";
  private static final String GAUGES = "gauges";
  private static final String JOB_ID = "<job_id>";

  /** Gauges still registered, by job id, then by the gauge object. */
  private static final Map<String, Map<Gauge<?>, String>> LIVE = new ConcurrentHashMap<>();

  /** Last values of removed gauges summed, by job id and gauge name. */
  private static final Map<String, Map<String, Long>> REMOVED = new ConcurrentHashMap<>();

  private Set<String> gauges = Set.of();

  /**
   * Names this reporter in {@code conf} for the gauges named {@code gauges}, so that a cluster
   * started with it sums them.
   */
  public static void addTo(Configuration conf, String... gauges) {
    conf.setString(PREFIX + "factory.class", Factory.class.getName());
    conf.setString(PREFIX + GAUGES, String.join(",", gauges));
  }

  /**
   * The sum of gauge {@code name} over every subtask of {@code job}, finished or running; 0 when no
   * subtask registered it.
   */
  public static long total(JobID job, String name) {
    String id = job.toString();
    long sum = REMOVED.getOrDefault(id, Map.of()).getOrDefault(name, 0L);
    for (Map.Entry<Gauge<?>, String> e : LIVE.getOrDefault(id, Map.of()).entrySet()) {
      if (e.getValue().equals(name)) {
        sum += valueOf(e.getKey());
      }
    }
    return sum;
  }

  private static long valueOf(Gauge<?> gauge) {
    return gauge.getValue() instanceof Number n ? n.longValue() : 0;
  }

  @Override
  public void open(MetricConfig config) {
    gauges = Set.of(config.getString(GAUGES, "").split(","));
  }

  @Override
  public void close() {}

  @Override
  public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
    String job = group.getAllVariables().get(JOB_ID);
    if (job != null && gauges.contains(name) && metric instanceof Gauge<?> gauge) {
      LIVE.computeIfAbsent(job, k -> new ConcurrentHashMap<>()).put(gauge, name);
    }
  }

  @Override
  public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
    String job = group.getAllVariables().get(JOB_ID);
    if (job == null || !gauges.contains(name) || !(metric instanceof Gauge<?> gauge)) {
      return;
    }
    Map<Gauge<?>, String> live = LIVE.get(job);
    if (live != null && live.remove(gauge) != null) {
      REMOVED
          .computeIfAbsent(job, k -> new ConcurrentHashMap<>())
          .merge(name, valueOf(gauge), Long::sum);
    }
  }

  /** Creates the reporter; Flink loads it with {@link java.util.ServiceLoader}. */
  public static final class Factory implements MetricReporterFactory {
    @Override
    public MetricReporter createMetricReporter(Properties properties) {
      return new GaugeTotals();
    }
  }
}
