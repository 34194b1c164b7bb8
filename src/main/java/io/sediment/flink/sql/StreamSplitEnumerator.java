package io.sediment.flink.sql;

import io.sediment.manifest.ConsumerManager;
import io.sediment.table.DataSplit;
import io.sediment.table.RowBuckets;
import io.sediment.table.StreamScan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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

  /** Splits readers hold (given out or restored, not finished), with their snapshot. */
  private final Map<String, Long> held = new HashMap<>();

  /** The snapshot a consumer needs, as of each checkpoint not yet completed. */
  private final TreeMap<Long, Long> neededAtCheckpoint = new TreeMap<>();

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
    this.held.putAll(state.held());
    this.nextSnapshotId = state.nextSnapshotId();
    this.splitCounter = state.splitCounter();
  }

  /**
   * The state of a read that starts now: where consumer {@code consumerId} (null: none) left off,
   * or else the splits of {@code startPoint} (resolved when the job was planned) and the snapshot
   * after them.
   */
  static StreamEnumeratorState initialState(
      StreamScan scan,
      StreamScan.StartPoint startPoint,
      ConsumerManager consumers,
      String consumerId) {
    if (consumerId != null) {
      OptionalLong next = consumers.nextSnapshot(consumerId);
      if (next.isPresent()) {
        return new StreamEnumeratorState(next.getAsLong(), 0, List.of(), Map.of());
      }
    }
    StreamScan.Start start = scan.start(startPoint);
    List<StreamSplit> splits = new ArrayList<>();
    long counter = 0;
    for (DataSplit s : start.splits()) {
      splits.add(new StreamSplit(String.valueOf(counter++), s, 0));
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
      pending.add(new StreamSplit(String.valueOf(splitCounter++), s, 0));
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
      held.put(s.id(), heldAs(s));
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
    splits.forEach(s -> held.remove(s.id()));
  }

  @Override
  public void addReader(int subtaskId) {
    assignPending();
  }

  private static long heldAs(StreamSplit s) {
    long id = s.split().snapshotId();
    // a snapshot's changes (data or changelog files) end at that snapshot; a full read is apart
    return s.split().isChanges() || s.split().isChangelog()
        ? id
        : StreamEnumeratorState.fullRead(id);
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    if (event instanceof StreamSplitProgress progress) {
      held.putAll(progress.held());
      progress.finished().forEach(held::remove);
    }
  }

  @Override
  public StreamEnumeratorState snapshotState(long checkpointId) {
    // The consumer's position: below every split not yet read. None while a full read is not
    // finished: a new read resuming at a snapshot reads its changes, not the table as of it.
    Long needed = nextSnapshotId;
    List<Long> outstanding = new ArrayList<>(held.values());
    pending.forEach(s -> outstanding.add(heldAs(s)));
    for (long snapshot : outstanding) {
      needed = snapshot < 0 ? null : Math.min(needed, snapshot);
      if (needed == null) {
        break;
      }
    }
    neededAtCheckpoint.put(checkpointId, needed);
    return new StreamEnumeratorState(
        nextSnapshotId, splitCounter, List.copyOf(pending), new LinkedHashMap<>(held));
  }

  /**
   * A checkpoint completed: consumer {@code consumer-id} records the oldest snapshot the read
   * needed at it (below every split not yet read), which expiry then keeps. A failure to write it
   * is logged: the next checkpoint records the position again.
   */
  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    Long needed = neededAtCheckpoint.get(checkpointId);
    boolean known = neededAtCheckpoint.containsKey(checkpointId);
    neededAtCheckpoint.headMap(checkpointId, true).clear();
    if (consumerId != null && known && needed != null) {
      try {
        consumers.record(consumerId, needed);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not record consumer {} at snapshot {}", consumerId, needed, e);
      }
    }
  }

  @Override
  public void close() {}
}
