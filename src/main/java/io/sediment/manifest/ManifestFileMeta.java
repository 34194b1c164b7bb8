package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * One line of a manifest list: a manifest file, how many entries it adds and deletes, and the range
 * of partitions it holds (so planning can skip it without opening it).
 */
public final class ManifestFileMeta implements Serializable {

  private static final long serialVersionUID = 1L;

  private final String fileName;
  private final long fileSize;
  private final long numAddedFiles;
  private final long numDeletedFiles;
  private transient BinaryRowData minPartition;
  private transient BinaryRowData maxPartition;
  private final long[] partitionNullCounts;
  private final long schemaId;

  public ManifestFileMeta(
      String fileName,
      long fileSize,
      long numAddedFiles,
      long numDeletedFiles,
      BinaryRowData minPartition,
      BinaryRowData maxPartition,
      long[] partitionNullCounts,
      long schemaId) {
    this.fileName = fileName;
    this.fileSize = fileSize;
    this.numAddedFiles = numAddedFiles;
    this.numDeletedFiles = numDeletedFiles;
    this.minPartition = minPartition;
    this.maxPartition = maxPartition;
    this.partitionNullCounts = partitionNullCounts;
    this.schemaId = schemaId;
  }

  public String fileName() {
    return fileName;
  }

  public long fileSize() {
    return fileSize;
  }

  public long numAddedFiles() {
    return numAddedFiles;
  }

  public long numDeletedFiles() {
    return numDeletedFiles;
  }

  public long numEntries() {
    return numAddedFiles + numDeletedFiles;
  }

  public BinaryRowData minPartition() {
    return minPartition;
  }

  public BinaryRowData maxPartition() {
    return maxPartition;
  }

  public long[] partitionNullCounts() {
    return partitionNullCounts;
  }

  public long schemaId() {
    return schemaId;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, minPartition);
    BinaryRows.writeRow(out, maxPartition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    minPartition = BinaryRows.readRow(in);
    maxPartition = BinaryRows.readRow(in);
  }

  @Override
  public String toString() {
    return fileName + "(+" + numAddedFiles + " -" + numDeletedFiles + ")";
  }
}
