package io.sediment.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Compresses Parquet pages with one reused zstd context and reused buffers, straight through
 * zstd-jni: Parquet's codec path opens a compression stream and copies the output twice per page.
 * The returned bytes are valid until the next call (the page writer copies them at once). One per
 * file writer; {@link #release()} frees the native context.
 */
final class ZstdPageCompressor implements CompressionCodecFactory.BytesInputCompressor {

  private final ZstdCompressCtx ctx;
  private final Buffer input = new Buffer();
  private byte[] output = new byte[0];

  ZstdPageCompressor(int level) {
    this.ctx = new ZstdCompressCtx().setLevel(level);
  }

  @Override
  public BytesInput compress(BytesInput bytes) throws IOException {
    input.reset();
    bytes.writeAllTo(input);
    int bound = (int) Zstd.compressBound(input.size);
    if (output.length < bound) {
      output = new byte[Math.max(bound, output.length + (output.length >> 1))];
    }
    int n = ctx.compressByteArray(output, 0, output.length, input.bytes, 0, input.size);
    return BytesInput.from(output, 0, n);
  }

  @Override
  public CompressionCodecName getCodecName() {
    return CompressionCodecName.ZSTD;
  }

  @Override
  public void release() {
    ctx.close();
  }

  /** A growable byte array the page bytes are gathered into. */
  private static final class Buffer extends OutputStream {
    byte[] bytes = new byte[64 * 1024];
    int size;

    void reset() {
      size = 0;
    }

    private void ensure(int extra) {
      if (size + extra > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(size + extra, bytes.length * 2));
      }
    }

    @Override
    public void write(int b) {
      ensure(1);
      bytes[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, bytes, size, len);
      size += len;
    }
  }
}
