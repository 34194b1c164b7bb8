package io.sediment.schema;

import io.sediment.schema.TableSchema.DataField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * How rows of a file written with one schema version are read as rows of another, by field id: a
 * column of the reading schema is the file's column with the same id (whatever its name there),
 * converted to the reading type if it was widened since; a column the file does not have (added
 * later) reads as null; a file column the reading schema does not have (dropped) is not read.
 *
 * <p>Rows are produced in the order of a projection over the reading schema's columns followed by
 * {@code trailing} columns that every file has after its table columns (a primary-key file's
 * sequence number and row kind), which map by position.
 */
public final class FieldMapping {

  private final boolean identity;
  private final int[] fileProjection;
  // per produced position: index into a row of fileProjection's columns, or -1 (null)
  private final int[] sourceInProjected;
  // per produced position: index into a full row of the file schema, or -1 (for statistics)
  private final int[] sourceInFull;
  // per produced position: the file column's type where it must be converted, else null
  private final LogicalType[] convertFrom;
  private final int arity;

  private FieldMapping(
      boolean identity,
      int[] fileProjection,
      int[] sourceInProjected,
      int[] sourceInFull,
      LogicalType[] convertFrom) {
    this.identity = identity;
    this.fileProjection = fileProjection;
    this.sourceInProjected = sourceInProjected;
    this.sourceInFull = sourceInFull;
    this.convertFrom = convertFrom;
    this.arity = sourceInProjected.length;
  }

  /**
   * The mapping from files of {@code file} to rows of {@code reading}.
   *
   * @param trailing columns after the table columns in both (mapped by position)
   * @param projection indexes into the reading schema's columns plus trailing ones, null for all
   * @throws IllegalArgumentException if a column's type cannot be read as the reading type (the
   *     file has a wider type: it was written with a newer schema than the reader's)
   */
  public static FieldMapping of(
      TableSchema file, TableSchema reading, int trailing, int[] projection) {
    int readingColumns = reading.fields().size();
    int fileColumns = file.fields().size();
    int[] proj = projection;
    if (proj == null) {
      proj = new int[readingColumns + trailing];
      for (int i = 0; i < proj.length; i++) {
        proj[i] = i;
      }
    }
    boolean identity = file.sameLayout(reading);
    List<Integer> fileProj = new ArrayList<>();
    int[] inProjected = new int[proj.length];
    int[] inFull = new int[proj.length];
    LogicalType[] from = new LogicalType[proj.length];
    for (int i = 0; i < proj.length; i++) {
      int p = proj[i];
      int source;
      if (p >= readingColumns) {
        source = fileColumns + (p - readingColumns);
      } else {
        DataField field = reading.fields().get(p);
        source = file.indexOfFieldId(field.id());
        LogicalType readType = field.logicalType();
        if (!readType.isNullable()
            && (source < 0 || file.fields().get(source).logicalType().isNullable())) {
          // only a newer schema drops a NOT NULL column or makes it nullable: its files may hold
          // nulls this reader's type promises away
          throw newerSchema(field.name(), file, reading, "may hold nulls in it (or lack it)");
        }
        if (source >= 0) {
          LogicalType fileType = file.fields().get(source).logicalType();
          if (!fileType.copy(true).equals(readType.copy(true))) {
            if (!TypeWidening.canWiden(fileType.copy(true), readType.copy(true))
                && !sameRepresentation(fileType, readType)) {
              throw newerSchema(
                  field.name(),
                  file,
                  reading,
                  "has it as "
                      + fileType.asSummaryString()
                      + ", which "
                      + readType.asSummaryString()
                      + " cannot hold");
            }
            if (needsConversion(fileType, readType)) {
              from[i] = fileType;
            }
          }
        }
      }
      inFull[i] = source;
      if (source < 0) {
        inProjected[i] = -1;
      } else {
        int at = fileProj.indexOf(source);
        if (at < 0) {
          at = fileProj.size();
          fileProj.add(source);
        }
        inProjected[i] = at;
      }
    }
    if (fileProj.isEmpty()) {
      fileProj.add(0); // read one column so that rows are counted; none of it is produced
    }
    return new FieldMapping(
        identity,
        fileProj.stream().mapToInt(Integer::intValue).toArray(),
        inProjected,
        inFull,
        from);
  }

  private static IllegalArgumentException newerSchema(
      String column, TableSchema file, TableSchema reading, String what) {
    return new IllegalArgumentException(
        "Column '"
            + column
            + "': a file of schema "
            + file.id()
            + " "
            + what
            + " (schema "
            + reading.id()
            + " of this reader): the file was written with a newer schema than this reader or job"
            + " loaded; restart it to read the table's latest schema");
  }

  /** Whether the file's rows are the reading schema's as they are: no mapping needed. */
  public boolean isIdentity() {
    return identity;
  }

  /** The file columns to read (indexes into the file schema's columns plus trailing ones). */
  public int[] fileProjection() {
    return fileProjection.clone();
  }

  /** A reusable view of a row of {@link #fileProjection()}'s columns as a reading row. */
  public MappedRow newRow() {
    return new MappedRow(sourceInProjected, convertFrom);
  }

  /** A view of a full row of the file schema (a file's statistics) as a reading row. */
  public MappedRow newFullRow() {
    return new MappedRow(sourceInFull, convertFrom);
  }

  /**
   * The file's per-column null counts as the reading row's: a column the file does not have is null
   * in all its {@code rowCount} rows; an unknown count stays -1 (unknown).
   */
  public long[] nullCounts(long[] fileNullCounts, long rowCount) {
    long[] out = new long[arity];
    for (int i = 0; i < arity; i++) {
      int s = sourceInFull[i];
      if (s < 0) {
        out[i] = rowCount;
      } else {
        out[i] = fileNullCounts != null && s < fileNullCounts.length ? fileNullCounts[s] : -1;
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "FieldMapping{identity="
        + identity
        + ", fileProjection="
        + Arrays.toString(fileProjection)
        + ", sources="
        + Arrays.toString(sourceInFull)
        + "}";
  }

  private static boolean sameRepresentation(LogicalType a, LogicalType b) {
    // VARCHAR(n) read as VARCHAR(m < n) (a reader on an older schema): the same strings
    LogicalTypeRoot x = a.getTypeRoot();
    return x == b.getTypeRoot()
        && (x == LogicalTypeRoot.VARCHAR
            || x == LogicalTypeRoot.VARBINARY
            || x == LogicalTypeRoot.CHAR
            || x == LogicalTypeRoot.BINARY);
  }

  private static boolean needsConversion(LogicalType from, LogicalType to) {
    if (from.getTypeRoot() != to.getTypeRoot()) {
      return true;
    }
    if (from instanceof DecimalType a && to instanceof DecimalType b) {
      return a.getPrecision() != b.getPrecision() || a.getScale() != b.getScale();
    }
    return false;
  }

  /** Reads {@code row}'s value at {@code pos} of type {@code from} as a long. */
  static long integral(RowData row, int pos, LogicalTypeRoot from) {
    return switch (from) {
      case TINYINT -> row.getByte(pos);
      case SMALLINT -> row.getShort(pos);
      case INTEGER -> row.getInt(pos);
      default -> row.getLong(pos);
    };
  }
}
