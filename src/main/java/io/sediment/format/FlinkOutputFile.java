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

  /** Position stream over a Flink output stream; remembers the final position on close. */
  static final class PositionStream extends PositionOutputStream {
    private final FSDataOutputStream out;
    private boolean closed;
    private long finalPos = -1;

    PositionStream(FSDataOutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() throws IOException {
      return closed ? finalPos : out.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    /**
     * Closes the stream, whatever asking its final position does: after an interrupt the local file
     * system has closed the channel, and the descriptor must still be released.
     */
    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        finalPos = out.getPos();
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
