package io.sediment.cli;

import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.jobgraph.JobType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The Flink that {@code sediment sql} runs statements on. Under {@code flink run} (or any other
 * context environment) that one. Otherwise one embedded MiniCluster for the whole session,
 * installed as the context environment, so that the planner's jobs and the jobs procedures start
 * (Flink gives a procedure {@code StreamExecutionEnvironment.getExecutionEnvironment}) all run on
 * it, and closed only after the last result has been read. Flink's default local environment starts
 * a cluster per job and shuts it down when the job ends, under the collect sink's fetcher still
 * reading the result ("Some data might be lost" with a stack trace after a SELECT).
 */
final class SqlFlink implements AutoCloseable {

  private final FlinkEnvironments.Embedded cluster;
  private volatile boolean refusingStreamingJobs;
  private volatile RuntimeException refused;
  private volatile JobClient lastJob;

  private SqlFlink(FlinkEnvironments.Embedded cluster) {
    this.cluster = cluster;
  }

  /** Starts the embedded cluster, unless jobs already go to a context environment. */
  static SqlFlink start() throws Exception {
    if (!FlinkEnvironments.isEmbedded(StreamExecutionEnvironment.getExecutionEnvironment())) {
      return new SqlFlink(null);
    }
    Configuration conf = FlinkEnvironments.configuration();
    SqlFlink flink =
        new SqlFlink(FlinkEnvironments.Embedded.start(conf.get(CoreOptions.DEFAULT_PARALLELISM)));
    SessionEnvironment.install(flink);
    return flink;
  }

  /**
   * Runs a {@code CALL}. A procedure that starts a job which never ends (the streaming compaction
   * job) and returns would leave it on the embedded cluster, which ends with the CLI: such a job is
   * refused before it starts, and the refusal is the statement's error.
   */
  <T> T call(Callable<T> procedureCall) throws Exception {
    refused = null;
    refusingStreamingJobs = cluster != null;
    try {
      return procedureCall.call();
    } catch (Exception e) {
      if (refused != null) {
        refused.addSuppressed(e);
        throw refused;
      }
      throw e;
    } finally {
      refusingStreamingJobs = false;
    }
  }

  private void check(StreamGraph graph) {
    if (refusingStreamingJobs && graph.getJobType() == JobType.STREAMING) {
      refused =
          new IllegalStateException(
              "'"
                  + graph.getJobName()
                  + "' is a streaming job that runs until it is cancelled, but the Flink of"
                  + " `sediment sql` is embedded in the CLI and stops with it: run it from the SQL"
                  + " client of a Flink cluster, or use `sediment compact --mode streaming`, which"
                  + " runs until it is stopped");
      throw refused;
    }
  }

  /** Cancels the job submitted last (Ctrl-C in the shell), if it still runs. */
  void cancelLastJob() {
    JobClient job = lastJob;
    if (job != null) {
      job.cancel();
    }
  }

  @Override
  public void close() throws Exception {
    if (cluster != null) {
      SessionEnvironment.uninstall();
      cluster.close();
    }
  }

  /**
   * The environments handed out while the session's cluster is the context environment. A subclass
   * of {@link StreamExecutionEnvironment} also because only subclasses may install a context
   * environment, as Flink's own {@code StreamContextEnvironment} does.
   */
  private static final class SessionEnvironment extends StreamExecutionEnvironment {
    private final SqlFlink flink;

    private SessionEnvironment(SqlFlink flink, Configuration tableConfiguration) {
      super(
          flink.cluster.executors(),
          flink.cluster.environmentConfiguration(),
          Thread.currentThread().getContextClassLoader());
      this.flink = flink;
      setParallelism(flink.cluster.parallelism());
      // runtime mode, parallelism and the other options of the statement's table configuration
      configure(tableConfiguration);
    }

    static void install(SqlFlink flink) {
      initializeContextEnvironment(conf -> new SessionEnvironment(flink, conf));
    }

    static void uninstall() {
      resetContextEnvironment();
    }

    @Override
    public JobClient executeAsync(StreamGraph graph) throws Exception {
      flink.check(graph);
      JobClient job = super.executeAsync(graph);
      flink.lastJob = job;
      return job;
    }
  }
}
