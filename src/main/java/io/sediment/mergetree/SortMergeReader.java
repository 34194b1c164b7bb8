package io.sediment.mergetree;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
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
  private final MergeFunction merge;
  private final boolean dropDeletes;
  private final PriorityQueue<Head> heap;
  private boolean started;

  private static final class Head {
    final RowIterator run;
    final int index;
    RowData row;

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
    this.merge = merge;
    this.dropDeletes = dropDeletes;
    Comparator<RowData> kvs = layout.keyAndSequenceComparator();
    this.heap =
        new PriorityQueue<>(
            Math.max(1, runs.size()),
            (a, b) -> {
              int c = kvs.compare(a.row, b.row);
              return c != 0 ? c : Integer.compare(a.index, b.index);
            });
  }

  private void advance(Head h) throws IOException {
    h.row = h.run.next();
    if (h.row != null) {
      heap.add(h);
    }
  }

  @Override
  public RowData next() throws IOException {
    if (!started) {
      started = true;
      for (int i = 0; i < runs.size(); i++) {
        advance(new Head(runs.get(i), i));
      }
    }
    while (!heap.isEmpty()) {
      Head h = heap.poll();
      RowData last = h.row;
      merge.reset();
      merge.add(last);
      advance(h);
      while (!heap.isEmpty() && keyComparator.compare(heap.peek().row, last) == 0) {
        h = heap.poll();
        last = h.row;
        merge.add(last);
        advance(h);
      }
      RowData result = merge.result();
      if (result == null || (dropDeletes && KeyValueLayout.isRetract(layout.kind(result)))) {
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
