package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * Metadata of one data file, as recorded in manifests and carried in commit messages. Immutable.
 *
 * <p>Keys and value statistics are {@link BinaryRowData} rows: {@code minKey}/{@code maxKey} over
 * the primary key (empty rows for append tables), {@code minValues}/{@code maxValues} over all
 * columns of the table (a field is null when unknown or when every value is null).
 */
public final class DataFileMeta implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String fileName;
  private final long fileSize;
  private final long rowCount;
  private transient BinaryRowData minKey;
  private transient BinaryRowData maxKey;
  // Value statistics are kept as the bytes manifests store and decoded when asked for: a plan holds
  // every file of the table, and two rows per file cost about 250 bytes more than their bytes.
  private transient int minArity;
  private transient int maxArity;
  private transient byte[] minValues;
  private transient byte[] maxValues;
  private final long[] nullCounts;
  private final long minSequenceNumber;
  private final long maxSequenceNumber;
  private final long schemaId;
  private final int level;
  private final long creationTimeMillis;
  private final FileSource source;
  private final long deleteRowCount;

  public DataFileMeta(
      String fileName,
      long fileSize,
      long rowCount,
      BinaryRowData minKey,
      BinaryRowData maxKey,
      BinaryRowData minValues,
      BinaryRowData maxValues,
      long[] nullCounts,
      long minSequenceNumber,
      long maxSequenceNumber,
      long schemaId,
      int level,
      long creationTimeMillis,
      FileSource source,
      long deleteRowCount) {
    this(
        fileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        minValues.getArity(),
        BinaryRows.toBytes(minValues),
        maxValues.getArity(),
        BinaryRows.toBytes(maxValues),
        nullCounts,
        minSequenceNumber,
        maxSequenceNumber,
        schemaId,
        level,
        creationTimeMillis,
        source,
        deleteRowCount);
  }

  /**
   * A file whose value statistics are given as the stored bytes of rows of the given arities (kept
   * as they are, not copied): what a manifest holds.
   */
  DataFileMeta(
      String fileName,
      long fileSize,
      long rowCount,
      BinaryRowData minKey,
      BinaryRowData maxKey,
      int minArity,
      byte[] minValues,
      int maxArity,
      byte[] maxValues,
      long[] nullCounts,
      long minSequenceNumber,
      long maxSequenceNumber,
      long schemaId,
      int level,
      long creationTimeMillis,
      FileSource source,
      long deleteRowCount) {
    this.fileName = Objects.requireNonNull(fileName);
    this.fileSize = fileSize;
    this.rowCount = rowCount;
    this.minKey = Objects.requireNonNull(minKey);
    this.maxKey = Objects.requireNonNull(maxKey);
    this.minArity = minArity;
    this.maxArity = maxArity;
    this.minValues = Objects.requireNonNull(minValues);
    this.maxValues = Objects.requireNonNull(maxValues);
    this.nullCounts = Objects.requireNonNull(nullCounts);
    this.minSequenceNumber = minSequenceNumber;
    this.maxSequenceNumber = maxSequenceNumber;
    this.schemaId = schemaId;
    this.level = level;
    this.creationTimeMillis = creationTimeMillis;
    this.source = Objects.requireNonNull(source);
    this.deleteRowCount = deleteRowCount;
  }

  public String fileName() {
    return fileName;
  }

  public long fileSize() {
    return fileSize;
  }

  public long rowCount() {
    return rowCount;
  }

  public BinaryRowData minKey() {
    return minKey;
  }

  public BinaryRowData maxKey() {
    return maxKey;
  }

  public BinaryRowData minValues() {
    return BinaryRows.fromBytes(minArity, minValues);
  }

  public BinaryRowData maxValues() {
    return BinaryRows.fromBytes(maxArity, maxValues);
  }

  /** The bytes of the stored value statistics (for estimates of the heap a file's meta holds). */
  long statsSizeInBytes() {
    return (long) minValues.length + maxValues.length;
  }

  public long[] nullCounts() {
    return nullCounts;
  }

  public long minSequenceNumber() {
    return minSequenceNumber;
  }

  public long maxSequenceNumber() {
    return maxSequenceNumber;
  }

  public long schemaId() {
    return schemaId;
  }

  public int level() {
    return level;
  }

  public long creationTimeMillis() {
    return creationTimeMillis;
  }

  public FileSource source() {
    return source;
  }

  public long deleteRowCount() {
    return deleteRowCount;
  }

  /** The same file at another level (compaction may move a file up without rewriting it). */
  public DataFileMeta upgrade(int newLevel) {
    return new DataFileMeta(
        fileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        minValues(),
        maxValues(),
        nullCounts,
        minSequenceNumber,
        maxSequenceNumber,
        schemaId,
        newLevel,
        creationTimeMillis,
        source,
        deleteRowCount);
  }

  /**
   * A byte-for-byte copy of this file under another name (a rollback re-adds a file that a later
   * snapshot removed as a copy: a file name is live over one unbroken range of snapshots).
   */
  public DataFileMeta copiedAs(String newFileName) {
    return new DataFileMeta(
        newFileName,
        fileSize,
        rowCount,
        minKey,
        maxKey,
        minArity,
        minValues,
        maxArity,
        maxValues,
        nullCounts,
        minSequenceNumber,
        maxSequenceNumber,
        schemaId,
        level,
        creationTimeMillis,
        source,
        deleteRowCount);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, minKey);
    BinaryRows.writeRow(out, maxKey);
    BinaryRows.writeRow(out, minValues());
    BinaryRows.writeRow(out, maxValues());
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    minKey = BinaryRows.readRow(in);
    maxKey = BinaryRows.readRow(in);
    BinaryRowData min = BinaryRows.readRow(in);
    BinaryRowData max = BinaryRows.readRow(in);
    minArity = min.getArity();
    maxArity = max.getArity();
    minValues = BinaryRows.toBytes(min);
    maxValues = BinaryRows.toBytes(max);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof DataFileMeta)) {
      return false;
    }
    DataFileMeta that = (DataFileMeta) o;
    return fileName.equals(that.fileName)
        && fileSize == that.fileSize
        && rowCount == that.rowCount
        && level == that.level
        && minSequenceNumber == that.minSequenceNumber
        && maxSequenceNumber == that.maxSequenceNumber
        && schemaId == that.schemaId
        && creationTimeMillis == that.creationTimeMillis
        && source == that.source
        && deleteRowCount == that.deleteRowCount
        && minKey.equals(that.minKey)
        && maxKey.equals(that.maxKey)
        // by bytes, as rows compare (a stats row's arity is its null counts' length)
        && Arrays.equals(minValues, that.minValues)
        && Arrays.equals(maxValues, that.maxValues)
        && Arrays.equals(nullCounts, that.nullCounts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fileName, fileSize, level);
  }

  @Override
  public String toString() {
    return "DataFileMeta{"
        + fileName
        + ", size="
        + fileSize
        + ", rows="
        + rowCount
        + ", level="
        + level
        + ", seq=["
        + minSequenceNumber
        + ","
        + maxSequenceNumber
        + "], source="
        + source
        + "}";
  }
}
