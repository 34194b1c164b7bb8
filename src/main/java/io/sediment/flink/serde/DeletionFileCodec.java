package io.sediment.flink.serde;

import io.sediment.manifest.DeletionFile;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link DeletionFile}, layout 3: dataFile, dvFile (strings), offset (long), length (int),
 * cardinality (long).
 */
public final class DeletionFileCodec implements VersionedCodec<DeletionFile> {

  public static final DeletionFileCodec INSTANCE = new DeletionFileCodec();

  private DeletionFileCodec() {}

  @Override
  public void write(DeletionFile d, DataOutputView out) throws IOException {
    StateLayout.writeString(d.dataFile(), out);
    StateLayout.writeString(d.dvFile(), out);
    out.writeLong(d.offset());
    out.writeInt(d.length());
    out.writeLong(d.cardinality());
  }

  @Override
  public DeletionFile read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "deletion file");
    return new DeletionFile(
        StateLayout.readString(in),
        StateLayout.readString(in),
        in.readLong(),
        in.readInt(),
        in.readLong());
  }
}
