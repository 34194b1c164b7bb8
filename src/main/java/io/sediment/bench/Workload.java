package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.catalog.Identifier;
import io.sediment.commit.CommitMessage;
import io.sediment.schema.Schema;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import io.sediment.table.WriteBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * The canonical compaction workloads of shared/bench/WORKLOAD.md, generated deterministically
 * from the global row number. Generation is never timed.
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
   * Creates bench.w3 and writes W3: 200 partitions ({@code dt}), one commit of 100 files of 10
   * rows per partition.
   */
  public static Table generateW3(FileSystemCatalog catalog) throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = new Identifier("bench", "w3");
    catalog.createTable(
        id,
        Schema.newBuilder()
            .column("dt", DataTypes.STRING())
            .column("id", DataTypes.BIGINT().notNull())
            .column("note", DataTypes.STRING())
            .partitionKeys("dt")
            .build(),
        false);
    Table table = catalog.getTable(id);
    long i = 0;
    for (int p = 0; p < W3_PARTITIONS; p++) {
      StringData dt = StringData.fromString(w3Partition(p));
      List<CommitMessage> messages = new java.util.ArrayList<>();
      WriteBuilder wb = table.newBatchWriteBuilder();
      for (int f = 0; f < W3_FILES_PER_PARTITION; f++) {
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
    return java.time.LocalDate.of(2026, 1, 1).plusDays(p).toString();
  }

  /** Creates db.w1 in the warehouse and writes W1: 200 commits of one 50,000-row file each. */
  public static Table generateW1(FileSystemCatalog catalog, String compression, Integer zstdLevel)
      throws IOException {
    catalog.createDatabase("bench", true);
    Identifier id = new Identifier("bench", "w1");
    Schema.Builder schema = w1Schema().option("file.compression", compression);
    if (zstdLevel != null) {
      schema.option("file.compression.zstd-level", zstdLevel.toString());
    }
    catalog.createTable(id, schema.build(), false);
    Table table = catalog.getTable(id);
    GenericRowData row = new GenericRowData(6);
    byte[] note = new byte[32];
    for (int c = 0; c < W1_COMMITS; c++) {
      WriteBuilder wb = table.newBatchWriteBuilder();
      try (TableWrite write = wb.newWrite()) {
        for (long i = (long) c * W1_ROWS_PER_COMMIT; i < (long) (c + 1) * W1_ROWS_PER_COMMIT; i++) {
          fill(row, i, i, note);
          write.write(row);
        }
        List<CommitMessage> messages = write.prepareCommit();
        wb.newCommit().commit(messages);
      }
    }
    return table;
  }
}
