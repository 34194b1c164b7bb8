package io.sediment.io;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * Sorts rows by byte-string keys (unsigned lexicographic) in bounded memory: rows are buffered up
 * to {@code bufferBytes}, each full buffer is sorted and spilled to a local temporary file, and
 * {@link #sorted} merges the spilled runs with the last buffer. Stable: rows with equal keys come
 * out in the order they were added. {@link #close} deletes the spill files, also after a failure.
 */
public final class ExternalRowSorter implements Closeable {

  /** Bytes a buffered row costs beyond its key and row bytes (objects, references). */
  private static final int ENTRY_OVERHEAD = 96;

  private record Entry(byte[] key, BinaryRowData row) {}

  private static final Comparator<Entry> BY_KEY = (a, b) -> Arrays.compareUnsigned(a.key, b.key);

  /** Receives the sorted rows. */
  public interface RowConsumer {
    void accept(BinaryRowData row) throws IOException;
  }

  private final int arity;
  private final long bufferBytes;
  private final File spillDir;
  private final List<Entry> buffer = new ArrayList<>();
  private final List<File> spills = new ArrayList<>();
  private long buffered;

  /**
   * @param arity fields of the rows
   * @param bufferBytes memory the buffered rows may take before they are spilled
   * @param spillDir local directory of the spill files (created when needed)
   */
  public ExternalRowSorter(int arity, long bufferBytes, File spillDir) {
    this.arity = arity;
    this.bufferBytes = Math.max(1, bufferBytes);
    this.spillDir = spillDir;
  }

  /** Adds a row; the sorter keeps {@code row} (pass a copy of a reused row). */
  public void add(byte[] key, BinaryRowData row) throws IOException {
    buffer.add(new Entry(key, row));
    buffered += key.length + row.getSizeInBytes() + ENTRY_OVERHEAD;
    if (buffered >= bufferBytes) {
      spill();
    }
  }

  /** The number of spill files written so far. */
  public int spillCount() {
    return spills.size();
  }

  /** Hands every added row to {@code out} in key order (once). */
  public void sorted(RowConsumer out) throws IOException {
    buffer.sort(BY_KEY);
    if (spills.isEmpty()) {
      for (Entry e : buffer) {
        out.accept(e.row);
      }
      buffer.clear();
      return;
    }
    List<Run> runs = new ArrayList<>();
    try {
      for (File f : spills) {
        runs.add(new SpillRun(f, arity));
      }
      runs.add(new BufferRun(buffer));
      // ties go to the earlier run: rows added earlier come first
      PriorityQueue<Run> queue =
          new PriorityQueue<>(
              (a, b) -> {
                int c = Arrays.compareUnsigned(a.key(), b.key());
                return c != 0 ? c : Integer.compare(a.index, b.index);
              });
      for (int i = 0; i < runs.size(); i++) {
        Run r = runs.get(i);
        r.index = i;
        if (r.advance()) {
          queue.add(r);
        }
      }
      while (!queue.isEmpty()) {
        Run r = queue.poll();
        out.accept(r.row());
        if (r.advance()) {
          queue.add(r);
        }
      }
    } finally {
      for (Run r : runs) {
        r.close();
      }
      buffer.clear();
    }
  }

  private void spill() throws IOException {
    buffer.sort(BY_KEY);
    Files.createDirectories(spillDir.toPath());
    File file = File.createTempFile("sort-", ".spill", spillDir);
    spills.add(file);
    try (DataOutputStream out =
        new DataOutputStream(
            new BufferedOutputStream(Files.newOutputStream(file.toPath()), 1 << 16))) {
      for (Entry e : buffer) {
        out.writeInt(e.key.length);
        out.write(e.key);
        int size = e.row.getSizeInBytes();
        out.writeInt(size);
        out.write(BinarySegmentUtils.copyToBytes(e.row.getSegments(), e.row.getOffset(), size));
      }
    }
    buffer.clear();
    buffered = 0;
  }

  @Override
  public void close() throws IOException {
    buffer.clear();
    IOException failure = null;
    for (File f : spills) {
      try {
        Files.deleteIfExists(f.toPath());
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    spills.clear();
    if (failure != null) {
      throw failure;
    }
  }

  /** A sorted run being merged: its current row and key. */
  private abstract static class Run implements Closeable {
    int index;

    abstract boolean advance() throws IOException;

    abstract byte[] key();

    abstract BinaryRowData row();

    @Override
    public void close() throws IOException {}
  }

  private static final class BufferRun extends Run {
    private final List<Entry> entries;
    private int next;
    private Entry current;

    BufferRun(List<Entry> entries) {
      this.entries = entries;
    }

    @Override
    boolean advance() {
      current = next < entries.size() ? entries.get(next++) : null;
      return current != null;
    }

    @Override
    byte[] key() {
      return current.key;
    }

    @Override
    BinaryRowData row() {
      return current.row;
    }
  }

  private static final class SpillRun extends Run {
    private final DataInputStream in;
    private final int arity;
    private byte[] key;
    private BinaryRowData row;

    SpillRun(File file, int arity) throws IOException {
      this.in =
          new DataInputStream(
              new BufferedInputStream(Files.newInputStream(file.toPath()), 1 << 16));
      this.arity = arity;
    }

    @Override
    boolean advance() throws IOException {
      int keyLength;
      try {
        keyLength = in.readInt();
      } catch (EOFException end) {
        return false;
      }
      key = new byte[keyLength];
      in.readFully(key);
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      // a new row each time: the previous one may still be written by the consumer
      row = new BinaryRowData(arity);
      row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
      return true;
    }

    @Override
    byte[] key() {
      return key;
    }

    @Override
    BinaryRowData row() {
      return row;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
