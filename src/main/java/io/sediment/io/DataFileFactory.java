package io.sediment.io;

import io.sediment.data.BinaryRows;
import io.sediment.format.ColumnStats;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.schema.LayoutOptions;
import io.sediment.schema.TableOptions;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.table.data.binary.BinaryRowData;

/** Names new data files and turns written Parquet files into {@link DataFileMeta}. */
public final class DataFileFactory {

  /** The name prefix of changelog files ({@code changelog-producer}), beside data files. */
  public static final String CHANGELOG_PREFIX = "changelog-";

  private final String prefix;
  private final AtomicInteger counter = new AtomicInteger();

  public DataFileFactory() {
    this("data-");
  }

  private DataFileFactory(String kind) {
    this.prefix = kind + UUID.randomUUID() + "-";
  }

  /** Names changelog files: {@code changelog-<uuid>-<n>.parquet}, in the bucket's directory. */
  public static DataFileFactory changelog() {
    return new DataFileFactory(CHANGELOG_PREFIX);
  }

  /** A new unique file name: {@code data-<uuid>-<n>.parquet} (or {@code changelog-...}). */
  public String newFileName() {
    return prefix + counter.getAndIncrement() + ".parquet";
  }

  public static FileFormatOptions formatOptions(TableOptions options) {
    return new FileFormatOptions(
        options.compression(),
        options.get(LayoutOptions.FILE_COMPRESSION_ZSTD_LEVEL),
        options.get(LayoutOptions.PARQUET_ROW_GROUP_SIZE).getBytes(),
        (int) options.get(LayoutOptions.PARQUET_PAGE_SIZE).getBytes(),
        options.get(LayoutOptions.PARQUET_DICTIONARY));
  }

  /** Metadata of a data file of an append table (no key range). */
  public static DataFileMeta appendFileMeta(
      FileStore store,
      WrittenFile written,
      long minSeq,
      long maxSeq,
      int level,
      FileSource source) {
    ColumnStats stats = written.stats();
    BinaryRowData emptyKey = BinaryRows.EMPTY;
    return new DataFileMeta(
        written.path().getName(),
        written.fileSize(),
        written.rowCount(),
        emptyKey,
        emptyKey,
        stats.min(),
        stats.max(),
        stats.nullCounts(),
        minSeq,
        maxSeq,
        store.schema().id(),
        level,
        store.clock().millis(),
        source,
        0);
  }
}
