package io.sediment.table;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileStore;
import io.sediment.mergetree.DeletionVectors;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.RunReader;
import io.sediment.mergetree.SortMergeReader;
import io.sediment.mergetree.SortedRun;
import io.sediment.predicate.Predicate;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.utils.ProjectedRowData;
import org.apache.flink.types.RowKind;
import org.roaringbitmap.RoaringBitmap;

/**
 * Reads one split of a primary-key table. Without deletion vectors: merges all sorted runs of the
 * bucket (one reader per run, k-way) with the merge engine and drops deletes. With deletion
 * vectors: reads the (level >= 1) files one by one, skipping rows their deletion vectors mark,
 * without merging. Then filters exactly and projects. Returned rows are reused.
 */
public final class PrimaryKeyReader implements RowIterator {

  private final KeyValueLayout layout;
  private final RowIterator source;
  private final Predicate filter;
  private final ProjectedRowData projected;
  private final ProjectedRowData values;
  private final boolean deletionVectors;
  private final boolean changes;

  public PrimaryKeyReader(FileStore store, DataSplit split, Predicate filter, int[] projection)
      throws IOException {
    this.layout = new KeyValueLayout(store.schema());
    this.filter = filter;
    this.changes = split.isChanges();
    // A snapshot's changes are its new level-0 files, merged among themselves, deletes kept.
    this.deletionVectors = !changes && store.options().get(TableOptions.DELETION_VECTORS_ENABLED);
    int[] valueFields = new int[layout.arity()];
    for (int i = 0; i < valueFields.length; i++) {
      valueFields[i] = i;
    }
    this.values = ProjectedRowData.from(valueFields);
    this.projected = projection == null ? null : ProjectedRowData.from(projection);
    List<SortedRun> runs = SortedRun.of(split.files(), layout.keyRowComparator());
    if (deletionVectors) {
      Map<String, RoaringBitmap> dvs = DeletionVectors.read(store, split.deletionFiles().values());
      List<DataFileMeta> files = new ArrayList<>();
      for (SortedRun r : runs) {
        if (r.level() > 0) {
          files.addAll(r.files());
        }
      }
      source = new RunReader(store, layout, split.partition(), split.bucket(), files, dvs);
    } else {
      List<RowIterator> readers = new ArrayList<>();
      for (SortedRun r : runs) {
        readers.add(
            new RunReader(store, layout, split.partition(), split.bucket(), r.files(), null));
      }
      source =
          new SortMergeReader(
              readers, layout, MergeFunctions.create(store.schema(), layout), !changes);
    }
  }

  @Override
  public RowData next() throws IOException {
    RowData kv;
    while ((kv = source.next()) != null) {
      if (deletionVectors && layout.isRetract(kv)) {
        continue;
      }
      RowData row = values.replaceRow(kv);
      if (changes) {
        // An upsert stream: the key's latest version in this snapshot, or its delete. Not
        // filtered: a version that no longer matches must still replace one that did (Flink
        // filters after turning the upserts into a changelog).
        row.setRowKind(layout.isRetract(kv) ? RowKind.DELETE : RowKind.UPDATE_AFTER);
        return projected == null ? row : projected.replaceRow(row);
      }
      row.setRowKind(RowKind.INSERT);
      if (filter != null && !filter.test(row)) {
        continue;
      }
      return projected == null ? row : projected.replaceRow(row);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    source.close();
  }
}
