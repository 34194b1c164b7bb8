package io.sediment.flink.sql;

import io.sediment.table.StreamScan;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * A streaming read of columns {@code k, a, b} as Flink runs it ({@link SedimentStreamSource}'s
 * enumerator and one reader), driven step by step outside Flink: planning rounds, polls, and
 * checkpoints whose state goes through the source's serializers and from which a new attempt is
 * restored. For the interleaving simulation, which runs it beside writers, compactions and expiry.
 */
public final class StreamReadHarness implements AutoCloseable {

  /** A checkpoint of the read: the enumerator's and the reader's state, serialized. */
  public static final class Checkpoint {
    private final long id;
    private final byte[] enumerator;
    private final List<byte[]> splits;

    /** The attempt that took it, and the assignments its reader had been given by then. */
    private final StreamReadHarness attempt;

    private final int assignments;

    private Checkpoint(
        long id,
        byte[] enumerator,
        List<byte[]> splits,
        StreamReadHarness attempt,
        int assignments) {
      this.id = id;
      this.enumerator = enumerator;
      this.splits = splits;
      this.attempt = attempt;
      this.assignments = assignments;
    }

    public long id() {
      return id;
    }
  }

  private final SedimentStreamSource source;
  private final MockSplitEnumeratorContext<StreamSplit> context;
  private final SplitEnumerator<StreamSplit, StreamEnumeratorState> enumerator;
  private SourceReader<RowData, StreamSplit> reader;
  private final RowType rowType;
  private final List<String> polled = new ArrayList<>();
  private int assignmentsRouted;

  /** Assignments before this one were handed back by a reader's failover. */
  private int handedBack;

  /** The reader's reports to the enumerator not yet delivered ({@link #deliverReports}). */
  private final ArrayDeque<SourceEvent> inFlight = new ArrayDeque<>();

  private final boolean delayReports;

  private StreamReadHarness(Table table, String consumerId, Checkpoint restored) throws Exception {
    this(table, consumerId, restored, false, false);
  }

  /**
   * @param fullStart whether the read starts as configured (by default the latest snapshot in full,
   *     then its changes) rather than with the first snapshot's changes
   * @param delayReports whether the reader's reports to the enumerator wait for {@link
   *     #deliverReports} (Flink sends them asynchronously, unordered with checkpoints), except
   *     those of a restore, which Flink delivers before the reader registers
   */
  private StreamReadHarness(
      Table table, String consumerId, Checkpoint restored, boolean fullStart, boolean delayReports)
      throws Exception {
    this.delayReports = delayReports;
    Table read = table.copy(Map.of("consumer-id", consumerId));
    // by name: schema changes add and move other columns
    List<String> names = read.rowType().getFieldNames();
    int[] projection = {names.indexOf("k"), names.indexOf("a"), names.indexOf("b")};
    // from the first snapshot's changes on (a read started before anything was committed)
    source =
        new SedimentStreamSource(
            read,
            null,
            projection,
            Duration.ofMillis(1),
            fullStart
                ? SedimentTableSource.plannedStart(read, null, projection, restored != null)
                : new StreamScan.StartPoint(null, 1, false));
    rowType = read.newReadBuilder().withProjection(projection).readType();
    context = new MockSplitEnumeratorContext<>(1);
    enumerator =
        restored == null
            ? source.createEnumerator(context)
            : source.restoreEnumerator(
                context,
                deserialize(source.getEnumeratorCheckpointSerializer(), restored.enumerator));
    enumerator.start();
    startReader(restored);
  }

  /**
   * A reader (restored from {@code restored}'s splits, if any) that reports its restored splits and
   * then registers, as Flink's source operator does when it opens.
   */
  private void startReader(Checkpoint restored) throws Exception {
    // the reader's events go straight to the enumerator, or wait (delayReports)
    reader =
        source.createReader(
            new TestingReaderContext(
                0,
                1,
                e -> {
                  if (this.delayReports) {
                    inFlight.add(e);
                  } else {
                    enumerator.handleSourceEvent(0, e);
                  }
                }));
    reader.start();
    if (restored != null) {
      List<StreamSplit> splits = new ArrayList<>();
      for (byte[] b : restored.splits) {
        splits.add(deserialize(source.getSplitSerializer(), b));
      }
      if (!splits.isEmpty()) {
        reader.addSplits(splits);
      }
    }
    deliverReports(Integer.MAX_VALUE); // sent before the reader registers, and so handled
    context.registerReader(new ReaderInfo(0, "localhost"));
    enumerator.addReader(0);
    routeAssignments();
  }

  /**
   * A regional failover of the reader alone (its TaskManager lost), restored from completed
   * checkpoint {@code checkpoint} while the enumerator goes on: its reports not yet delivered are
   * lost, the splits given to it after that checkpoint are added back (as Flink's coordinator does
   * when it resets the subtask), and a new reader restores the checkpoint's splits.
   */
  public void failReader(Checkpoint checkpoint) throws Exception {
    inFlight.clear();
    reader.close();
    List<StreamSplit> givenSince = new ArrayList<>();
    List<SplitsAssignment<StreamSplit>> sequence = context.getSplitsAssignmentSequence();
    // Flink hands back each assignment once (it forgets those it handed back)
    // an attempt restored from the checkpoint gave out everything after it
    int since = checkpoint.attempt == this ? checkpoint.assignments : 0;
    for (int i = Math.max(since, handedBack); i < assignmentsRouted; i++) {
      givenSince.addAll(sequence.get(i).assignment().getOrDefault(0, List.of()));
    }
    handedBack = assignmentsRouted;
    enumerator.addSplitsBack(givenSince, 0);
    startReader(checkpoint);
  }

  /** A new read of {@code table} (consumer {@code consumerId}) from its first snapshot on. */
  public static StreamReadHarness start(Table table, String consumerId) throws Exception {
    return new StreamReadHarness(table, consumerId, null);
  }

  /** A new attempt of the read restored from {@code checkpoint}, as Flink restores a job. */
  public static StreamReadHarness restore(Table table, String consumerId, Checkpoint checkpoint)
      throws Exception {
    return new StreamReadHarness(table, consumerId, checkpoint);
  }

  /**
   * A new read of {@code table} (consumer {@code consumerId}) that starts as configured (the latest
   * snapshot in full by default) or where the consumer left off; with {@code delayReports}, the
   * reader's reports reach the enumerator only when {@link #deliverReports} says.
   */
  public static StreamReadHarness startAsConfigured(
      Table table, String consumerId, boolean delayReports) throws Exception {
    return new StreamReadHarness(table, consumerId, null, true, delayReports);
  }

  /** {@link #restore} of a read {@link #startAsConfigured started as configured}. */
  public static StreamReadHarness restoreAsConfigured(
      Table table, String consumerId, Checkpoint checkpoint, boolean delayReports)
      throws Exception {
    return new StreamReadHarness(table, consumerId, checkpoint, true, delayReports);
  }

  /** Hands the enumerator up to {@code max} of the reader's reports, oldest first. */
  public int deliverReports(int max) {
    int n = 0;
    while (n < max && !inFlight.isEmpty()) {
      enumerator.handleSourceEvent(0, inFlight.poll());
      n++;
    }
    return n;
  }

  /** One planning round of the enumerator: the changes of snapshots committed since the last. */
  public void discover() throws Exception {
    try {
      context.runPeriodicCallable(0);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("The enumerator's planning failed", e);
    }
    routeAssignments();
  }

  /** Polls the reader up to {@code max} times; returns the rows it emitted, rendered. */
  public List<String> poll(int max) throws Exception {
    Output out = new Output();
    for (int i = 0; i < max; i++) {
      if (reader.pollNext(out) != InputStatus.MORE_AVAILABLE) {
        break;
      }
    }
    List<String> rows = new ArrayList<>(polled);
    polled.clear();
    return rows;
  }

  /** Takes checkpoint {@code id} of the enumerator and the reader (not yet completed). */
  public Checkpoint checkpoint(long id) throws Exception {
    byte[] enumeratorState =
        source.getEnumeratorCheckpointSerializer().serialize(enumerator.snapshotState(id));
    List<byte[]> splits = new ArrayList<>();
    for (StreamSplit s : reader.snapshotState(id)) {
      splits.add(source.getSplitSerializer().serialize(s));
    }
    return new Checkpoint(id, enumeratorState, splits, this, assignmentsRouted);
  }

  /** Checkpoint {@code id} completed: the enumerator records the consumer's position. */
  public void complete(long id) throws Exception {
    enumerator.notifyCheckpointComplete(id);
    reader.notifyCheckpointComplete(id);
  }

  @Override
  public void close() throws Exception {
    try {
      reader.close();
      enumerator.close();
    } finally {
      context.close();
    }
  }

  private void routeAssignments() throws Exception {
    List<SplitsAssignment<StreamSplit>> sequence = context.getSplitsAssignmentSequence();
    while (assignmentsRouted < sequence.size()) {
      List<StreamSplit> splits =
          sequence.get(assignmentsRouted++).assignment().getOrDefault(0, List.of());
      if (!splits.isEmpty()) {
        reader.addSplits(splits);
      }
    }
  }

  private static <T> T deserialize(SimpleVersionedSerializer<T> serializer, byte[] bytes)
      throws IOException {
    return serializer.deserialize(serializer.getVersion(), bytes);
  }

  private final class Output implements ReaderOutput<RowData> {
    @Override
    public void collect(RowData row) {
      polled.add(row.getRowKind().shortString() + TestTables.render(rowType, row));
    }

    @Override
    public void collect(RowData row, long timestamp) {
      collect(row);
    }

    @Override
    public void emitWatermark(Watermark watermark) {}

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<RowData> createOutputForSplit(String splitId) {
      return this;
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  }
}
