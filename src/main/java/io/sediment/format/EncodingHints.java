package io.sediment.format;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * What a rewrite learns from the files it reads about how their columns encode: a column whose
 * dictionary overflowed in every input (parquet-mr fell back to plain pages, so its values are too
 * many and distinct for a dictionary) would overflow again in the larger output, so the output
 * writes it plain from the start instead of building a dictionary of up to a page size of values
 * and re-encoding them. Columns that stayed dictionary-encoded anywhere keep their dictionary. Not
 * thread-safe: one per rewrite task.
 */
public final class EncodingHints {

  // per column: [row groups seen, row groups with plain (not dictionary-encoded) data pages]
  private final Map<String, int[]> columns = new HashMap<>();

  /** Takes note of one input file's footer. */
  public void observe(ParquetMetadata footer) {
    for (BlockMetaData block : footer.getBlocks()) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        EncodingStats stats = chunk.getEncodingStats();
        if (stats == null || chunk.getPath().size() != 1) {
          continue;
        }
        int[] counts = columns.computeIfAbsent(chunk.getPath().toDotString(), c -> new int[2]);
        counts[0]++;
        if (stats.hasNonDictionaryEncodedPages()) {
          // a fallback before the first page leaves no dictionary page at all
          counts[1]++;
        }
      }
    }
  }

  /** Columns with plain data pages in every row group of every observed file. */
  public Set<String> plainColumns() {
    Set<String> plain = new TreeSet<>();
    columns.forEach(
        (column, counts) -> {
          if (counts[1] == counts[0]) { // an entry exists only once a row group was seen
            plain.add(column);
          }
        });
    return plain;
  }

  /** {@code base} with {@link #plainColumns()} written without dictionary. */
  public FileFormatOptions apply(FileFormatOptions base) {
    Set<String> plain = plainColumns();
    return plain.isEmpty() ? base : base.withPlainColumns(plain);
  }
}
