package io.sediment.cli;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.PluginUtils;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.runtime.util.stats.StatsSummarySnapshot;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The Flink environment of the CLI's jobs: the cluster's when run by {@code flink run}, otherwise
 * an embedded local one configured by {@code flink-conf/config.yaml} (see {@link
 * #configurationDirectory}).
 */
public final class FlinkEnvironments {

  private FlinkEnvironments() {}

  static Configuration configuration() {
    Optional<Path> dir = configurationDirectory();
    Configuration conf =
        dir.isPresent()
            ? GlobalConfiguration.loadConfiguration(dir.get().toString())
            : new Configuration();
    // An embedded Flink binds a free REST port, not rest.port (the local cluster's JobManager
    // port). Not in config.yaml: Flink's SQL client reads that file too, and its embedded gateway
    // would bind rest.bind-port instead of the port it connects to.
    // containsKey, not contains: contains(BIND_PORT) is also true for its fallback rest.port.
    if (!conf.containsKey(RestOptions.BIND_PORT.key())) {
      conf.set(RestOptions.BIND_PORT, "0");
    }
    return conf;
  }

  /**
   * Sets up Flink's file systems from {@link #configuration} and the plugins of {@code
   * FLINK_PLUGINS_DIR} (default {@code plugins/}), as a Flink process does: for a warehouse on an
   * object store used without a Flink cluster (the S3 plugin, its endpoint and credentials).
   */
  public static void initializeFileSystems() {
    Configuration conf = configuration();
    FileSystem.initialize(conf, PluginUtils.createPluginManagerFromRootFolder(conf));
  }

  /**
   * The {@code flink-conf/} directory: {@code $SEDIMENT_FLINK_CONF}, else {@code ./flink-conf},
   * else the one next to the jar or one level up ({@code target/sediment.jar} of a checkout finds
   * the checkout's), so that the CLI run from any directory uses it.
   */
  static Optional<Path> configurationDirectory() {
    String env = System.getenv("SEDIMENT_FLINK_CONF");
    if (env != null && !env.isBlank()) {
      return Optional.of(Paths.get(env));
    }
    Path local = Paths.get("flink-conf");
    if (Files.isDirectory(local)) {
      return Optional.of(local);
    }
    try {
      return nextTo(
          Paths.get(
              FlinkEnvironments.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
    } catch (URISyntaxException | RuntimeException e) {
      // no code location (an unusual class loader): the embedded Flink's defaults
    }
    return Optional.empty();
  }

  /** {@code flink-conf/} beside {@code code} (a jar or class directory) or one level up. */
  static Optional<Path> nextTo(Path code) {
    Path dir = code.toAbsolutePath().getParent();
    for (int up = 0; up < 2 && dir != null; up++, dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("flink-conf"))) {
        return Optional.of(dir.resolve("flink-conf"));
      }
    }
    return Optional.empty();
  }

  /**
   * Whether {@code env} runs jobs on an embedded Flink started in this JVM for the job (no {@code
   * flink run} and no other context, such as a test's MiniCluster).
   */
  static boolean isEmbedded(StreamExecutionEnvironment env) {
    return env instanceof LocalStreamEnvironment;
  }

  /**
   * Whether jobs of {@code env} are submitted detached, as by {@code flink run -d}: the client
   * returns after submission and must not wait for a job's result.
   */
  static boolean isDetachedSubmission(StreamExecutionEnvironment env) {
    return !isEmbedded(env)
        && !env.getConfiguration().getOptional(DeploymentOptions.ATTACHED).orElse(true);
  }

  /**
   * The context's environment (under {@code flink run}: the cluster's configuration with the
   * command's {@code -D} options), or, without a context, an embedded one configured by {@link
   * #configuration()}. A flink-conf/ directory in the working directory of {@code flink run} must
   * not override the cluster's settings and {@code -D} options.
   */
  static StreamExecutionEnvironment create() {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    return isEmbedded(env)
        ? StreamExecutionEnvironment.getExecutionEnvironment(configuration())
        : env;
  }

  /**
   * An embedded MiniCluster (one TaskManager, {@code parallelism} slots) started once, with
   * environments whose jobs are submitted to it: start-up stays out of a timed job (a plain local
   * environment starts and stops a cluster inside every execute()).
   */
  public static final class Embedded implements AutoCloseable {
    private static final String EXECUTOR = "sediment-embedded-minicluster";

    private final MiniCluster cluster;
    private final Configuration conf;
    private final int parallelism;
    private final double startSeconds;

    private Embedded(
        MiniCluster cluster, Configuration conf, int parallelism, double startSeconds) {
      this.cluster = cluster;
      this.conf = conf;
      this.parallelism = parallelism;
      this.startSeconds = startSeconds;
    }

    public static Embedded start(int parallelism) throws Exception {
      return start(parallelism, new Configuration());
    }

    /**
     * As {@link #start(int)}, with {@code extra} set over the configuration (a metric reporter).
     */
    public static Embedded start(int parallelism, Configuration extra) throws Exception {
      long t0 = System.nanoTime();
      Configuration conf = configuration();
      conf.addAll(extra);
      int slots = Math.max(parallelism, conf.get(TaskManagerOptions.NUM_TASK_SLOTS));
      conf.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
      conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
      MiniCluster mc =
          new MiniCluster(
              new MiniClusterConfiguration.Builder()
                  .setConfiguration(conf)
                  .setNumTaskManagers(1)
                  .setNumSlotsPerTaskManager(slots)
                  .build());
      mc.start();
      Configuration envConf = new Configuration(conf);
      envConf.set(DeploymentOptions.TARGET, EXECUTOR);
      envConf.set(DeploymentOptions.ATTACHED, true);
      return new Embedded(mc, envConf, parallelism, (System.nanoTime() - t0) / 1e9);
    }

    public double startSeconds() {
      return startSeconds;
    }

    /**
     * Runs a trivial bounded batch job (sequence, map, one discarding sink) and returns its wall
     * seconds. The first job on a fresh cluster pays one-off class loading and network set-up; the
     * benchmark runs two of these before timing, as the peers' harness does, and reports them
     * separately.
     */
    public double runNoopJob() throws Exception {
      long t0 = System.nanoTime();
      StreamExecutionEnvironment env = newEnv();
      env.setRuntimeMode(RuntimeExecutionMode.BATCH);
      env.fromSequence(1, 10_000)
          .map(x -> x * 2)
          .returns(Types.LONG)
          .sinkTo(new DiscardingSink<>())
          .name("discard")
          // one sink behind parallel sources: records cross the network, as the compaction's
          // messages do to its committer (and as the peers' collect sink does)
          .setParallelism(1);
      env.execute("sediment-noop");
      return (System.nanoTime() - t0) / 1e9;
    }

    /** A new environment whose jobs run on this cluster. */
    public StreamExecutionEnvironment newEnv() {
      StreamExecutionEnvironment env =
          new StreamExecutionEnvironment(
              executors(), new Configuration(conf), Thread.currentThread().getContextClassLoader());
      env.setParallelism(parallelism);
      return env;
    }

    /** The 99th percentile of a job's completed checkpoints' durations in seconds (0: none). */
    public double checkpointP99Seconds(JobID job) throws Exception {
      StatsSummarySnapshot durations =
          cluster
              .getExecutionGraph(job)
              .get()
              .getCheckpointStatsSnapshot()
              .getSummaryStats()
              .getEndToEndDurationStats();
      return durations.getCount() == 0 ? 0 : durations.getQuantile(0.99) / 1000.0;
    }

    /** The configuration of this cluster's environments (their executor submits to it). */
    Configuration environmentConfiguration() {
      return new Configuration(conf);
    }

    int parallelism() {
      return parallelism;
    }

    /** Executors that submit a pipeline to this cluster, whatever the configuration says. */
    PipelineExecutorServiceLoader executors() {
      return new PipelineExecutorServiceLoader() {
        @Override
        public PipelineExecutorFactory getExecutorFactory(Configuration c) {
          return new PipelineExecutorFactory() {
            @Override
            public String getName() {
              return EXECUTOR;
            }

            @Override
            public boolean isCompatibleWith(Configuration c) {
              return true;
            }

            @Override
            public PipelineExecutor getExecutor(Configuration c) {
              return (pipeline, configuration, classLoader) -> {
                StreamGraph graph = PipelineExecutorUtils.getStreamGraph(pipeline, configuration);
                return cluster
                    .submitJob(graph)
                    .thenApply(
                        r ->
                            new MiniClusterJobClient(
                                r.getJobID(),
                                cluster,
                                classLoader,
                                MiniClusterJobClient.JobFinalizationBehavior.NOTHING));
              };
            }
          };
        }

        @Override
        public Stream<String> getExecutorNames() {
          return Stream.of(EXECUTOR);
        }
      };
    }

    @Override
    public void close() throws Exception {
      cluster.close();
    }
  }
}
