package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.data.BinaryRows;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.RowBuckets;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.table.api.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reader of a streaming read, without a cluster: each primary-key bucket's splits belong to one
 * reader (changes of a key in order), so splits of a bucket another subtask owns, which Flink hands
 * out when a job is restored with another parallelism, are refused with a clear error.
 */
class StreamSplitReaderTest {

  @TempDir Path dir;

  /** A reader's context that keeps the events it sends. */
  private static final class Context {
    final List<SourceEvent> events = new ArrayList<>();
    final TestingReaderContext reader;

    Context(int subtask, int parallelism) {
      reader = new TestingReaderContext(subtask, parallelism, events::add);
    }
  }

  @Test
  void splitsOfABucketAnotherReaderOwnsAreRefused() throws Exception {
    Table t =
        TestTables.create(
            TestTables.catalog(dir),
            "t",
            Schema.newBuilder()
                .column("k", DataTypes.BIGINT().notNull())
                .primaryKey("k")
                .option("bucket", "4")
                .build());
    int parallelism = 3;
    for (int bucket = 0; bucket < 4; bucket++) {
      DataSplit split = new DataSplit(1, BinaryRows.EMPTY, bucket, List.of());
      StreamSplit s = StreamSplit.ofStart("s" + bucket, split);
      int owner =
          RowBuckets.channel(((long) BinaryRows.EMPTY.hashCode() << 32) | bucket, parallelism);
      for (int subtask = 0; subtask < parallelism; subtask++) {
        Context context = new Context(subtask, parallelism);
        StreamSplitReader reader =
            new StreamSplitReader(context.reader, t.newReadBuilder().newRead(), true);
        if (subtask == owner) {
          reader.addSplits(List.of(s));
          assertThat(context.events).as("the owner reports the split it holds").hasSize(1);
        } else {
          assertThatThrownBy(() -> reader.addSplits(List.of(s)))
              .hasMessageContaining("restored with a parallelism (3) other than the one it had")
              .hasMessageContaining("Restore it with the parallelism it had");
          assertThat(context.events).isEmpty();
        }
        reader.close();
      }
    }
    // an append table's splits may go to any reader
    StreamSplitReader any =
        new StreamSplitReader(
            new Context(1, parallelism).reader, t.newReadBuilder().newRead(), false);
    any.addSplits(
        List.of(StreamSplit.ofStart("a", new DataSplit(1, BinaryRows.EMPTY, 0, List.of()))));
    any.close();
  }
}
