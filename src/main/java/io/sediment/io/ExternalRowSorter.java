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
import java.util.List;
import java.util.PriorityQueue;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;

/**
 * Sorts rows by byte-string keys (unsigned lexicographic) in bounded memory: rows are buffered up
 * to {@code bufferBytes}, each full buffer is sorted and spilled to a local temporary file, and
 * {@link #sorted} merges the spilled runs with the last buffer. Stable: rows with equal keys come
 * out in the order they were added. {@link #close} deletes the spill files, also after a failure.
 *
 * <p>The buffer holds no object per row, so a large one costs the garbage collector nothing: keys
 * and row bytes are appended to pages (up to 1 MiB), and each row is two longs in arrays (its key's
 * first 8 bytes, compared first, and where it lies), sorted as an index (as Flink's binary
 * in-memory sort buffer does).
 */
public final class ExternalRowSorter implements Closeable {

  /** Pages are a sixteenth of the buffer, between 4 KiB and 1 MiB. */
  private static final int MAX_PAGE_SIZE = 1 << 20;

  private static final int MIN_PAGE_SIZE = 4096;

  /** Spill files merged at once at most: more are first merged into one (bounded open files). */
  static final int MAX_FAN_IN = 64;

  /** Receives the sorted rows; a row is valid only during the call (it is reused). */
  public interface RowConsumer {
    void accept(BinaryRowData row) throws IOException;
  }

  private final int arity;
  private final long bufferBytes;
  private final File spillDir;
  private final List<File> spills = new ArrayList<>();
  // merged spill files whose delete failed: no input any more, deleted again at close
  private final List<File> undeleted = new ArrayList<>();
  private int spillCount;
  private final int pageSize;

  // the buffer: records [key length int][row length int][key][row] in pages
  private final List<byte[]> pages = new ArrayList<>();
  private final List<MemorySegment> segments = new ArrayList<>();
  private int pageOffset = Integer.MAX_VALUE / 2; // no page yet
  private long[] prefixes = new long[1024];
  private long[] pointers = new long[1024]; // page << 32 | offset
  private int count;
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
    this.pageSize = (int) Math.max(MIN_PAGE_SIZE, Math.min(MAX_PAGE_SIZE, this.bufferBytes / 16));
  }

  /** Adds a row (its bytes are copied: {@code row} may be reused by the caller). */
  public void add(byte[] key, BinaryRowData row) throws IOException {
    int rowSize = row.getSizeInBytes();
    int size = 8 + key.length + rowSize;
    if (pages.isEmpty() || pageOffset + size > pages.get(pages.size() - 1).length) {
      byte[] page = new byte[Math.max(pageSize, size)];
      pages.add(page);
      segments.add(MemorySegmentFactory.wrap(page));
      pageOffset = 0;
      buffered += page.length;
    }
    int pageIndex = pages.size() - 1;
    byte[] page = pages.get(pageIndex);
    int at = pageOffset;
    putInt(page, at, key.length);
    putInt(page, at + 4, rowSize);
    System.arraycopy(key, 0, page, at + 8, key.length);
    BinarySegmentUtils.copyToBytes(
        row.getSegments(), row.getOffset(), page, at + 8 + key.length, rowSize);
    pageOffset = at + size;
    if (count == prefixes.length) {
      prefixes = Arrays.copyOf(prefixes, count * 2);
      pointers = Arrays.copyOf(pointers, count * 2);
      buffered += count * 16L;
    }
    prefixes[count] = prefix(key);
    pointers[count] = ((long) pageIndex << 32) | at;
    count++;
    if (buffered >= bufferBytes) {
      spill();
    }
  }

  /** The number of times the buffer was spilled so far. */
  public int spillCount() {
    return spillCount;
  }

  /** Hands every added row to {@code out} in key order (once). */
  public void sorted(RowConsumer out) throws IOException {
    int[] order = sortedIndex();
    if (spills.isEmpty()) {
      BinaryRowData row = new BinaryRowData(arity);
      for (int i : order) {
        pointRow(row, i);
        out.accept(row);
      }
      clearBuffer();
      return;
    }
    List<Run> runs = new ArrayList<>();
    try {
      for (File f : spills) {
        runs.add(new SpillRun(f, arity));
      }
      runs.add(new BufferRun(order));
      merge(runs, r -> out.accept(r.row));
    } finally {
      for (Run r : runs) {
        r.close();
      }
      clearBuffer();
    }
  }

  private interface RunConsumer {
    void accept(Run current) throws IOException;
  }

  /** Hands the current record of each run to {@code out}, in key order; ties to earlier runs. */
  private static void merge(List<Run> runs, RunConsumer out) throws IOException {
    PriorityQueue<Run> queue =
        new PriorityQueue<>(
            (a, b) -> {
              int c = Long.compareUnsigned(a.prefix, b.prefix);
              if (c == 0) {
                c = a.compareKey(b);
              }
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
      out.accept(r);
      if (r.advance()) {
        queue.add(r);
      }
    }
  }

  /** Merges the spill files into one, in their order (so ties keep the order rows were added). */
  private void mergeSpills() throws IOException {
    File merged = File.createTempFile("sort-", ".spill", spillDir);
    List<Run> runs = new ArrayList<>();
    try {
      for (File f : spills) {
        runs.add(new SpillRun(f, arity));
      }
      try (DataOutputStream out =
          new DataOutputStream(
              new BufferedOutputStream(Files.newOutputStream(merged.toPath()), 1 << 16))) {
        merge(
            runs,
            r -> {
              SpillRun run = (SpillRun) r;
              out.writeInt(run.keyLength);
              out.writeInt(run.row.getSizeInBytes());
              out.write(run.record, 0, run.keyLength + run.row.getSizeInBytes());
            });
      }
    } catch (IOException | RuntimeException | Error e) {
      Files.deleteIfExists(merged.toPath());
      throw e;
    } finally {
      for (Run r : runs) {
        r.close();
      }
    }
    List<File> old = new ArrayList<>(spills);
    spills.clear();
    spills.add(merged); // the one input now; close() deletes it whatever happens next
    for (File f : old) {
      if (!f.delete() && f.exists()) {
        undeleted.add(f); // not an input any more (its rows are in merged): close() tries again
      }
    }
  }

  /** Spill files on disk now (at most {@link #MAX_FAN_IN}). */
  int spillFiles() {
    return spills.size();
  }

  /** The buffered rows' positions in key order, stable (a merge sort of the index). */
  private int[] sortedIndex() {
    int[] a = new int[count];
    for (int i = 0; i < count; i++) {
      a[i] = i;
    }
    int[] b = new int[count];
    // bottom-up merge sort: runs of 1, 2, 4, ...; equal keys keep the lower (earlier) index first
    for (int width = 1; width < count; width *= 2) {
      for (int lo = 0; lo < count; lo += 2 * width) {
        int mid = Math.min(lo + width, count);
        int hi = Math.min(lo + 2 * width, count);
        int i = lo;
        int j = mid;
        int k = lo;
        while (i < mid && j < hi) {
          b[k++] = compare(a[j], a[i]) < 0 ? a[j++] : a[i++];
        }
        while (i < mid) {
          b[k++] = a[i++];
        }
        while (j < hi) {
          b[k++] = a[j++];
        }
      }
      int[] t = a;
      a = b;
      b = t;
    }
    return a;
  }

  private int compare(int x, int y) {
    int c = Long.compareUnsigned(prefixes[x], prefixes[y]);
    if (c != 0) {
      return c;
    }
    byte[] px = pages.get((int) (pointers[x] >>> 32));
    int ox = (int) pointers[x];
    byte[] py = pages.get((int) (pointers[y] >>> 32));
    int oy = (int) pointers[y];
    return Arrays.compareUnsigned(
        px, ox + 8, ox + 8 + getInt(px, ox), py, oy + 8, oy + 8 + getInt(py, oy));
  }

  private void pointRow(BinaryRowData row, int i) {
    int page = (int) (pointers[i] >>> 32);
    int at = (int) pointers[i];
    byte[] bytes = pages.get(page);
    row.pointTo(segments.get(page), at + 8 + getInt(bytes, at), getInt(bytes, at + 4));
  }

  private void spill() throws IOException {
    int[] order = sortedIndex();
    Files.createDirectories(spillDir.toPath());
    File file = File.createTempFile("sort-", ".spill", spillDir);
    spills.add(file);
    try (DataOutputStream out =
        new DataOutputStream(
            new BufferedOutputStream(Files.newOutputStream(file.toPath()), 1 << 16))) {
      for (int i : order) {
        byte[] page = pages.get((int) (pointers[i] >>> 32));
        int at = (int) pointers[i];
        // the record as it lies in the page: lengths, key, row
        out.write(page, at, 8 + getInt(page, at) + getInt(page, at + 4));
      }
    }
    clearBuffer();
    spillCount++;
    if (spills.size() >= MAX_FAN_IN) {
      mergeSpills();
    }
  }

  private void clearBuffer() {
    pages.clear();
    segments.clear();
    pageOffset = Integer.MAX_VALUE / 2;
    count = 0;
    buffered = (long) prefixes.length * 16;
  }

  @Override
  public void close() throws IOException {
    clearBuffer();
    IOException failure = null;
    spills.addAll(undeleted);
    undeleted.clear();
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

  /**
   * The first 8 bytes of {@code key}, big-endian, zero-padded: unsigned, they order as the keys'
   * prefixes.
   */
  public static long prefix(byte[] key) {
    return prefix(key, 0, key.length);
  }

  private static long prefix(byte[] bytes, int from, int length) {
    long p = 0;
    int n = Math.min(8, length);
    for (int i = 0; i < n; i++) {
      p |= (bytes[from + i] & 0xFFL) << (56 - 8 * i);
    }
    return p;
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  private static int getInt(byte[] b, int at) {
    return ((b[at] & 0xFF) << 24)
        | ((b[at + 1] & 0xFF) << 16)
        | ((b[at + 2] & 0xFF) << 8)
        | (b[at + 3] & 0xFF);
  }

  /** A sorted run being merged: its current key (bytes and prefix) and row. */
  private abstract static class Run implements Closeable {
    int index;
    long prefix;
    BinaryRowData row;
    // the current key: keyBytes[keyFrom, keyTo), set by advance
    byte[] keyBytes;
    int keyFrom;
    int keyTo;

    abstract boolean advance() throws IOException;

    /** Compares the current keys (after equal prefixes). */
    int compareKey(Run other) {
      return Arrays.compareUnsigned(
          keyBytes, keyFrom, keyTo, other.keyBytes, other.keyFrom, other.keyTo);
    }

    @Override
    public void close() throws IOException {}
  }

  private final class BufferRun extends Run {
    private final int[] order;
    private int next;

    BufferRun(int[] order) {
      this.order = order;
      this.row = new BinaryRowData(arity);
    }

    @Override
    boolean advance() {
      if (next >= order.length) {
        return false;
      }
      int i = order[next++];
      prefix = prefixes[i];
      keyBytes = pages.get((int) (pointers[i] >>> 32));
      int at = (int) pointers[i];
      keyFrom = at + 8;
      keyTo = keyFrom + getInt(keyBytes, at);
      pointRow(row, i);
      return true;
    }
  }

  private static final class SpillRun extends Run {
    private final DataInputStream in;
    private byte[] record = new byte[256];
    private MemorySegment segment = MemorySegmentFactory.wrap(record);
    private int keyLength;

    SpillRun(File file, int arity) throws IOException {
      this.in =
          new DataInputStream(
              new BufferedInputStream(Files.newInputStream(file.toPath()), 1 << 16));
      this.row = new BinaryRowData(arity);
    }

    @Override
    boolean advance() throws IOException {
      try {
        keyLength = in.readInt();
      } catch (EOFException end) {
        return false;
      }
      int rowLength = in.readInt();
      if (record.length < keyLength + rowLength) {
        record = new byte[Math.max(keyLength + rowLength, record.length * 2)];
        segment = MemorySegmentFactory.wrap(record);
      }
      in.readFully(record, 0, keyLength + rowLength);
      prefix = prefix(record, 0, keyLength);
      keyBytes = record;
      keyFrom = 0;
      keyTo = keyLength;
      // the buffer is reused: the consumer has written the previous row before this call
      row.pointTo(segment, keyLength, rowLength);
      return true;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
