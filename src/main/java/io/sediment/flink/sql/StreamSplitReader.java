package io.sediment.flink.sql;

import io.sediment.table.DataSplit;
import io.sediment.table.RowBuckets;
import io.sediment.table.TableRead;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * Reads the splits of a streaming read one after the other, in the order the enumerator gave them
 * (a primary-key bucket's changes in snapshot order), one row per poll. Its state is the split it
 * reads, with the rows already emitted, and the splits queued after it.
 */
final class StreamSplitReader implements SourceReader<RowData, StreamSplit> {

  private final SourceReaderContext context;
  private final TableRead read;
  private final RowDataSerializer serializer;
  private final ArrayDeque<StreamSplit> queue = new ArrayDeque<>();
  private StreamSplit current;
  private TableRead.RecordReader reader;
  private long position;
  private CompletableFuture<Void> available = new CompletableFuture<>();

  private final boolean byBucket;

  /**
   * @param byBucket whether each bucket's splits must come to one reader (primary-key tables)
   */
  StreamSplitReader(SourceReaderContext context, TableRead read, boolean byBucket) {
    this.context = context;
    this.read = read;
    this.byBucket = byBucket;
    this.serializer = new RowDataSerializer(read.outputType());
  }

  @Override
  public void start() {}

  @Override
  public InputStatus pollNext(ReaderOutput<RowData> output) throws Exception {
    while (true) {
      if (reader == null) {
        current = queue.poll();
        if (current == null) {
          return InputStatus.NOTHING_AVAILABLE;
        }
        reader = read.createReader(current.split());
        position = 0;
        while (position < current.position() && reader.next() != null) {
          position++;
        }
      }
      RowData row = reader.next();
      if (row == null) {
        closeSplit(true);
        continue;
      }
      position++;
      output.collect(serializer.copy(row));
      return InputStatus.MORE_AVAILABLE;
    }
  }

  private void closeSplit(boolean finished) throws IOException {
    TableRead.RecordReader r = reader;
    String id = current.id();
    reader = null;
    current = null;
    r.close();
    if (finished) {
      context.sendSourceEventToCoordinator(new StreamSplitProgress(Map.of(), List.of(id)));
    }
  }

  @Override
  public List<StreamSplit> snapshotState(long checkpointId) {
    List<StreamSplit> state = new ArrayList<>();
    if (current != null) {
      state.add(current.at(position));
    }
    state.addAll(queue);
    return state;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    if (reader != null || !queue.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (available.isDone()) {
      available = new CompletableFuture<>();
    }
    return available;
  }

  @Override
  public void addSplits(List<StreamSplit> splits) {
    if (byBucket) {
      checkOwned(splits);
    }
    Map<String, Long> held = new HashMap<>();
    for (StreamSplit s : splits) {
      held.put(s.id(), s.heldAs());
    }
    // also after a restore: the enumerator learns which splits this reader holds again
    context.sendSourceEventToCoordinator(new StreamSplitProgress(held, List.of()));
    queue.addAll(splits);
    available.complete(null);
  }

  /**
   * A bucket's changes must be read by one reader, in order. Flink hands restored splits out round
   * robin when the parallelism changed, which would break that: refused, clearly, rather than
   * reading a key's changes out of order.
   */
  private void checkOwned(List<StreamSplit> splits) {
    int parallelism = context.currentParallelism();
    for (StreamSplit s : splits) {
      DataSplit d = s.split();
      int owner =
          RowBuckets.channel(((long) d.partition().hashCode() << 32) | d.bucket(), parallelism);
      if (owner != context.getIndexOfSubtask()) {
        throw new IllegalStateException(
            "This streaming read of a primary-key table was restored with a parallelism ("
                + parallelism
                + ") other than the one it had: its buckets' changes would be read out of order."
                + " Restore it with the parallelism it had, or start a new read (a consumer-id"
                + " resumes where the old one stopped)");
      }
    }
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() throws Exception {
    if (reader != null) {
      closeSplit(false); // not read to its end: a restored reader reads it again
    }
  }
}
