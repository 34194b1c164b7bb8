package io.sediment.flink.serde;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * A SQL writer's sequence state, layout 3: the number of buckets, then per bucket its partition
 * (row), bucket (int) and next sequence number (long). Framed by {@link VersionedBytes}.
 */
public final class SequencesCodec
    implements VersionedCodec<Map<BinaryRowData, Map<Integer, Long>>> {

  public static final SequencesCodec INSTANCE = new SequencesCodec();

  private SequencesCodec() {}

  @Override
  public void write(Map<BinaryRowData, Map<Integer, Long>> sequences, DataOutputView out)
      throws IOException {
    int n = 0;
    for (Map<Integer, Long> byBucket : sequences.values()) {
      n += byBucket.size();
    }
    out.writeInt(n);
    for (Map.Entry<BinaryRowData, Map<Integer, Long>> p : sequences.entrySet()) {
      for (Map.Entry<Integer, Long> b : p.getValue().entrySet()) {
        StateLayout.writeRow(p.getKey(), out);
        out.writeInt(b.getKey());
        out.writeLong(b.getValue());
      }
    }
  }

  @Override
  public Map<BinaryRowData, Map<Integer, Long>> read(DataInputView in, int version)
      throws IOException {
    StateLayout.checkExplicit(version, "writer sequence state");
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("negative bucket count " + n);
    }
    StateLayout.checkLeft(in, (long) n * 12, n + " bucket(s)");
    Map<BinaryRowData, Map<Integer, Long>> out = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      BinaryRowData partition = StateLayout.readRow(in);
      int bucket = in.readInt();
      long next = in.readLong();
      out.computeIfAbsent(partition, k -> new LinkedHashMap<>()).merge(bucket, next, Math::max);
    }
    return out;
  }
}
