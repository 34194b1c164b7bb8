package io.sediment.format;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * The column chunks of a small row group, read with one request instead of one stream per column:
 * on an object store a stream is a HEAD and a GET, on a local disk an open, a seek and a close.
 * Manifests and manifest lists are a row group of a few KiB in about ten columns, read by every
 * plan and commit: on a local disk opening them column by column was the largest cost of planning
 * (the interleaving simulation took a quarter less time without it). Large row groups (data files
 * of compacted tables) are still read a stream per column, so memory stays bounded.
 */
final class SmallBlock {

  /** Row groups whose selected chunks span at most this many bytes are read whole. */
  static final int MAX_BYTES = 1 << 20;

  private final long start;
  private final byte[] bytes;

  private SmallBlock(long start, byte[] bytes) {
    this.start = start;
    this.bytes = bytes;
  }

  /** The chunks read in one request, or null when one column or too large. */
  static SmallBlock read(FileSystem fs, Path path, ColumnChunkMetaData[] chunks)
      throws IOException {
    if (chunks.length < 2) {
      return null;
    }
    long start = Long.MAX_VALUE;
    long end = Long.MIN_VALUE;
    for (ColumnChunkMetaData c : chunks) {
      start = Math.min(start, c.getStartingPos());
      end = Math.max(end, c.getStartingPos() + c.getTotalSize());
    }
    if (end - start > MAX_BYTES) {
      return null;
    }
    byte[] bytes = new byte[(int) (end - start)];
    try (FSDataInputStream in = fs.open(path)) {
      in.seek(start);
      int n = in.readNBytes(bytes, 0, bytes.length);
      if (n < bytes.length) {
        throw new EOFException(
            "Truncated Parquet file " + path + ": column chunks end at byte " + end);
      }
    }
    return new SmallBlock(start, bytes);
  }

  InputStream chunk(ColumnChunkMetaData meta) {
    return new ByteArrayInputStream(
        bytes, (int) (meta.getStartingPos() - start), (int) meta.getTotalSize());
  }
}
