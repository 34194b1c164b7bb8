package io.sediment.sim;

import io.sediment.commit.CommitConflictException;
import io.sediment.commit.CommitMessage;
import io.sediment.retention.TableFiles;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import io.sediment.table.TableWrite;
import io.sediment.testutil.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.core.fs.Path;

/**
 * A write job on the Java API: a stream {@link TableWrite} and {@link TableCommit} of one commit
 * user, with the windows kept by the job. After a crash, the files its dead writers created and no
 * snapshot references are deleted at the next completed checkpoint (what markers do for the SQL
 * sink, done here by name). As the Java API asks, a restored job commits its restored windows
 * before it writes again.
 */
final class ApiWriteJob implements StreamWriterActor.WriteJob {

  private final SimTable sim;
  private final Map<String, String> options;
  private final String user;
  private TableWrite write;
  private TableCommit commit;
  private final TreeMap<Long, List<CommitMessage>> windows = new TreeMap<>();

  /** Files the live writer created, with the time it announced them, until committed. */
  private final Map<String, Long> created = new HashMap<>();

  private final Map<String, Path> createdPaths = new HashMap<>();

  /** Files of dead writers, until cleaned. */
  private final Map<String, Path> dead = new HashMap<>();

  private final Map<String, Long> deadTimes = new HashMap<>();

  /** The writer's clock when it waits for a compaction job: each pause of the wait moves it. */
  private final ManualClock waitClock = new ManualClock();

  private Runnable whileWaiting = () -> {};

  ApiWriteJob(SimTable sim, String user, boolean ownCompaction) {
    this.sim = sim;
    this.user = user;
    this.options = SqlWriteJob.writerOptions(ownCompaction);
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
    return false;
  }

  @Override
  public void startWriter() {
    write =
        table()
            .withClock(waitClock)
            .newStreamWriteBuilder()
            .withCommitUser(user)
            .withOutputObserver(
                p -> {
                  created.put(p.getName(), System.currentTimeMillis());
                  createdPaths.put(p.getName(), p);
                })
            .newWrite();
    write.stopTriggerWait().pauseWith(this::pause);
  }

  @Override
  public void write(Change c) throws Exception {
    write.write(c.toRow(sim.config.partitions()));
  }

  @Override
  public List<CommitMessage> flush(long checkpoint) throws Exception {
    List<CommitMessage> messages = write.prepareCommit();
    windows.put(checkpoint, messages);
    return messages;
  }

  @Override
  public Object snapshotState(long checkpoint) {
    return new TreeMap<>(windows);
  }

  @Override
  public void notifyComplete(long checkpoint) {
    for (Map.Entry<Long, List<CommitMessage>> w :
        new ArrayList<>(windows.headMap(checkpoint, true).entrySet())) {
      commit(w.getKey(), w.getValue());
      windows.remove(w.getKey());
    }
    cleanDead();
  }

  private void commit(long checkpoint, List<CommitMessage> messages) {
    if (commit == null) {
      commit = table().newStreamWriteBuilder().withCommitUser(user).newCommit();
    }
    try {
      commit.commit(checkpoint, messages);
    } catch (CommitConflictException e) {
      // only a compaction of the window can conflict; its outputs were deleted
    }
    for (String n : StreamWriterActor.names(messages)) {
      created.remove(n);
      createdPaths.remove(n);
      dead.remove(n);
      deadTimes.remove(n);
    }
  }

  private void cleanDead() {
    if (dead.isEmpty()) {
      return;
    }
    TableFiles referenced = TableFiles.ofRetainedSnapshots(sim.table().store());
    List<Path> orphans = new ArrayList<>();
    for (Map.Entry<String, Path> e : dead.entrySet()) {
      if (!referenced.dataFileNames().contains(e.getKey())
          && !referenced.indexFileNames().contains(e.getKey())) {
        orphans.add(e.getValue());
      }
    }
    sim.table().store().fileIO().deleteAll(orphans);
    dead.clear();
    deadTimes.clear();
  }

  @Override
  public void crash() {
    write = null;
    commit = null;
    windows.clear();
    dead.putAll(createdPaths);
    deadTimes.putAll(created);
    created.clear();
    createdPaths.clear();
  }

  @Override
  public void restoreWriter(long restoredCheckpoint, Object state) {}

  @Override
  @SuppressWarnings("unchecked")
  public void restoreCommitter(long restoredCheckpoint, Object state) {
    if (state != null) {
      for (Map.Entry<Long, List<CommitMessage>> w :
          ((TreeMap<Long, List<CommitMessage>>) state).entrySet()) {
        commit(w.getKey(), w.getValue());
      }
    }
  }

  @Override
  public void endInput() throws Exception {
    if (write == null) {
      startWriter();
    }
    List<CommitMessage> last = write.prepareCommit();
    windows.put(Long.MAX_VALUE - 1, last);
    notifyComplete(Long.MAX_VALUE - 1);
    write.close();
  }

  @Override
  public Set<String> inFlight() {
    Set<String> out = new HashSet<>(created.keySet());
    out.addAll(dead.keySet());
    return out;
  }

  @Override
  public long oldestInFlightMillis() {
    long min = Long.MAX_VALUE;
    for (long t : created.values()) {
      min = Math.min(min, t);
    }
    for (long t : deadTimes.values()) {
      min = Math.min(min, t);
    }
    return min;
  }

  private void pause(long millis) {
    waitClock.advance(Duration.ofMillis(millis));
    whileWaiting.run();
  }
}
