package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.CommitUsers;
import io.sediment.predicate.Predicate;
import io.sediment.table.Table;
import io.sediment.table.TableCommit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.InstantiationUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single committer of a write job (parallelism 1).
 *
 * <p>Streaming: keeps the writers' messages per checkpoint window in operator state together with
 * its commit user, and commits every window up to a checkpoint when that checkpoint completes, as
 * one APPEND snapshot with identifier = checkpoint id. On restore it commits the restored windows;
 * windows that already landed are skipped by the stream commit's (commit user, identifier) check,
 * so each lands exactly once.
 *
 * <p>Batch: commits everything once at end of input (APPEND, or OVERWRITE for {@code INSERT
 * OVERWRITE}).
 */
public final class SedimentCommitOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<Tuple2<Long, byte[]>, Void>, BoundedOneInput {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SedimentCommitOperator.class);

  private final Table table;
  private final boolean streaming;
  private final boolean overwrite;
  private final Predicate overwriteFilter;
  private final String initialCommitUser;

  private transient String commitUser;
  private transient TreeMap<Long, List<CommitMessage>> pending;
  private transient ListState<String> userState;
  private transient ListState<byte[]> windowState;
  private transient TableCommit streamCommit;

  /**
   * @param overwriteFilter partitions to overwrite besides those written (on the partition row
   *     type), or null
   * @param commitUser the commit user, or null for a random one (kept in state when streaming)
   */
  public SedimentCommitOperator(
      Table table,
      boolean streaming,
      boolean overwrite,
      Predicate overwriteFilter,
      String commitUser) {
    this.table = table;
    this.streaming = streaming;
    this.overwrite = overwrite;
    this.overwriteFilter = overwriteFilter;
    this.initialCommitUser = commitUser == null ? null : CommitUsers.validate(commitUser);
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    pending = new TreeMap<>();
    userState =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("commit-user", Types.STRING));
    windowState =
        context
            .getOperatorStateStore()
            .getListState(
                new ListStateDescriptor<>(
                    "windows",
                    org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo
                        .BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    commitUser = null;
    if (context.isRestored()) {
      for (String u : userState.get()) {
        commitUser = u;
      }
      for (byte[] b : windowState.get()) {
        TreeMap<Long, List<CommitMessage>> restored =
            InstantiationUtil.deserializeObject(b, getUserCodeClassloader());
        pending.putAll(restored);
      }
    }
    if (commitUser == null) {
      commitUser = initialCommitUser != null ? initialCommitUser : CommitUsers.random();
    }
    if (streaming && !pending.isEmpty()) {
      LOG.info(
          "Committing {} restored window(s) of {} as user {}",
          pending.size(),
          table.fullName(),
          commitUser);
      commitUpTo(Long.MAX_VALUE);
    }
  }

  @Override
  public void processElement(StreamRecord<Tuple2<Long, byte[]>> element) throws Exception {
    List<CommitMessage> messages =
        InstantiationUtil.deserializeObject(element.getValue().f1, getUserCodeClassloader());
    pending.computeIfAbsent(element.getValue().f0, k -> new ArrayList<>()).addAll(messages);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    userState.update(List.of(commitUser));
    windowState.update(List.of(InstantiationUtil.serializeObject(pending)));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    if (streaming) {
      commitUpTo(checkpointId);
    }
  }

  @Override
  public void endInput() throws Exception {
    if (streaming) {
      commitUpTo(Long.MAX_VALUE);
      return;
    }
    List<CommitMessage> all = new ArrayList<>();
    pending.values().forEach(all::addAll);
    pending.clear();
    TableCommit commit = table.newBatchWriteBuilder().withCommitUser(commitUser).newCommit();
    List<Long> ids = overwrite ? commit.overwrite(all, overwriteFilter) : commit.commit(all);
    LOG.info("Batch write of {} committed snapshot(s) {}", table.fullName(), ids);
  }

  /** Commits, in order, every pending window with id <= {@code checkpointId}. */
  private void commitUpTo(long checkpointId) {
    if (streamCommit == null) {
      streamCommit = table.newStreamWriteBuilder().withCommitUser(commitUser).newCommit();
    }
    Iterator<Map.Entry<Long, List<CommitMessage>>> it =
        pending.headMap(checkpointId, true).entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Long, List<CommitMessage>> window = it.next();
      if (!window.getValue().isEmpty()) {
        try {
          List<Long> ids = streamCommit.commit(window.getKey(), window.getValue());
          LOG.info(
              "Window {} of {} committed as snapshot(s) {}",
              window.getKey(),
              table.fullName(),
              ids);
        } catch (io.sediment.commit.CommitConflictException e) {
          // Only a writer's own compaction can conflict (appends never do, and a conflicting
          // compaction after landed appends is dropped by the commit). Its outputs are deleted;
          // failing would conflict again on every restore.
          LOG.warn(
              "Window {} of {}: the writer's compaction conflicted with a concurrent commit and"
                  + " was dropped: {}",
              window.getKey(),
              table.fullName(),
              e.getMessage());
        }
      }
      it.remove();
    }
  }

  public String commitUser() {
    return commitUser;
  }
}
