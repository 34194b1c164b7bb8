package io.sediment.mergetree;

import io.sediment.manifest.DataFileMeta;
import java.io.Closeable;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.utils.ProjectedRowData;

/**
 * Looks up keys, in increasing order, in one sorted run (a level >= 1) through the local lookup
 * files of its data files: a merge join, so each lookup file is read once, sequentially.
 */
public final class LevelLookup implements Closeable {

  private final LocalKeyCache cache;
  private final BinaryRowData partition;
  private final int bucket;
  private final List<DataFileMeta> files;
  private final Comparator<RowData> keyComparator;
  private final Comparator<RowData> keyRowComparator;
  private final ProjectedRowData keyView;
  // a one-column integral key compared as a long, not through the key comparator
  private final KeyValueLayout.IntegralKey integralKey;
  private int index;
  private LocalKeyCache.Cursor cursor;
  private BinaryRowData current;

  public LevelLookup(
      LocalKeyCache cache,
      KeyValueLayout layout,
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files) {
    this.cache = cache;
    this.partition = partition;
    this.bucket = bucket;
    this.files = files;
    this.keyComparator = layout.keyComparator();
    this.keyRowComparator = layout.keyRowComparator();
    this.keyView = ProjectedRowData.from(layout.keyIndexes());
    this.integralKey = layout.integralKey();
  }

  /** The file holding {@code kv}'s key, with {@link #position()} and {@link #row()}; or null. */
  public DataFileMeta seek(RowData kv) throws IOException {
    keyView.replaceRow(kv);
    while (index < files.size()
        && keyRowComparator.compare(files.get(index).maxKey(), keyView) < 0) {
      closeCursor();
      index++;
    }
    if (index >= files.size()) {
      return null;
    }
    DataFileMeta file = files.get(index);
    if (keyRowComparator.compare(file.minKey(), keyView) > 0) {
      return null;
    }
    if (cursor == null) {
      cursor = cache.open(cache.lookupFile(partition, bucket, file));
      current = cursor.next();
    }
    if (integralKey != null) {
      long key = integralKey.get(kv);
      while (current != null && integralKey.get(current) < key) {
        current = cursor.next();
      }
      return current != null && integralKey.get(current) == key ? file : null;
    }
    while (current != null && keyComparator.compare(current, kv) < 0) {
      current = cursor.next();
    }
    return current != null && keyComparator.compare(current, kv) == 0 ? file : null;
  }

  public int position() {
    return cursor.position();
  }

  public BinaryRowData row() {
    return current;
  }

  private void closeCursor() throws IOException {
    if (cursor != null) {
      cursor.close();
      cursor = null;
      current = null;
    }
  }

  @Override
  public void close() throws IOException {
    closeCursor();
  }
}
