package io.sediment.sim;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.CommitWindows;
import io.sediment.flink.serde.CommitMessageCodec;
import io.sediment.flink.sql.SinkCommitter;
import io.sediment.flink.sql.SinkWriter;
import io.sediment.table.Table;
import io.sediment.testutil.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A Flink SQL INSERT job as the SQL sink's operators run it: the sink's own writer and committer
 * ({@link SinkWriter}, {@link SinkCommitter}), with their state kept at each checkpoint as Flink
 * would keep it. Its files are protected by markers: orphan removal must leave them alone at any
 * age.
 */
final class SqlWriteJob implements StreamWriterActor.WriteJob {

  /** What Flink keeps of the job at a checkpoint. */
  private record State(
      TreeMap<Long, List<CommitMessage>> windows,
      String commitUser,
      String markerUser,
      Map<BinaryRowData, Map<Integer, Long>> sequences) {}

  private final SimTable sim;
  private final Map<String, String> options;
  private final String plannedUser;
  private SinkWriter writer;
  private SinkCommitter committer;
  private CommitWindows<CommitMessage> windows;
  private long restoredCheckpoint;
  private Map<BinaryRowData, Map<Integer, Long>> restoredSequences = Map.of();
  private String markerUser;

  /** The writer's clock when it waits for a compaction job: each pause of the wait moves it. */
  private final ManualClock waitClock = new ManualClock();

  private Runnable whileWaiting = () -> {};

  /** The input of this attempt ended: the writer sent the rest and closed. */
  private boolean ended;

  private Map<BinaryRowData, Map<Integer, Long>> endedSequences;

  SqlWriteJob(SimTable sim, String user, boolean ownCompaction) throws Exception {
    this.sim = sim;
    this.plannedUser = user;
    this.markerUser = user;
    this.options = writerOptions(ownCompaction);
    restoreCommitter(0, null);
  }

  /**
   * A writer's own options: {@code write-only} unless it compacts. Where write-only writers wait
   * for a compaction job at the stop trigger, the table holds that ({@link SimTable}).
   */
  static Map<String, String> writerOptions(boolean ownCompaction) {
    return ownCompaction ? Map.of() : Map.of("write-only", "true");
  }

  @Override
  public void whileWaiting(Runnable step) {
    this.whileWaiting = step;
  }

  private Table table() {
    return sim.table().copy(options);
  }

  @Override
  public boolean writerMayStartFirst() {
    return true;
  }

  @Override
  public void startWriter() {
    ended = false;
    writer =
        new SinkWriter(
            table().withClock(waitClock), markerUser, restoredCheckpoint, restoredSequences);
    writer.stopTriggerWait().pauseWith(this::pause);
  }

  @Override
  public void write(Change c) throws Exception {
    writer.write(c.toRow(sim.config.partitions()));
  }

  @Override
  public List<CommitMessage> flush(long checkpoint) throws Exception {
    if (ended) {
      return List.of(); // a checkpoint after the end of input: the writer sent everything
    }
    List<CommitMessage> messages = writer.flush(checkpoint);
    if (!messages.isEmpty()) {
      committer.add(checkpoint, messages);
    }
    return messages;
  }

  @Override
  public Object snapshotState(long checkpoint) {
    committer.checkpointTaken(checkpoint, null);
    return new State(
        windows.heldBy(checkpoint),
        committer.commitUser(),
        committer.markerUser(),
        ended ? endedSequences : writer.sequences());
  }

  @Override
  public void notifyComplete(long checkpoint) throws Exception {
    committer.checkpointComplete(checkpoint);
    if (writer != null && !ended) {
      writer.checkpointComplete(checkpoint); // the operators hear of it in any order
    }
  }

  @Override
  public void crash() {
    writer = null; // no close: its files and markers stay, as a killed TaskManager leaves them
    committer = null;
    ended = false;
  }

  @Override
  public void restoreWriter(long restoredCheckpoint, Object state) {
    this.restoredCheckpoint = restoredCheckpoint;
    State s = (State) state;
    restoredSequences = s == null ? Map.of() : s.sequences();
    markerUser = s == null ? plannedUser : s.markerUser();
  }

  @Override
  public void restoreCommitter(long restoredCheckpoint, Object state) throws Exception {
    State s = (State) state;
    windows = new CommitWindows<>(CommitMessageCodec.INSTANCE);
    windows.restore(s == null ? plannedUser : s.commitUser(), s == null ? null : s.windows());
    committer = new SinkCommitter(table(), true, false, null, windows);
    committer.start(restoredCheckpoint, s == null ? plannedUser : s.markerUser());
  }

  @Override
  public void endInput() throws Exception {
    if (writer == null) {
      startWriter();
    }
    List<CommitMessage> last = writer.flush(Long.MAX_VALUE);
    if (!last.isEmpty()) {
      committer.add(Long.MAX_VALUE, last);
    }
    endedSequences = writer.sequences();
    // checkpoints on: Flink takes a final checkpoint, whose completion commits the rest
    committer.endInput(null, true);
    writer.close();
    ended = true;
  }

  @Override
  public boolean endsWithFinalCheckpoint() {
    return true;
  }

  @Override
  public Set<String> inFlight() {
    return Set.of();
  }

  @Override
  public long oldestInFlightMillis() {
    return Long.MAX_VALUE;
  }

  private void pause(long millis) {
    waitClock.advance(Duration.ofMillis(millis));
    whileWaiting.run();
  }
}
