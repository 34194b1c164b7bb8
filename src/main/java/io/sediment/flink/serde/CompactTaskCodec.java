package io.sediment.flink.serde;

import io.sediment.compact.CompactTask;
import java.io.IOException;
import java.util.OptionalLong;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * {@link CompactTask}, layout 3: table (string), partition (row), partitionPath (string), bucket,
 * totalBuckets (int), inputs (list of {@link DataFileMetaCodec data files}), outputLevel (int),
 * kind (byte: 0 APPEND_REWRITE, 1 MERGE_TREE), dropDeletes (boolean), baseSnapshotId (optional
 * long).
 */
public final class CompactTaskCodec implements VersionedCodec<CompactTask> {

  public static final CompactTaskCodec INSTANCE = new CompactTaskCodec();

  private CompactTaskCodec() {}

  @Override
  public void write(CompactTask t, DataOutputView out) throws IOException {
    StateLayout.writeString(t.table(), out);
    StateLayout.writeRow(t.partition(), out);
    StateLayout.writeString(t.partitionPath(), out);
    out.writeInt(t.bucket());
    out.writeInt(t.totalBuckets());
    StateLayout.writeList(t.inputs(), DataFileMetaCodec.INSTANCE, out);
    out.writeInt(t.outputLevel());
    out.writeByte(kindCode(t.kind()));
    out.writeBoolean(t.dropDeletes());
    OptionalLong base = t.baseSnapshotId();
    StateLayout.writeOptionalLong(base.isPresent(), base.orElse(0), out);
  }

  @Override
  public CompactTask read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction task");
    String table = StateLayout.readString(in);
    BinaryRowData partition = StateLayout.readRow(in);
    String partitionPath = StateLayout.readString(in);
    int bucket = in.readInt();
    int totalBuckets = in.readInt();
    return new CompactTask(
        table,
        partition,
        partitionPath,
        bucket,
        totalBuckets,
        StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE),
        in.readInt(),
        kind(in.readByte()),
        in.readBoolean(),
        in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty());
  }

  // Explicit codes, not ordinals: reordering the enum must not change the layout.
  private static int kindCode(CompactTask.Kind kind) {
    return switch (kind) {
      case APPEND_REWRITE -> 0;
      case MERGE_TREE -> 1;
    };
  }

  private static CompactTask.Kind kind(byte code) throws IOException {
    return switch (code) {
      case 0 -> CompactTask.Kind.APPEND_REWRITE;
      case 1 -> CompactTask.Kind.MERGE_TREE;
      default -> throw new IOException("Corrupt compaction task: unknown kind " + code);
    };
  }
}
