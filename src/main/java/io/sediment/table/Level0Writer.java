package io.sediment.table;

import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.mergetree.KeyValueFileWriter;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.SortMergeReader;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Writes a primary-key writer's buffer of one bucket as level-0 files: the rows sorted by key and
 * sequence and merged per key by the merge engine (deletes kept), and, for {@code
 * changelog-producer} = input, the rows as received into changelog files beside them. A failed
 * write deletes what it wrote.
 */
final class Level0Writer {

  private final FileStore store;
  private final KeyValueLayout layout;
  private final OutputObserver observer;
  private final Comparator<RowData> sortOrder;
  private final DataFileFactory names = new DataFileFactory();
  private final DataFileFactory changelogNames = DataFileFactory.changelog();

  Level0Writer(FileStore store, KeyValueLayout layout, OutputObserver observer) {
    this.store = store;
    this.layout = layout;
    this.observer = observer;
    this.sortOrder = layout.keyAndSequenceComparator();
  }

  /** Sorts {@code buffer} (in place) and writes its rows, merged per key, as level-0 files. */
  List<DataFileMeta> write(BinaryRowData partition, int bucket, List<BinaryRowData> buffer)
      throws IOException {
    buffer.sort(sortOrder);
    return writeFiles(
        partition,
        bucket,
        names,
        w -> {
          SortMergeReader merged =
              new SortMergeReader(
                  List.of(RowIterator.of(buffer)),
                  layout,
                  MergeFunctions.create(store.schema(), layout),
                  false);
          RowData kv;
          while ((kv = merged.next()) != null) {
            w.write(kv);
          }
        });
  }

  /**
   * {@code changelog-producer} = input: every row of the sorted {@code buffer} as it was received
   * (its own kind), so in key order and each key's rows in arrival order, into changelog files.
   */
  List<DataFileMeta> writeChangelog(BinaryRowData partition, int bucket, List<BinaryRowData> buffer)
      throws IOException {
    return writeFiles(
        partition,
        bucket,
        changelogNames,
        w -> {
          for (BinaryRowData b : buffer) {
            b.setByte(layout.kindIndex(), b.getRowKind().toByteValue());
            w.write(b);
          }
        });
  }

  private interface Rows {
    void writeTo(KeyValueFileWriter w) throws IOException;
  }

  private List<DataFileMeta> writeFiles(
      BinaryRowData partition, int bucket, DataFileFactory fileNames, Rows rows)
      throws IOException {
    KeyValueFileWriter w =
        new KeyValueFileWriter(
            store, layout, partition, bucket, 0, FileSource.APPEND, fileNames, observer);
    try {
      rows.writeTo(w);
      return w.finish();
    } catch (IOException | RuntimeException e) {
      for (IOException s : w.abort()) {
        e.addSuppressed(s);
      }
      throw e;
    }
  }
}
