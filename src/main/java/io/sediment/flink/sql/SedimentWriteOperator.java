package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.CompactMarkers;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.manifest.TablePaths;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;

/**
 * Writes rows into data files with a {@link TableWrite}. Before each checkpoint barrier it closes
 * the open files and sends their {@link CommitMessage}s, tagged with the checkpoint id, to the
 * committer; at end of input it sends the rest tagged {@link #END_OF_INPUT}. Files not yet sent
 * when the operator is closed after a failure are deleted by {@link TableWrite#close()}.
 *
 * <p>Before creating a file (data or deletion-vector file) it writes a marker naming it under
 * {@code .markers/<commit-user>/write-after-<B>/}, B being the last checkpoint barrier it passed
 * (the restored checkpoint, or 0, before the first): a writer killed without closing leaves its
 * files marked, and its committer deletes them ({@link SedimentCommitOperator}). The markers of the
 * files sent for checkpoint n are deleted when n completes: the committer then commits them, now or
 * after a restore from n or later. State: the commit user (union list state {@code marker-user}),
 * so a restored writer marks under the directory its restored committer cleans.
 */
public final class SedimentWriteOperator extends AbstractStreamOperator<Tuple2<Long, byte[]>>
    implements OneInputStreamOperator<RowData, Tuple2<Long, byte[]>>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  /** Window id of the messages written after the last checkpoint of a finished input. */
  public static final long END_OF_INPUT = Long.MAX_VALUE;

  static final String MARKER_USER_STATE = "marker-user";

  private final Table table;
  private final String initialCommitUser;

  private transient TableWrite write;
  private transient ListState<String> commitUserState;
  private transient String commitUser;
  private transient long lastBarrier;
  private transient List<String> unsentMarkers;
  private transient TreeMap<Long, List<String>> sentMarkers;

  /**
   * @param commitUser the job's commit user, chosen when the sink is planned (the committer's)
   */
  public SedimentWriteOperator(Table table, String commitUser) {
    this.table = table;
    this.initialCommitUser = commitUser;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    commitUserState =
        context
            .getOperatorStateStore()
            .getUnionListState(
                new ListStateDescriptor<>(MARKER_USER_STATE, StringSerializer.INSTANCE));
    commitUser = initialCommitUser;
    if (context.isRestored()) {
      for (String u : commitUserState.get()) {
        commitUser = u;
      }
    }
    lastBarrier = context.getRestoredCheckpointId().orElse(0L);
    unsentMarkers = new ArrayList<>();
    sentMarkers = new TreeMap<>();
  }

  @Override
  public void open() throws Exception {
    super.open();
    write = table.newBatchWriteBuilder().withOutputObserver(this::markBeforeCreate).newWrite();
  }

  private void markBeforeCreate(Path output) throws IOException {
    unsentMarkers.add(CompactMarkers.writeAfter(table.store(), commitUser, lastBarrier, output));
  }

  @Override
  public void processElement(StreamRecord<RowData> element) throws Exception {
    write.write(element.getValue());
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    flush(checkpointId);
    // Files created from now on go to windows after this checkpoint.
    lastBarrier = checkpointId;
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    commitUserState.update(List.of(commitUser));
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    // The committer commits every window up to a completed checkpoint (after a restore too).
    Map<Long, List<String>> done = sentMarkers.headMap(checkpointId, true);
    List<String> markers = new ArrayList<>();
    done.values().forEach(markers::addAll);
    done.clear();
    CompactMarkers.deleteMarkers(table.store().fileIO(), markers);
  }

  @Override
  public void endInput() throws Exception {
    flush(END_OF_INPUT);
  }

  private void flush(long window) throws Exception {
    List<CommitMessage> messages = write.prepareCommit();
    Set<String> sent = CompactMarkers.outputNames(messages);
    List<String> inWindow = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    for (String m : unsentMarkers) {
      String output = TablePaths.markedOutputName(new Path(m).getName());
      (sent.contains(output) ? inWindow : deleted).add(m);
    }
    unsentMarkers.clear();
    // Outputs the write replaced before sending them (its own compaction) were deleted.
    CompactMarkers.deleteMarkersOfMissingOutputs(table.store().fileIO(), deleted);
    if (!inWindow.isEmpty()) {
      sentMarkers.computeIfAbsent(window, w -> new ArrayList<>()).addAll(inWindow);
    }
    if (!messages.isEmpty()) {
      output.collect(
          new StreamRecord<>(Tuple2.of(window, CommitMessageListCodec.toBytes(messages))));
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (write != null) {
        write.close();
        // The write deleted its unsent files; a file it could not delete keeps its marker.
        CompactMarkers.deleteMarkersOfMissingOutputs(table.store().fileIO(), unsentMarkers);
        unsentMarkers.clear();
      }
    } finally {
      super.close();
    }
  }
}
