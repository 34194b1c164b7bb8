package io.sediment.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Random;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The stream Parquet writes data files through: its positions, its bytes, its system calls. */
class FlinkOutputFileTest {

  @TempDir java.nio.file.Path dir;

  /** Writes of every size (single bytes, slices, pages larger than any buffer) in random order. */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
  void everyWriteLandsInOrderAndThePositionCountsIt(long seed) throws IOException {
    Random random = new Random(seed);
    Path path = new Path(dir.resolve("f-" + seed).toUri());
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    FlinkOutputFile file = new FlinkOutputFile(path);
    try (PositionOutputStream out = file.create(0)) {
      for (int i = 0; i < 300; i++) {
        assertThat(out.getPos()).isEqualTo(expected.size());
        int kind = random.nextInt(4);
        if (kind == 0) {
          int b = random.nextInt(256);
          out.write(b);
          expected.write(b);
        } else {
          int len = kind == 3 ? random.nextInt(100_000) : random.nextInt(kind == 1 ? 64 : 20_000);
          byte[] bytes = new byte[len + 7];
          random.nextBytes(bytes);
          out.write(bytes, 3, len);
          expected.write(bytes, 3, len);
        }
        if (random.nextInt(50) == 0) {
          out.flush();
        }
      }
    }
    assertThat(file.stream().getPos()).isEqualTo(expected.size());
    assertThat(Files.readAllBytes(dir.resolve("f-" + seed))).isEqualTo(expected.toByteArray());
  }

  /**
   * Parquet writes page headers and footers field by field: those small writes reach the file
   * system in few calls (on a local file system each call is a system call).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 10, 100})
  void smallWritesReachTheFileSystemInFewCalls(int size) throws IOException {
    CountingStream counted = new CountingStream();
    FlinkOutputFile.PositionStream out = new FlinkOutputFile.PositionStream(counted);
    byte[] bytes = new byte[size];
    for (int i = 0; i < 1000; i++) {
      if (size == 1) {
        out.write(i);
      } else {
        out.write(bytes, 0, size);
      }
    }
    out.close();
    assertThat(counted.bytes).isEqualTo(1000L * size);
    assertThat(counted.writes).isLessThanOrEqualTo(1 + 1000L * size / (16 * 1024));
    assertThat(counted.closed).isTrue();
  }

  /** A stream that fails on close (an interrupted channel) still releases its descriptor. */
  @ParameterizedTest
  @ValueSource(ints = {0, 10})
  void aFailingWriteAtCloseStillClosesTheStream(int buffered) throws IOException {
    CountingStream failing = new CountingStream();
    failing.failWrites = true;
    FlinkOutputFile.PositionStream out = new FlinkOutputFile.PositionStream(failing);
    out.write(new byte[buffered], 0, buffered);
    if (buffered > 0) {
      assertThatThrownBy(out::close).isInstanceOf(IOException.class).hasMessage("write failed");
    } else {
      out.close();
    }
    assertThat(failing.closed).isTrue();
  }

  private static final class CountingStream extends FSDataOutputStream {
    long writes;
    long bytes;
    boolean closed;
    boolean failWrites;

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (failWrites) {
        throw new IOException("write failed");
      }
      writes++;
      bytes += len;
    }

    @Override
    public long getPos() {
      return bytes;
    }

    @Override
    public void flush() {}

    @Override
    public void sync() {}

    @Override
    public void close() {
      closed = true;
    }
  }
}
