package io.sediment.mergetree;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.FileStore;
import io.sediment.table.DataFileFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.apache.flink.table.data.RowData;

/**
 * Rewrites a MERGE_TREE task: k-way merges the sorted runs of its inputs with the table's merge
 * engine into files of the output level (dropping deletes when the task says so).
 */
public final class MergeTreeCompactRewriter implements CompactRewriter {

  private final FileStore store;
  private final KeyValueLayout layout;
  private final DataFileFactory names = new DataFileFactory();

  public MergeTreeCompactRewriter(FileStore store) {
    this.store = store;
    this.layout = new KeyValueLayout(store.schema());
  }

  @Override
  public CompactTaskResult rewrite(CompactTask task, BooleanSupplier cancelled) throws Exception {
    long start = System.nanoTime();
    if (task.kind() != CompactTask.Kind.MERGE_TREE) {
      throw new IllegalArgumentException("Not a merge-tree task: " + task);
    }
    List<RowIterator> readers = new ArrayList<>();
    for (SortedRun run : SortedRun.of(task.inputs(), layout.keyRowComparator())) {
      readers.add(
          new RunReader(store, layout, task.partition(), task.bucket(), run.files(), null));
    }
    KeyValueFileWriter writer =
        new KeyValueFileWriter(
            store, layout, task.partition(), task.bucket(), task.outputLevel(), FileSource.COMPACT, names);
    List<DataFileMeta> after;
    long rows = 0;
    try (SortMergeReader reader =
        new SortMergeReader(
            readers, layout, MergeFunctions.create(store.schema(), layout), task.dropDeletes())) {
      RowData kv;
      while ((kv = reader.next()) != null) {
        if ((++rows & 1023) == 0 && cancelled.getAsBoolean()) {
          throw new CancellationException("Compaction task cancelled: " + task);
        }
        writer.write(kv);
      }
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("Compaction task cancelled: " + task);
      }
      after = writer.finish();
    } catch (Exception | Error e) {
      for (IOException cleanup : writer.abort()) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    long bytes = 0;
    for (DataFileMeta f : after) {
      bytes += f.fileSize();
    }
    CommitMessage message =
        CommitMessage.compact(task.partition(), task.bucket(), task.totalBuckets(), task.inputs(), after);
    return new CompactTaskResult(
        task, message, task.inputRows(), rows, task.inputBytes(), bytes,
        (System.nanoTime() - start) / 1_000_000);
  }
}
