package io.sediment.commit;

import io.sediment.data.BinaryRows;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileSource;
import io.sediment.manifest.ManifestEntry;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * What one writer or compaction task changed in one partition and bucket, waiting to be committed:
 * new files appended, and for compaction the files it replaces and the files it wrote, with the id
 * of the snapshot its work read (its base, see {@link #baseSnapshotId()}). Serializable, so it can
 * travel between Flink operators and sit in checkpoint state.
 *
 * <p>In Flink state and records a message is written by {@code
 * io.sediment.flink.serde.CommitMessageCodec} (an explicit, versioned layout). The Java
 * serialization ({@code serialVersionUID} 1) is kept only to read state of layout versions 1 and 2:
 * version 1 had no base snapshot id; such a message reads back with the base unknown, which the
 * commit treats conservatively (see {@link FileStoreCommit}). Do not change the fields' Java form.
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

  /** Null: unknown (a message of serialized version 1, or one that changes no existing file). */
  private final Long baseSnapshotId;

  /**
   * Changelog files of this bucket (primary-key tables with a {@code changelog-producer}): the
   * writer's input ({@link FileSource#APPEND}), committed with the new files, and a compaction's
   * lookup changelog ({@link FileSource#COMPACT}), committed with the compaction. Null in messages
   * of Java-serialized state (none then).
   */
  private final List<DataFileMeta> changelogFiles;

  /** Guards {@link #claimedByBatchCommit} of every message. */
  private static final Object BATCH_CLAIMS = new Object();

  /**
   * Whether a batch commit claimed this message: it is running, landed, or may have landed (its
   * outcome unknown); see {@link #claimForBatch}. Not serialized: only this Java object is
   * recognised, not a copy (a deserialized one, or one made with a new base snapshot id).
   */
  private transient boolean claimedByBatchCommit;

  public CommitMessage(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter) {
    this(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        List.of(),
        OptionalLong.empty());
  }

  /**
   * With deletion-vector changes: {@code deletionFiles} are new deletion vectors of data files of
   * this bucket, each holding every deleted position of its file as of {@code baseSnapshotId} plus
   * the deletions this work adds; they are committed with the compaction. {@code baseSnapshotId} is
   * the snapshot the work read its files and deletion vectors from (0: the table had no snapshot;
   * empty: unknown).
   */
  public CommitMessage(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      List<DeletionFile> deletionFiles,
      OptionalLong baseSnapshotId) {
    this(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        deletionFiles,
        baseSnapshotId,
        List.of());
  }

  /** With changelog files (see {@link #changelogFiles()}). */
  public CommitMessage(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> newFiles,
      List<DataFileMeta> compactBefore,
      List<DataFileMeta> compactAfter,
      List<DeletionFile> deletionFiles,
      OptionalLong baseSnapshotId,
      List<DataFileMeta> changelogFiles) {
    this.changelogFiles = List.copyOf(changelogFiles);
    this.deletionFiles = List.copyOf(deletionFiles);
    this.partition = partition;
    this.bucket = bucket;
    this.totalBuckets = totalBuckets;
    this.newFiles = List.copyOf(newFiles);
    this.compactBefore = List.copyOf(compactBefore);
    this.compactAfter = List.copyOf(compactAfter);
    this.baseSnapshotId = baseSnapshotId.isPresent() ? baseSnapshotId.getAsLong() : null;
  }

  public static CommitMessage append(
      BinaryRowData partition, int bucket, int totalBuckets, List<DataFileMeta> newFiles) {
    return new CommitMessage(partition, bucket, totalBuckets, newFiles, List.of(), List.of());
  }

  /** A compaction of the inputs {@code before} into {@code after}; its base is unknown. */
  public static CommitMessage compact(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> before,
      List<DataFileMeta> after) {
    return compact(partition, bucket, totalBuckets, before, after, OptionalLong.empty());
  }

  /** A compaction of the inputs {@code before} into {@code after}, read from {@code base}. */
  public static CommitMessage compact(
      BinaryRowData partition,
      int bucket,
      int totalBuckets,
      List<DataFileMeta> before,
      List<DataFileMeta> after,
      OptionalLong baseSnapshotId) {
    return new CommitMessage(
        partition, bucket, totalBuckets, List.of(), before, after, List.of(), baseSnapshotId);
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

  /**
   * Changelog files of this bucket: the writer's input changelog (source APPEND), committed with
   * {@link #newFiles()}, and a compaction's lookup changelog (source COMPACT), committed with the
   * compaction.
   */
  public List<DataFileMeta> changelogFiles() {
    return changelogFiles == null ? List.of() : changelogFiles;
  }

  /** The changelog files of the writer's input ({@code changelog-producer} = input). */
  public List<DataFileMeta> inputChangelog() {
    return changelogFiles().stream().filter(f -> f.source() == FileSource.APPEND).toList();
  }

  /** The changelog files a compaction computed ({@code changelog-producer} = lookup). */
  public List<DataFileMeta> compactChangelog() {
    return changelogFiles().stream().filter(f -> f.source() == FileSource.COMPACT).toList();
  }

  /**
   * The id of the snapshot this message's work read its input files and deletion vectors from (0
   * when the table had none); empty when unknown. The commit validates the message against it: see
   * {@link FileStoreCommit}.
   */
  public OptionalLong baseSnapshotId() {
    return baseSnapshotId == null ? OptionalLong.empty() : OptionalLong.of(baseSnapshotId);
  }

  /** The same changes, with the given base (empty: unknown). */
  public CommitMessage withBaseSnapshotId(OptionalLong base) {
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        deletionFiles(),
        base,
        changelogFiles());
  }

  /**
   * Names of the files this message adds: new and compacted data files and deletion-vector files
   * (the files a writer or rewrite created for it).
   */
  public Set<String> outputFileNames() {
    Set<String> names = new HashSet<>();
    newFiles.forEach(f -> names.add(f.fileName()));
    compactAfter.forEach(f -> names.add(f.fileName()));
    deletionFiles().forEach(d -> names.add(d.dvFile()));
    changelogFiles().forEach(f -> names.add(f.fileName()));
    return names;
  }

  /** Names of the files a set of messages adds ({@link #outputFileNames()} of each). */
  public static Set<String> outputFileNames(Collection<CommitMessage> messages) {
    Set<String> names = new HashSet<>();
    for (CommitMessage m : messages) {
      names.addAll(m.outputFileNames());
    }
    return names;
  }

  public boolean isEmpty() {
    return newFiles.isEmpty()
        && compactBefore.isEmpty()
        && compactAfter.isEmpty()
        && deletionFiles().isEmpty()
        && changelogFiles().isEmpty();
  }

  /**
   * Claims the messages for a batch commit, or throws, naming the rule, when one of them is claimed
   * already: a batch commit has no identifier by which a second landing of the same messages could
   * be recognised, so committing them again would reference their files from two separate ranges of
   * snapshots (duplicate rows, and a file that snapshot expiry may delete while a later snapshot
   * still reads it, docs/spec.md section 4.4). {@link BatchClaim#releaseUnlessLanded} gives them
   * back when the commit failed with nothing landed.
   *
   * @throws BatchMessagesCommittedException when a message is claimed by an earlier batch commit
   * @throws IllegalArgumentException when the list holds one message twice
   */
  static BatchClaim claimForBatch(List<CommitMessage> messages) {
    Set<CommitMessage> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    for (CommitMessage m : messages) {
      if (!distinct.add(m)) {
        throw new IllegalArgumentException(
            "A commit was given the same commit message twice, which would add its files twice: "
                + m);
      }
    }
    synchronized (BATCH_CLAIMS) {
      for (CommitMessage m : messages) {
        if (m.claimedByBatchCommit) {
          throw new BatchMessagesCommittedException(
              "These commit messages were committed by an earlier batch commit, which landed, may"
                  + " have landed (it ended with CommitOutcomeUnknownException or an Error), or is"
                  + " still running; a batch commit cannot"
                  + " recognise that it landed already, so committing them again would add their"
                  + " files twice. Look at the table's latest snapshots instead: nothing was"
                  + " committed");
        }
      }
      messages.forEach(m -> m.claimedByBatchCommit = true);
    }
    return new BatchClaim(messages);
  }

  /**
   * Runs a batch commit of {@code messages} under their claim: a batch commit is not recognised
   * when it lands twice, so its messages are committed once ({@link #claimForBatch}). The claim is
   * given back when the commit fails with its outcome known and nothing landed; an {@link Error}
   * keeps it, since where it struck is not known.
   */
  static List<Long> claimedForBatch(
      List<CommitMessage> messages, Function<BatchClaim, List<Long>> commit) {
    BatchClaim claim = claimForBatch(messages);
    try {
      return commit.apply(claim);
    } catch (CommitOutcomeUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      claim.releaseUnlessLanded();
      throw e;
    }
  }

  /** Messages a batch commit claimed ({@link #claimForBatch}). */
  static final class BatchClaim {
    private final List<CommitMessage> messages;
    private boolean landed;

    private BatchClaim(List<CommitMessage> messages) {
      this.messages = List.copyOf(messages);
    }

    /** A snapshot of the commit landed: the messages stay claimed whatever happens next. */
    void landed() {
      landed = true;
    }

    /**
     * The commit failed with its outcome known: unless a snapshot of it landed, the messages may be
     * committed again (nothing of them is in the table).
     */
    void releaseUnlessLanded() {
      if (landed) {
        return;
      }
      synchronized (BATCH_CLAIMS) {
        messages.forEach(m -> m.claimedByBatchCommit = false);
      }
    }
  }

  /** An entry of {@code kind} for {@code file} in this message's partition and bucket. */
  ManifestEntry entry(FileKind kind, DataFileMeta file) {
    return new ManifestEntry(kind, partition, bucket, totalBuckets, file);
  }

  /** Whether any message replaces files or adds deletion vectors (a compaction's changes). */
  static boolean anyCompaction(List<CommitMessage> messages) {
    for (CommitMessage m : messages) {
      if (!m.compactBefore.isEmpty() || !m.compactAfter.isEmpty() || !m.deletionFiles().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * What dropping this message's compaction deletes: its outputs that are not appended files, and
   * its new deletion vectors.
   */
  CommitMessage compactionOutputs() {
    List<DataFileMeta> outputs = new ArrayList<>(compactAfter);
    outputs.removeAll(newFiles);
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        List.of(),
        List.of(),
        outputs,
        deletionFiles(),
        OptionalLong.empty(),
        compactChangelog());
  }

  /** The new files with their input changelog, without the compaction. */
  CommitMessage appendsOnly() {
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        List.of(),
        List.of(),
        List.of(),
        OptionalLong.empty(),
        inputChangelog());
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    BinaryRows.writeRow(out, partition);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    partition = BinaryRows.readRow(in);
  }

  /** A message of Java-serialized state has no changelog files: an empty list, as today's. */
  private Object readResolve() {
    if (changelogFiles != null && deletionFiles != null) {
      return this;
    }
    return new CommitMessage(
        partition,
        bucket,
        totalBuckets,
        newFiles,
        compactBefore,
        compactAfter,
        deletionFiles(),
        baseSnapshotId(),
        List.of());
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
        + (changelogFiles().isEmpty() ? "" : ", changelog=" + changelogFiles().size())
        + ", base="
        + (baseSnapshotId == null ? "unknown" : baseSnapshotId)
        + "}";
  }
}
