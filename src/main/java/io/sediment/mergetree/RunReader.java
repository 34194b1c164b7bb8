package io.sediment.mergetree;

import io.sediment.format.DataFileReader;
import io.sediment.format.EncodingHints;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads one sorted run: its files one after another (in key order), opening one file at a time.
 * Rows whose position is set in the file's deletion vector are skipped. A returned row stays valid
 * until the second {@link #next()} after it, like {@link DataFileReader#next()}'s.
 */
public final class RunReader implements RowIterator {

  private final FileStore store;
  private final KeyValueLayout layout;
  private final BinaryRowData partition;
  private final int bucket;
  private final Iterator<DataFileMeta> files;
  private final Map<String, RoaringBitmap> deletionVectors;
  private EvolvingFileReader current;
  private RoaringBitmap currentDv;
  private int position;
  private DataFileMeta currentFile;
  private EncodingHints encodingHints;
  private boolean reuseValueBuffers;

  public RunReader(
      FileStore store,
      KeyValueLayout layout,
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files,
      Map<String, RoaringBitmap> deletionVectors) {
    this.store = store;
    this.layout = layout;
    this.partition = partition;
    this.bucket = bucket;
    this.files = files.iterator();
    this.deletionVectors = deletionVectors == null ? Map.of() : deletionVectors;
  }

  @Override
  public RowData next() throws IOException {
    while (true) {
      if (current == null) {
        if (!files.hasNext()) {
          return null;
        }
        currentFile = files.next();
        current =
            EvolvingFileReader.open(store, partition, bucket, currentFile, layout.fileType(), null);
        if (reuseValueBuffers) {
          current.reuseValueBuffers();
        }
        currentDv = deletionVectors.get(currentFile.fileName());
        if (encodingHints != null && !current.isMapped()) {
          encodingHints.observe(current.footer());
        }
        position = 0;
      }
      if (currentDv != null && currentDv.contains(position)) {
        // skipping keeps the previously returned row valid (see DataFileReader#next)
        if (current.skip()) {
          position++;
        } else {
          closeCurrent();
        }
        continue;
      }
      RowData row = current.next();
      if (row == null) {
        closeCurrent();
        continue;
      }
      position++;
      return row;
    }
  }

  /**
   * Reads the strings and byte arrays of every file opened from now on into reused buffers: a
   * returned row's values are then valid only as long as the row (see {@link
   * DataFileReader#reuseValueBuffers()}). For a compaction, whose merge and writer copy what they
   * keep; not for a scan, whose rows go to callers that may keep values.
   */
  public RunReader reuseValueBuffers() {
    this.reuseValueBuffers = true;
    return this;
  }

  /** Reports the footer of every file opened from now on to {@code hints}. */
  public RunReader observeEncodings(EncodingHints hints) {
    this.encodingHints = hints;
    return this;
  }

  /** The file of the row last returned. */
  public DataFileMeta currentFile() {
    return currentFile;
  }

  /** The position in its file of the row last returned. */
  public int currentPosition() {
    return position - 1;
  }

  private void closeCurrent() throws IOException {
    current.close();
    current = null;
  }

  @Override
  public void close() throws IOException {
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
