package io.sediment.flink.serde;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileSource;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link DataFileMeta}, layout 3: fileName (string), fileSize, rowCount (long), minKey, maxKey,
 * minValues, maxValues (rows), nullCounts (long array), minSequenceNumber, maxSequenceNumber,
 * schemaId (long), level (int), creationTimeMillis (long), source (byte: 0 APPEND, 1 COMPACT),
 * deleteRowCount (long).
 */
public final class DataFileMetaCodec implements VersionedCodec<DataFileMeta> {

  public static final DataFileMetaCodec INSTANCE = new DataFileMetaCodec();

  private DataFileMetaCodec() {}

  @Override
  public void write(DataFileMeta f, DataOutputView out) throws IOException {
    StateLayout.writeString(f.fileName(), out);
    out.writeLong(f.fileSize());
    out.writeLong(f.rowCount());
    StateLayout.writeRow(f.minKey(), out);
    StateLayout.writeRow(f.maxKey(), out);
    StateLayout.writeRow(f.minValues(), out);
    StateLayout.writeRow(f.maxValues(), out);
    StateLayout.writeLongs(f.nullCounts(), out);
    out.writeLong(f.minSequenceNumber());
    out.writeLong(f.maxSequenceNumber());
    out.writeLong(f.schemaId());
    out.writeInt(f.level());
    out.writeLong(f.creationTimeMillis());
    out.writeByte(sourceCode(f.source()));
    out.writeLong(f.deleteRowCount());
  }

  @Override
  public DataFileMeta read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "data file metadata");
    return new DataFileMeta(
        StateLayout.readString(in),
        in.readLong(),
        in.readLong(),
        StateLayout.readRow(in),
        StateLayout.readRow(in),
        StateLayout.readRow(in),
        StateLayout.readRow(in),
        StateLayout.readLongs(in),
        in.readLong(),
        in.readLong(),
        in.readLong(),
        in.readInt(),
        in.readLong(),
        source(in.readByte()),
        in.readLong());
  }

  // Explicit codes, not ordinals: reordering the enum must not change the layout.
  private static int sourceCode(FileSource source) {
    return switch (source) {
      case APPEND -> 0;
      case COMPACT -> 1;
    };
  }

  private static FileSource source(byte code) throws IOException {
    return switch (code) {
      case 0 -> FileSource.APPEND;
      case 1 -> FileSource.COMPACT;
      default -> throw new IOException("Corrupt data file metadata: unknown file source " + code);
    };
  }
}
