package io.sediment.flink.serde;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The SQL write committer's watermarks of the windows it has not committed: the number of windows,
 * then per window in id order its id ({@code long}) and the watermark its checkpoint saw ({@code
 * long}). Framed by {@link VersionedBytes}; first written by layout 4 (state of earlier versions
 * has none: their windows commit without a watermark).
 */
public final class WindowWatermarksCodec implements VersionedCodec<Map<Long, Long>> {

  public static final WindowWatermarksCodec INSTANCE = new WindowWatermarksCodec();

  private WindowWatermarksCodec() {}

  @Override
  public void write(Map<Long, Long> watermarks, DataOutputView out) throws IOException {
    out.writeInt(watermarks.size());
    for (Map.Entry<Long, Long> e : new TreeMap<>(watermarks).entrySet()) {
      out.writeLong(e.getKey());
      out.writeLong(e.getValue());
    }
  }

  @Override
  public Map<Long, Long> read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "committer watermarks");
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("negative window count " + n);
    }
    StateLayout.checkLeft(in, (long) n * 16, n + " window watermark(s)");
    Map<Long, Long> out = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      long window = in.readLong();
      out.put(window, in.readLong());
    }
    return out;
  }
}
