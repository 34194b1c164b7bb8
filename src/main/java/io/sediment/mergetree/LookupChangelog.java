package io.sediment.mergetree;

import io.sediment.io.DataFileFactory;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.RowKind;
import org.roaringbitmap.RoaringBitmap;

/**
 * The changelog of a compaction that moves a bucket's level-0 rows up ({@code changelog-producer} =
 * lookup). The levels >= 1 hold exactly the rows whose changes were emitted before (every level-0
 * row gets its change once, when it leaves level 0, and the planner moves all level-0 runs
 * together), so for each key of the level-0 rows the change is the difference between its value in
 * the levels >= 1 (before) and that value merged with the level-0 versions by the merge engine
 * (after): {@code +I} for a new key, {@code -U}/{@code +U} for a changed one, {@code -D} for a
 * removed one, nothing when the values stay the same (first-row keeping the old version, a
 * deduplicate update to equal values) or the key stays absent.
 *
 * <p>The levels >= 1 are read as a merge join with the level-0 keys, only in the files whose key
 * range overlaps the level-0 rows'. Changelog files have the data files' layout (the row kind in
 * its column) and are written in key order, each key's rows in the order they happened.
 */
public final class LookupChangelog {

  private final FileStore store;
  private final KeyValueLayout layout;
  private final OutputObserver observer;
  private final DataFileFactory names = DataFileFactory.changelog();

  public LookupChangelog(FileStore store, KeyValueLayout layout, OutputObserver observer) {
    this.store = store;
    this.layout = layout;
    this.observer = observer;
  }

  /**
   * Writes the changelog of moving {@code level0} up over {@code upper} (the bucket's files of
   * levels >= 1, with their deletion vectors when the table has them); returns the files written
   * (none when nothing changed).
   */
  public List<DataFileMeta> write(
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> level0,
      List<DataFileMeta> upper,
      Map<String, RoaringBitmap> vectors,
      BooleanSupplier cancelled)
      throws IOException {
    if (level0.isEmpty()) {
      return List.of();
    }
    Comparator<RowData> keyRows = layout.keyRowComparator();
    BinaryRowData lo = null;
    BinaryRowData hi = null;
    for (DataFileMeta f : level0) {
      lo = lo == null || keyRows.compare(f.minKey(), lo) < 0 ? f.minKey() : lo;
      hi = hi == null || keyRows.compare(f.maxKey(), hi) > 0 ? f.maxKey() : hi;
    }
    List<DataFileMeta> overlapping = new ArrayList<>();
    for (DataFileMeta f : upper) {
      if (keyRows.compare(f.maxKey(), lo) >= 0 && keyRows.compare(f.minKey(), hi) <= 0) {
        overlapping.add(f);
      }
    }
    KeyValueFileWriter writer =
        new KeyValueFileWriter(
            store, layout, partition, bucket, 0, FileSource.COMPACT, names, observer);
    try (SortMergeReader news = merged(partition, bucket, level0, null);
        SortMergeReader olds = merged(partition, bucket, overlapping, vectors)) {
      Comparator<RowData> keys = layout.keyComparator();
      RowDataSerializer serializer = new RowDataSerializer(layout.fileType());
      MergeFunction versions = MergeFunctions.create(store.schema(), layout);
      int seq = layout.sequenceIndex();
      RowData old = copy(serializer, olds.next());
      RowData kv;
      long rows = 0;
      while ((kv = news.next()) != null) {
        if ((++rows & 1023) == 0 && cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction cancelled while writing its changelog");
        }
        while (old != null && keys.compare(old, kv) < 0) {
          old = copy(serializer, olds.next());
        }
        RowData above = old != null && keys.compare(old, kv) == 0 ? old : null;
        // A delete kept above level 0 means the key is absent before, but it still takes part in
        // the merge: with a sequence.field it can be newer than the level-0 versions, and win.
        RowData before = above != null && layout.isRetract(above) ? null : above;
        RowData after;
        if (above == null) {
          after = kv;
        } else {
          versions.reset();
          // in sequence order; on a tie the level-0 version first, as every merge of the bucket
          // orders equal sequence numbers (newer runs first: SortMergeReader, SortedRun.of)
          boolean oldFirst = above.getLong(seq) < kv.getLong(seq);
          versions.add(oldFirst ? above : kv);
          versions.add(oldFirst ? kv : above);
          after = versions.result();
        }
        if (after != null && layout.isRetract(after)) {
          after = null;
        }
        if (before == null) {
          if (after != null) {
            writer.write(withKind(serializer, after, RowKind.INSERT));
          }
        } else if (after == null) {
          writer.write(withKind(serializer, before, RowKind.DELETE));
        } else {
          BinaryRowData updated = withKind(serializer, after, RowKind.UPDATE_AFTER);
          BinaryRowData previous = withKind(serializer, before, RowKind.UPDATE_BEFORE);
          // Changed values, not a newer sequence number: a level-0 row may be older than the
          // version above it (another writer's), and still change it (aggregation, partial-update)
          if (!sameValues(previous, updated)) {
            writer.write(previous);
            writer.write(updated);
          }
        }
      }
      return writer.finish();
    } catch (IOException | RuntimeException | Error e) {
      for (IOException cleanup : writer.abort()) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  /** The files merged by the engine into one version per key, deletes kept. */
  private SortMergeReader merged(
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files,
      Map<String, RoaringBitmap> vectors)
      throws IOException {
    List<RowIterator> readers = new ArrayList<>();
    for (SortedRun run : SortedRun.of(files, layout.keyRowComparator())) {
      readers.add(new RunReader(store, layout, partition, bucket, run.files(), vectors));
    }
    return new SortMergeReader(
        readers, layout, MergeFunctions.create(store.schema(), layout), false);
  }

  /**
   * Whether two file-layout rows of this changelog hold the same key and values: compared with
   * {@code b}'s sequence number and kinds set to {@code a}'s for the comparison (both are copies of
   * this class's own), then set back.
   */
  private boolean sameValues(BinaryRowData a, BinaryRowData b) {
    int seq = layout.sequenceIndex();
    int kind = layout.kindIndex();
    long bSeq = b.getLong(seq);
    byte bKind = b.getByte(kind);
    RowKind bHeader = b.getRowKind();
    b.setLong(seq, a.getLong(seq));
    b.setByte(kind, a.getByte(kind));
    b.setRowKind(a.getRowKind());
    boolean same = a.equals(b);
    b.setLong(seq, bSeq);
    b.setByte(kind, bKind);
    b.setRowKind(bHeader);
    return same;
  }

  private static RowData copy(RowDataSerializer serializer, RowData row) {
    return row == null ? null : serializer.toBinaryRow(row).copy();
  }

  private BinaryRowData withKind(RowDataSerializer serializer, RowData row, RowKind kind) {
    BinaryRowData b = serializer.toBinaryRow(row).copy();
    b.setByte(layout.kindIndex(), kind.toByteValue());
    return b;
  }
}
