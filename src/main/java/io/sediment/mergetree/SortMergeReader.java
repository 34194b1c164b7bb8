package io.sediment.mergetree;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;

/**
 * K-way merge of sorted runs: a priority queue holds the current row of each run, ordered by key
 * then sequence number; the versions of one key go through the merge function. Streaming: one row
 * per run is held at a time. Returned rows are reused by the next call.
 */
public final class SortMergeReader implements RowIterator {

  private final List<RowIterator> runs;
  private final KeyValueLayout layout;
  private final Comparator<RowData> keyComparator;
  private final MergeFunction merge;
  private final boolean dropDeletes;
  private final PriorityQueue<Head> heap;
  private final GenericRowData groupKey;
  private final KeyValueLayout.RowCopier copier;
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
    this.groupKey = new GenericRowData(layout.fileType().getFieldCount());
    this.copier = new KeyValueLayout.RowCopier(layout.fileType());
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
      copier.copy(h.row, groupKey);
      merge.reset();
      merge.add(h.row);
      advance(h);
      while (!heap.isEmpty() && keyComparator.compare(heap.peek().row, groupKey) == 0) {
        h = heap.poll();
        merge.add(h.row);
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
