package io.sediment.mergetree;

import java.io.Closeable;
import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.table.data.RowData;

/**
 * A pull iterator of rows; {@code next()} returns null at the end. It may reuse row objects, but a
 * returned row must stay valid until the second {@code next()} after it (a merge compares a run's
 * previous row with its current one).
 */
public interface RowIterator extends Closeable {

  RowData next() throws IOException;

  @Override
  default void close() throws IOException {}

  /** Rows of a list (an in-memory sorted run). */
  static RowIterator of(List<? extends RowData> rows) {
    Iterator<? extends RowData> it = rows.iterator();
    return () -> it.hasNext() ? it.next() : null;
  }
}
