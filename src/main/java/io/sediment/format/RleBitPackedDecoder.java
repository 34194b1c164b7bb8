package io.sediment.format;

import java.io.IOException;
import java.util.Arrays;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;

/**
 * Decodes Parquet's RLE / bit-packing hybrid encoding (definition levels and dictionary ids) from a
 * byte array, in bulk: a repeated run fills the output with one value, a bit-packed run is unpacked
 * eight values at a time by Parquet's generated {@link BytePacker}s.
 */
final class RleBitPackedDecoder {

  private static final BytePacker[] PACKERS = new BytePacker[33];

  static {
    for (int w = 0; w <= 32; w++) {
      PACKERS[w] = Packer.LITTLE_ENDIAN.newBytePacker(w);
    }
  }

  private byte[] buf;
  private int pos;
  private int end;
  private int bitWidth;
  private int valueBytes;
  private BytePacker packer;

  /** Values left in the current run. */
  private int runLeft;

  private boolean repeated;
  private int repeatedValue;
  // the current bit-packed group of eight, and how many of it were consumed
  private final int[] group = new int[8];
  private int groupPos = 8;
  private final byte[] padded = new byte[32];

  /** Starts decoding {@code buf[from, to)} with values of {@code bitWidth} bits. */
  void init(byte[] buf, int from, int to, int bitWidth) throws IOException {
    if (bitWidth < 0 || bitWidth > 32) {
      throw new IOException("Corrupt Parquet page: RLE bit width " + bitWidth);
    }
    this.buf = buf;
    this.pos = from;
    this.end = to;
    this.bitWidth = bitWidth;
    this.valueBytes = (bitWidth + 7) / 8;
    this.packer = PACKERS[bitWidth];
    this.runLeft = 0;
    this.groupPos = 8;
  }

  int readInt() throws IOException {
    if (runLeft == 0) {
      nextRun();
    }
    runLeft--;
    if (repeated) {
      return repeatedValue;
    }
    if (groupPos == 8) {
      unpackGroup();
    }
    return group[groupPos++];
  }

  /** Reads {@code n} values into {@code out[off, off + n)}. */
  void readInts(int[] out, int off, int n) throws IOException {
    while (n > 0) {
      if (runLeft == 0) {
        nextRun();
      }
      int m = Math.min(n, runLeft);
      if (repeated) {
        Arrays.fill(out, off, off + m, repeatedValue);
      } else {
        int i = 0;
        // drain a partly consumed group, then whole groups straight into out
        while (i < m && groupPos < 8) {
          out[off + i++] = group[groupPos++];
        }
        while (m - i >= 8 && pos + bitWidth <= end) {
          packer.unpack8Values(buf, pos, out, off + i);
          pos += bitWidth;
          i += 8;
        }
        while (i < m) {
          if (groupPos == 8) {
            unpackGroup();
          }
          out[off + i++] = group[groupPos++];
        }
      }
      runLeft -= m;
      off += m;
      n -= m;
    }
  }

  /** Whether the next {@code n} values are all {@code value} (consumes nothing). */
  boolean nextAreAll(int n, int value) {
    return repeated && runLeft >= n && repeatedValue == value;
  }

  /** Skips {@code n} values known to be in the current repeated run (see {@link #nextAreAll}). */
  void skipRepeated(int n) {
    runLeft -= n;
  }

  /** Makes sure a run is current, so {@link #nextAreAll} can answer. */
  void prepare() throws IOException {
    if (runLeft == 0) {
      nextRun();
    }
  }

  private void unpackGroup() throws IOException {
    if (pos + bitWidth <= end) {
      packer.unpack8Values(buf, pos, group, 0);
    } else {
      // a writer may truncate the last group of a page: unpack from a zero-padded copy
      int available = Math.max(0, end - pos);
      Arrays.fill(padded, (byte) 0);
      System.arraycopy(buf, pos, padded, 0, available);
      packer.unpack8Values(padded, 0, group, 0);
    }
    pos += bitWidth;
    groupPos = 0;
  }

  private void nextRun() throws IOException {
    if (pos >= end) {
      throw new IOException("Corrupt Parquet page: RLE/bit-packed data ends early");
    }
    int header = readUnsignedVarInt();
    if ((header & 1) == 0) {
      repeated = true;
      runLeft = header >>> 1;
      int v = 0;
      for (int i = 0; i < valueBytes; i++) {
        v |= (buf[pos++] & 0xFF) << (8 * i);
      }
      repeatedValue = v;
    } else {
      repeated = false;
      runLeft = (header >>> 1) * 8;
      groupPos = 8;
    }
    if (runLeft == 0) {
      nextRun();
    }
  }

  private int readUnsignedVarInt() throws IOException {
    int value = 0;
    int shift = 0;
    while (true) {
      if (pos >= end) {
        throw new IOException("Corrupt Parquet page: truncated RLE run header");
      }
      int b = buf[pos++] & 0xFF;
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
      shift += 7;
    }
  }
}
