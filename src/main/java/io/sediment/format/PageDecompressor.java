package io.sediment.format;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Decompresses a Parquet page from one byte array into another. Zstandard (Sediment's default) goes
 * straight to zstd-jni without intermediate streams or buffers; other codecs through Parquet's
 * codec factory.
 */
interface PageDecompressor {

  void decompress(byte[] src, int offset, int length, byte[] dst, int size) throws IOException;

  static PageDecompressor of(CompressionCodecName codec, CompressionCodecFactory factory) {
    switch (codec) {
      case UNCOMPRESSED:
        return (src, offset, length, dst, size) -> {
          if (length != size) {
            throw new IOException(
                "Corrupt Parquet page: " + length + " stored bytes, " + size + " expected");
          }
          System.arraycopy(src, offset, dst, 0, size);
        };
      case ZSTD:
        return (src, offset, length, dst, size) -> {
          long n = Zstd.decompressByteArray(dst, 0, size, src, offset, length);
          if (Zstd.isError(n) || n != size) {
            throw new IOException(
                "Corrupt Parquet page: zstd "
                    + (Zstd.isError(n)
                        ? Zstd.getErrorName(n)
                        : n + " bytes, " + size + " expected"));
          }
        };
      default:
        CompressionCodecFactory.BytesInputDecompressor d = factory.getDecompressor(codec);
        return (src, offset, length, dst, size) -> {
          BytesInput out = d.decompress(BytesInput.from(src, offset, length), size);
          out.toByteBuffer().get(dst, 0, size);
        };
    }
  }
}
