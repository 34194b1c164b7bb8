package io.sediment.flink.sql;

import io.sediment.flink.sql.filter.FilterConverter;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;

/**
 * Reads the latest snapshot of a table (bounded). Projection and filters are pushed down: the
 * filters Flink can hand over as {@link io.sediment.predicate.Predicate}s prune partitions (by
 * manifest statistics), files (by column statistics) and rows; Flink still evaluates every filter
 * after the scan, so a filter that is only partly converted stays correct.
 */
public final class SedimentTableSource
    implements ScanTableSource, SupportsProjectionPushDown, SupportsFilterPushDown {

  private final Table table;
  private Predicate filter;
  private int[] projection;

  public SedimentTableSource(Table table) {
    this.table = table;
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return ChangelogMode.insertOnly();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    SedimentSource source = new SedimentSource(table, filter, projection);
    return new DataStreamScanProvider() {
      @Override
      public DataStream<RowData> produceDataStream(
          ProviderContext provider, StreamExecutionEnvironment env) {
        DataStreamSource<RowData> s =
            env.fromSource(
                source,
                WatermarkStrategy.noWatermarks(),
                "Sediment read " + table.fullName(),
                InternalTypeInfo.of(source.outputType()));
        provider.generateUid("sediment-source").ifPresent(s::uid);
        return s;
      }

      @Override
      public boolean isBounded() {
        return true;
      }
    };
  }

  @Override
  public Result applyFilters(List<ResolvedExpression> filters) {
    List<Predicate> converted = new ArrayList<>();
    List<ResolvedExpression> accepted = new ArrayList<>();
    for (ResolvedExpression e : filters) {
      FilterConverter.convert(table.rowType(), e)
          .ifPresent(
              p -> {
                converted.add(p);
                accepted.add(e);
              });
    }
    if (!converted.isEmpty()) {
      Predicate p = Predicates.and(converted);
      filter = filter == null ? p : Predicates.and(List.of(filter, p));
    }
    // Every filter stays with Flink too: pushed ones only prune what is read.
    return Result.of(accepted, filters);
  }

  /** The pushed-down filter, or null. */
  public Predicate pushedFilter() {
    return filter;
  }

  @Override
  public boolean supportsNestedProjection() {
    return false;
  }

  @Override
  public void applyProjection(int[][] projectedFields, DataType producedDataType) {
    int[] top = new int[projectedFields.length];
    for (int i = 0; i < top.length; i++) {
      top[i] = projectedFields[i][0];
    }
    projection = top;
  }

  @Override
  public DynamicTableSource copy() {
    SedimentTableSource copy = new SedimentTableSource(table);
    copy.filter = filter;
    copy.projection = projection == null ? null : projection.clone();
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Sediment(" + table.fullName() + ")";
  }
}
