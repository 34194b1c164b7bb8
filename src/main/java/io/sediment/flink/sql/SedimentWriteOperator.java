package io.sediment.flink.sql;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.table.Table;
import io.sediment.table.TableWrite;
import java.util.List;
import org.apache.flink.api.java.tuple.Tuple2;
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
 */
public final class SedimentWriteOperator extends AbstractStreamOperator<Tuple2<Long, byte[]>>
    implements OneInputStreamOperator<RowData, Tuple2<Long, byte[]>>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  /** Window id of the messages written after the last checkpoint of a finished input. */
  public static final long END_OF_INPUT = Long.MAX_VALUE;

  private final Table table;
  private transient TableWrite write;

  public SedimentWriteOperator(Table table) {
    this.table = table;
  }

  @Override
  public void open() throws Exception {
    super.open();
    write = table.newBatchWriteBuilder().newWrite();
  }

  @Override
  public void processElement(StreamRecord<RowData> element) throws Exception {
    write.write(element.getValue());
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    flush(checkpointId);
  }

  @Override
  public void endInput() throws Exception {
    flush(END_OF_INPUT);
  }

  private void flush(long window) throws Exception {
    List<CommitMessage> messages = write.prepareCommit();
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
      }
    } finally {
      super.close();
    }
  }
}
