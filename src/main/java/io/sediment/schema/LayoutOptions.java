package io.sediment.schema;

import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Table options that decide where rows live and how data files are written: buckets, file format,
 * compression and sizes. Each option is declared with the rule its values keep; {@link
 * TableOptions} validates and reads them. docs/configuration.md is the user-facing copy; keep them
 * in step.
 */
public final class LayoutOptions {

  static final OptionSet OPTIONS = new OptionSet();

  /** Compressions a data file can have ({@code file.compression}). */
  public static final List<String> COMPRESSIONS =
      List.of("zstd", "snappy", "gzip", "lz4_raw", "uncompressed");

  public static final ConfigOption<Integer> BUCKET =
      OPTIONS.add(
          ConfigOptions.key("bucket")
              .intType()
              .defaultValue(-1)
              .withDescription(
                  "Number of buckets per partition. -1: no buckets (append tables only; files are"
                      + " spread freely). N > 0: rows are hashed on the bucket key into N buckets."),
          OptionRule.bucketCount());

  public static final ConfigOption<String> BUCKET_KEY =
      OPTIONS.add(
          ConfigOptions.key("bucket-key")
              .stringType()
              .noDefaultValue()
              .withDescription(
                  "Comma-separated columns hashed to choose a bucket. Default: the primary key minus"
                      + " partition keys for primary-key tables; required for append tables with"
                      + " bucket > 0 unless all non-partition columns should be hashed."));

  public static final ConfigOption<String> FILE_COMPRESSION =
      OPTIONS.add(
          ConfigOptions.key("file.compression")
              .stringType()
              .defaultValue("zstd")
              .withDescription(
                  "Compression of data files: zstd, snappy, gzip, lz4_raw or uncompressed."),
          OptionRule.oneOf(COMPRESSIONS));

  public static final ConfigOption<Integer> FILE_COMPRESSION_ZSTD_LEVEL =
      OPTIONS.add(
          ConfigOptions.key("file.compression.zstd-level")
              .intType()
              .defaultValue(1)
              .withDescription("Zstandard level (1-22) when file.compression is zstd."),
          OptionRule.between(1, 22));

  public static final ConfigOption<MemorySize> PARQUET_ROW_GROUP_SIZE =
      OPTIONS.add(
          ConfigOptions.key("parquet.row-group-size")
              .memoryType()
              .defaultValue(MemorySize.parse("128 mb"))
              .withDescription("Target size of a Parquet row group."),
          OptionRule.positiveSize());

  public static final ConfigOption<MemorySize> PARQUET_PAGE_SIZE =
      OPTIONS.add(
          ConfigOptions.key("parquet.page-size")
              .memoryType()
              .defaultValue(MemorySize.parse("1 mb"))
              .withDescription("Target size of a Parquet page."),
          OptionRule.positiveSizeBelow2GiB());

  public static final ConfigOption<Boolean> PARQUET_DICTIONARY =
      OPTIONS.add(
          ConfigOptions.key("parquet.enable-dictionary")
              .booleanType()
              .defaultValue(true)
              .withDescription("Whether Parquet dictionary encoding is used."));

  public static final ConfigOption<MemorySize> TARGET_FILE_SIZE =
      OPTIONS.add(
          ConfigOptions.key("target-file-size")
              .memoryType()
              .defaultValue(MemorySize.parse("128 mb"))
              .withDescription(
                  "Size at which writers and compaction roll to a new data file; compaction packs"
                      + " small files into groups of about this size."),
          OptionRule.positiveSize());

  private LayoutOptions() {}
}
