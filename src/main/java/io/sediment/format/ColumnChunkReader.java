package io.sediment.format;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.flink.table.data.columnar.vector.heap.AbstractHeapVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBooleanVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapByteVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapBytesVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapDoubleVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapFloatVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapIntVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapLongVector;
import org.apache.flink.table.data.columnar.vector.heap.HeapShortVector;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Streams the pages of one flat column chunk from its own input stream and decodes them in bulk
 * into Flink heap vectors: one page (compressed and decompressed) is held at a time, so memory does
 * not grow with the row group. Supports data pages v1 and v2 with PLAIN or dictionary
 * (PLAIN_DICTIONARY / RLE_DICTIONARY) values and RLE definition levels, which is everything
 * parquet-mr writes for the flat schemas of {@link ParquetSchemas}.
 *
 * <p><b>Verification:</b> a page whose header carries a CRC (every page Sediment writes) is checked
 * against it before it is decoded: CRC32 over the page's stored bytes, one pass over the bytes just
 * read, before decompression. Pages stay inside the chunk's byte range from the footer, their sizes
 * within the chunk's, and the chunk must not end before the row group's rows do ({@link
 * #checkExhausted} checks that it holds no more either). A page without a CRC (another writer's
 * file) is decoded as far as its encoding can be checked. Reading, bounding and checking the pages
 * is {@link ColumnPageStream}'s part; this class decodes them.
 */
final class ColumnChunkReader implements Closeable {

  static final int BOOLEAN = 0;
  static final int BYTE = 1;
  static final int SHORT = 2;
  static final int INT = 3;
  static final int LONG = 4;
  static final int FLOAT = 5;
  static final int DOUBLE = 6;
  static final int BYTES = 7;
  static final int TIMESTAMP = 8;

  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final String column;
  private final ColumnPageStream pages;
  private final PrimitiveTypeName physical;
  private final int kind;
  private final TimeUnit unit;
  private final int maxDefinition;
  private final RleBitPackedDecoder levels = new RleBitPackedDecoder();
  private final RleBitPackedDecoder ids = new RleBitPackedDecoder();

  private byte[] page = new byte[0];
  private int valuePos;
  private int valueEnd;
  private int booleanBit;
  private boolean dictionaryEncoded;
  private int pageLeft;

  // the dictionary of the chunk, by physical type
  private int[] dictInts;
  private long[] dictLongs;
  private float[] dictFloats;
  private double[] dictDoubles;
  private byte[][] dictBytes;

  // per-batch scratch
  private int[] defs = new int[0];
  private int[] idScratch = new int[0];
  private int[] intScratch = new int[0];
  private long[] longScratch = new long[0];

  /**
   * @param in positioned at the chunk's first page
   * @param chunkSize the chunk's size from the footer: pages are read within it
   * @param maxPageSize the largest page size (stored or decompressed) to accept: the chunk's
   *     uncompressed size, so a corrupt header cannot make us allocate more than the chunk holds
   */
  ColumnChunkReader(
      String column,
      InputStream in,
      long chunkSize,
      long maxPageSize,
      PageDecompressor decompressor,
      PrimitiveTypeName physical,
      int kind,
      TimeUnit unit,
      int maxDefinition) {
    this.column = column;
    this.pages = new ColumnPageStream(column, in, chunkSize, maxPageSize, decompressor);
    this.physical = physical;
    this.kind = kind;
    this.unit = unit;
    this.maxDefinition = maxDefinition;
  }

  /**
   * Decodes the next {@code n} values of the chunk into {@code v[0, n)} (after a reset).
   *
   * @param freshValueBuffer whether a string or byte-array column gets a new byte buffer, so that
   *     the values of rows already returned stay intact; otherwise the vector's buffer is
   *     overwritten (see {@link VectorizedFileReader#reuseValueBuffers()})
   */
  void readBatch(int n, AbstractHeapVector v, boolean freshValueBuffer) throws IOException {
    v.reset();
    if (kind == BYTES && freshValueBuffer) {
      HeapBytesVector bv = (HeapBytesVector) v;
      bv.buffer = new byte[Math.max(16, bv.buffer.length)];
    }
    int done = 0;
    while (done < n) {
      while (pageLeft == 0) {
        readNextPage(); // a page may hold no values
      }
      int m = Math.min(n - done, pageLeft);
      decode(v, done, m);
      done += m;
      pageLeft -= m;
    }
  }

  private void decode(AbstractHeapVector v, int off, int m) throws IOException {
    int present = m;
    boolean hasNulls = false;
    if (maxDefinition > 0) {
      levels.prepare();
      if (!levels.nextAreAll(m, maxDefinition)) {
        if (defs.length < m) {
          defs = new int[Math.max(m, 1024)];
        }
        levels.readInts(defs, 0, m);
        present = 0;
        for (int i = 0; i < m; i++) {
          if (defs[i] == maxDefinition) {
            present++;
          }
        }
        hasNulls = present < m;
      } else {
        levels.skipRepeated(m);
      }
    }
    if (kind == BYTES) {
      decodeBytes((HeapBytesVector) v, off, m, hasNulls, present);
      return;
    }
    if (kind == BOOLEAN) {
      boolean[] out = ((HeapBooleanVector) v).vector;
      for (int i = 0; i < m; i++) {
        if (hasNulls && defs[i] != maxDefinition) {
          v.setNullAt(off + i);
        } else {
          out[off + i] = readBoolean();
        }
      }
      return;
    }
    if (physical == PrimitiveTypeName.INT64) {
      if (longScratch.length < present) {
        longScratch = new long[Math.max(present, 1024)];
      }
      readLongs(longScratch, present);
      int j = 0;
      for (int i = 0; i < m; i++) {
        if (hasNulls && defs[i] != maxDefinition) {
          v.setNullAt(off + i);
        } else if (kind == LONG) {
          ((HeapLongVector) v).vector[off + i] = longScratch[j++];
        } else {
          ((EpochTimestampVector) v).setEpoch(off + i, longScratch[j++], unit);
        }
      }
      return;
    }
    if (physical == PrimitiveTypeName.DOUBLE) {
      double[] out = ((HeapDoubleVector) v).vector;
      if (!hasNulls) {
        readDoubles(out, off, m);
        return;
      }
      // all present values in one go, then spread to their rows back to front (j <= i)
      readDoubles(out, off, present);
      for (int i = m - 1, j = present - 1; i >= 0; i--) {
        if (defs[i] != maxDefinition) {
          v.setNullAt(off + i);
        } else {
          out[off + i] = out[off + j--];
        }
      }
      return;
    }
    if (physical == PrimitiveTypeName.FLOAT) {
      float[] out = ((HeapFloatVector) v).vector;
      for (int i = 0; i < m; i++) {
        if (hasNulls && defs[i] != maxDefinition) {
          v.setNullAt(off + i);
        } else {
          out[off + i] = dictionaryEncoded ? dictFloats[ids.readInt()] : readPlainFloat();
        }
      }
      return;
    }
    // INT32: int, date, time, tinyint, smallint
    if (intScratch.length < present) {
      intScratch = new int[Math.max(present, 1024)];
    }
    readInts(intScratch, present);
    int j = 0;
    for (int i = 0; i < m; i++) {
      if (hasNulls && defs[i] != maxDefinition) {
        v.setNullAt(off + i);
      } else {
        int value = intScratch[j++];
        switch (kind) {
          case BYTE:
            ((HeapByteVector) v).vector[off + i] = (byte) value;
            break;
          case SHORT:
            ((HeapShortVector) v).vector[off + i] = (short) value;
            break;
          default:
            ((HeapIntVector) v).vector[off + i] = value;
        }
      }
    }
  }

  private void readLongs(long[] out, int n) throws IOException {
    if (dictionaryEncoded) {
      int[] idv = ids(n);
      long[] dict = dictLongs;
      for (int i = 0; i < n; i++) {
        out[i] = dict[idv[i]];
      }
    } else {
      need(8L * n);
      int p = valuePos;
      for (int i = 0; i < n; i++, p += 8) {
        out[i] = (long) LONGS.get(page, p);
      }
      valuePos = p;
    }
  }

  private void readInts(int[] out, int n) throws IOException {
    if (dictionaryEncoded) {
      int[] idv = ids(n);
      int[] dict = dictInts;
      for (int i = 0; i < n; i++) {
        out[i] = dict[idv[i]];
      }
    } else {
      need(4L * n);
      int p = valuePos;
      for (int i = 0; i < n; i++, p += 4) {
        out[i] = (int) INTS.get(page, p);
      }
      valuePos = p;
    }
  }

  private void readDoubles(double[] out, int off, int n) throws IOException {
    if (dictionaryEncoded) {
      int[] idv = ids(n);
      double[] dict = dictDoubles;
      for (int i = 0; i < n; i++) {
        out[off + i] = dict[idv[i]];
      }
    } else {
      need(8L * n);
      int p = valuePos;
      for (int i = 0; i < n; i++, p += 8) {
        out[off + i] = Double.longBitsToDouble((long) LONGS.get(page, p));
      }
      valuePos = p;
    }
  }

  private float readPlainFloat() throws IOException {
    need(4);
    float f = Float.intBitsToFloat((int) INTS.get(page, valuePos));
    valuePos += 4;
    return f;
  }

  private boolean readBoolean() throws IOException {
    if (dictionaryEncoded) {
      throw new IOException("Corrupt Parquet file: dictionary-encoded BOOLEAN column " + column);
    }
    if (booleanBit == 8) {
      booleanBit = 0;
      valuePos++;
    }
    need(1);
    return ((page[valuePos] >>> booleanBit++) & 1) != 0;
  }

  private int[] ids(int n) throws IOException {
    if (idScratch.length < n) {
      idScratch = new int[Math.max(n, 1024)];
    }
    ids.readInts(idScratch, 0, n);
    return idScratch;
  }

  private void decodeBytes(HeapBytesVector v, int off, int m, boolean hasNulls, int present)
      throws IOException {
    if (dictionaryEncoded) {
      int[] idv = ids(present);
      int j = 0;
      for (int i = 0; i < m; i++) {
        if (hasNulls && defs[i] != maxDefinition) {
          v.setNullAt(off + i);
        } else {
          byte[] value = dictBytes[idv[j++]];
          v.appendBytes(off + i, value, 0, value.length);
        }
      }
      return;
    }
    for (int i = 0; i < m; i++) {
      if (hasNulls && defs[i] != maxDefinition) {
        v.setNullAt(off + i);
      } else {
        need(4);
        int length = (int) INTS.get(page, valuePos);
        valuePos += 4;
        need(length);
        v.appendBytes(off + i, page, valuePos, length);
        valuePos += length;
      }
    }
  }

  private void need(long bytes) throws IOException {
    if (bytes < 0 || valuePos + bytes > valueEnd) {
      throw new IOException("Corrupt Parquet page of column " + column + ": values end early");
    }
  }

  private void readNextPage() throws IOException {
    while (true) {
      PageHeader header = pages.nextHeader();
      int compressedSize = header.getCompressed_page_size();
      int size = header.getUncompressed_page_size();
      switch (header.getType()) {
        case DICTIONARY_PAGE:
          pages.readStored(header);
          decompress(compressedSize, size);
          readDictionary(header.getDictionary_page_header().getNum_values(), size);
          break;
        case DATA_PAGE:
          {
            DataPageHeader h = header.getData_page_header();
            pages.readStored(header);
            decompress(compressedSize, size);
            int pos = 0;
            if (maxDefinition > 0) {
              if (h.getDefinition_level_encoding() != Encoding.RLE) {
                throw unsupported("definition levels " + h.getDefinition_level_encoding());
              }
              int length = size < 4 ? -1 : (int) INTS.get(page, 0);
              if (length < 0 || length > size - 4) {
                throw new IOException(
                    "Corrupt Parquet page of column " + column + ": definition levels overrun");
              }
              levels.init(page, 4, 4 + length, bitWidth(maxDefinition));
              pos = 4 + length;
            }
            startValues(h.getEncoding(), pos, size, h.getNum_values());
            return;
          }
        case DATA_PAGE_V2:
          {
            DataPageHeaderV2 h = header.getData_page_header_v2();
            int levelBytes =
                h.getRepetition_levels_byte_length() + h.getDefinition_levels_byte_length();
            if (h.getRepetition_levels_byte_length() < 0
                || h.getDefinition_levels_byte_length() < 0
                || levelBytes > compressedSize
                || levelBytes > size) {
              throw new IOException(
                  "Corrupt Parquet page of column " + column + ": levels overrun the page");
            }
            pages.readStored(header);
            // levels are never compressed in v2; the values are unless is_compressed is false
            byte[] raw = pages.stored();
            if (maxDefinition > 0) {
              byte[] levelCopy = Arrays.copyOf(raw, levelBytes);
              levels.init(
                  levelCopy,
                  h.getRepetition_levels_byte_length(),
                  levelBytes,
                  bitWidth(maxDefinition));
            }
            int valuesSize = size - levelBytes;
            if (h.isIs_compressed()) {
              pages.decompress(levelBytes, compressedSize - levelBytes, valuesSize);
            } else if (compressedSize == size) {
              pages.copy(levelBytes, valuesSize);
            } else {
              throw new IOException(
                  "Corrupt Parquet page of column "
                      + column
                      + ": "
                      + compressedSize
                      + " stored bytes, "
                      + size
                      + " expected");
            }
            page = pages.page();
            startValues(h.getEncoding(), 0, valuesSize, h.getNum_values());
            return;
          }
        default:
          pages.skip(compressedSize);
      }
    }
  }

  /**
   * Whether the chunk's values and pages are all read: called when its row group's rows are, so a
   * chunk holding more than the footer's row count is found too.
   */
  void checkExhausted() throws IOException {
    if (pageLeft != 0 || pages.chunkLeft() != 0) {
      throw new IOException(
          "Corrupt Parquet column chunk of "
              + column
              + ": it holds more values than the row group has rows ("
              + (pages.chunkLeft() != 0
                  ? pages.chunkLeft() + " bytes of pages left"
                  : "values left: " + pageLeft)
              + ")");
    }
  }

  private void startValues(Encoding encoding, int pos, int end, int numValues) throws IOException {
    if (numValues < 0) {
      throw new IOException(
          "Corrupt Parquet page of column " + column + ": " + numValues + " values");
    }
    valuePos = pos;
    valueEnd = end;
    booleanBit = 0;
    pageLeft = numValues;
    switch (encoding) {
      case PLAIN:
        dictionaryEncoded = false;
        break;
      case PLAIN_DICTIONARY:
      case RLE_DICTIONARY:
        if (dictInts == null
            && dictLongs == null
            && dictFloats == null
            && dictDoubles == null
            && dictBytes == null) {
          throw new IOException(
              "Corrupt Parquet file: dictionary-encoded page without dictionary in column "
                  + column);
        }
        dictionaryEncoded = true;
        if (pos >= end) {
          // an all-null page has no id bit width
          ids.init(page, pos, end, 0);
        } else {
          ids.init(page, pos + 1, end, page[pos] & 0xFF);
        }
        break;
      default:
        throw unsupported("value encoding " + encoding);
    }
  }

  private void readDictionary(int count, int size) throws IOException {
    if (count < 0) {
      throw new IOException("Corrupt Parquet dictionary of column " + column + ": " + count);
    }
    valuePos = 0;
    valueEnd = size;
    switch (physical) {
      case INT32:
        dictInts = new int[count];
        need(4L * count);
        for (int i = 0; i < count; i++) {
          dictInts[i] = (int) INTS.get(page, 4 * i);
        }
        break;
      case INT64:
        dictLongs = new long[count];
        need(8L * count);
        for (int i = 0; i < count; i++) {
          dictLongs[i] = (long) LONGS.get(page, 8 * i);
        }
        break;
      case FLOAT:
        dictFloats = new float[count];
        need(4L * count);
        for (int i = 0; i < count; i++) {
          dictFloats[i] = Float.intBitsToFloat((int) INTS.get(page, 4 * i));
        }
        break;
      case DOUBLE:
        dictDoubles = new double[count];
        need(8L * count);
        for (int i = 0; i < count; i++) {
          dictDoubles[i] = Double.longBitsToDouble((long) LONGS.get(page, 8 * i));
        }
        break;
      case BINARY:
        dictBytes = new byte[count][];
        for (int i = 0; i < count; i++) {
          need(4);
          int length = (int) INTS.get(page, valuePos);
          valuePos += 4;
          need(length);
          dictBytes[i] = Arrays.copyOfRange(page, valuePos, valuePos + length);
          valuePos += length;
        }
        break;
      default:
        throw unsupported("dictionary of " + physical);
    }
  }

  /** Decompresses the page just read and takes its buffer. */
  private void decompress(int compressedSize, int size) throws IOException {
    pages.decompress(compressedSize, size);
    page = pages.page();
  }

  private IOException unsupported(String what) {
    return new IOException("Unsupported Parquet " + what + " in column " + column);
  }

  static int bitWidth(int maxValue) {
    return 32 - Integer.numberOfLeadingZeros(maxValue);
  }

  @Override
  public void close() throws IOException {
    pages.close();
  }
}
