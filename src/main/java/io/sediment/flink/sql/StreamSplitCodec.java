package io.sediment.flink.sql;

import io.sediment.flink.serde.DataFileMetaCodec;
import io.sediment.flink.serde.DeletionFileCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedCodec;
import io.sediment.manifest.DeletionFile;
import io.sediment.table.DataSplit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * {@link StreamSplit}, layout 3: id (string), snapshotId (long), partition (row), bucket (int),
 * files (list of {@link DataFileMetaCodec data files}), deletion files (list of {@link
 * DeletionFileCodec}), changes (boolean), position (long). Layout 4: the changes byte says the
 * split's kind: 0 a snapshot read in full, 1 a snapshot's changes, 2 changelog files. A split
 * reading a snapshot in full is part of a read's start ({@link StreamSplit#start}).
 */
final class StreamSplitCodec implements VersionedCodec<StreamSplit> {

  static final StreamSplitCodec INSTANCE = new StreamSplitCodec();

  private StreamSplitCodec() {}

  @Override
  public void write(StreamSplit s, DataOutputView out) throws IOException {
    DataSplit d = s.split();
    StateLayout.writeString(s.id(), out);
    out.writeLong(d.snapshotId());
    StateLayout.writeRow(d.partition(), out);
    out.writeInt(d.bucket());
    StateLayout.writeList(d.files(), DataFileMetaCodec.INSTANCE, out);
    StateLayout.writeList(
        new ArrayList<>(d.deletionFiles().values()), DeletionFileCodec.INSTANCE, out);
    out.writeByte(d.isChangelog() ? 2 : d.isChanges() ? 1 : 0);
    out.writeLong(s.position());
  }

  @Override
  public StreamSplit read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "streaming read split");
    String id = StateLayout.readString(in);
    long snapshotId = in.readLong();
    var partition = StateLayout.readRow(in);
    int bucket = in.readInt();
    var files = StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE);
    Map<String, DeletionFile> deletionFiles = new LinkedHashMap<>();
    for (DeletionFile f : StateLayout.readList(in, version, DeletionFileCodec.INSTANCE)) {
      deletionFiles.put(f.dataFile(), f);
    }
    int kind = in.readUnsignedByte();
    if (kind > (version >= StateLayout.CHANGELOG_V4 ? 2 : 1)) {
      throw new IOException(
          "Corrupt streaming read split (layout " + version + "): split kind " + kind);
    }
    long position = in.readLong();
    if (position < 0) {
      throw new IOException(
          "Corrupt streaming read split (layout " + version + "): position " + position);
    }
    DataSplit split =
        kind == 2
            ? DataSplit.changelog(snapshotId, partition, bucket, files)
            : new DataSplit(snapshotId, partition, bucket, files, deletionFiles, kind == 1);
    return new StreamSplit(id, split, position);
  }

  /**
   * The enumerator's state: next snapshot id (long), split counter (long), pending splits, held
   * split ids (strings) and their snapshots (longs, negated for a full read).
   */
  static final class EnumeratorStateCodec implements VersionedCodec<StreamEnumeratorState> {

    static final EnumeratorStateCodec INSTANCE = new EnumeratorStateCodec();

    @Override
    public void write(StreamEnumeratorState s, DataOutputView out) throws IOException {
      out.writeLong(s.nextSnapshotId());
      out.writeLong(s.splitCounter());
      StateLayout.writeList(s.pending(), StreamSplitCodec.INSTANCE, out);
      List<String> ids = new ArrayList<>(s.held().keySet());
      StateLayout.writeStrings(ids, out);
      long[] snapshots = new long[ids.size()];
      for (int i = 0; i < snapshots.length; i++) {
        snapshots[i] = s.held().get(ids.get(i));
      }
      StateLayout.writeLongs(snapshots, out);
    }

    @Override
    public StreamEnumeratorState read(DataInputView in, int version) throws IOException {
      StateLayout.checkExplicit(version, "streaming read enumerator state");
      long next = in.readLong();
      long counter = in.readLong();
      List<StreamSplit> pending = StateLayout.readList(in, version, StreamSplitCodec.INSTANCE);
      List<String> ids = StateLayout.readStrings(in);
      long[] snapshots = StateLayout.readLongs(in);
      if (snapshots.length != ids.size()) {
        throw new IOException(
            "Corrupt streaming read enumerator state (layout "
                + version
                + "): "
                + ids.size()
                + " held splits but "
                + snapshots.length
                + " snapshots");
      }
      Map<String, Long> held = new LinkedHashMap<>();
      for (int i = 0; i < snapshots.length; i++) {
        held.put(ids.get(i), snapshots[i]);
      }
      return new StreamEnumeratorState(next, counter, pending, held);
    }
  }
}
