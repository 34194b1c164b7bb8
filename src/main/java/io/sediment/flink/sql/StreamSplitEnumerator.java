package io.sediment.flink.sql;

import io.sediment.manifest.ConsumerManager;
import io.sediment.table.DataSplit;
import io.sediment.table.RowBuckets;
import io.sediment.table.StreamScan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans a streaming read: the start splits, then every {@code continuous.discovery-interval} the
 * changes of the snapshots committed since ({@link StreamScan#changes}). Splits are pushed to
 * readers, never pulled: every split of a primary-key bucket goes to the one reader that owns the
 * bucket, in snapshot order, so each key's changes reach Flink in order; an append table's splits
 * go round robin.
 *
 * <p>Planning runs on Flink's worker thread and only reads {@link #nextSnapshotId}; its result is
 * applied on the coordinator thread, which alone changes the state, and a result that does not
 * start at the current {@link #nextSnapshotId} (a second planning that overlapped the first) is
 * dropped. So a checkpoint's next snapshot id and pending splits always match.
 */
final class StreamSplitEnumerator implements SplitEnumerator<StreamSplit, StreamEnumeratorState> {

  private static final Logger LOG = LoggerFactory.getLogger(StreamSplitEnumerator.class);

  /** At most this many snapshots are planned in one round. */
  private static final int SNAPSHOTS_PER_ROUND = 100;

  private final SplitEnumeratorContext<StreamSplit> context;
  private final StreamScan scan;
  private final boolean byBucket;
  private final long intervalMillis;
  private final List<StreamSplit> pending;
  private final ConsumerManager consumers;
  private final String consumerId;

  /** The splits readers hold, below which a consumer's position lies. */
  private final HeldSplits held;

  /** Where a consumer resumes, as of each checkpoint not yet completed. */
  private final TreeMap<Long, ConsumerManager.Position> neededAtCheckpoint = new TreeMap<>();

  private volatile long nextSnapshotId;
  private long splitCounter;
  private int roundRobin;

  StreamSplitEnumerator(
      SplitEnumeratorContext<StreamSplit> context,
      StreamScan scan,
      boolean byBucket,
      long intervalMillis,
      StreamEnumeratorState state,
      ConsumerManager consumers,
      String consumerId) {
    this.context = context;
    this.consumers = consumers;
    this.consumerId = consumerId;
    this.scan = scan;
    this.byBucket = byBucket;
    this.intervalMillis = intervalMillis;
    this.pending = new ArrayList<>(state.pending());
    this.held = HeldSplits.restored(state.held());
    this.nextSnapshotId = state.nextSnapshotId();
    this.splitCounter = state.splitCounter();
  }

  /**
   * The state of a read that starts now: where consumer {@code consumerId} (null: none) left off,
   * or else the splits of {@code startPoint} (resolved when the job was planned; null: resolved
   * now) and the snapshot after them.
   */
  static StreamEnumeratorState initialState(
      StreamScan scan,
      StreamScan.StartPoint startPoint,
      ConsumerManager consumers,
      String consumerId) {
    StreamScan.StartPoint from = startPoint;
    if (consumerId != null) {
      Optional<ConsumerManager.Position> position = consumers.position(consumerId);
      if (position.isPresent() && !position.get().fullRead()) {
        return new StreamEnumeratorState(position.get().nextSnapshot(), 0, List.of(), Map.of());
      }
      if (position.isPresent()) { // its start was not read through: read it again
        long id = position.get().nextSnapshot();
        from = new StreamScan.StartPoint(id, id + 1, false);
      }
    }
    StreamScan.Start start = scan.start(from != null ? from : scan.resolveStart());
    List<StreamSplit> splits = new ArrayList<>();
    long counter = 0;
    for (DataSplit s : start.splits()) {
      splits.add(StreamSplit.ofStart(String.valueOf(counter++), s));
    }
    return new StreamEnumeratorState(start.nextSnapshotId(), counter, splits, Map.of());
  }

  private record Planned(long from, long next, List<DataSplit> splits) {}

  @Override
  public void start() {
    context.callAsync(this::plan, this::apply, 0, intervalMillis);
  }

  private Planned plan() {
    long from = nextSnapshotId;
    long id = from;
    List<DataSplit> splits = new ArrayList<>();
    while (id < from + SNAPSHOTS_PER_ROUND) {
      Optional<List<DataSplit>> changes = scan.changes(id);
      if (changes.isEmpty()) {
        break;
      }
      splits.addAll(changes.get());
      id++;
    }
    return new Planned(from, id, splits);
  }

  private void apply(Planned planned, Throwable error) {
    if (error != null) {
      throw new IllegalStateException("The streaming read could not plan new snapshots", error);
    }
    if (planned.from() != nextSnapshotId) {
      return; // overlapped an earlier planning of the same snapshots
    }
    for (DataSplit s : planned.splits()) {
      pending.add(StreamSplit.ofChanges(String.valueOf(splitCounter++), s));
    }
    nextSnapshotId = planned.next();
    assignPending();
  }

  private void assignPending() {
    int parallelism = context.currentParallelism();
    List<Integer> readers = new ArrayList<>(context.registeredReaders().keySet());
    if (readers.isEmpty()) {
      return;
    }
    Map<Integer, List<StreamSplit>> assignment = new HashMap<>();
    for (Iterator<StreamSplit> it = pending.iterator(); it.hasNext(); ) {
      StreamSplit s = it.next();
      int owner;
      if (byBucket) {
        DataSplit d = s.split();
        owner =
            RowBuckets.channel(((long) d.partition().hashCode() << 32) | d.bucket(), parallelism);
        if (!context.registeredReaders().containsKey(owner)) {
          continue; // waits for its reader, and so do the bucket's later splits
        }
      } else {
        owner = readers.get(roundRobin++ % readers.size());
      }
      assignment.computeIfAbsent(owner, k -> new ArrayList<>()).add(s);
      held.given(s.id(), s.heldAs(), owner);
      it.remove();
    }
    if (!assignment.isEmpty()) {
      context.assignSplits(new SplitsAssignment<>(assignment));
    }
  }

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {
    // splits are pushed as they are planned
  }

  @Override
  public void addSplitsBack(List<StreamSplit> splits, int subtaskId) {
    // Given out after the last completed checkpoint: older than anything pending.
    pending.addAll(0, splits);
    // Called when the reader was reset alone (a regional failover): what it held at the last
    // completed checkpoint counts until it reports it again.
    held.readerReset(subtaskId, splits.stream().map(StreamSplit::id).toList());
  }

  @Override
  public void addReader(int subtaskId) {
    int done =
        held.readerRegistered(
            subtaskId, context.registeredReaders().size() >= context.currentParallelism());
    if (done > 0) {
      LOG.info(
          "Reader {} registered: {} split(s) that no reader reported holding since its reset are"
              + " done",
          subtaskId,
          done);
    }
    assignPending();
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    if (event instanceof StreamSplitProgress progress) {
      held.reported(subtaskId, progress.held(), progress.finished());
    }
  }

  @Override
  public StreamEnumeratorState snapshotState(long checkpointId) {
    neededAtCheckpoint.put(checkpointId, resumePosition());
    return new StreamEnumeratorState(
        nextSnapshotId, splitCounter, List.copyOf(pending), held.toMap());
  }

  /**
   * Where a new read with the consumer id resumes so that it loses nothing: the changes of the
   * oldest snapshot whose splits are not all read; or, while a split of the start is not read, the
   * start snapshot in full again (resuming at its changes would lose the start's rows not yet
   * emitted), which expiry keeps meanwhile.
   */
  private ConsumerManager.Position resumePosition() {
    long needed = nextSnapshotId;
    Long start = null;
    List<Long> outstanding = held.values();
    pending.forEach(s -> outstanding.add(s.heldAs()));
    for (long heldAs : outstanding) {
      if (heldAs < 0) {
        start = -heldAs;
      } else {
        needed = Math.min(needed, heldAs);
      }
    }
    if (start == null) {
      return new ConsumerManager.Position(needed, false);
    }
    // every change is planned after the start snapshot
    return new ConsumerManager.Position(start, true);
  }

  /**
   * A checkpoint completed: consumer {@code consumer-id} records where a new read would resume,
   * which expiry then keeps. A failure to write it is logged: the next checkpoint records the
   * position again.
   */
  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    ConsumerManager.Position needed = neededAtCheckpoint.get(checkpointId);
    neededAtCheckpoint.headMap(checkpointId, true).clear();
    if (consumerId != null && needed != null) {
      try {
        consumers.record(consumerId, needed);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not record consumer {} at {}", consumerId, needed, e);
      }
    }
  }

  @Override
  public void close() {}
}
