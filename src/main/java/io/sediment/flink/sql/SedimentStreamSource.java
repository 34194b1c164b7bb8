package io.sediment.flink.sql;

import io.sediment.flink.serde.VersionedStateSerializer;
import io.sediment.manifest.ConsumerManager;
import io.sediment.predicate.Predicate;
import io.sediment.schema.ScanOptions;
import io.sediment.table.ReadBuilder;
import io.sediment.table.StreamScan;
import io.sediment.table.Table;
import java.time.Duration;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;

/**
 * An unbounded FLIP-27 source over a table: the start snapshot (per {@code scan.mode}), then the
 * changes of every snapshot committed after it, found every {@code continuous.discovery-interval}
 * ({@link StreamSplitEnumerator}, {@link StreamSplitReader}). Splits and the enumerator's position
 * are checkpointed in an explicit, versioned layout ({@link StreamSplitCodec}).
 */
final class SedimentStreamSource implements Source<RowData, StreamSplit, StreamEnumeratorState> {

  private static final long serialVersionUID = 1L;

  private final Table table;
  private final Predicate filter;
  private final int[] projection;
  private final Duration discoveryInterval;
  private final StreamScan.StartPoint startPoint;

  /**
   * @param startPoint where a read without state starts, resolved when the job is planned
   */
  SedimentStreamSource(
      Table table,
      Predicate filter,
      int[] projection,
      Duration discoveryInterval,
      StreamScan.StartPoint startPoint) {
    this.table = table;
    this.filter = filter;
    this.projection = projection == null ? null : projection.clone();
    this.discoveryInterval = discoveryInterval;
    this.startPoint = startPoint;
  }

  private ReadBuilder readBuilder() {
    return ReadBuilders.of(table, filter, projection);
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SplitEnumerator<StreamSplit, StreamEnumeratorState> createEnumerator(
      SplitEnumeratorContext<StreamSplit> context) {
    return restoreEnumerator(
        context,
        StreamSplitEnumerator.initialState(
            readBuilder().newStreamScan(), startPoint, consumers(), consumerId()));
  }

  private ConsumerManager consumers() {
    return new ConsumerManager(table.store().fileIO(), table.store().paths());
  }

  private String consumerId() {
    return table.options().get(ScanOptions.CONSUMER_ID);
  }

  @Override
  public SplitEnumerator<StreamSplit, StreamEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<StreamSplit> context, StreamEnumeratorState state) {
    return new StreamSplitEnumerator(
        context,
        readBuilder().newStreamScan(),
        table.schema().hasPrimaryKey(),
        discoveryInterval.toMillis(),
        state,
        consumers(),
        consumerId());
  }

  @Override
  public SourceReader<RowData, StreamSplit> createReader(SourceReaderContext context) {
    return new StreamSplitReader(
        context, readBuilder().newStreamRead(), table.schema().hasPrimaryKey());
  }

  @Override
  public SimpleVersionedSerializer<StreamSplit> getSplitSerializer() {
    return new VersionedStateSerializer<>(StreamSplitCodec.INSTANCE, "streaming read split");
  }

  @Override
  public SimpleVersionedSerializer<StreamEnumeratorState> getEnumeratorCheckpointSerializer() {
    return new VersionedStateSerializer<>(
        StreamSplitCodec.EnumeratorStateCodec.INSTANCE, "streaming read enumerator state");
  }
}
