package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.marker.MarkerLayout;
import io.sediment.marker.WriterMarkers;
import io.sediment.table.StopTriggerWait;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * The writer of a SQL sink, free of Flink's runtime ({@link SedimentWriteOperator} runs it): a
 * {@link TableWrite} whose files are each announced by a marker first, and flushed into one window
 * of commit messages per checkpoint barrier.
 *
 * <p>Markers: before creating a file (data or deletion-vector file) the writer writes a marker
 * naming it under {@code .markers/<marker-user>/write-after-<B>/}, B being the last checkpoint
 * barrier it passed (the restored checkpoint, or 0, before the first). A marker stays until the
 * committer has published the file ({@link SinkCommitter}), or the file is deleted: a writer killed
 * without closing leaves its files marked, and a committer deletes them; {@code
 * remove_orphan_files} never touches a marked file of a live job.
 *
 * <p>Sequence numbers: a primary-key writer's state is the next sequence number of each bucket it
 * wrote ({@link #sequences()}); restored, its rows start above them, so that windows of the earlier
 * attempt, which the restored committer may commit after this writer started, stay older; and its
 * compactions keep deletes until a checkpoint of its own attempt completed, since those windows
 * hold older versions of keys that its compactions cannot see yet.
 */
public final class SinkWriter implements AutoCloseable {

  private final Table table;
  private final String markerUser;
  private final TableWrite write;
  private long lastBarrier;
  private final long restoredCheckpoint;
  private final List<String> unsentMarkers = new ArrayList<>();

  /**
   * @param markerUser the directory of the job's markers (the commit user the sink was planned
   *     with, kept in state)
   * @param restoredCheckpoint the checkpoint restored from, or 0
   * @param restoredSequences the writers' sequence state at that checkpoint (empty: none)
   */
  public SinkWriter(
      Table table,
      String markerUser,
      long restoredCheckpoint,
      Map<BinaryRowData, Map<Integer, Long>> restoredSequences) {
    this.table = table;
    this.markerUser = markerUser;
    this.lastBarrier = restoredCheckpoint;
    this.write = table.newBatchWriteBuilder().withOutputObserver(this::markBeforeCreate).newWrite();
    write.restoreSequences(restoredSequences);
    this.restoredCheckpoint = restoredCheckpoint;
    // The restored committer commits the earlier attempt's windows while this writer may write.
    write.restoredWindowsPending(restoredCheckpoint > 0);
  }

  /** An INSERT OVERWRITE's writer: the table's files are replaced, so its buckets start empty. */
  public void ignorePreviousFiles() {
    write.withIgnorePreviousFiles(true);
  }

  /**
   * A checkpoint completed: once it is one of this attempt's, the windows of the restored state are
   * committed (the committer commits them before any checkpoint of the attempt can complete, and
   * windows in flight at the restored checkpoint with the first one it completes).
   */
  public void checkpointComplete(long checkpointId) {
    if (checkpointId > restoredCheckpoint) {
      write.restoredWindowsPending(false);
    }
  }

  private void markBeforeCreate(Path output) throws IOException {
    unsentMarkers.add(WriterMarkers.write(table.store(), markerUser, lastBarrier, output));
  }

  public void write(RowData row) throws IOException {
    write.write(row);
  }

  /**
   * Closes the open files for window {@code window} (the checkpoint whose barrier comes next, or
   * end of input) and returns the window's messages. Files created from now on are marked as
   * written after this barrier.
   */
  public List<CommitMessage> flush(long window) throws IOException {
    List<CommitMessage> messages = write.prepareCommit();
    Set<String> sent = CommitMessage.outputFileNames(messages);
    List<String> gone = new ArrayList<>();
    for (String m : unsentMarkers) {
      if (!sent.contains(MarkerLayout.markedOutputName(new Path(m).getName()))) {
        gone.add(m); // an output the write replaced before sending it (its own compaction)
      }
    }
    unsentMarkers.clear();
    WriterMarkers.deleteMarkersOfMissingOutputs(table.store().fileIO(), gone);
    if (window != SedimentWriteOperator.END_OF_INPUT) {
      lastBarrier = window;
    }
    return messages;
  }

  /** See {@link TableWrite#openBuckets()}. */
  public int openBuckets() {
    return write.openBuckets();
  }

  /** See {@link TableWrite#stopTriggerWait()}. */
  public StopTriggerWait stopTriggerWait() {
    return write.stopTriggerWait();
  }

  /** The next sequence number of each bucket written: the writer's state. */
  public Map<BinaryRowData, Map<Integer, Long>> sequences() {
    return write.nextSequences();
  }

  /** Deletes the files not yet sent, and their markers (a file that stays keeps its marker). */
  @Override
  public void close() {
    write.close();
    WriterMarkers.deleteMarkersOfMissingOutputs(table.store().fileIO(), unsentMarkers);
    unsentMarkers.clear();
  }
}
