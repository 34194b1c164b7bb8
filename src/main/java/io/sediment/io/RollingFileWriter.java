package io.sediment.io;

import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.WrittenFile;
import io.sediment.fs.FileIO;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Writes rows into a sequence of Parquet files of about {@code targetSize} bytes each. On {@link
 * #abort()} (or close before {@link #finish()}) every file it wrote is deleted.
 */
public final class RollingFileWriter implements Closeable {

  private final FileIO fileIO;
  private final Supplier<Path> nextPath;
  private final RowType rowType;
  private final Supplier<FileFormatOptions> format;
  private final long targetSize;
  private final List<WrittenFile> written = new ArrayList<>();
  private DataFileWriter current;
  private long nextSizeCheck;

  public RollingFileWriter(
      FileIO fileIO,
      Supplier<Path> nextPath,
      RowType rowType,
      FileFormatOptions format,
      long targetSize) {
    this(fileIO, nextPath, rowType, () -> format, targetSize);
  }

  /** A writer asking {@code format} for the options of each new file when it creates it. */
  public RollingFileWriter(
      FileIO fileIO,
      Supplier<Path> nextPath,
      RowType rowType,
      Supplier<FileFormatOptions> format,
      long targetSize) {
    this.fileIO = fileIO;
    this.nextPath = nextPath;
    this.rowType = rowType;
    this.format = format;
    this.targetSize = targetSize;
  }

  /**
   * Writes a row; returns true when this row was the last of a file (the file was closed after it),
   * so callers tracking per-file metadata (key ranges) know where files end.
   */
  public boolean write(RowData row) throws IOException {
    if (current == null) {
      current = DataFileWriter.create(nextPath.get(), rowType, format.get());
      nextSizeCheck = 128;
    }
    current.write(row);
    long rows = current.rowCount();
    if (rows >= nextSizeCheck) {
      // Checking the size walks every column's buffers: check again when, at the bytes per row
      // seen so far, the file is about halfway to the target (at least 128 rows later).
      long size = current.estimatedLength();
      if (size >= targetSize) {
        roll();
        return true;
      }
      long bytesPerRow = Math.max(1, size / rows);
      nextSizeCheck = rows + Math.max(128, Math.min(65_536, (targetSize - size) / bytesPerRow / 2));
    }
    return false;
  }

  /** Closes the current file; the next row starts a new one. */
  public void roll() throws IOException {
    if (current != null) {
      DataFileWriter w = current;
      current = null;
      written.add(w.finish());
    }
  }

  /**
   * Closes the last file and hands out every file written since the last call, in order. The writer
   * stays usable; files handed out are no longer deleted by {@link #abort()}.
   */
  public List<WrittenFile> finish() throws IOException {
    roll();
    List<WrittenFile> out = new ArrayList<>(written);
    written.clear();
    return out;
  }

  /** Deletes every file not yet handed out by {@link #finish()}, including a partial one. */
  public List<IOException> abort() {
    List<IOException> errors = new ArrayList<>();
    if (current != null) {
      try {
        current.close();
      } catch (IOException e) {
        errors.add(e);
      }
      current = null;
    }
    List<Path> paths = new ArrayList<>();
    for (WrittenFile f : written) {
      paths.add(f.path());
    }
    errors.addAll(fileIO.deleteAll(paths));
    written.clear();
    return errors;
  }

  @Override
  public void close() {
    abort();
  }
}
