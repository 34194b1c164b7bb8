package io.sediment.flink.sql;

import io.sediment.commit.CommitUsers;
import io.sediment.commit.PartitionPredicates;
import io.sediment.compact.PartitionFilters;
import io.sediment.mergetree.RowKindPolicy;
import io.sediment.predicate.Predicate;
import io.sediment.schema.CommitOptions;
import io.sediment.schema.ScanOptions;
import io.sediment.table.RowBuckets;
import io.sediment.table.Table;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.RowLevelModificationScanContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelDelete;
import org.apache.flink.table.connector.sink.abilities.SupportsRowLevelUpdate;
import org.apache.flink.table.connector.sink.abilities.SupportsTruncate;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

/**
 * {@code INSERT INTO} / {@code INSERT OVERWRITE} a Sediment table: writer operators ({@link
 * SedimentWriteOperator}) followed by one committer ({@link SedimentCommitOperator}, parallelism
 * 1). Bounded inputs commit once at the end (batch); unbounded inputs commit once per completed
 * checkpoint, exactly once. {@code INSERT OVERWRITE} is supported for bounded inputs only.
 */
public final class SedimentTableSink
    implements DynamicTableSink,
        SupportsOverwrite,
        SupportsPartitioning,
        SupportsTruncate,
        SupportsRowLevelDelete,
        SupportsRowLevelUpdate {

  static final TypeInformation<Tuple2<Long, byte[]>> COMMITTABLE_TYPE =
      Types.TUPLE(Types.LONG, Types.PRIMITIVE_ARRAY(Types.BYTE));

  private final Table table;
  private boolean overwrite;
  private Map<String, String> staticPartition = new LinkedHashMap<>();

  public SedimentTableSink(Table table) {
    this.table = table;
  }

  /**
   * Append tables take inserts only; an update or delete stream into one is refused here, at
   * planning, with a message that says a primary key is needed. Primary-key tables take what their
   * merge engine accepts ({@link RowKindPolicy}): upserts ({@code +I}, {@code +U}, {@code -D};
   * Flink drops {@code -U}) for deduplicate, partial-update and first-row, as Paimon's sink; the
   * whole changelog for aggregation, which subtracts retractions. Kinds the table would refuse are
   * refused now rather than by the running job.
   */
  @Override
  public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
    Set<RowKind> kinds = requestedMode.getContainedKinds();
    if (!table.schema().hasPrimaryKey()) {
      if (!requestedMode.containsOnly(RowKind.INSERT)) {
        throw new ValidationException(
            "Table "
                + table.fullName()
                + " is an append table and takes inserts only, but the query produces "
                + kinds
                + " rows. Write changelogs (updates, deletes) into a table with a primary key,"
                + " e.g. CREATE TABLE ... (..., PRIMARY KEY (k) NOT ENFORCED) WITH ('bucket' ="
                + " '4')");
      }
      return ChangelogMode.insertOnly();
    }
    RowKindPolicy policy = RowKindPolicy.of(table.fullName(), table.store().options());
    // changelog-producer = input stores the rows as received: the whole changelog, where the
    // engine takes UPDATE_BEFORE rows at all
    boolean keepsInput =
        table.options().changelogProducer().equals("input")
            && policy.refusal(Set.of(RowKind.UPDATE_BEFORE)).isEmpty();
    ChangelogMode.Builder accepted = ChangelogMode.newBuilder();
    for (RowKind k : kinds) {
      if (k != RowKind.UPDATE_BEFORE || policy.needsUpdateBefore() || keepsInput) {
        accepted.addContainedKind(k);
      }
    }
    ChangelogMode mode = accepted.build();
    policy
        .refusal(mode.getContainedKinds())
        .ifPresent(
            message -> {
              throw new ValidationException(message);
            });
    return mode;
  }

  @Override
  public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
    boolean bounded = context.isBounded();
    if (overwrite && !bounded) {
      throw new UnsupportedOperationException(
          "INSERT OVERWRITE into " + table.fullName() + " is supported in batch mode only");
    }
    // Paimon's dynamic-partition-overwrite: by default only the partitions written to are replaced
    Predicate overwriteFilter =
        !overwrite || table.store().options().get(CommitOptions.DYNAMIC_PARTITION_OVERWRITE)
            ? null
            : staticPartition.isEmpty()
                ? PartitionPredicates.every(table.store().partitionType())
                : PartitionFilters.ofPartition(table.fullName(), table.schema(), staticPartition);
    boolean doOverwrite = overwrite;
    // One commit user per planned sink, known to writers (their markers' directory) and committer.
    String commitUser = CommitUsers.random();
    return new DataStreamSinkProvider() {
      @Override
      public DataStreamSink<?> consumeDataStream(
          ProviderContext provider, DataStream<RowData> rows) {
        if (!bounded
            && rows.getExecutionEnvironment()
                .getCheckpointConfig()
                .isUnalignedCheckpointsEnabled()) {
          throw new ValidationException(UnalignedCheckpointsRefused.message(table.fullName()));
        }
        if (routesByBucket(table)) {
          // Each bucket to one writer: its rows in order (numbered by one writer, as in Paimon's
          // bucketed append tables too), and one writer compacting it.
          rows =
              rows.partitionCustom(
                  RowBuckets::channel, new BucketRoutingKey(new RowBuckets(table.schema())));
        }
        SingleOutputStreamOperator<Tuple2<Long, byte[]>> written =
            rows.transform(
                "Sediment write " + table.fullName(),
                COMMITTABLE_TYPE,
                new SedimentWriteOperator(table, commitUser, doOverwrite));
        provider.generateUid("sediment-writer").ifPresent(written::uid);
        SingleOutputStreamOperator<Void> committed =
            written
                .transform(
                    "Sediment commit " + table.fullName(),
                    Types.VOID,
                    new SedimentCommitOperator(
                        table, !bounded, doOverwrite, overwriteFilter, commitUser))
                .setParallelism(1)
                .setMaxParallelism(1);
        provider.generateUid("sediment-committer").ifPresent(committed::uid);
        DataStreamSink<Void> sink = committed.sinkTo(new DiscardingSink<>()).setParallelism(1);
        provider.generateUid("sediment-discard").ifPresent(sink::uid);
        return sink;
      }
    };
  }

  /** {@code TRUNCATE TABLE}: one OVERWRITE snapshot that removes every file (any table kind). */
  @Override
  public void executeTruncation() {
    table.newBatchWriteBuilder().newCommit().truncate();
  }

  /**
   * {@code DELETE FROM t WHERE ...} (batch): Flink reads the rows that match and hands them to this
   * sink as DELETE rows, committed in one snapshot. Only tables whose deletes remove rows take it.
   */
  @Override
  public RowLevelDeleteInfo applyRowLevelDelete(RowLevelModificationScanContext context) {
    RowKindPolicy policy = primaryKeyPolicy("DELETE FROM");
    if (!policy.deleteRemovesRow()) {
      throw new ValidationException(
          "DELETE FROM "
              + table.fullName()
              + " needs a table whose deletes remove rows: merge-engine deduplicate, partial-update"
              + " with 'partial-update.remove-record-on-delete' = 'true', or aggregation created"
              + " with 'aggregation.remove-record-on-delete' = 'true', and 'ignore-delete' not set"
              + " (this table: merge-engine "
              + policy.engine()
              + ")");
    }
    return new RowLevelDeleteInfo() {};
  }

  /**
   * {@code UPDATE t SET ... WHERE ...} (batch): Flink hands the updated rows to this sink as
   * UPDATE_AFTER rows, committed in one snapshot; deduplicate and partial-update tables (in which a
   * column set to NULL keeps its value, as in Paimon), primary-key and partition columns fixed.
   */
  @Override
  public RowLevelUpdateInfo applyRowLevelUpdate(
      List<Column> updatedColumns, RowLevelModificationScanContext context) {
    RowKindPolicy policy = primaryKeyPolicy("UPDATE");
    if (!policy.engine().equals("deduplicate") && !policy.engine().equals("partial-update")) {
      throw new ValidationException(
          "UPDATE "
              + table.fullName()
              + " needs merge-engine deduplicate or partial-update (this table: "
              + policy.engine()
              + ")");
    }
    if (table.options().changelogProducer().equals("input")) {
      // Flink hands over the updated rows only: the input changelog, which streaming reads
      // follow, would get each +U without the -U of the value it replaces
      throw new ValidationException(
          "UPDATE "
              + table.fullName()
              + " cannot run on a table with changelog-producer 'input': its changelog would get"
              + " the new rows without the old ones (+U without -U), and streaming reads would"
              + " keep both. Use changelog-producer 'lookup', or write the change as -U and +U"
              + " rows with INSERT; nothing was written");
    }
    for (Column c : updatedColumns) {
      if (table.schema().primaryKeys().contains(c.getName())
          || table.schema().partitionKeys().contains(c.getName())) {
        throw new ValidationException(
            "UPDATE "
                + table.fullName()
                + " cannot change primary-key or partition column '"
                + c.getName()
                + "': delete the row and insert the new one");
      }
    }
    return new RowLevelUpdateInfo() {};
  }

  private RowKindPolicy primaryKeyPolicy(String statement) {
    for (ConfigOption<?> o :
        List.of(
            ScanOptions.SCAN_SNAPSHOT_ID,
            ScanOptions.SCAN_TIMESTAMP_MILLIS,
            ScanOptions.SCAN_TAG_NAME,
            ScanOptions.SCAN_WATERMARK,
            ScanOptions.SCAN_MODE)) {
      String v = table.options().toMap().get(o.key());
      if (v != null && !(o == ScanOptions.SCAN_MODE && v.equalsIgnoreCase("default"))) {
        // the statement would read an old snapshot and write its rows back as the newest
        throw new ValidationException(
            statement
                + " "
                + table.fullName()
                + " cannot run with '"
                + o.key()
                + "' = '"
                + v
                + "' (time travel): it must read the latest snapshot; remove the option (RESET"
                + " it, or leave it out of the hint)");
      }
    }
    if (!table.schema().hasPrimaryKey()) {
      throw new ValidationException(
          statement
              + " "
              + table.fullName()
              + " needs a primary-key table; an append table can be emptied with TRUNCATE TABLE,"
              + " or have partitions replaced with INSERT OVERWRITE");
    }
    return RowKindPolicy.of(table.fullName(), table.store().options());
  }

  @Override
  public void applyOverwrite(boolean overwrite) {
    this.overwrite = overwrite;
  }

  @Override
  public void applyStaticPartition(Map<String, String> partition) {
    this.staticPartition = new LinkedHashMap<>(partition);
  }

  @Override
  public boolean requiresPartitionGrouping(boolean supportsGrouping) {
    return false;
  }

  @Override
  public DynamicTableSink copy() {
    SedimentTableSink copy = new SedimentTableSink(table);
    copy.overwrite = overwrite;
    copy.staticPartition = new LinkedHashMap<>(staticPartition);
    return copy;
  }

  @Override
  public String asSummaryString() {
    return "Sediment(" + table.fullName() + ")";
  }

  /**
   * Whether each bucket's rows go to one writer: a primary-key table, or an append table with fixed
   * buckets. Its writers then number each bucket's rows in order and keep the numbers in state.
   */
  static boolean routesByBucket(Table table) {
    return table.schema().hasPrimaryKey() || table.options().bucket() > 0;
  }
}
