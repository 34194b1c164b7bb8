package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

class ArrayPlainValuesWriterTest {

  /** Writes the same random values to both writers, page after page. */
  private static void writeRandom(SplittableRandom r, int n, ValuesWriter... writers) {
    for (int i = 0; i < n; i++) {
      int kind = r.nextInt(5);
      long l = r.nextLong();
      byte[] bytes = new byte[r.nextInt(3) == 0 ? r.nextInt(3000) : r.nextInt(40)];
      for (int b = 0; b < bytes.length; b++) {
        bytes[b] = (byte) r.nextInt(256);
      }
      int off = bytes.length == 0 ? 0 : r.nextInt(bytes.length);
      Binary slice = Binary.fromReusedByteArray(bytes, off, bytes.length - off);
      for (ValuesWriter w : writers) {
        switch (kind) {
          case 0 -> w.writeInteger((int) l);
          case 1 -> w.writeLong(l);
          // random bits: NaNs with payloads among them
          case 2 -> w.writeFloat(Float.intBitsToFloat((int) l));
          case 3 -> w.writeDouble(Double.longBitsToDouble(l));
          default -> w.writeBytes(slice);
        }
      }
    }
  }

  @Test
  void writesTheBytesOfParquetsPlainWriterAcrossGrowthAndResets() throws Exception {
    SplittableRandom r = new SplittableRandom(42);
    ArrayPlainValuesWriter ours = new ArrayPlainValuesWriter(64, 4096);
    PlainValuesWriter parquets = new PlainValuesWriter(64, 1 << 20, new HeapByteBufferAllocator());
    boolean grew = false;
    for (int page = 0; page < 20; page++) {
      writeRandom(r, r.nextInt(5_000), ours, parquets);
      assertThat(ours.getBufferedSize()).isEqualTo(parquets.getBufferedSize());
      assertThat(ours.getBytes().toByteArray())
          .as("page " + page)
          .isEqualTo(parquets.getBytes().toByteArray());
      grew |= ours.getAllocatedSize() > 4096;
      ours.reset();
      parquets.reset();
    }
    assertThat(ours.getEncoding()).isEqualTo(Encoding.PLAIN);
    // the pages above grew the array past 4096 bytes: a reset gives it back
    assertThat(grew).isTrue();
    assertThat(ours.getAllocatedSize()).isLessThanOrEqualTo(4096);
    assertThat(ours.getBufferedSize()).isZero();
  }

  @Test
  void factoryUsesItOnlyForColumnsWrittenPlainInV1Pages() {
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message m { required int64 a; optional binary b; optional int64 c; optional boolean"
                + " d; }");
    ColumnDescriptor a = schema.getColumnDescription(new String[] {"a"});
    ColumnDescriptor b = schema.getColumnDescription(new String[] {"b"});
    ColumnDescriptor c = schema.getColumnDescription(new String[] {"c"});
    ColumnDescriptor d = schema.getColumnDescription(new String[] {"d"});
    ParquetProperties v1 =
        ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withDictionaryEncoding(true)
            .withDictionaryEncoding("a", false)
            .withDictionaryEncoding("b", false)
            .withDictionaryEncoding("d", false)
            .withValuesWriterFactory(new ArrayPlainValuesWriter.Factory())
            .build();
    assertThat(v1.newValuesWriter(a)).isInstanceOf(ArrayPlainValuesWriter.class);
    assertThat(v1.newValuesWriter(b)).isInstanceOf(ArrayPlainValuesWriter.class);
    // dictionary columns and booleans (bit-packed when plain) keep parquet-mr's writers
    assertThat(v1.newValuesWriter(c)).isNotInstanceOf(ArrayPlainValuesWriter.class);
    assertThat(v1.newValuesWriter(d)).isNotInstanceOf(ArrayPlainValuesWriter.class);
    ParquetProperties v2 =
        ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_2_0)
            .withDictionaryEncoding(false)
            .withValuesWriterFactory(new ArrayPlainValuesWriter.Factory())
            .build();
    assertThat(v2.newValuesWriter(a)).isNotInstanceOf(ArrayPlainValuesWriter.class);
  }

  @Test
  void factoryLeavesByteStreamSplitColumnsToParquetMr() {
    MessageType schema =
        MessageTypeParser.parseMessageType(
            "message m { required double x; required int64 y; required double z; }");
    ColumnDescriptor x = schema.getColumnDescription(new String[] {"x"});
    ColumnDescriptor y = schema.getColumnDescription(new String[] {"y"});
    ColumnDescriptor z = schema.getColumnDescription(new String[] {"z"});
    ParquetProperties props =
        ParquetProperties.builder()
            .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
            .withDictionaryEncoding(false)
            .withByteStreamSplitEncoding("x", true)
            .withValuesWriterFactory(new ArrayPlainValuesWriter.Factory())
            .build();
    // a column asked for BYTE_STREAM_SPLIT must not be written PLAIN
    assertThat(props.newValuesWriter(x).getEncoding()).isEqualTo(Encoding.BYTE_STREAM_SPLIT);
    assertThat(props.newValuesWriter(y)).isInstanceOf(ArrayPlainValuesWriter.class);
    assertThat(props.newValuesWriter(z)).isInstanceOf(ArrayPlainValuesWriter.class);
  }
}
