package io.sediment.mergetree;

import org.apache.flink.table.data.RowData;

/**
 * Merges the versions of one key into one row. Versions are added in version order (oldest first);
 * rows are file-layout rows ({@link KeyValueLayout}) and may be reused by the caller after {@link
 * #add}, so implementations copy what they keep. The result is a file-layout row whose {@code
 * _ROW_KIND} tells whether it is a delete; null means "no row".
 */
public interface MergeFunction {

  void reset();

  void add(RowData kv);

  RowData result();
}
