package io.sediment.format;

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.io.IOException;
import java.util.function.Supplier;
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

  /**
   * @param zstd the context zstd pages are decompressed with, owned by the caller (creating one per
   *     page costs more than decoding a small page)
   */
  static PageDecompressor of(
      CompressionCodecName codec,
      CompressionCodecFactory factory,
      Supplier<ZstdDecompressCtx> zstd) {
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
          int n;
          try {
            n = zstd.get().decompressByteArray(dst, 0, size, src, offset, length);
          } catch (ZstdException e) {
            throw new IOException("Corrupt Parquet page: zstd " + e.getMessage(), e);
          }
          if (n != size) {
            throw new IOException(
                "Corrupt Parquet page: zstd " + n + " bytes, " + size + " expected");
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
