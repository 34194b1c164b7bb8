package io.sediment.flink.sql.procedures;

import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import io.sediment.flink.CompactJob;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * How {@code sys.compact} runs a compaction that {@link CompactBuilder} has configured and
 * validated: as the Flink compaction topology, a batch job that the procedure waits for, or the
 * dedicated streaming job that it submits.
 */
public interface CompactionRunner {

  /** Runs a compaction to the end and returns what it did. */
  CompactResult runBatch(CompactBuilder compaction, StreamExecutionEnvironment env)
      throws Exception;

  /** Submits a long-running compaction job and returns its job id. */
  String submitStreaming(CompactBuilder compaction, StreamExecutionEnvironment env)
      throws Exception;

  /** The Flink topology: the same job `sediment compact` runs. */
  static CompactionRunner topology(String warehouse) {
    return new CompactionRunner() {
      @Override
      public CompactResult runBatch(CompactBuilder compaction, StreamExecutionEnvironment env)
          throws Exception {
        return job(warehouse, compaction).runBatch(env);
      }

      @Override
      public String submitStreaming(CompactBuilder compaction, StreamExecutionEnvironment env)
          throws Exception {
        return job(warehouse, compaction).submitStreaming(env).getJobID().toString();
      }
    };
  }

  /** The topology job equivalent to a configured compaction. */
  private static CompactJob job(String warehouse, CompactBuilder compaction) {
    CompactJob.Builder job =
        CompactJob.builder(warehouse, compaction.effectiveTable().fullName())
            .commitUser(compaction.commitUser())
            .options(compaction.dynamicOptions());
    Predicate partitionFilter = compaction.partitionFilter();
    if (partitionFilter != null) {
      // The builder's filter is on the partition row type; the job takes the table's.
      job.where(Predicates.rebind(partitionFilter, compaction.effectiveTable().rowType()));
    }
    return job.build();
  }
}
