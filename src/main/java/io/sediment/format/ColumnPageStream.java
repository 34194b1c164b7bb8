package io.sediment.format;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;

/**
 * The pages of one column chunk as a stream, for {@link ColumnChunkReader}: reads each page's
 * header and stored bytes from the chunk's own input stream, never past the chunk's byte range from
 * the footer, checks the stored bytes against the header's CRC when it has one, and decompresses
 * them into a page buffer reused from page to page. Separate from the reader because this work is
 * done once per page, while the reader's decoding runs per value; the reader takes the page buffer
 * from {@link #page()} after each page.
 */
final class ColumnPageStream implements Closeable {

  private final String column;
  private final InputStream in;
  // the chunk's page headers are read through this view, which stops at the chunk's end
  private final InputStream headers = new HeaderInput();
  private final CRC32 crc = new CRC32();
  private final int maxPageSize;
  private long chunkLeft;
  private final PageDecompressor decompressor;

  private byte[] compressed = new byte[0];
  private byte[] page = new byte[0];

  /**
   * @param in positioned at the chunk's first page
   * @param chunkSize the chunk's size from the footer: pages are read within it
   * @param maxPageSize the largest page size (stored or decompressed) to accept: the chunk's
   *     uncompressed size, so a corrupt header cannot make us allocate more than the chunk holds
   */
  ColumnPageStream(
      String column,
      InputStream in,
      long chunkSize,
      long maxPageSize,
      PageDecompressor decompressor) {
    this.column = column;
    this.in = in;
    this.chunkLeft = chunkSize;
    this.maxPageSize = (int) Math.min(Integer.MAX_VALUE - 16, Math.max(maxPageSize, chunkSize));
    this.decompressor = decompressor;
  }

  /** The bytes of the chunk not read yet. */
  long chunkLeft() {
    return chunkLeft;
  }

  /** The stored bytes of the page last read by {@link #readStored}. */
  byte[] stored() {
    return compressed;
  }

  /** The page buffer the last page was decompressed (or copied) into; replaced when it grows. */
  byte[] page() {
    return page;
  }

  /**
   * Reads the next page's header, with its stored and uncompressed sizes checked against the chunk:
   * the chunk must not end before the row group's rows do.
   */
  PageHeader nextHeader() throws IOException {
    if (chunkLeft == 0) {
      throw new IOException(
          "Corrupt Parquet column chunk of "
              + column
              + ": its pages hold fewer values than the row group has rows");
    }
    PageHeader header = readPageHeader();
    int compressedSize = header.getCompressed_page_size();
    int size = header.getUncompressed_page_size();
    if (compressedSize < 0 || compressedSize > chunkLeft) {
      throw new IOException(
          "Corrupt Parquet page of column "
              + column
              + ": "
              + compressedSize
              + " stored bytes, but "
              + chunkLeft
              + " left in the column chunk");
    }
    if (size < 0 || size > maxPageSize) {
      throw new IOException(
          "Corrupt Parquet page of column "
              + column
              + ": uncompressed size "
              + size
              + " outside the column chunk's "
              + maxPageSize);
    }
    return header;
  }

  private PageHeader readPageHeader() throws IOException {
    try {
      return Util.readPageHeader(headers);
    } catch (IOException e) {
      throw new IOException(
          "Corrupt Parquet column chunk of "
              + column
              + ": cannot read a page header ("
              + e.getMessage()
              + ")",
          e);
    }
  }

  /**
   * Reads the stored (compressed) bytes of the page of {@code header} into {@link #compressed} and
   * checks them against the header's CRC when it has one.
   */
  void readStored(PageHeader header) throws IOException {
    int length = header.getCompressed_page_size();
    readFully(length);
    chunkLeft -= length;
    if (header.isSetCrc()) {
      crc.reset();
      crc.update(compressed, 0, length);
      int actual = (int) crc.getValue();
      if (actual != header.getCrc()) {
        throw new IOException(
            "Corrupt Parquet page of column "
                + column
                + ": its CRC32 "
                + Integer.toHexString(actual)
                + " does not match the page header's "
                + Integer.toHexString(header.getCrc()));
      }
    }
  }

  /** Skips the stored bytes of a page of a type that holds nothing to decode. */
  void skip(int compressedSize) throws IOException {
    skipFully(compressedSize);
    chunkLeft -= compressedSize;
  }

  /** Decompresses the stored page in {@link #compressed} into {@link #page}. */
  void decompress(int compressedSize, int size) throws IOException {
    decompress(0, compressedSize, size);
  }

  /**
   * Decompresses {@code length} stored bytes from {@code offset} (a v2 page's values, after its
   * levels) into {@link #page}, {@code size} bytes.
   */
  void decompress(int offset, int length, int size) throws IOException {
    ensurePage(size);
    decompressor.decompress(compressed, offset, length, page, size);
  }

  /**
   * Copies {@code size} stored bytes from {@code offset} (uncompressed values) into {@link #page}.
   */
  void copy(int offset, int size) {
    ensurePage(size);
    System.arraycopy(compressed, offset, page, 0, size);
  }

  private void ensurePage(int size) {
    if (page.length < size) {
      page = new byte[Math.max(size, page.length + (page.length >> 1))];
    }
  }

  private void readFully(int length) throws IOException {
    if (compressed.length < length) {
      compressed = new byte[Math.max(length, compressed.length + (compressed.length >> 1))];
    }
    int done = 0;
    while (done < length) {
      int r = in.read(compressed, done, length - done);
      if (r < 0) {
        throw new EOFException("Parquet column chunk of " + column + " ends inside a page");
      }
      done += r;
    }
  }

  private void skipFully(long length) throws IOException {
    while (length > 0) {
      long s = in.skip(length);
      if (s <= 0) {
        if (in.read() < 0) {
          throw new EOFException("Parquet column chunk of " + column + " ends inside a page");
        }
        s = 1;
      }
      length -= s;
    }
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /** The chunk's stream for page headers: ends where the chunk does. */
  private final class HeaderInput extends InputStream {
    @Override
    public int read() throws IOException {
      if (chunkLeft <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        chunkLeft--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (chunkLeft <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, chunkLeft));
      if (n > 0) {
        chunkLeft -= n;
      }
      return n;
    }
  }
}
