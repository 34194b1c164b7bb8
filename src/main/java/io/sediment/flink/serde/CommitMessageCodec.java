package io.sediment.flink.serde;

import io.sediment.commit.CommitMessage;
import java.io.IOException;
import java.util.OptionalLong;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * {@link CommitMessage}, layout 3: partition (row), bucket, totalBuckets (int), newFiles,
 * compactBefore, compactAfter (lists of {@link DataFileMetaCodec data files}), deletionFiles (list
 * of {@link DeletionFileCodec deletion files}), baseSnapshotId (optional long).
 */
public final class CommitMessageCodec implements VersionedCodec<CommitMessage> {

  public static final CommitMessageCodec INSTANCE = new CommitMessageCodec();

  private CommitMessageCodec() {}

  @Override
  public void write(CommitMessage m, DataOutputView out) throws IOException {
    StateLayout.writeRow(m.partition(), out);
    out.writeInt(m.bucket());
    out.writeInt(m.totalBuckets());
    StateLayout.writeList(m.newFiles(), DataFileMetaCodec.INSTANCE, out);
    StateLayout.writeList(m.compactBefore(), DataFileMetaCodec.INSTANCE, out);
    StateLayout.writeList(m.compactAfter(), DataFileMetaCodec.INSTANCE, out);
    StateLayout.writeList(m.deletionFiles(), DeletionFileCodec.INSTANCE, out);
    OptionalLong base = m.baseSnapshotId();
    StateLayout.writeOptionalLong(base.isPresent(), base.orElse(0), out);
  }

  @Override
  public CommitMessage read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "commit message");
    BinaryRowData partition = StateLayout.readRow(in);
    int bucket = in.readInt();
    int totalBuckets = in.readInt();
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE),
        StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE),
        StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE),
        StateLayout.readList(in, version, DeletionFileCodec.INSTANCE),
        in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty());
  }
}
