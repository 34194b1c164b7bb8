package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * The canonical compaction workloads of shared/bench/WORKLOAD.md, generated deterministically from
 * the global row number. Generation is never timed.
 */
public final class Workload {

  public static final int W1_COMMITS = 200;
  public static final int W1_ROWS_PER_COMMIT = 50_000;
  public static final long W1_ROWS = (long) W1_COMMITS * W1_ROWS_PER_COMMIT;
  public static final long W1_SUM_ID = 49_999_995_000_000L;

  public static final int W2_COMMITS = 5;
  public static final int W2_ROWS_PER_COMMIT = 2_000_000;
  public static final int W2_KEY_SPACE = 5_000_000;

  public static final int W3_PARTITIONS = 200;
  public static final int W3_FILES_PER_PARTITION = 100;
  public static final int W3_ROWS_PER_FILE = 10;

  /** 2026-01-01T00:00:00Z in epoch milliseconds. */
  public static final long TS_BASE_MILLIS = 1_767_225_600_000L;

  private static final byte[] ALPHABET =
      "abcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.US_ASCII);

  private Workload() {}

  /** Columns of W1 (and the value columns of W2). */
  public static Schema.Builder w1Schema() {
    return Schema.newBuilder()
        .column("id", DataTypes.BIGINT().notNull())
        .column("user_id", DataTypes.BIGINT())
        .column("category", DataTypes.STRING())
        .column("amount", DataTypes.DOUBLE())
        .column("note", DataTypes.STRING())
        .column("ts", DataTypes.TIMESTAMP(3))
        .option("target-file-size", "128 mb");
  }

  /** Fills {@code row} with the W1 values of global row {@code i}, id given separately. */
  public static void fill(GenericRowData row, long id, long i, byte[] noteBuffer) {
    row.setField(0, id);
    row.setField(1, (i * 2654435761L) % 1000003L);
    row.setField(2, StringData.fromString("c" + (i % 97)));
    row.setField(3, (i % 100000) / 100.0);
    SplittableRandom rnd = new SplittableRandom(i);
    for (int k = 0; k < noteBuffer.length; k++) {
      noteBuffer[k] = ALPHABET[rnd.nextInt(36)];
    }
    row.setField(4, StringData.fromBytes(noteBuffer.clone()));
    row.setField(5, TimestampData.fromEpochMillis(TS_BASE_MILLIS + i));
  }

  /**
   * Creates bench.w3 and writes W3: 200 partitions ({@code dt}), one commit of 100 files of 10 rows
   * per partition.
   */
  public static Table generateW3(FileSystemCatalog catalog) throws IOException {
    return generateW3(catalog, W3_PARTITIONS, W3_FILES_PER_PARTITION);
  }

  /** W3 with other sizes (tests). */
  public static Table generateW3(FileSystemCatalog catalog, int partitions, int filesPerPartition)
      throws IOException {
    return generateW3(catalog, partitions, filesPerPartition, Map.of());
  }

  /** W3 with other sizes and extra table options (the commit lock on an object store). */
  public static Table generateW3(
      FileSystemCatalog catalog,
      int partitions,
      int filesPerPartition,
      Map<String, String> tableOptions)
      throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = new Identifier("bench", "w3");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("dt", DataTypes.STRING())
            .column("id", DataTypes.BIGINT().notNull())
            .column("note", DataTypes.STRING())
            .partitionKeys("dt")
            .options(tableOptions)
            .build(),
        false);
    Table table = catalog.getTable(id);
    long i = 0;
    for (int p = 0; p < partitions; p++) {
      StringData dt = StringData.fromString(w3Partition(p));
      List<CommitMessage> messages = new ArrayList<>();
      WriteBuilder wb = table.newBatchWriteBuilder();
      for (int f = 0; f < filesPerPartition; f++) {
        // One write per file: prepareCommit closes the file.
        try (TableWrite write = wb.newWrite()) {
          for (int r = 0; r < W3_ROWS_PER_FILE; r++, i++) {
            write.write(GenericRowData.of(dt, i, StringData.fromString("n" + i)));
          }
          messages.addAll(write.prepareCommit());
        }
      }
      wb.newCommit().commit(messages);
    }
    return table;
  }

  /** Partition value of W3 partition {@code p}: dt=2026-01-01 + p days. */
  public static String w3Partition(int p) {
    return LocalDate.of(2026, 1, 1).plusDays(p).toString();
  }

  /** Creates db.w1 in the warehouse and writes W1: 200 commits of one 50,000-row file each. */
  public static Table generateW1(FileSystemCatalog catalog, String compression, Integer zstdLevel)
      throws IOException {
    return generateW1(catalog, compression, zstdLevel, W1_COMMITS, W1_ROWS_PER_COMMIT);
  }

  /** W1 with other sizes (tests): {@code commits} commits of {@code rowsPerCommit} rows. */
  public static Table generateW1(
      FileSystemCatalog catalog,
      String compression,
      Integer zstdLevel,
      int commits,
      int rowsPerCommit)
      throws IOException {
    return generateW1(catalog, compression, zstdLevel, commits, rowsPerCommit, Map.of());
  }

  /** W1 with other sizes and extra table options (the commit lock on an object store). */
  public static Table generateW1(
      FileSystemCatalog catalog,
      String compression,
      Integer zstdLevel,
      int commits,
      int rowsPerCommit,
      Map<String, String> tableOptions)
      throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = new Identifier("bench", "w1");
    Schema.Builder schema =
        w1Schema().option("file.compression", compression).options(tableOptions);
    if (zstdLevel != null) {
      schema.option("file.compression.zstd-level", zstdLevel.toString());
    }
    catalog.createTable(id, schema.build(), false);
    Table table = catalog.getTable(id);
    GenericRowData row = new GenericRowData(6);
    byte[] note = new byte[32];
    for (int c = 0; c < commits; c++) {
      WriteBuilder wb = table.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        for (long i = (long) c * rowsPerCommit; i < (long) (c + 1) * rowsPerCommit; i++) {
          fill(row, i, i, note);
          write.write(row);
        }
        List<CommitMessage> messages = write.prepareCommit();
        wb.newCommit().commit(messages);
      }
    }
    return table;
  }

  /** Id of row {@code j} of W2 commit {@code c}: (3*j + 1000003*c) mod keySpace. */
  public static long w2Id(int c, long j, int keySpace) {
    return (3L * j + 1000003L * c) % keySpace;
  }

  /**
   * The W2 model, inverted: for an id, the row number j of commit c that wrote it (or -1). Ids are
   * unique within a commit because 3 is invertible modulo a key space not divisible by 3.
   */
  public static final class W2Model {
    public final int commits;
    public final int rowsPerCommit;
    public final int keySpace;
    private final long inverse3;

    public W2Model(int commits, int rowsPerCommit, int keySpace) {
      if (keySpace % 3 == 0 || rowsPerCommit > keySpace) {
        throw new IllegalArgumentException(
            "W2 key space must not be a multiple of 3 and hold a commit");
      }
      this.commits = commits;
      this.rowsPerCommit = rowsPerCommit;
      this.keySpace = keySpace;
      this.inverse3 = BigInteger.valueOf(3).modInverse(BigInteger.valueOf(keySpace)).longValue();
    }

    /** Row number within commit {@code c} of {@code id}, or -1 when commit c did not write it. */
    public long rowOf(int c, long id) {
      long d = Math.floorMod(id - 1000003L * c, (long) keySpace);
      long j = (d * inverse3) % keySpace;
      return j < rowsPerCommit ? j : -1;
    }

    /** Global row number i (= c*rowsPerCommit + j) of the last commit writing {@code id}, or -1. */
    public long lastWrite(long id) {
      for (int c = commits - 1; c >= 0; c--) {
        long j = rowOf(c, id);
        if (j >= 0) {
          return (long) c * rowsPerCommit + j;
        }
      }
      return -1;
    }

    /** Number of distinct ids written. */
    public long distinctIds() {
      long n = 0;
      for (long id = 0; id < keySpace; id++) {
        if (lastWrite(id) >= 0) {
          n++;
        }
      }
      return n;
    }
  }

  /**
   * Creates bench.w2, a primary-key table (id), 2 buckets, deduplicate, write-only, and writes W2:
   * {@code commits} commits of {@code rowsPerCommit} upserts. {@code writeBufferSize} is a dynamic
   * option of the writers (large enough that one commit leaves one level-0 run per bucket).
   */
  public static Table generateW2(FileSystemCatalog catalog, W2Model model, String writeBufferSize)
      throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = new Identifier("bench", "w2");
    Schema schema =
        w1Schema()
            .primaryKey("id")
            .option("bucket", "2")
            .option("merge-engine", "deduplicate")
            .option("write-only", "true")
            .option("file.compression", "zstd")
            .build();
    catalog.createTable(id, schema, false);
    Table table = catalog.getTable(id);
    Table writing = table.copy(Map.of("write-buffer-size", writeBufferSize));
    GenericRowData row = new GenericRowData(6);
    byte[] note = new byte[32];
    for (int c = 0; c < model.commits; c++) {
      WriteBuilder wb = writing.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        for (long j = 0; j < model.rowsPerCommit; j++) {
          fill(row, w2Id(c, j, model.keySpace), (long) c * model.rowsPerCommit + j, note);
          write.write(row);
        }
        wb.newCommit().commit(write.prepareCommit());
      }
    }
    return table;
  }
}
