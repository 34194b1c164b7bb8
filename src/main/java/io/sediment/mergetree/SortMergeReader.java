package io.sediment.mergetree;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.data.RowData;

/**
 * K-way merge of sorted runs: a priority queue holds the current row of each run, ordered by key
 * then sequence number; the versions of one key go through the merge function. Streaming: one row
 * per run is held at a time. Nothing is copied per row: a run's row stays valid until the run's
 * second {@code next()} after it ({@link RowIterator}), so the row last added to the merge function
 * is the group's key while the run moves on. Returned rows are only valid until the next call.
 */
public final class SortMergeReader implements RowIterator {

  private final List<RowIterator> runs;
  private final KeyValueLayout layout;
  private final Comparator<RowData> keyComparator;
  private final KeyValueLayout.IntegralKey integralKey;
  private final int sequenceIndex;
  private final MergeFunction merge;
  private final boolean dropDeletes;
  // a binary min-heap of the runs' current rows, by key, sequence number, run index
  private final Head[] heap;
  private int size;
  private boolean started;

  private static final class Head {
    final RowIterator run;
    final int index;
    RowData row;
    // cached from row: the key when it is one integral column, and the sequence number
    long key;
    long seq;

    Head(RowIterator run, int index) {
      this.run = run;
      this.index = index;
    }
  }

  /**
   * @param runs sorted runs, each ordered by key then sequence number
   * @param dropDeletes whether deletes (retractions) are dropped from the output
   */
  public SortMergeReader(
      List<? extends RowIterator> runs,
      KeyValueLayout layout,
      MergeFunction merge,
      boolean dropDeletes) {
    this.runs = new ArrayList<>(runs);
    this.layout = layout;
    this.keyComparator = layout.keyComparator();
    this.integralKey = layout.integralKey();
    this.sequenceIndex = layout.sequenceIndex();
    this.merge = merge;
    this.dropDeletes = dropDeletes;
    this.heap = new Head[runs.size()];
  }

  private int compare(Head a, Head b) {
    int c = integralKey != null ? Long.compare(a.key, b.key) : keyComparator.compare(a.row, b.row);
    if (c != 0) {
      return c;
    }
    c = Long.compare(a.seq, b.seq);
    return c != 0 ? c : Integer.compare(a.index, b.index);
  }

  /** Reads the run's next row into {@code h}; false at the run's end. */
  private boolean read(Head h) throws IOException {
    RowData row = h.run.next();
    h.row = row;
    if (row == null) {
      return false;
    }
    h.seq = row.getLong(sequenceIndex);
    if (integralKey != null) {
      h.key = integralKey.get(row);
    }
    return true;
  }

  /** Moves the top run to its next row and restores the heap (drops the run at its end). */
  private void advanceTop() throws IOException {
    if (!read(heap[0])) {
      heap[0] = heap[--size];
      heap[size] = null;
    }
    siftDown();
  }

  private void siftDown() {
    int i = 0;
    Head h = heap[0];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && compare(heap[child + 1], heap[child]) < 0) {
        child++;
      }
      if (compare(heap[child], h) >= 0) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    if (size > 0) {
      heap[i] = h;
    }
  }

  private boolean topHasKeyOf(RowData last, long lastKey) {
    Head top = heap[0];
    return integralKey != null ? top.key == lastKey : keyComparator.compare(top.row, last) == 0;
  }

  @Override
  public RowData next() throws IOException {
    if (!started) {
      started = true;
      for (int i = 0; i < runs.size(); i++) {
        Head h = new Head(runs.get(i), i);
        if (read(h)) {
          // sift up
          int j = size++;
          while (j > 0 && compare(h, heap[(j - 1) / 2]) < 0) {
            heap[j] = heap[(j - 1) / 2];
            j = (j - 1) / 2;
          }
          heap[j] = h;
        }
      }
    }
    while (size > 0) {
      Head h = heap[0];
      RowData last = h.row;
      long lastKey = h.key;
      merge.reset();
      merge.add(last);
      advanceTop();
      while (size > 0 && topHasKeyOf(last, lastKey)) {
        last = heap[0].row;
        merge.add(last);
        advanceTop();
      }
      RowData result = merge.result();
      if (result == null || (dropDeletes && layout.isRetract(result))) {
        continue;
      }
      return result;
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (RowIterator r : runs) {
      try {
        r.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
