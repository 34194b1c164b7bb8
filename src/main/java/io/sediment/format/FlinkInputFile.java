package io.sediment.format;

import io.sediment.fs.FileIO;
import java.io.IOException;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/** A Parquet {@link InputFile} on a Flink {@link FileSystem} path. */
public final class FlinkInputFile implements InputFile {

  private final Path path;
  private long length;

  /** An input file whose length is looked up lazily. */
  public FlinkInputFile(Path path) {
    this(path, -1);
  }

  /** An input file of known length (saves a file status call); negative = unknown. */
  public FlinkInputFile(Path path, long length) {
    this.path = path;
    this.length = length;
  }

  @Override
  public long getLength() throws IOException {
    if (length < 0) {
      length = FileIO.fileSystem(path).getFileStatus(path).getLen();
    }
    return length;
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    FSDataInputStream in = FileIO.fileSystem(path).open(path);
    return new DelegatingSeekableInputStream(in) {
      @Override
      public long getPos() throws IOException {
        return in.getPos();
      }

      @Override
      public void seek(long newPos) throws IOException {
        in.seek(newPos);
      }
    };
  }

  public Path path() {
    return path;
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
