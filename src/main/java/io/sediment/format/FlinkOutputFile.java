package io.sediment.format;

import io.sediment.fs.FileIO;
import java.io.IOException;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/** A Parquet {@link OutputFile} on a Flink {@link FileSystem} path. */
public final class FlinkOutputFile implements OutputFile {

  private final Path path;
  private PositionStream stream;

  public FlinkOutputFile(Path path) {
    this.path = path;
  }

  @Override
  public PositionOutputStream create(long blockSizeHint) throws IOException {
    return open(FileSystem.WriteMode.NO_OVERWRITE);
  }

  @Override
  public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
    return open(FileSystem.WriteMode.OVERWRITE);
  }

  private PositionOutputStream open(FileSystem.WriteMode mode) throws IOException {
    if (stream != null) {
      throw new IOException("Output file already opened: " + path);
    }
    FSDataOutputStream out = FileIO.fileSystem(path).create(path, mode);
    stream = new PositionStream(out);
    return stream;
  }

  @Override
  public boolean supportsBlockSize() {
    return false;
  }

  @Override
  public long defaultBlockSize() {
    return 0;
  }

  @Override
  public String getPath() {
    return path.toString();
  }

  public Path path() {
    return path;
  }

  /** The stream opened by {@link #create}, or null. */
  PositionStream stream() {
    return stream;
  }

  /**
   * Position stream over a Flink output stream, buffered: Parquet writes page headers and the
   * footer field by field, and an unbuffered local stream makes each a system call. Counts the
   * position itself (every file is written from its start); remembers the final one on close.
   */
  static final class PositionStream extends PositionOutputStream {
    private static final int BUFFER_BYTES = 16 * 1024;

    private final FSDataOutputStream out;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private int buffered;
    private long written; // bytes handed to out
    private boolean closed;

    PositionStream(FSDataOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return written + buffered;
    }

    @Override
    public void write(int b) throws IOException {
      if (buffered == BUFFER_BYTES) {
        drain();
      }
      buffer[buffered++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (len > BUFFER_BYTES - buffered) {
        drain();
        if (len >= BUFFER_BYTES) {
          // a page: straight through, no copy
          out.write(b, off, len);
          written += len;
          return;
        }
      }
      System.arraycopy(b, off, buffer, buffered, len);
      buffered += len;
    }

    private void drain() throws IOException {
      if (buffered > 0) {
        out.write(buffer, 0, buffered);
        written += buffered;
        buffered = 0;
      }
    }

    @Override
    public void flush() throws IOException {
      drain();
      out.flush();
    }

    /**
     * Writes what is buffered and closes the stream, whatever writing does: after an interrupt the
     * local file system has closed the channel, and the descriptor must still be released.
     */
    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        drain();
      } catch (IOException | RuntimeException e) {
        try {
          out.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
      out.close();
    }

    boolean isClosed() {
      return closed;
    }
  }
}
