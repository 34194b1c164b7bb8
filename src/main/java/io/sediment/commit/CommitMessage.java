package io.sediment.commit;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * What one writer or compaction task changed in one partition and bucket, waiting to be committed:
 * new files appended, and for compaction the files it replaces and the files it wrote.
 * Serializable, so it can travel between Flink operators and sit in checkpoint state.
 */
public final class CommitMessage implements Serializable {

  private static final long serialVersionUID = 1L;

  private transient BinaryRowData partition;
  private final int bucket;
  private final int totalBuckets;
  private final List<DataFileMeta> newFiles;
  private final List<DataFileMeta> compactBefore;
  private final List<DataFileMeta> compactAfter;
  private final List<DeletionFile> deletionFiles;

  public CommitMessage(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter) {
    this(partition, bucket, totalBuckets, newFiles, compactBefore, compactAfter, List.of());
  }

  /**
   * With deletion-vector changes: {@code deletionFiles} are new deletion vectors of data files of
   * this bucket (each replaces the file's previous one); they are committed with the compaction.
   */
  public CommitMessage(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      List<DeletionFile> deletionFiles) {
    this.deletionFiles = List.copyOf(deletionFiles);
    this.partition = partition;
    this.bucket = bucket;
    this.totalBuckets = totalBuckets;
    this.newFiles = List.copyOf(newFiles);
    this.compactBefore = List.copyOf(compactBefore);
    this.compactAfter = List.copyOf(compactAfter);
  }

  public static CommitMessage append(
      BinaryRowData partition, int bucket, int totalBuckets, List<DataFileMeta> newFiles) {
    return new CommitMessage(partition, bucket, totalBuckets, newFiles, List.of(), List.of());
  }

  public static CommitMessage compact(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> before,
      List<DataFileMeta> after) {
    return new CommitMessage(partition, bucket, totalBuckets, List.of(), before, after);
  }

  public BinaryRowData partition() {
    return partition;
  }

  public int bucket() {
    return bucket;
  }

  public int totalBuckets() {
    return totalBuckets;
  }

  public List<DataFileMeta> newFiles() {
    return newFiles;
  }

  public List<DataFileMeta> compactBefore() {
    return compactBefore;
  }

  public List<DataFileMeta> compactAfter() {
    return compactAfter;
  }

  /** New deletion vectors of data files of this bucket (deletion-vector tables). */
  public List<DeletionFile> deletionFiles() {
    return deletionFiles == null ? List.of() : deletionFiles;
  }

  public boolean isEmpty() {
    return newFiles.isEmpty()
        && compactBefore.isEmpty()
        && compactAfter.isEmpty()
        && deletionFiles().isEmpty();
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    io.sediment.data.BinaryRows.writeRow(out, partition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    partition = io.sediment.data.BinaryRows.readRow(in);
  }

  @Override
  public String toString() {
    return "CommitMessage{bucket="
        + bucket
        + ", new="
        + newFiles.size()
        + ", before="
        + compactBefore.size()
        + ", after="
        + compactAfter.size()
        + ", deletionVectors="
        + deletionFiles().size()
        + "}";
  }
}
