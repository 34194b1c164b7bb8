package io.sediment.flink.sql;

import io.sediment.flink.sql.filter.FilterConverter;
import io.sediment.manifest.ConsumerManager;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.Predicates;
import io.sediment.schema.PrimaryKeyOptions;
import io.sediment.schema.ScanOptions;
import io.sediment.table.StreamScan;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsRowLevelModificationScan;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a table: in batch mode one snapshot (bounded; the latest, or the one {@code scan.*} options
 * choose), in streaming mode that snapshot and then every later snapshot's changes (unbounded,
 * {@link SedimentStreamSource}). Projection and filters are pushed down: the filters Flink can hand
 * over as {@link io.sediment.predicate.Predicate}s prune partitions (by manifest statistics), files
 * (by column statistics) and rows; Flink still evaluates every filter after the scan, so a filter
 * that is only partly converted stays correct.
 */
public final class SedimentTableSource
    implements ScanTableSource,
        SupportsProjectionPushDown,
        SupportsFilterPushDown,
        SupportsRowLevelModificationScan {

  private static final Logger LOG = LoggerFactory.getLogger(SedimentTableSource.class);

  private final Table table;
  private final boolean streaming;
  private Predicate filter;
  private int[] projection;

  /**
   * The scan of a DELETE or UPDATE: it reads a deletion-vector table's level 0 too, so it neither
   * misses rows written since the last compaction nor writes an older version over a newer one.
   */
  private boolean rowLevelModification;

  /** The job is submitted to restore a savepoint: its read resumes from the saved state. */
  private final boolean restoring;

  /**
   * @param streaming whether the job runs in streaming mode: the read is then unbounded (the start
   *     snapshot, then every later snapshot's changes)
   */
  public SedimentTableSource(Table table, boolean streaming) {
    this(table, streaming, false);
  }

  /**
   * @param restoring whether the job restores a savepoint ({@code execution.savepoint.path} set)
   */
  public SedimentTableSource(Table table, boolean streaming, boolean restoring) {
    this.table = table;
    this.streaming = streaming;
    this.restoring = restoring;
    if (streaming) {
      checkStreamable(table);
    }
  }

  /**
   * Without a changelog producer a streaming read of a primary-key table is an upsert stream of
   * each snapshot's new level-0 rows, which is the table's changelog only where the newest version
   * of a key is the key's row: {@code deduplicate} without {@code sequence.field}. The other
   * engines need {@code changelog-producer} = lookup. With {@code input} the stream is the rows the
   * writers received, which is the table's changelog only where the table keeps each key's last row
   * as it came: deduplicate without {@code sequence.field} or {@code ignore-delete}.
   */
  private static void checkStreamable(Table table) {
    if (!table.schema().hasPrimaryKey() || table.options().lookupChangelog()) {
      return;
    }
    String engine = table.options().mergeEngine();
    boolean sequenceField = table.options().get(PrimaryKeyOptions.SEQUENCE_FIELD) != null;
    if (table.options().changelogProducer().equals("input")) {
      boolean ignoreDelete = table.options().get(PrimaryKeyOptions.IGNORE_DELETE);
      if (engine.equals("deduplicate") && !sequenceField && !ignoreDelete) {
        return;
      }
      throw new ValidationException(
          "A streaming read of "
              + table.fullName()
              + " (changelog-producer input, merge-engine "
              + engine
              + (sequenceField ? ", sequence.field" : "")
              + (ignoreDelete ? ", ignore-delete" : "")
              + ") would not be its changelog: the rows its writers received are its changes only"
              + " for deduplicate without sequence.field and ignore-delete. Create it with"
              + " 'changelog-producer' = 'lookup', or read it in batch mode"
              + " ('execution.runtime-mode' = 'batch')");
    }
    if (!engine.equals("deduplicate") || sequenceField) {
      throw new ValidationException(
          "A streaming read of "
              + table.fullName()
              + " (merge-engine "
              + engine
              + (sequenceField ? ", sequence.field" : "")
              + ") needs a changelog producer: its new rows are not its changelog. Create it with"
              + " 'changelog-producer' = 'lookup', or read it in batch mode"
              + " ('execution.runtime-mode' = 'batch')");
    }
  }

  private static boolean hasChangelog(Table table) {
    return table.schema().hasPrimaryKey() && !table.options().changelogProducer().equals("none");
  }

  /**
   * Batch: inserts. Streaming: inserts from an append table; from a primary-key table its changelog
   * (every kind) with a changelog producer, else upserts (Flink turns them into a full changelog
   * with its changelog-normalize step, as for Paimon tables without a producer).
   */
  @Override
  public ChangelogMode getChangelogMode() {
    if (!streaming || !table.schema().hasPrimaryKey()) {
      return ChangelogMode.insertOnly();
    }
    return hasChangelog(table) ? ChangelogMode.all() : ChangelogMode.upsert();
  }

  @Override
  public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
    RowType type = ReadBuilders.of(table, filter, projection).readType();
    if (streaming) {
      return provider(
          new SedimentStreamSource(
              table,
              filter,
              projection,
              table.options().get(ScanOptions.CONTINUOUS_DISCOVERY_INTERVAL),
              plannedStart(table, filter, projection, restoring)),
          type,
          "Sediment stream ",
          "sediment-stream-source",
          false);
    }
    return provider(
        new SedimentSource(table, filter, projection, rowLevelModification),
        type,
        "Sediment read ",
        "sediment-source",
        true);
  }

  /**
   * The start of a read without state, resolved now so that a bad or missing start fails the
   * statement. A read that will resume instead (restoring a savepoint, or with a {@code
   * consumer-id} that has a position) does not need it, and its start may be long gone (a tag
   * deleted, the snapshots after it expired): then it is resolved when the job starts, only if
   * neither state nor position is there (null).
   */
  static StreamScan.StartPoint plannedStart(
      Table table, Predicate filter, int[] projection, boolean restoring) {
    try {
      return ReadBuilders.of(table, filter, projection).newStreamScan().resolveStart();
    } catch (IllegalArgumentException | IllegalStateException e) {
      String consumer = table.options().get(ScanOptions.CONSUMER_ID);
      boolean resumes =
          restoring
              || consumer != null
                  && new ConsumerManager(table.store().fileIO(), table.store().paths())
                      .position(consumer)
                      .isPresent();
      if (!resumes) {
        throw e;
      }
      LOG.warn(
          "{}: the streaming read's configured start is not there ({}); it resumes from its {}",
          table.fullName(),
          e.getMessage(),
          restoring ? "savepoint" : "consumer '" + consumer + "'");
      return null;
    }
  }

  private DataStreamScanProvider provider(
      Source<RowData, ?, ?> source, RowType type, String name, String uid, boolean bounded) {
    return new DataStreamScanProvider() {
      @Override
      public DataStream<RowData> produceDataStream(
          ProviderContext provider, StreamExecutionEnvironment env) {
        DataStreamSource<RowData> s =
            env.fromSource(
                source,
                WatermarkStrategy.noWatermarks(),
                name + table.fullName(),
                InternalTypeInfo.of(type));
        provider.generateUid(uid).ifPresent(s::uid);
        return s;
      }

      @Override
      public boolean isBounded() {
        return bounded;
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
    SedimentTableSource copy = new SedimentTableSource(table, streaming, restoring);
    copy.filter = filter;
    copy.projection = projection == null ? null : projection.clone();
    copy.rowLevelModification = rowLevelModification;
    return copy;
  }

  @Override
  public RowLevelModificationScanContext applyRowLevelModificationScan(
      RowLevelModificationType type, RowLevelModificationScanContext previousContext) {
    rowLevelModification = true;
    return previousContext;
  }

  @Override
  public String asSummaryString() {
    return "Sediment(" + table.fullName() + ")";
  }
}
