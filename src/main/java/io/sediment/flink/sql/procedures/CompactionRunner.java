package io.sediment.flink.sql.procedures;

import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * How {@code sys.compact} runs a compaction that {@link CompactBuilder} has configured and
 * validated. The default, {@link #IN_PROCESS}, runs batch compaction with {@link
 * CompactBuilder#execute()} in the calling process; the Flink compaction topology (batch job and
 * dedicated streaming job) plugs in here when it is merged.
 */
public interface CompactionRunner {

  /** Runs a compaction to the end and returns what it did. */
  CompactResult runBatch(CompactBuilder compaction) throws Exception;

  /** Submits a long-running compaction job and returns its job id. */
  String submitStreaming(CompactBuilder compaction, StreamExecutionEnvironment env) throws Exception;

  /** Batch compaction in-process; no streaming mode. */
  CompactionRunner IN_PROCESS =
      new CompactionRunner() {
        @Override
        public CompactResult runBatch(CompactBuilder compaction) throws Exception {
          return compaction.execute();
        }

        @Override
        public String submitStreaming(CompactBuilder compaction, StreamExecutionEnvironment env) {
          throw new UnsupportedOperationException(
              "Argument 'mode': 'streaming' needs the Flink compaction topology, which this build"
                  + " does not include; use mode => 'batch'");
        }
      };
}
