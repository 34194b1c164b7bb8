package io.sediment.format;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.SeekableInputStream;

/**
 * One data file as parquet-mr's column chunk copy ({@code ParquetFileWriter.appendColumnChunk})
 * reads it: a chunk is handed out page by page, and no byte of a page before the whole page is
 * verified. Its header must parse, its stored bytes lie inside the chunk, and their CRC32 equal the
 * crc of its header, computed over the page in the buffer it is then copied from (one pass over
 * bytes already in memory, no second read). When the chunk's last page is loaded, the values of its
 * data pages must add up to the chunk's value count in the footer. A page without a crc is not
 * handed out: {@link PageWithoutChecksumException}.
 *
 * <p>{@link #open} a file, call {@link #startChunk} before a chunk is copied and {@link
 * #finishChunk} after, {@link #close} the file; the next file may be opened on the same instance,
 * which keeps its buffers. Reads from a chunk's start are verified; reads elsewhere (the footer, or
 * a dictionary page header parquet-mr peeks at when a footer lacks its offset) are served as they
 * are and never copied. Memory: one page, plus a read-ahead buffer. Not thread-safe.
 */
final class CheckedChunkStream extends SeekableInputStream {

  private static final int READ_AHEAD = 64 * 1024;

  private Path file;
  private FSDataInputStream raw;
  private final CRC32 crc = new CRC32();
  private final HeaderInput headerInput = new HeaderInput();
  private final byte[] one = new byte[1];

  // read-ahead over raw: unread bytes are ahead[aheadNext, aheadEnd); raw stands at rawPos
  private final byte[] ahead = new byte[READ_AHEAD];
  private int aheadNext;
  private int aheadEnd;
  private long rawPos;

  // the chunk being copied
  private int rowGroup;
  private String column;
  private long chunkStart = -1;
  private long chunkEnd;
  private long chunkValues;
  private long values;
  private boolean chunkVerified;

  // the verified page handed out: page[pagePos, pageEnd) are its bytes not yet read
  private byte[] page = new byte[8 * 1024];
  private int pagePos;
  private int pageEnd;
  private boolean verifying; // reading the chunk sequentially from its start
  private long pos; // file position of the next byte handed out

  /** Reads {@code file} from now on, through {@code raw}, a stream at the file's start. */
  void open(Path file, FSDataInputStream raw) {
    this.file = file;
    this.raw = raw;
    this.rawPos = 0;
    this.aheadNext = 0;
    this.aheadEnd = 0;
    this.chunkStart = -1;
    this.verifying = false;
    this.pagePos = 0;
    this.pageEnd = 0;
    this.pos = 0;
  }

  /** The next reads from the start of {@code chunk} (of row group {@code rowGroup}) verify it. */
  void startChunk(int rowGroup, ColumnChunkMetaData chunk) {
    this.rowGroup = rowGroup;
    this.column = chunk.getPath().toDotString();
    this.chunkStart = chunk.getStartingPos();
    this.chunkEnd = chunkStart + chunk.getTotalSize();
    this.chunkValues = chunk.getValueCount();
    this.values = 0;
    this.chunkVerified = false;
  }

  /** Fails unless every page of the chunk was read and verified. */
  void finishChunk() throws IOException {
    if (!chunkVerified) {
      throw corrupt("the column chunk was not read to its end", null);
    }
  }

  @Override
  public long getPos() {
    return pos;
  }

  @Override
  public void seek(long newPos) throws IOException {
    if (newPos == chunkStart) {
      positionRaw(newPos);
      verifying = true;
      values = 0;
    } else if (verifying && newPos == pos) {
      return;
    } else {
      positionRaw(newPos);
      verifying = false;
    }
    pagePos = 0;
    pageEnd = 0;
    pos = newPos;
  }

  @Override
  public int read() throws IOException {
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (verifying && pagePos == pageEnd) {
      if (pos < chunkEnd) {
        loadPage();
      } else {
        verifying = false; // past the chunk: raw stands at its end
      }
    }
    int n;
    if (verifying) {
      n = Math.min(len, pageEnd - pagePos);
      System.arraycopy(page, pagePos, b, off, n);
      pagePos += n;
    } else {
      n = readRaw(b, off, len);
      if (n < 0) {
        return -1;
      }
    }
    pos += n;
    return n;
  }

  @Override
  public int read(ByteBuffer buf) throws IOException {
    if (buf.hasArray()) {
      int n = read(buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
      if (n > 0) {
        buf.position(buf.position() + n);
      }
      return n;
    }
    byte[] tmp = new byte[Math.min(buf.remaining(), 8192)];
    int n = read(tmp, 0, tmp.length);
    if (n > 0) {
      buf.put(tmp, 0, n);
    }
    return n;
  }

  @Override
  public void readFully(byte[] bytes) throws IOException {
    readFully(bytes, 0, bytes.length);
  }

  @Override
  public void readFully(byte[] bytes, int start, int len) throws IOException {
    int done = 0;
    while (done < len) {
      int n = read(bytes, start + done, len - done);
      if (n < 0) {
        throw new EOFException("Data file " + file + " ends at " + pos);
      }
      done += n;
    }
  }

  @Override
  public void readFully(ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      if (read(buf) < 0) {
        throw new EOFException("Data file " + file + " ends at " + pos);
      }
    }
  }

  /** Closes the file opened last. */
  @Override
  public void close() throws IOException {
    if (raw != null) {
      FSDataInputStream closing = raw;
      raw = null;
      closing.close();
    }
  }

  /** Reads the page at {@link #pos} into {@link #page} and verifies it. */
  private void loadPage() throws IOException {
    long headerStart = pos;
    headerInput.start(chunkEnd - headerStart);
    PageHeader header;
    try {
      header = Util.readPageHeader(headerInput);
    } catch (IOException e) {
      throw corrupt(
          "cannot read the page header at offset " + headerStart + " (" + e.getMessage() + ")", e);
    }
    int headerLength = headerInput.length;
    int stored = header.getCompressed_page_size();
    if (stored < 0 || headerStart + headerLength + stored > chunkEnd) {
      throw corrupt(
          "the page at offset "
              + headerStart
              + " claims "
              + stored
              + " bytes, past the column chunk's end at "
              + chunkEnd,
          null);
    }
    ensurePage(headerLength + stored);
    readRawFully(page, headerLength, stored);
    if (!header.isSetCrc()) {
      throw new PageWithoutChecksumException(file, where(headerStart));
    }
    crc.reset();
    crc.update(page, headerLength, stored);
    int actual = (int) crc.getValue();
    if (actual != header.getCrc()) {
      throw corrupt(
          "the page at offset "
              + headerStart
              + " does not match its CRC32 (computed "
              + Integer.toHexString(actual)
              + ", header "
              + Integer.toHexString(header.getCrc())
              + ")",
          null);
    }
    values += valuesOf(header);
    if (headerStart + headerLength + stored == chunkEnd) {
      if (values != chunkValues) {
        throw corrupt(
            "its pages hold " + values + " values, its footer entry " + chunkValues, null);
      }
      chunkVerified = true;
    }
    pagePos = 0;
    pageEnd = headerLength + stored;
  }

  private static long valuesOf(PageHeader header) {
    switch (header.getType()) {
      case DATA_PAGE:
        return header.getData_page_header().getNum_values();
      case DATA_PAGE_V2:
        return header.getData_page_header_v2().getNum_values();
      default:
        return 0;
    }
  }

  private String where(long offset) {
    return "at offset " + offset + " of column '" + column + "' in row group " + rowGroup;
  }

  private IOException corrupt(String what, Exception cause) {
    return new IOException(
        "Corrupt "
            + FileRoles.of(file)
            + " "
            + file
            + ", column '"
            + column
            + "' in row group "
            + rowGroup
            + ": "
            + what,
        cause);
  }

  private void ensurePage(int size) {
    if (page.length < size) {
      page = Arrays.copyOf(page, Math.max(size, page.length + (page.length >> 1)));
    }
  }

  /** Puts raw at file position {@code p}, within the read-ahead when it holds it. */
  private void positionRaw(long p) throws IOException {
    long aheadStart = rawPos - aheadEnd;
    if (p >= aheadStart && p <= rawPos) {
      aheadNext = (int) (p - aheadStart);
      return;
    }
    raw.seek(p);
    rawPos = p;
    aheadNext = 0;
    aheadEnd = 0;
  }

  /** Up to {@code len} bytes of the file, through the read-ahead (large reads go past it). */
  private int readRaw(byte[] b, int off, int len) throws IOException {
    if (aheadNext == aheadEnd) {
      if (len >= ahead.length) {
        int n = raw.read(b, off, len);
        if (n > 0) {
          rawPos += n;
        }
        return n;
      }
      int n = raw.read(ahead, 0, ahead.length);
      if (n <= 0) {
        return -1;
      }
      rawPos += n;
      aheadNext = 0;
      aheadEnd = n;
    }
    int n = Math.min(len, aheadEnd - aheadNext);
    System.arraycopy(ahead, aheadNext, b, off, n);
    aheadNext += n;
    return n;
  }

  private void readRawFully(byte[] b, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      int n = readRaw(b, off + done, len - done);
      if (n < 0) {
        throw corrupt("the file ends inside the page at offset " + pos, null);
      }
      done += n;
    }
  }

  /**
   * The file from a page's start, recorded into {@link #page}, for its header; ends with the chunk.
   */
  private final class HeaderInput extends InputStream {
    private final byte[] single = new byte[1];
    private long limit;
    int length;

    void start(long limit) {
      this.limit = limit;
      this.length = 0;
    }

    @Override
    public int read() throws IOException {
      return read(single, 0, 1) < 0 ? -1 : single[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (length >= limit) {
        return -1;
      }
      int n = (int) Math.min(len, limit - length);
      ensurePage(length + n);
      n = readRaw(page, length, n);
      if (n <= 0) {
        return -1;
      }
      System.arraycopy(page, length, b, off, n);
      length += n;
      return n;
    }
  }
}
