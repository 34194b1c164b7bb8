package io.sediment.mergetree;

import org.apache.flink.table.data.RowData;

/**
 * Merges the versions of one key into one row. Versions are added in version order (oldest first);
 * rows are file-layout rows ({@link KeyValueLayout}). Callers keep every added row valid until the
 * result has been consumed, so an implementation may return an added row itself (deduplicate does);
 * one that combines fields into a row of its own copies references to the values, which are valid
 * as long as the added rows (a compaction reads strings into reused buffers: {@link
 * RunReader#reuseValueBuffers()}), so nothing of a key's rows may be kept after {@link #reset()}.
 * The result is a file-layout row whose {@code _ROW_KIND} tells whether it is a delete; null means
 * "no row".
 */
public interface MergeFunction {

  void reset();

  void add(RowData kv);

  RowData result();
}
