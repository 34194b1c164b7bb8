package io.sediment.table;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.binary.BinaryRowData;

/** The data files of one partition and bucket to read, as of one snapshot. Serializable. */
public final class DataSplit implements Serializable {

  private static final long serialVersionUID = 1L;

  private final long snapshotId;
  private transient BinaryRowData partition;
  private final int bucket;
  private final List<DataFileMeta> files;
  private final Map<String, DeletionFile> deletionFiles;
  private final boolean changes;
  private final boolean changelog;

  public DataSplit(long snapshotId, BinaryRowData partition, int bucket, List<DataFileMeta> files) {
    this(snapshotId, partition, bucket, files, Map.of());
  }

  /** With the deletion vectors of the files (deletion-vector tables), by data file name. */
  public DataSplit(
      long snapshotId,
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files,
      Map<String, DeletionFile> deletionFiles) {
    this(snapshotId, partition, bucket, files, deletionFiles, false);
  }

  /**
   * @param changes whether the split holds the files one snapshot added, read as changes (a
   *     streaming read): rows keep their kinds, and a primary-key split merges only its own files
   */
  public DataSplit(
      long snapshotId,
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files,
      Map<String, DeletionFile> deletionFiles,
      boolean changes) {
    this(snapshotId, partition, bucket, files, deletionFiles, changes, false);
  }

  private DataSplit(
      long snapshotId,
      BinaryRowData partition,
      int bucket,
      List<DataFileMeta> files,
      Map<String, DeletionFile> deletionFiles,
      boolean changes,
      boolean changelog) {
    this.changelog = changelog;
    this.deletionFiles = new HashMap<>(deletionFiles);
    this.snapshotId = snapshotId;
    this.partition = partition;
    this.bucket = bucket;
    this.files = List.copyOf(files);
    this.changes = changes;
  }

  /**
   * A split of changelog files one snapshot added to one bucket (a table with a {@code
   * changelog-producer}): read as they are, every row in file order with its own kind.
   */
  public static DataSplit changelog(
      long snapshotId, BinaryRowData partition, int bucket, List<DataFileMeta> changelogFiles) {
    return new DataSplit(snapshotId, partition, bucket, changelogFiles, Map.of(), false, true);
  }

  /** Whether this split holds changelog files ({@link #changelog}). */
  public boolean isChangelog() {
    return changelog;
  }

  /** Whether this split holds one snapshot's added files, read as changes. */
  public boolean isChanges() {
    return changes;
  }

  public long snapshotId() {
    return snapshotId;
  }

  public BinaryRowData partition() {
    return partition;
  }

  public int bucket() {
    return bucket;
  }

  public List<DataFileMeta> files() {
    return files;
  }

  /** Deletion vectors of this split's files, by data file name (empty when none). */
  public Map<String, DeletionFile> deletionFiles() {
    return deletionFiles == null ? Map.of() : deletionFiles;
  }

  public long rowCount() {
    return files.stream().mapToLong(DataFileMeta::rowCount).sum();
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, partition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    partition = BinaryRows.readRow(in);
  }

  @Override
  public String toString() {
    return "DataSplit{snapshot="
        + snapshotId
        + ", bucket="
        + bucket
        + ", files="
        + files.size()
        + (changes ? ", changes" : "")
        + (changelog ? ", changelog" : "")
        + "}";
  }
}
