package io.sediment.flink.sql;

import static io.sediment.testutil.TestTables.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedStateSerializer;
import io.sediment.schema.Schema;
import io.sediment.table.DataSplit;
import io.sediment.table.Table;
import io.sediment.testutil.TestTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.types.RowKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A streaming read's splits and position read back equal through their explicit layout (full splits
 * with deletion vectors, change splits), and truncated bytes fail naming what is corrupt.
 */
class StreamSplitCodecTest {

  @TempDir Path dir;

  private List<StreamSplit> splitsOfARealTable() throws Exception {
    FileSystemCatalog catalog = TestTables.catalog(dir);
    Table t =
        TestTables.create(
            catalog,
            "t",
            Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("p", DataTypes.STRING().notNull())
                .primaryKey("id", "p")
                .partitionKeys("p")
                .option("bucket", "2")
                .option("deletion-vectors.enabled", "true")
                .option("local-cache.dir", dir.resolve("cache").toString())
                .build());
    Random random = new Random(3);
    for (int i = 0; i < 4; i++) {
      var rows = new ArrayList<GenericRowData>();
      for (int j = 0; j < 30; j++) {
        var r = row((long) random.nextInt(40), "p" + random.nextInt(2));
        if (random.nextInt(5) == 0) {
          r.setRowKind(RowKind.DELETE);
        }
        rows.add(r);
      }
      TestTables.writeBatch(t, rows);
    }
    List<StreamSplit> out = new ArrayList<>();
    long position = 0;
    for (DataSplit s : t.newReadBuilder().newScan().plan().splits()) {
      out.add(new StreamSplit("full-" + out.size(), s, position++));
    }
    for (long id = 1; id <= t.snapshotManager().latestId().getAsLong(); id++) {
      for (DataSplit s : t.newReadBuilder().newStreamScan().changes(id).orElseThrow()) {
        out.add(new StreamSplit("changes-" + out.size(), s, position++));
      }
    }
    DataSplit first = out.get(0).split();
    out.add(
        new StreamSplit(
            "changelog-" + out.size(),
            DataSplit.changelog(9, first.partition(), first.bucket(), first.files()),
            position));
    assertThat(out).anyMatch(s -> !s.split().deletionFiles().isEmpty());
    assertThat(out).anyMatch(s -> s.split().isChanges());
    return out;
  }

  private static void assertSame(StreamSplit actual, StreamSplit expected) {
    assertThat(actual.id()).isEqualTo(expected.id());
    assertThat(actual.position()).isEqualTo(expected.position());
    DataSplit a = actual.split();
    DataSplit e = expected.split();
    assertThat(a.snapshotId()).isEqualTo(e.snapshotId());
    assertThat(a.partition()).isEqualTo(e.partition());
    assertThat(a.bucket()).isEqualTo(e.bucket());
    assertThat(a.files()).isEqualTo(e.files());
    assertThat(a.deletionFiles()).isEqualTo(e.deletionFiles());
    assertThat(a.isChanges()).isEqualTo(e.isChanges());
    assertThat(a.isChangelog()).isEqualTo(e.isChangelog());
    assertThat(actual.start()).isEqualTo(expected.start());
  }

  @Test
  void splitsAndTheEnumeratorStateReadBackEqual() throws Exception {
    List<StreamSplit> splits = splitsOfARealTable();
    var serializer = new SedimentStreamSource(null, null, null, null, null).getSplitSerializer();
    assertThat(serializer.getVersion()).isEqualTo(StateLayout.CURRENT);
    for (StreamSplit s : splits) {
      assertSame(serializer.deserialize(serializer.getVersion(), serializer.serialize(s)), s);
    }
    var states =
        new SedimentStreamSource(null, null, null, null, null).getEnumeratorCheckpointSerializer();
    StreamEnumeratorState state =
        new StreamEnumeratorState(17, 42, splits, Map.of("a", 3L, "b", -2L));
    StreamEnumeratorState back = states.deserialize(states.getVersion(), states.serialize(state));
    assertThat(back.nextSnapshotId()).isEqualTo(17);
    assertThat(back.splitCounter()).isEqualTo(42);
    assertThat(back.pending()).hasSameSizeAs(splits);
    for (int i = 0; i < splits.size(); i++) {
      assertSame(back.pending().get(i), splits.get(i));
    }
  }

  @Test
  void truncatedBytesFailNamingTheSplit() throws Exception {
    StreamSplit split = splitsOfARealTable().get(0);
    VersionedStateSerializer<StreamSplit> serializer =
        new VersionedStateSerializer<>(StreamSplitCodec.INSTANCE, "streaming read split");
    byte[] bytes = serializer.serialize(split);
    for (int cut = 0; cut < bytes.length; cut += Math.max(1, bytes.length / 20)) {
      byte[] truncated = Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> serializer.deserialize(StateLayout.CURRENT, truncated))
          .as("cut at %s of %s", cut, bytes.length)
          .hasMessageContaining(
              "Corrupt streaming read split (layout " + StateLayout.CURRENT + ")");
    }
  }
}
