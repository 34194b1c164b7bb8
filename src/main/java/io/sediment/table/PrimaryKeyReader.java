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
import io.sediment.schema.PrimaryKeyOptions;
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
  private final boolean skipRetracts;
  private final boolean changes;
  private final boolean changelog;

  /** A batch read's reader. */
  public PrimaryKeyReader(FileStore store, DataSplit split, Predicate filter, int[] projection)
      throws IOException {
    this(store, split, filter, projection, false, false);
  }

  /**
   * @param streamStart whether the split is the full read a stream starts with: it then holds the
   *     rows whose changes precede the stream's first changes. With {@code changelog-producer} =
   *     lookup that is the levels >= 1 only (level-0 rows come later, in the changelog of the
   *     compaction that moves them up); otherwise every level (on a deletion-vector table level 0
   *     merged over the levels' live rows, which batch reads leave out).
   * @param withLevel0 whether a batch read merges level 0 in on a deletion-vector table too (see
   *     {@link ReadBuilder#withLevel0})
   */
  PrimaryKeyReader(
      FileStore store,
      DataSplit split,
      Predicate filter,
      int[] projection,
      boolean streamStart,
      boolean withLevel0)
      throws IOException {
    this.layout = new KeyValueLayout(store.schema());
    this.filter = filter;
    this.changes = split.isChanges();
    this.changelog = split.isChangelog();
    int[] valueFields = new int[layout.arity()];
    for (int i = 0; i < valueFields.length; i++) {
      valueFields[i] = i;
    }
    this.values = ProjectedRowData.from(valueFields);
    this.projected = projection == null ? null : ProjectedRowData.from(projection);
    boolean dv = store.options().get(PrimaryKeyOptions.DELETION_VECTORS_ENABLED);
    String producer = store.options().changelogProducer();
    if (changelog) {
      // Every row as written, file after file: a bucket's changes in the order they happened.
      source = new RunReader(store, layout, split.partition(), split.bucket(), split.files(), null);
      skipRetracts = false;
      return;
    }
    List<SortedRun> runs = SortedRun.of(split.files(), layout.keyRowComparator());
    if (changes) {
      // A snapshot's changes are its new level-0 files, merged among themselves, deletes kept.
      List<RowIterator> readers = new ArrayList<>();
      for (SortedRun r : runs) {
        readers.add(
            new RunReader(store, layout, split.partition(), split.bucket(), r.files(), null));
      }
      source =
          new SortMergeReader(
              readers, layout, MergeFunctions.create(store.schema(), layout), false);
      skipRetracts = false;
      return;
    }
    // A stream's start merges level 0 in, unless compactions produce its changelog (lookup).
    boolean skipLevel0 = streamStart ? producer.equals("lookup") : dv && !withLevel0;
    Map<String, RoaringBitmap> dvs =
        dv ? DeletionVectors.read(store, split.deletionFiles().values()) : null;
    boolean hasLevel0 = runs.stream().anyMatch(r -> r.level() == 0);
    if (dv && (skipLevel0 || !hasLevel0)) {
      // The live rows of levels >= 1 are each key's only version: read without merging.
      List<DataFileMeta> files = new ArrayList<>();
      for (SortedRun r : runs) {
        if (r.level() > 0) {
          files.addAll(r.files());
        }
      }
      source = new RunReader(store, layout, split.partition(), split.bucket(), files, dvs);
      skipRetracts = true;
      return;
    }
    List<RowIterator> readers = new ArrayList<>();
    for (SortedRun r : runs) {
      if (r.level() > 0 || !skipLevel0) {
        readers.add(
            new RunReader(store, layout, split.partition(), split.bucket(), r.files(), dvs));
      }
    }
    source =
        new SortMergeReader(readers, layout, MergeFunctions.create(store.schema(), layout), true);
    skipRetracts = false;
  }

  @Override
  public RowData next() throws IOException {
    RowData kv;
    while ((kv = source.next()) != null) {
      if (skipRetracts && layout.isRetract(kv)) {
        continue;
      }
      RowData row = values.replaceRow(kv);
      if (changelog) {
        // A changelog row: its own kind; not filtered (a -U must reach whoever saw the +I).
        row.setRowKind(layout.kind(kv));
        return projected == null ? row : projected.replaceRow(row);
      }
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
