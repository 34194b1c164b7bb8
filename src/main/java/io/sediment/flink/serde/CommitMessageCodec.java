package io.sediment.flink.serde;

import io.sediment.commit.CommitMessage;
import io.sediment.manifest.DataFileMeta;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * {@link CommitMessage}, layout 3: partition (row), bucket, totalBuckets (int), newFiles,
 * compactBefore, compactAfter (lists of {@link DataFileMetaCodec data files}), deletionFiles (list
 * of {@link DeletionFileCodec deletion files}), baseSnapshotId (optional long); layout 4 adds
 * changelogFiles (list of data files) at the end.
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
    StateLayout.writeList(m.changelogFiles(), DataFileMetaCodec.INSTANCE, out);
  }

  @Override
  public CommitMessage read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "commit message");
    BinaryRowData partition = StateLayout.readRow(in);
    int bucket = in.readInt();
    int totalBuckets = in.readInt();
    var newFiles = StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE);
    var before = StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE);
    var after = StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE);
    var vectors = StateLayout.readList(in, version, DeletionFileCodec.INSTANCE);
    OptionalLong base = in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
    List<DataFileMeta> changelog =
        version >= StateLayout.CHANGELOG_V4
            ? StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE)
            : List.of();
    return new CommitMessage(
        partition, bucket, totalBuckets, newFiles, before, after, vectors, base, changelog);
  }
}
