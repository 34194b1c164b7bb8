package io.sediment.data;

import java.io.Serializable;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * Extracts a projection of a row (partition values, primary key, bucket key) as a binary row, and
 * renders partition values as the strings used in paths. One instance per writer; not thread-safe.
 */
public final class PartitionComputer implements Serializable {

  private static final long serialVersionUID = 1L;

  private final RowType projectedType;
  private final int[] fields;
  private transient RowData.FieldGetter[] getters;
  private transient RowDataSerializer serializer;
  // projectReused's own: its row must survive project()'s use of the other serializer's buffer
  private transient RowDataSerializer reusedSerializer;
  private transient GenericRowData reusedFields;

  /**
   * @param rowType the full row type
   * @param fields indexes of the projected fields in {@code rowType}
   */
  public PartitionComputer(RowType rowType, int[] fields) {
    this.fields = fields.clone();
    List<RowType.RowField> rf = new ArrayList<>();
    for (int f : fields) {
      rf.add(rowType.getFields().get(f));
    }
    this.projectedType = new RowType(rf);
  }

  public RowType projectedType() {
    return projectedType;
  }

  /** The projected fields of {@code row} as an independent binary row. */
  public BinaryRowData project(RowData row) {
    if (fields.length == 0) {
      return BinaryRows.EMPTY;
    }
    if (serializer == null) {
      serializer = new RowDataSerializer(projectedType);
    }
    GenericRowData out = new GenericRowData(fields.length);
    RowData.FieldGetter[] getters = getters();
    for (int i = 0; i < fields.length; i++) {
      out.setField(i, getters[i].getFieldOrNull(row));
    }
    return serializer.toBinaryRow(out).copy();
  }

  /**
   * The projected fields of {@code row} copied into a binary row that the next call of this method
   * overwrites: the values' bytes (strings included) without a new row per call, for a caller that
   * keeps only the latest projection but must not keep references into {@code row}.
   */
  public BinaryRowData projectReused(RowData row) {
    if (fields.length == 0) {
      return BinaryRows.EMPTY;
    }
    if (reusedSerializer == null) {
      reusedSerializer = new RowDataSerializer(projectedType);
      reusedFields = new GenericRowData(fields.length);
    }
    RowData.FieldGetter[] getters = getters();
    for (int i = 0; i < fields.length; i++) {
      reusedFields.setField(i, getters[i].getFieldOrNull(row));
    }
    return reusedSerializer.toBinaryRow(reusedFields);
  }

  private RowData.FieldGetter[] getters() {
    if (getters == null) {
      RowData.FieldGetter[] g = new RowData.FieldGetter[fields.length];
      for (int i = 0; i < fields.length; i++) {
        g[i] = RowData.createFieldGetter(projectedType.getTypeAt(i), fields[i]);
      }
      getters = g;
    }
    return getters;
  }

  /** Partition values as path strings (null stays null), in field order. */
  public static List<String> toStrings(RowType partitionType, RowData partition) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < partitionType.getFieldCount(); i++) {
      LogicalType t = partitionType.getTypeAt(i);
      Object v = RowData.createFieldGetter(t, i).getFieldOrNull(partition);
      out.add(v == null ? null : render(t, v));
    }
    return out;
  }

  /** A value of Flink's internal format as a partition string. */
  public static String render(LogicalType type, Object v) {
    switch (type.getTypeRoot()) {
      case DATE:
        return LocalDate.ofEpochDay((Integer) v).toString();
      case TIME_WITHOUT_TIME_ZONE:
        return LocalTime.ofNanoOfDay(((Integer) v) * 1_000_000L).toString();
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return ((TimestampData) v).toLocalDateTime().toString();
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return ((TimestampData) v).toInstant().toString();
      case BINARY:
      case VARBINARY:
        return HexFormat.of().formatHex((byte[]) v);
      default:
        return v.toString();
    }
  }
}
