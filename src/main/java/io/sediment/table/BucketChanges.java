package io.sediment.table;

import io.sediment.commit.CommitMessage;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.flink.table.data.binary.BinaryRowData;

/**
 * What the writer of one primary-key bucket sends at its next commit (the level-0 and changelog
 * files written and the compactions done since the last one), and the files its compactions plan
 * over: the committed view with those changes applied.
 */
final class BucketChanges {

  private final List<DataFileMeta> files = new ArrayList<>();
  private final List<DataFileMeta> newFiles = new ArrayList<>();
  private final List<DataFileMeta> compactBefore = new ArrayList<>();
  private final List<DataFileMeta> compactAfter = new ArrayList<>();
  private final List<DataFileMeta> changelogFiles = new ArrayList<>();
  private final List<CommitMessage> compactions = new ArrayList<>();

  BucketChanges(Collection<DataFileMeta> committed) {
    files.addAll(committed);
  }

  /** What compaction plans over (a copy). */
  List<DataFileMeta> files() {
    return List.copyOf(files);
  }

  /** The level-0 files written since the last commit. */
  List<DataFileMeta> newFiles() {
    return newFiles;
  }

  int level0Runs() {
    int n = 0;
    for (DataFileMeta f : files) {
      if (f.level() == 0) {
        n++;
      }
    }
    return n;
  }

  void written(List<DataFileMeta> level0) {
    newFiles.addAll(level0);
    files.addAll(level0);
  }

  void changelogWritten(List<DataFileMeta> changelog) {
    changelogFiles.addAll(changelog);
  }

  /**
   * Applies a compaction done over {@link #files()}; {@code delete} gets each output of an earlier
   * compaction of this window that it consumed: never committed, so nothing else refers to it.
   */
  void compacted(CommitMessage m, Consumer<DataFileMeta> delete) {
    for (DataFileMeta before : m.compactBefore()) {
      files.remove(before);
      if (compactAfter.remove(before)) {
        delete.accept(before);
      } else {
        compactBefore.add(before);
      }
    }
    files.addAll(m.compactAfter());
    compactAfter.addAll(m.compactAfter());
    compactions.add(m);
  }

  /** The committed view (at a new snapshot) with this window's changes applied again. */
  void rebuild(Collection<DataFileMeta> committed) {
    Set<String> consumed = new HashSet<>();
    compactBefore.forEach(f -> consumed.add(f.fileName()));
    files.clear();
    for (DataFileMeta f : committed) {
      if (!consumed.contains(f.fileName())) {
        files.add(f);
      }
    }
    for (DataFileMeta f : newFiles) {
      if (!consumed.contains(f.fileName())) {
        files.add(f);
      }
    }
    files.addAll(compactAfter);
  }

  /**
   * The changes as one message, and starts over. Its base is the oldest base of the compactions in
   * it (unknown if any is unknown): the commit validates deletion vectors against it. The caller
   * rebuilds the files over its view.
   */
  CommitMessage drain(BinaryRowData partition, int bucket, int numBuckets) {
    List<DeletionFile> dvs = new ArrayList<>();
    List<DataFileMeta> changelog = new ArrayList<>(changelogFiles);
    OptionalLong base = OptionalLong.empty();
    boolean baseKnown = true;
    for (CommitMessage m : compactions) {
      dvs.addAll(m.deletionFiles());
      changelog.addAll(m.changelogFiles());
      OptionalLong b = m.baseSnapshotId();
      if (b.isEmpty()) {
        baseKnown = false;
      } else if (base.isEmpty() || b.getAsLong() < base.getAsLong()) {
        base = b;
      }
    }
    CommitMessage m =
        new CommitMessage(
            partition,
            bucket,
            numBuckets,
            newFiles,
            compactBefore,
            compactAfter,
            dvs,
            baseKnown ? base : OptionalLong.empty(),
            changelog);
    newFiles.clear();
    compactBefore.clear();
    compactAfter.clear();
    changelogFiles.clear();
    compactions.clear();
    return m;
  }

  /** The files written since the last drain (data and changelog), for an abort to delete. */
  List<DataFileMeta> unsent() {
    List<DataFileMeta> out = new ArrayList<>(newFiles);
    out.addAll(compactAfter);
    out.addAll(changelogFiles);
    compactions.forEach(m -> out.addAll(m.changelogFiles()));
    return out;
  }

  /** The deletion-vector files the compactions since the last drain wrote, for an abort. */
  List<String> unsentVectors() {
    List<String> out = new ArrayList<>();
    compactions.forEach(m -> m.deletionFiles().forEach(d -> out.add(d.dvFile())));
    return out;
  }
}
