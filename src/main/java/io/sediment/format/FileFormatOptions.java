package io.sediment.format;

import java.io.Serializable;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writer settings of data files.
 *
 * @param compression one of {@link #SUPPORTED_COMPRESSIONS} (case-insensitive; stored lower case)
 * @param zstdLevel zstd compression level, used only for {@code zstd}
 * @param rowGroupSize target Parquet row group size in bytes
 * @param pageSize target Parquet page size in bytes
 * @param dictionary whether dictionary encoding is enabled
 */
public record FileFormatOptions(
    String compression,
    int zstdLevel,
    long rowGroupSize,
    int pageSize,
    boolean dictionary,
    Set<String> plainColumns)
    implements Serializable {

  /** The accepted values of {@link #compression()}. */
  public static final List<String> SUPPORTED_COMPRESSIONS =
      List.of("zstd", "snappy", "gzip", "lz4_raw", "uncompressed");

  public static final String DEFAULT_COMPRESSION = "zstd";
  public static final int DEFAULT_ZSTD_LEVEL = 1;
  public static final long DEFAULT_ROW_GROUP_SIZE = 128L * 1024 * 1024;
  public static final int DEFAULT_PAGE_SIZE = 1024 * 1024;

  public FileFormatOptions {
    if (compression == null) {
      throw new IllegalArgumentException(
          "Compression must not be null; allowed: " + SUPPORTED_COMPRESSIONS);
    }
    String normalized = compression.trim().toLowerCase(Locale.ROOT);
    if (!SUPPORTED_COMPRESSIONS.contains(normalized)) {
      throw new IllegalArgumentException(
          "Unknown compression '" + compression + "'; allowed: " + SUPPORTED_COMPRESSIONS);
    }
    compression = normalized;
    if (rowGroupSize <= 0) {
      throw new IllegalArgumentException("rowGroupSize must be positive: " + rowGroupSize);
    }
    if (pageSize <= 0) {
      throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
    }
    plainColumns = plainColumns == null ? Set.of() : Set.copyOf(plainColumns);
    if (normalized.equals("zstd") && (zstdLevel < -131072 || zstdLevel > 22)) {
      throw new IllegalArgumentException("zstdLevel out of range [-131072, 22]: " + zstdLevel);
    }
  }

  /** Options with dictionary encoding on or off for every column. */
  public FileFormatOptions(
      String compression, int zstdLevel, long rowGroupSize, int pageSize, boolean dictionary) {
    this(compression, zstdLevel, rowGroupSize, pageSize, dictionary, Set.of());
  }

  /** zstd level 1, row groups of 128 MiB, pages of 1 MiB, dictionary encoding on. */
  public static FileFormatOptions defaults() {
    return new FileFormatOptions(
        DEFAULT_COMPRESSION, DEFAULT_ZSTD_LEVEL, DEFAULT_ROW_GROUP_SIZE, DEFAULT_PAGE_SIZE, true);
  }

  public FileFormatOptions withCompression(String newCompression) {
    return new FileFormatOptions(
        newCompression, zstdLevel, rowGroupSize, pageSize, dictionary, plainColumns);
  }

  public FileFormatOptions withZstdLevel(int level) {
    return new FileFormatOptions(
        compression, level, rowGroupSize, pageSize, dictionary, plainColumns);
  }

  public FileFormatOptions withRowGroupSize(long size) {
    return new FileFormatOptions(compression, zstdLevel, size, pageSize, dictionary, plainColumns);
  }

  public FileFormatOptions withPageSize(int size) {
    return new FileFormatOptions(
        compression, zstdLevel, rowGroupSize, size, dictionary, plainColumns);
  }

  public FileFormatOptions withDictionary(boolean enabled) {
    return new FileFormatOptions(
        compression, zstdLevel, rowGroupSize, pageSize, enabled, plainColumns);
  }

  /**
   * These (top-level) columns written without dictionary even when {@link #dictionary()} is on: for
   * columns known to have too many distinct values (see {@link EncodingHints}).
   */
  public FileFormatOptions withPlainColumns(Set<String> columns) {
    return new FileFormatOptions(
        compression, zstdLevel, rowGroupSize, pageSize, dictionary, columns);
  }

  /** The Parquet codec of {@link #compression()}. */
  public CompressionCodecName codec() {
    return switch (compression) {
      case "zstd" -> CompressionCodecName.ZSTD;
      case "snappy" -> CompressionCodecName.SNAPPY;
      case "gzip" -> CompressionCodecName.GZIP;
      case "lz4_raw" -> CompressionCodecName.LZ4_RAW;
      case "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
      default -> throw new IllegalStateException(compression);
    };
  }
}
