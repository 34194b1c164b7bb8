package io.sediment.flink.sql.procedures;

import io.sediment.compact.CompactResult;
import io.sediment.compact.CompactSpec;
import io.sediment.flink.CompactJob;
import java.util.Map;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * How {@code sys.compact} runs the {@link CompactSpec} its arguments made: as the Flink compaction
 * topology, a batch job that the procedure waits for, or the dedicated streaming job that it
 * submits.
 */
public interface CompactionRunner {

  /** Runs a compaction to the end and returns what it did. */
  CompactResult runBatch(CompactSpec spec, StreamExecutionEnvironment env) throws Exception;

  /** Runs a compaction to the end and returns what it did per table. */
  Map<String, CompactResult> runBatchPerTable(CompactSpec spec, StreamExecutionEnvironment env)
      throws Exception;

  /** Submits a long-running compaction job and returns its job id. */
  String submitStreaming(CompactSpec spec, StreamExecutionEnvironment env) throws Exception;

  /**
   * The Flink topology: the same job `sediment compact` runs, submitted through the procedure's
   * environment with Sediment's jar ({@link ProcedureJobJars}).
   */
  static CompactionRunner topology(String warehouse) {
    return new CompactionRunner() {
      @Override
      public CompactResult runBatch(CompactSpec spec, StreamExecutionEnvironment env)
          throws Exception {
        ProcedureJobJars.addSedimentJar(env);
        return CompactJob.of(warehouse, spec).runBatch(env);
      }

      @Override
      public Map<String, CompactResult> runBatchPerTable(
          CompactSpec spec, StreamExecutionEnvironment env) throws Exception {
        ProcedureJobJars.addSedimentJar(env);
        return CompactJob.of(warehouse, spec).runBatchPerTable(env, null);
      }

      @Override
      public String submitStreaming(CompactSpec spec, StreamExecutionEnvironment env)
          throws Exception {
        ProcedureJobJars.addSedimentJar(env);
        return CompactJob.of(warehouse, spec).submitStreaming(env).getJobID().toString();
      }
    };
  }
}
