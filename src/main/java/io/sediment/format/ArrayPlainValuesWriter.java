package io.sediment.format;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.DefaultV2ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.io.api.Binary;

/**
 * PLAIN encoding of one page's values into a single growable array, written through little-endian
 * {@link VarHandle}s. It produces the same bytes as parquet-mr's {@code PlainValuesWriter}, which
 * goes through a stream and a slab list with bounds checks and a small array copy per value; on a
 * compaction that writes most columns plain (see {@link EncodingHints}) that is a large part of the
 * write cost.
 *
 * <p>Same lifetime contract as parquet-mr's writers: the bytes of {@link #getBytes()} are valid
 * until {@link #reset()}, and the column writer hands them to the page writer (which compresses or
 * copies them) before resetting. The array is kept across pages: its size follows the page size.
 */
final class ArrayPlainValuesWriter extends ValuesWriter {

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int initialCapacity;
  private final int shrinkAbove;
  private byte[] buf;
  private int pos;
  // Binary.writeTo(OutputStream) hands over its backing range in one call, without a copy
  private final OutputStream sink =
      new OutputStream() {
        @Override
        public void write(int b) {
          ensure(1);
          buf[pos++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
          ensure(len);
          System.arraycopy(b, off, buf, pos, len);
          pos += len;
        }
      };

  /**
   * @param initialCapacity the array's first size
   * @param shrinkAbove a reset drops an array larger than this (grown by an outsized value)
   */
  ArrayPlainValuesWriter(int initialCapacity, int shrinkAbove) {
    this.initialCapacity = Math.max(64, initialCapacity);
    this.shrinkAbove = Math.max(this.initialCapacity, shrinkAbove);
    this.buf = new byte[this.initialCapacity];
  }

  private void ensure(int more) {
    if (buf.length - pos < more) {
      long needed = (long) pos + more;
      if (needed > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("A page's values exceed 2 GiB");
      }
      buf =
          Arrays.copyOf(
              buf, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * buf.length)));
    }
  }

  @Override
  public void writeInteger(int v) {
    ensure(4);
    INT.set(buf, pos, v);
    pos += 4;
  }

  @Override
  public void writeLong(long v) {
    ensure(8);
    LONG.set(buf, pos, v);
    pos += 8;
  }

  @Override
  public void writeFloat(float v) {
    ensure(4);
    // floatToIntBits, not the raw bits: one NaN, as parquet-mr writes it
    INT.set(buf, pos, Float.floatToIntBits(v));
    pos += 4;
  }

  @Override
  public void writeDouble(double v) {
    ensure(8);
    LONG.set(buf, pos, Double.doubleToLongBits(v));
    pos += 8;
  }

  @Override
  public void writeBytes(Binary v) {
    int len = v.length();
    ensure(4 + len);
    INT.set(buf, pos, len);
    pos += 4;
    try {
      v.writeTo(sink);
    } catch (IOException e) {
      throw new IllegalStateException(e); // the sink does not throw
    }
  }

  @Override
  public long getBufferedSize() {
    return pos;
  }

  @Override
  public BytesInput getBytes() {
    return BytesInput.from(buf, 0, pos);
  }

  @Override
  public Encoding getEncoding() {
    return Encoding.PLAIN;
  }

  @Override
  public void reset() {
    pos = 0;
    if (buf.length > shrinkAbove) {
      // one huge value made the array grow: do not hold on to that for the rest of the row group
      buf = new byte[initialCapacity];
    }
  }

  @Override
  public long getAllocatedSize() {
    return buf.length;
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " ArrayPlainValuesWriter " + buf.length + " bytes";
  }

  /**
   * parquet-mr's default writers (from a factory of this file's own), except that columns written
   * plain from the start (dictionary off for the column, no BYTE_STREAM_SPLIT) of the types whose
   * PLAIN encoding is a fixed-width value or a length-prefixed byte string get an {@link
   * ArrayPlainValuesWriter}. Only for v1 pages: v2 pages encode these types with DELTA encodings
   * instead.
   */
  static final class Factory implements ValuesWriterFactory {
    private ValuesWriterFactory defaults;
    private ParquetProperties props;

    @Override
    public void initialize(ParquetProperties properties) {
      this.props = properties;
      // Not parquet-mr's DefaultValuesWriterFactory: it delegates to one static V1 (or V2)
      // factory that every initialize() re-points at the latest properties, so writers built on
      // other threads would hand this file's columns their allocator and dictionary settings.
      this.defaults =
          properties.getWriterVersion() == ParquetProperties.WriterVersion.PARQUET_1_0
              ? new DefaultV1ValuesWriterFactory()
              : new DefaultV2ValuesWriterFactory();
      defaults.initialize(properties);
    }

    @Override
    public ValuesWriter newValuesWriter(ColumnDescriptor descriptor) {
      if (props.getWriterVersion() == ParquetProperties.WriterVersion.PARQUET_1_0
          && !props.isDictionaryEnabled(descriptor)
          // BYTE_STREAM_SPLIT asked for the column: parquet-mr's writer, not PLAIN
          && !props.isByteStreamSplitEnabled(descriptor)) {
        switch (descriptor.getPrimitiveType().getPrimitiveTypeName()) {
          case INT32:
          case INT64:
          case FLOAT:
          case DOUBLE:
          case BINARY:
            int pageSize = props.getPageSizeThreshold();
            // a page is cut once its values pass the page size: an array of several page sizes
            // held one outsized value
            return new ArrayPlainValuesWriter(
                Math.min(pageSize, 64 << 10),
                (int) Math.min(1 << 30, Math.max(8L << 20, 4L * pageSize)));
          default:
            break;
        }
      }
      return defaults.newValuesWriter(descriptor);
    }
  }
}
