package io.sediment.flink;

import io.sediment.compact.ExecutionMode;
import io.sediment.flink.serde.LayoutTypeInfo;
import io.sediment.flink.serde.VersionedStateSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The FLIP-27 source of the compaction topology: its enumerator plans {@link
 * io.sediment.compact.CompactTask}s with the shared planner; its readers emit them (wrapped in
 * {@link CompactTaskSplit}, which carries the task id). Bounded (batch job: plan once) or
 * continuous (dedicated job: re-plan every discovery interval).
 */
public final class CompactTaskSource
    implements Source<CompactTaskSplit, CompactTaskSplit, CompactEnumeratorState>,
        ResultTypeQueryable<CompactTaskSplit> {

  private static final long serialVersionUID = 1L;

  private final CompactTargets targets;
  private final ExecutionMode mode;
  private final long discoveryIntervalMs;
  private final JobCheckpoints checkpoints;
  private final String commitUser;

  public CompactTaskSource(
      CompactTargets targets, ExecutionMode mode, long discoveryIntervalMs, String commitUser) {
    this(targets, mode, discoveryIntervalMs, JobCheckpoints.UNKNOWN, commitUser);
  }

  /**
   * {@code checkpoints}: the job's checkpoint settings, which a continuous job's planning rounds
   * aim with from its first checkpoint on.
   */
  public CompactTaskSource(
      CompactTargets targets,
      ExecutionMode mode,
      long discoveryIntervalMs,
      JobCheckpoints checkpoints,
      String commitUser) {
    this.targets = targets;
    this.mode = mode;
    this.discoveryIntervalMs = discoveryIntervalMs;
    this.checkpoints = checkpoints;
    this.commitUser = commitUser;
  }

  @Override
  public Boundedness getBoundedness() {
    return mode.isBounded() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<CompactTaskSplit, CompactEnumeratorState> createEnumerator(
      SplitEnumeratorContext<CompactTaskSplit> context) {
    return new CompactTaskEnumerator(
        context, targets, mode, discoveryIntervalMs, checkpoints, commitUser, null);
  }

  @Override
  public SplitEnumerator<CompactTaskSplit, CompactEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<CompactTaskSplit> context, CompactEnumeratorState state) {
    return new CompactTaskEnumerator(
        context, targets, mode, discoveryIntervalMs, checkpoints, commitUser, state);
  }

  @Override
  public SourceReader<CompactTaskSplit, CompactTaskSplit> createReader(
      SourceReaderContext readerContext) {
    return new CompactTaskReader(readerContext);
  }

  @Override
  public SimpleVersionedSerializer<CompactTaskSplit> getSplitSerializer() {
    return new VersionedStateSerializer<>(
        CompactTaskSplitCodec.INSTANCE, "compaction source split");
  }

  @Override
  public SimpleVersionedSerializer<CompactEnumeratorState> getEnumeratorCheckpointSerializer() {
    return new VersionedStateSerializer<>(
        CompactEnumeratorStateCodec.INSTANCE, "compaction enumerator state");
  }

  @Override
  public TypeInformation<CompactTaskSplit> getProducedType() {
    return new LayoutTypeInfo<>(CompactTaskSplit.class, CompactTaskSplitSerializer.INSTANCE);
  }
}
