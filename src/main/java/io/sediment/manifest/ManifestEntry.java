package io.sediment.manifest;

import io.sediment.data.BinaryRows;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.table.data.binary.BinaryRowData;

/** One line of a manifest: a data file added to or deleted from a partition and bucket. */
public final class ManifestEntry implements Serializable {

  private static final long serialVersionUID = 1L;

  private final FileKind kind;
  private transient BinaryRowData partition;
  private final int bucket;
  private final int totalBuckets;
  private final DataFileMeta file;

  public ManifestEntry(
      FileKind kind, BinaryRowData partition, int bucket, int totalBuckets, DataFileMeta file) {
    this.kind = Objects.requireNonNull(kind);
    this.partition = Objects.requireNonNull(partition);
    this.bucket = bucket;
    this.totalBuckets = totalBuckets;
    this.file = Objects.requireNonNull(file);
  }

  public FileKind kind() {
    return kind;
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

  public DataFileMeta file() {
    return file;
  }

  /** Identifies the file across ADD and DELETE entries. */
  public Identifier identifier() {
    return new Identifier(partition, bucket, file.level(), file.fileName());
  }

  public ManifestEntry withKind(FileKind newKind) {
    return new ManifestEntry(newKind, partition, bucket, totalBuckets, file);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, partition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    partition = BinaryRows.readRow(in);
  }

  /**
   * A data file's identity: partition, bucket, level and (globally unique) file name. A file is
   * never added twice with the same identifier, so an ADD and a DELETE cancel whatever their order
   * in the manifests.
   */
  public record Identifier(BinaryRowData partition, int bucket, int level, String fileName) {}

  @Override
  public String toString() {
    return kind + " " + file.fileName() + " bucket=" + bucket;
  }
}
