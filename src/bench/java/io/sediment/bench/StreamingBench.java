package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.flink.CompactJob;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * W5 of WORKLOAD.md: a rate-limited streaming writer ({@code INSERT INTO} through Flink SQL,
 * parallelism 1, a checkpoint every 2 s, the table {@code write-only}, plus any {@code
 * --table-option}) and the dedicated compaction job (parallelism 1, a checkpoint every 10 s, the
 * table's default compaction options) side by side on one cluster. When the writer has written
 * every row the compaction job runs {@link #TAIL} more and is cancelled. The figures are replayed
 * from the snapshots afterwards (each one's added and deleted data files and its commit time), with
 * the names the peers' harness gives Paimon's ({@code PaimonW5}), so the two sit side by side.
 */
public final class StreamingBench {

  /** The three tables of W5. */
  public enum Variant {
    /** W5-A: append, 8 partitions, no fixed buckets. */
    APPEND("W5"),
    /** W5-PK: primary key {@code id}, 2 buckets, deduplicate, unpartitioned. */
    PK("W5-PK"),
    /** W5-PK with {@code deletion-vectors.enabled}. */
    PK_DV("W5-PK-DV");

    private final String workload;

    Variant(String workload) {
      this.workload = workload;
    }

    public String workload() {
      return workload;
    }

    boolean primaryKey() {
      return this != APPEND;
    }
  }

  /** The cluster both jobs run on. */
  public interface Cluster {
    /** A new environment whose jobs run on the cluster. */
    StreamExecutionEnvironment newEnv();

    /** The 99th percentile of the job's completed checkpoints' durations, in seconds (0: none). */
    double checkpointP99Seconds(JobID job) throws Exception;

    /** A numeric gauge of {@link #WRITER_GAUGES} summed over the job's subtasks (0: none). */
    long gaugeTotal(JobID job, String gauge);
  }

  /**
   * The writer's gauges W5 reports: the milliseconds it held a barrier waiting for the compaction
   * job ({@code write-only.stop-trigger-wait}) and the windows it committed past {@code
   * num-sorted-run.stop-trigger} anyway.
   */
  public static final String[] WRITER_GAUGES = {"stopTriggerWaitMillis", "stopTriggerPassed"};

  public static final int ROWS_PER_SECOND = 20_000;
  public static final long ROWS = 6_000_000L;
  static final int ROWS_PER_CHECKPOINT = 40_000;
  static final Duration WRITER_CHECKPOINT = Duration.ofSeconds(2);
  static final Duration COMPACT_CHECKPOINT = Duration.ofSeconds(10);
  public static final Duration TAIL = Duration.ofSeconds(60);
  static final long SAMPLE_MILLIS = 5_000;
  static final long STEADY_FROM_MILLIS = 60_000;
  static final int PARTITIONS = 8;
  static final long PK_KEYS = 1_000_000;
  static final long PK_MULT = 7919;

  private StreamingBench() {}

  /**
   * Runs W5 ({@code rows} rows; 6,000,000 in WORKLOAD.md) in {@code warehouse} on {@code cluster}:
   * the compaction job, with the table's options and {@code compactOptions}, runs {@code tail}
   * after the writer's end. {@code tableOptions} are set on the table besides W5's own.
   */
  public static BenchResult run(
      Variant variant,
      Path warehouse,
      Cluster cluster,
      long rows,
      Duration tail,
      Map<String, String> compactOptions,
      Map<String, String> tableOptions)
      throws Exception {
    FileSystemCatalog catalog = new FileSystemCatalog(warehouse.toString());
    Table table = createTable(catalog, variant, tableOptions);
    long cpu0 = BenchRunner.processCpuNanos();
    long t0 = System.currentTimeMillis();

    StreamExecutionEnvironment wenv = cluster.newEnv();
    wenv.setParallelism(1);
    wenv.enableCheckpointing(WRITER_CHECKPOINT.toMillis());
    JobClient writer = submitWriter(wenv, warehouse, variant, rows);

    StreamExecutionEnvironment cenv = cluster.newEnv();
    cenv.setParallelism(1);
    cenv.enableCheckpointing(COMPACT_CHECKPOINT.toMillis());
    JobClient compactor =
        CompactJob.builder(warehouse.toString(), table.fullName())
            .options(compactOptions)
            .parallelism(1)
            .build()
            .submitStreaming(cenv);

    writer.getJobExecutionResult().get();
    long writerEnd = System.currentTimeMillis();
    Thread.sleep(tail.toMillis());
    compactor.cancel().get();
    long end = System.currentTimeMillis();
    double cpuSeconds = (BenchRunner.processCpuNanos() - cpu0) / 1e9;

    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("started_at", Instant.ofEpochMilli(t0).toString());
    figures.put("rows_target", rows);
    figures.put("writer_seconds", (writerEnd - t0) / 1000.0);
    figures.put("run_seconds", (end - t0) / 1000.0);
    figures.put("process_cpu_seconds", cpuSeconds);
    figures.put("writer_checkpoint_p99_s", cluster.checkpointP99Seconds(writer.getJobID()));
    figures.put("compactor_checkpoint_p99_s", cluster.checkpointP99Seconds(compactor.getJobID()));
    if (variant.primaryKey()) {
      figures.put(
          "writer_stop_trigger_wait_s",
          cluster.gaugeTotal(writer.getJobID(), WRITER_GAUGES[0]) / 1000.0);
      figures.put(
          "writer_stop_trigger_passed", cluster.gaugeTotal(writer.getJobID(), WRITER_GAUGES[1]));
    }
    figures.put("compaction_options", compactOptions.isEmpty() ? "table defaults" : compactOptions);
    figures.put("table_options", tableOptions.isEmpty() ? "W5's" : tableOptions);
    table = catalog.getTable(TABLE);
    SnapshotReplay replay = SnapshotReplay.of(table, variant.primaryKey());
    replay.report(t0, writerEnd, tail.toMillis(), figures);

    StringBuilder problems = new StringBuilder();
    long rowsRead =
        variant.primaryKey()
            ? verifyPk(table, rows, problems)
            : verifyAppend(table, rows, problems);
    var orphans =
        new RemoveOrphanFiles(table).olderThan(System.currentTimeMillis()).dryRun(true).execute();
    figures.put("orphan_files", orphans.size());
    if (!orphans.isEmpty()) {
      problems.append(orphans.size()).append(" orphan files, e.g. ").append(orphans.get(0));
    }
    boolean ok = problems.length() == 0;
    double wall = (end - t0) / 1000.0;
    return new BenchResult(
            variant.workload(),
            "flink-streaming",
            wall,
            0,
            cpuSeconds,
            rowsRead,
            rows / wall,
            replay.writerBytes(),
            replay.writerBytes() / wall,
            replay.writerFiles(),
            replay.liveFiles(),
            0,
            "zstd level 1",
            ok,
            ok
                ? (variant.primaryKey()
                    ? rowsRead + " keys, each with its last write's values, no orphan file"
                    : rowsRead + " rows, sum(id) correct, no orphan file")
                : problems.toString())
        .withDetails(figures);
  }

  private static Table createTable(
      FileSystemCatalog catalog, Variant variant, Map<String, String> tableOptions)
      throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = TABLE;
    Schema.Builder schema = Workload.w1Schema().option("write-only", "true");
    if (variant.primaryKey()) {
      schema.primaryKey("id").option("bucket", "2").option("merge-engine", "deduplicate");
      if (variant == Variant.PK_DV) {
        schema.option("deletion-vectors.enabled", "true");
      }
    } else {
      schema.column("p", DataTypes.STRING()).partitionKeys("p");
    }
    tableOptions.forEach(schema::option);
    catalog.createTable(id, schema.build(), false);
    return catalog.getTable(id);
  }

  private static final Identifier TABLE = new Identifier("bench", "w5");

  /** The writer: a rate-limited generator into {@code INSERT INTO} the table, through Flink SQL. */
  private static JobClient submitWriter(
      StreamExecutionEnvironment env, Path warehouse, Variant variant, long rows) {
    RowType type = rowType(variant.primaryKey());
    DataGeneratorSource<RowData> source =
        new DataGeneratorSource<>(
            variant.primaryKey() ? StreamingBench::pkRow : StreamingBench::appendRow,
            rows,
            RateLimiterStrategy.perCheckpoint(ROWS_PER_CHECKPOINT),
            InternalTypeInfo.of(type));
    DataStream<RowData> stream =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "w5-generator");
    StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
    tEnv.executeSql(
        "CREATE CATALOG w5 WITH ('type' = 'sediment', 'warehouse' = '"
            + warehouse.toString().replace("'", "''")
            + "')");
    tEnv.createTemporaryView("w5_generated", tEnv.fromDataStream(stream));
    TableResult result = tEnv.executeSql("INSERT INTO w5.bench.w5 SELECT * FROM w5_generated");
    return result.getJobClient().orElseThrow();
  }

  private static RowType rowType(boolean primaryKey) {
    List<LogicalType> types =
        new ArrayList<>(
            List.of(
                new BigIntType(false),
                new BigIntType(),
                VarCharType.STRING_TYPE,
                new DoubleType(),
                VarCharType.STRING_TYPE,
                new TimestampType(3)));
    List<String> names =
        new ArrayList<>(List.of("id", "user_id", "category", "amount", "note", "ts"));
    if (!primaryKey) {
      types.add(VarCharType.STRING_TYPE);
      names.add("p");
    }
    return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
  }

  // the note's scratch bytes (fill copies them into the row): one per generator thread, not per row
  private static final ThreadLocal<byte[]> NOTE = ThreadLocal.withInitial(() -> new byte[32]);

  static RowData appendRow(Long i) {
    GenericRowData row = new GenericRowData(7);
    Workload.fill(row, i, i, NOTE.get());
    row.setField(6, StringData.fromString("p" + (i % PARTITIONS)));
    return row;
  }

  static RowData pkRow(Long i) {
    GenericRowData row = new GenericRowData(6);
    Workload.fill(row, pkId(i), i, NOTE.get());
    return row;
  }

  static long pkId(long i) {
    return (i * PK_MULT) % PK_KEYS;
  }

  /** W5-A: {@code rows} rows, ids 0 to rows - 1. */
  private static long verifyAppend(Table table, long rows, StringBuilder problems)
      throws IOException {
    long[] countAndSum = BenchRunner.countAndSumIds(table);
    if (countAndSum[0] != rows || countAndSum[1] != rows * (rows - 1) / 2) {
      problems.append(
          String.format(
              Locale.ROOT,
              "read %d rows with sum(id) %d, wrote %d with sum(id) %d; ",
              countAndSum[0],
              countAndSum[1],
              rows,
              rows * (rows - 1) / 2));
    }
    return countAndSum[0];
  }

  /** W5-PK: every key written once, with the values of the last row that wrote it. */
  private static long verifyPk(Table table, long rows, StringBuilder problems) throws IOException {
    long inverse = BigInteger.valueOf(PK_MULT).modInverse(BigInteger.valueOf(PK_KEYS)).longValue();
    long lastBlock = ((rows - 1) / PK_KEYS) * PK_KEYS;
    BitSet seen = new BitSet((int) PK_KEYS);
    GenericRowData expected = new GenericRowData(6);
    byte[] note = new byte[32];
    TableRead read = table.newReadBuilder().newRead();
    long count = 0;
    long mismatches = 0;
    for (DataSplit split : table.newReadBuilder().newScan().plan().splits()) {
      try (TableRead.RecordReader r = read.createReader(split)) {
        RowData row;
        while ((row = r.next()) != null) {
          count++;
          long id = row.getLong(0);
          long i0 = (id * inverse) % PK_KEYS;
          long i = lastBlock + i0 < rows ? lastBlock + i0 : lastBlock - PK_KEYS + i0;
          if (id < 0 || id >= PK_KEYS || seen.get((int) id) || i < 0) {
            mismatches++;
            continue;
          }
          seen.set((int) id);
          Workload.fill(expected, id, i, note);
          if (row.isNullAt(1)
              || row.getLong(1) != expected.getLong(1)
              || !row.getString(4).equals(expected.getString(4))
              || !row.getTimestamp(5, 3).equals(expected.getTimestamp(5, 3))) {
            mismatches++;
          }
        }
      }
    }
    long keys = Math.min(rows, PK_KEYS);
    if (count != keys || mismatches > 0) {
      problems.append(
          String.format(
              Locale.ROOT,
              "read %d rows for %d keys, %d duplicate or with another write's values; ",
              count,
              keys,
              mismatches));
    }
    return count;
  }
}
