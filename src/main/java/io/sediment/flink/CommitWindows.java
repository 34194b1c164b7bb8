package io.sediment.flink;

import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedBytes;
import io.sediment.flink.serde.VersionedCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.OperatorStateStore;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The windows of a committer operator (parallelism 1), shared by the compaction committer and the
 * SQL write committer: the messages of each checkpoint window not yet committed, and the job's
 * commit user, kept in operator state; windows are committed in checkpoint order when a checkpoint
 * completes, at end of input, or after a restore. What a message is and how a window is committed
 * or aborted is the operator's {@link WindowCommitter}.
 *
 * <p>A message joins a window either named by its sender ({@link #add(long, Collection)}: the SQL
 * writers tag their messages with the checkpoint they flushed for) or as the window of the next
 * checkpoint ({@link #addToNext}: messages arriving between two barriers belong to the later
 * checkpoint, sealed by {@link #snapshotState}).
 *
 * <p>State: list state {@code commit-user} (one string) and list state {@code windows} (one byte
 * array). The array is, since layout 3, an {@code int} layout version, the number of windows, and
 * per window in id order its id ({@code long}) and its messages (a list in the layout of the
 * operator's message codec); see {@link VersionedBytes}. Layouts 1 and 2 stored the Java
 * serialization of a {@code TreeMap<Long, ArrayList<T>>} (window id to messages), still read.
 */
public final class CommitWindows<T> {

  /** Commits (or aborts) the messages of one window. */
  @FunctionalInterface
  public interface WindowCommitter<T> {
    /**
     * @param restored whether the window comes from restored state (an earlier attempt may have
     *     committed it)
     */
    void commit(long window, List<T> messages, boolean restored) throws Exception;
  }

  private final WindowsCodec<T> codec;
  private final TreeMap<Long, List<T>> windows = new TreeMap<>();
  private List<T> next = new ArrayList<>();
  private String commitUser;
  private ListState<String> commitUserState;
  private ListState<byte[]> windowsState;

  /**
   * @param messageCodec the layout of one message in the state
   */
  public CommitWindows(VersionedCodec<T> messageCodec) {
    this.codec = new WindowsCodec<>(messageCodec);
  }

  /**
   * Registers the state and reads it back when {@code restored}; the commit user is the restored
   * one, else {@code newCommitUser}'s.
   */
  public void initializeState(
      OperatorStateStore store,
      boolean restored,
      Supplier<String> newCommitUser,
      ClassLoader classLoader)
      throws Exception {
    commitUserState =
        store.getListState(new ListStateDescriptor<>("commit-user", StringSerializer.INSTANCE));
    windowsState =
        store.getListState(
            new ListStateDescriptor<>("windows", BytePrimitiveArraySerializer.INSTANCE));
    commitUser = null;
    if (restored) {
      for (String u : commitUserState.get()) {
        commitUser = u;
      }
      for (byte[] b : windowsState.get()) {
        windows.putAll(VersionedBytes.read(b, codec, classLoader, "committer windows"));
      }
    }
    if (commitUser == null) {
      commitUser = newCommitUser.get();
    }
  }

  /**
   * Starts from {@code restored} windows and {@code commitUser} without Flink state (the state a
   * test or simulation kept from {@link #windows()}); null windows: a first start.
   */
  public void restore(String commitUser, TreeMap<Long, List<T>> restored) {
    windows.clear();
    next = new ArrayList<>();
    if (restored != null) {
      restored.forEach((id, messages) -> windows.put(id, new ArrayList<>(messages)));
    }
    this.commitUser = commitUser;
  }

  /** A copy of the windows waiting for their commit (the state holds {@link #heldBy} of them). */
  public TreeMap<Long, List<T>> windows() {
    TreeMap<Long, List<T>> copy = new TreeMap<>();
    windows.forEach((id, messages) -> copy.put(id, List.copyOf(messages)));
    return copy;
  }

  /** The job's commit user: the restored one, else the one given at the first start. */
  public String commitUser() {
    return commitUser;
  }

  /**
   * Commits under another user from now on (kept in state): after a restore from a checkpoint older
   * than the job's last commit, whose ids the new run reuses.
   */
  public void switchCommitUser(String user) {
    this.commitUser = user;
  }

  /** Adds a message to the window of the next checkpoint. */
  public void addToNext(T message) {
    next.add(message);
  }

  /** Adds messages to the window of the next checkpoint. */
  public void addAllToNext(Collection<T> messages) {
    next.addAll(messages);
  }

  /** Adds messages to the window their sender named. */
  public void add(long window, Collection<T> messages) {
    windows.computeIfAbsent(window, k -> new ArrayList<>()).addAll(messages);
  }

  /**
   * Seals the messages of the next checkpoint as window {@code checkpointId} and writes the state:
   * the windows up to {@code checkpointId}, and the window of the end of input ({@code
   * Long.MAX_VALUE}). A later window stays in memory and is committed when its checkpoint
   * completes, but is not part of this checkpoint: its senders wrote it after their barrier of this
   * one (with at-least-once checkpoints that are allowed to overlap, its messages can arrive
   * first), so a job restored from this checkpoint writes its rows again, and committing it too
   * would add them twice and commit sequence numbers above the restored writers'.
   */
  public void snapshotState(long checkpointId) throws Exception {
    seal(checkpointId);
    commitUserState.update(List.of(commitUser));
    windowsState.update(List.of(VersionedBytes.write(heldBy(checkpointId), codec)));
  }

  /**
   * What the state of checkpoint {@code checkpointId} holds: the windows up to it, and the window
   * of the end of input; see {@link #snapshotState}.
   */
  public TreeMap<Long, List<T>> heldBy(long checkpointId) {
    TreeMap<Long, List<T>> held = new TreeMap<>();
    windows.headMap(checkpointId, true).forEach((id, m) -> held.put(id, List.copyOf(m)));
    List<T> endOfInput = windows.get(Long.MAX_VALUE);
    if (endOfInput != null) {
      held.put(Long.MAX_VALUE, List.copyOf(endOfInput));
    }
    return held;
  }

  /**
   * Makes the messages added to the next checkpoint part of window {@code checkpointId}, after
   * those its senders named it with.
   */
  public void seal(long checkpointId) {
    if (!next.isEmpty()) {
      windows.computeIfAbsent(checkpointId, k -> new ArrayList<>()).addAll(next);
      next = new ArrayList<>();
    }
  }

  /** Whether a window with id up to {@code checkpointId} waits for its commit. */
  public boolean hasWindowsUpTo(long checkpointId) {
    return !windows.headMap(checkpointId, true).isEmpty();
  }

  /** The number of windows waiting for their commit. */
  public int size() {
    return windows.size();
  }

  /**
   * Commits, in order, every window with id up to {@code checkpointId}; a window leaves the state
   * once its commit returned. An exception stops at its window, which stays.
   */
  public void commitUpTo(long checkpointId, boolean restored, WindowCommitter<T> committer)
      throws Exception {
    Iterator<Map.Entry<Long, List<T>>> it =
        windows.headMap(checkpointId, true).entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, List<T>> w = it.next();
      committer.commit(w.getKey(), w.getValue(), restored);
      it.remove();
    }
  }

  /** Every message not yet committed (the windows', then the next checkpoint's); a copy. */
  public List<T> pending() {
    List<T> all = new ArrayList<>();
    windows.values().forEach(all::addAll);
    all.addAll(next);
    return all;
  }

  /** Takes every message: the windows' in window order, then the next checkpoint's. */
  public List<T> takeAll() {
    List<T> all = new ArrayList<>();
    windows.values().forEach(all::addAll);
    windows.clear();
    all.addAll(next);
    next = new ArrayList<>();
    return all;
  }

  /** The layout of the {@code windows} state, for messages of {@code messageCodec}'s layout. */
  static <T> VersionedCodec<TreeMap<Long, List<T>>> stateCodec(VersionedCodec<T> messageCodec) {
    return new WindowsCodec<>(messageCodec);
  }

  /** Window id to messages: a count, then per window its id and its list of messages. */
  private record WindowsCodec<T>(VersionedCodec<T> messages)
      implements VersionedCodec<TreeMap<Long, List<T>>> {

    @Override
    public void write(TreeMap<Long, List<T>> windows, DataOutputView out) throws IOException {
      out.writeInt(windows.size());
      for (Map.Entry<Long, List<T>> w : windows.entrySet()) {
        out.writeLong(w.getKey());
        StateLayout.writeList(w.getValue(), messages, out);
      }
    }

    @Override
    public TreeMap<Long, List<T>> read(DataInputView in, int version) throws IOException {
      int n = in.readInt();
      TreeMap<Long, List<T>> windows = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        long id = in.readLong();
        windows.put(id, StateLayout.readList(in, version, messages));
      }
      return windows;
    }
  }
}
