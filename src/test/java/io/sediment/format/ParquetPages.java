package io.sediment.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.zip.CRC32;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Test helper: the pages of a Parquet file as they lie on disk (where each header and body starts,
 * whether the header carries a CRC and whether it matches), and byte flipping to corrupt them.
 */
public final class ParquetPages {

  private ParquetPages() {}

  /** One page of a column chunk. */
  public record Page(
      int rowGroup,
      String column,
      PageType type,
      long headerOffset,
      long bodyOffset,
      int compressedSize,
      boolean hasCrc,
      boolean crcMatches) {}

  /** Every page of every column chunk of {@code file}, in file order. */
  public static List<Page> pages(java.nio.file.Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      ParquetMetadata footer = footer(file);
      List<Page> pages = new ArrayList<>();
      for (int g = 0; g < footer.getBlocks().size(); g++) {
        BlockMetaData block = footer.getBlocks().get(g);
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          long pos = chunk.getStartingPos();
          long end = pos + chunk.getTotalSize();
          while (pos < end) {
            Counting in = new Counting(bytes, (int) pos);
            PageHeader header = Util.readPageHeader(in);
            long body = pos + in.read;
            int size = header.getCompressed_page_size();
            CRC32 crc = new CRC32();
            crc.update(bytes, (int) body, size);
            pages.add(
                new Page(
                    g,
                    chunk.getPath().toDotString(),
                    header.getType(),
                    pos,
                    body,
                    size,
                    header.isSetCrc(),
                    header.isSetCrc() && header.getCrc() == (int) crc.getValue()));
            pos = body + size;
          }
        }
      }
      return pages;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first page of {@code type} of {@code column} in {@code rowGroup}. */
  public static Page page(java.nio.file.Path file, int rowGroup, String column, PageType type) {
    return pages(file).stream()
        .filter(p -> p.rowGroup() == rowGroup && p.column().equals(column) && p.type() == type)
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("No " + type + " of " + column + " in row group " + rowGroup));
  }

  /** Flips the bits of the byte in the middle of the page's body. */
  public static void flipBodyByte(java.nio.file.Path file, Page page) {
    flipByte(file, page.bodyOffset() + page.compressedSize() / 2);
  }

  /** Flips the bits of the byte at {@code offset}. */
  public static void flipByte(java.nio.file.Path file, long offset) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      bytes[(int) offset] ^= (byte) 0xFF;
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes every page header of {@code file} look like one written without a CRC, as an older writer
   * would, keeping the file's size and every offset: the crc field (4, an i32) is retyped as an
   * i64, which readers skip as an unknown field (both are zigzag varints in Thrift's compact
   * protocol).
   */
  public static void stripCrcs(java.nio.file.Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      for (Page page : pages(file)) {
        int p = (int) page.headerOffset();
        int field = 0;
        while (true) {
          int b = bytes[p] & 0xFF;
          int type = b & 0x0F;
          field += b >>> 4;
          if (field == 4 && type == 5) {
            bytes[p] = (byte) ((b & 0xF0) | 6);
            break;
          }
          if (type != 5 || field > 4) {
            throw new AssertionError("No crc in the header of " + page);
          }
          p++; // the field header, then its varint value
          while ((bytes[p] & 0x80) != 0) {
            p++;
          }
          p++;
        }
      }
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Rewrites the footer of {@code file} after {@code change}; the pages stay where they are. */
  public static void rewriteFooter(
      java.nio.file.Path file, Consumer<org.apache.parquet.format.FileMetaData> change) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      int length =
          ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
      int start = bytes.length - 8 - length;
      org.apache.parquet.format.FileMetaData meta =
          Util.readFileMetaData(new ByteArrayInputStream(bytes, start, length));
      change.accept(meta);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(bytes, 0, start);
      Util.writeFileMetaData(meta, out);
      int newLength = out.size() - start;
      out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(newLength).array());
      out.write(new byte[] {'P', 'A', 'R', '1'});
      Files.write(file, out.toByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static ParquetMetadata footer(java.nio.file.Path file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new FlinkInputFile(new Path(file.toUri())), DataFileReader.readOptions())) {
      return reader.getFooter();
    }
  }

  /** Reads from a byte array, counting the bytes read. */
  private static final class Counting extends InputStream {
    private final byte[] bytes;
    private int pos;
    int read;

    Counting(byte[] bytes, int pos) {
      this.bytes = bytes;
      this.pos = pos;
    }

    @Override
    public int read() {
      if (pos >= bytes.length) {
        return -1;
      }
      read++;
      return bytes[pos++] & 0xFF;
    }
  }
}
