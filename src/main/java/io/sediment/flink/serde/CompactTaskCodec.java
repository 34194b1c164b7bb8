package io.sediment.flink.serde;

import io.sediment.compact.CompactTask;
import io.sediment.compact.SortOrder;
import io.sediment.compact.SortRange;
import io.sediment.manifest.DataFileMeta;
import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * {@link CompactTask}, layout 3: table (string), partition (row), partitionPath (string), bucket,
 * totalBuckets (int), inputs (list of {@link DataFileMetaCodec data files}), outputLevel (int),
 * kind (byte: 0 APPEND_REWRITE, 1 MERGE_TREE, 2 SORT_REWRITE), dropDeletes (boolean),
 * baseSnapshotId (optional long); for kind 2 only, its sort range follows: strategy (byte: 0 order,
 * 1 zorder, 2 hilbert), columns (strings), schema id (long), index and count (ints), lower and
 * upper bound (boolean present, then bytes). Tasks of kinds 0 and 1 have the same bytes as before
 * kind 2 existed; an older reader refuses kind 2 as unknown (sort tasks exist only in batch jobs,
 * never restored).
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
    if (t.kind() == CompactTask.Kind.SORT_REWRITE) {
      SortRange r = t.sortRange().orElseThrow();
      out.writeByte(
          switch (r.order().strategy()) {
            case ORDER -> 0;
            case ZORDER -> 1;
            case HILBERT -> 2;
          });
      StateLayout.writeStrings(r.order().columns(), out);
      out.writeLong(r.schemaId());
      out.writeInt(r.index());
      out.writeInt(r.count());
      writeBound(r.lower(), out);
      writeBound(r.upper(), out);
    }
  }

  private static void writeBound(byte[] bound, DataOutputView out) throws IOException {
    out.writeBoolean(bound != null);
    if (bound != null) {
      StateLayout.writeBytes(bound, out);
    }
  }

  private static byte[] readBound(DataInputView in) throws IOException {
    return in.readBoolean() ? StateLayout.readBytes(in) : null;
  }

  private static SortRange readSortRange(DataInputView in) throws IOException {
    byte code = in.readByte();
    SortOrder.Strategy strategy =
        switch (code) {
          case 0 -> SortOrder.Strategy.ORDER;
          case 1 -> SortOrder.Strategy.ZORDER;
          case 2 -> SortOrder.Strategy.HILBERT;
          default ->
              throw new IOException("Corrupt compaction task: unknown sort strategy " + code);
        };
    SortOrder order = new SortOrder(strategy, StateLayout.readStrings(in));
    long schemaId = in.readLong();
    int index = in.readInt();
    int count = in.readInt();
    return new SortRange(order, schemaId, index, count, readBound(in), readBound(in));
  }

  @Override
  public CompactTask read(DataInputView in, int version) throws IOException {
    StateLayout.checkExplicit(version, "compaction task");
    String table = StateLayout.readString(in);
    BinaryRowData partition = StateLayout.readRow(in);
    String partitionPath = StateLayout.readString(in);
    int bucket = in.readInt();
    int totalBuckets = in.readInt();
    List<DataFileMeta> inputs = StateLayout.readList(in, version, DataFileMetaCodec.INSTANCE);
    int outputLevel = in.readInt();
    CompactTask.Kind kind = kind(in.readByte());
    boolean dropDeletes = in.readBoolean();
    OptionalLong base = in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
    SortRange range = kind == CompactTask.Kind.SORT_REWRITE ? readSortRange(in) : null;
    return new CompactTask(
        table,
        partition,
        partitionPath,
        bucket,
        totalBuckets,
        inputs,
        outputLevel,
        kind,
        dropDeletes,
        base,
        range);
  }

  // Explicit codes, not ordinals: reordering the enum must not change the layout.
  private static int kindCode(CompactTask.Kind kind) {
    return switch (kind) {
      case APPEND_REWRITE -> 0;
      case MERGE_TREE -> 1;
      case SORT_REWRITE -> 2;
    };
  }

  private static CompactTask.Kind kind(byte code) throws IOException {
    return switch (code) {
      case 0 -> CompactTask.Kind.APPEND_REWRITE;
      case 1 -> CompactTask.Kind.MERGE_TREE;
      case 2 -> CompactTask.Kind.SORT_REWRITE;
      default -> throw new IOException("Corrupt compaction task: unknown kind " + code);
    };
  }
}
