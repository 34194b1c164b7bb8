package io.sediment.data;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.RowType;

/**
 * Codec between Flink rows and the compact {@link BinaryRowData} form used for partitions, keys and
 * statistics in metadata. A {@code BinaryRowData} compares by bytes, so it serves as a map key
 * (partition, key range) and its bytes are what manifests store.
 */
public final class BinaryRows {

  /** The partition of an unpartitioned table, and the stats row of a table with no columns. */
  public static final BinaryRowData EMPTY = emptyRow();

  private BinaryRows() {}

  /** An independent binary copy of {@code row} laid out by {@code type}. */
  public static BinaryRowData toBinary(RowType type, RowData row) {
    if (type.getFieldCount() == 0) {
      return EMPTY;
    }
    return new RowDataSerializer(type).toBinaryRow(row).copy();
  }

  /** A reusable converter, for hot paths that convert many rows of one type. */
  public static RowDataSerializer serializer(RowType type) {
    return new RowDataSerializer(type);
  }

  /** The bytes of a binary row, as stored in manifests. */
  public static byte[] toBytes(BinaryRowData row) {
    return BinarySegmentUtils.copyToBytes(row.getSegments(), row.getOffset(), row.getSizeInBytes());
  }

  /** Reads back a row written by {@link #toBytes}. */
  public static BinaryRowData fromBytes(int arity, byte[] bytes) {
    BinaryRowData row = new BinaryRowData(arity);
    MemorySegment segment = MemorySegmentFactory.wrap(bytes);
    row.pointTo(segment, 0, bytes.length);
    return row;
  }

  /** Writes a row (arity, length, bytes) in Java serialization of a class that holds one. */
  public static void writeRow(ObjectOutputStream out, BinaryRowData row) throws IOException {
    byte[] bytes = toBytes(row);
    out.writeInt(row.getArity());
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  /** Reads a row written by {@link #writeRow}. */
  public static BinaryRowData readRow(ObjectInputStream in) throws IOException {
    int arity = in.readInt();
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return fromBytes(arity, bytes);
  }

  /** Copies the given fields of a binary row into a new generic row (internal data format). */
  public static GenericRowData toGeneric(RowType type, RowData row) {
    GenericRowData out = new GenericRowData(type.getFieldCount());
    for (int i = 0; i < type.getFieldCount(); i++) {
      out.setField(i, RowData.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row));
    }
    return out;
  }

  /** Equality by content, for rows of possibly different implementations. */
  public static boolean equals(BinaryRowData a, BinaryRowData b) {
    return Arrays.equals(toBytes(a), toBytes(b));
  }

  private static BinaryRowData emptyRow() {
    BinaryRowData row = new BinaryRowData(0);
    byte[] bytes = new byte[8];
    row.pointTo(MemorySegmentFactory.wrap(bytes), 0, bytes.length);
    return row;
  }
}
