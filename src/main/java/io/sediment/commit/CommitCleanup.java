package io.sediment.commit;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.Snapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what commit messages wrote when it is not (or no longer) to be committed: an aborted
 * commit's files, a dropped compaction's outputs, deletion-vector files a published commit replaced
 * by merged ones; and tells which of the files messages add are missing, dropping from a commit the
 * compactions whose outputs are gone. Never deletes a file the latest snapshot references, nor a
 * changelog file a snapshot lists.
 */
final class CommitCleanup {

  private static final Logger LOG = LoggerFactory.getLogger(CommitCleanup.class);

  private final FileStore store;
  private final IndexManifest indexManifest;

  CommitCleanup(FileStore store) {
    this.store = store;
    this.indexManifest = new IndexManifest(store.fileIO(), store.paths());
  }

  /** Deletes every file the messages added (new files, compaction outputs, deletion vectors). */
  List<IOException> abort(List<CommitMessage> messages) {
    changelogCache = null; // read again for each abort: snapshots may have landed since
    // Never delete what the latest snapshot references: a retried or restored commit that had
    // in fact landed must not lose its files when it then fails (for example on a conflict with
    // itself). Data files and deletion-vector files are checked.
    Set<String> live = new HashSet<>();
    Set<String> liveVectors = new HashSet<>();
    Optional<Snapshot> latest = store.snapshotManager().latest();
    if (latest.isPresent() && !messages.isEmpty()) {
      Set<BinaryRowData> partitions = new HashSet<>();
      for (CommitMessage m : messages) {
        partitions.add(m.partition());
      }
      for (ManifestEntry e :
          store
              .newScan()
              .withPartitionFilter(PartitionPredicates.in(store.partitionType(), partitions))
              .plan(latest.get())) {
        live.add(e.file().fileName());
      }
      try {
        for (IndexManifest.Entry e : indexManifest.read(latest.get().indexManifest())) {
          liveVectors.add(e.deletionFile().dvFile());
        }
      } catch (IOException e) {
        return List.of(new IOException("Cannot read the index manifest; nothing was deleted", e));
      }
    }
    List<Path> paths = new ArrayList<>();
    Set<String> dvFiles = new LinkedHashSet<>();
    for (CommitMessage m : messages) {
      for (DeletionFile d : m.deletionFiles()) {
        if (!liveVectors.contains(d.dvFile()) && dvFiles.add(d.dvFile())) {
          paths.add(store.paths().index(d.dvFile()));
        }
      }
      for (DataFileMeta f : m.newFiles()) {
        if (!live.contains(f.fileName())) {
          paths.add(store.dataFilePath(m.partition(), m.bucket(), f.fileName()));
        }
      }
      for (DataFileMeta f : m.compactAfter()) {
        if (!live.contains(f.fileName())) {
          paths.add(store.dataFilePath(m.partition(), m.bucket(), f.fileName()));
        }
      }
      if (!m.changelogFiles().isEmpty()) {
        // Changelog files are listed by the snapshot that added them only, not by the latest.
        Set<String> listed = changelogSince(latest, messages);
        if (listed == null) {
          continue; // cannot tell: left to orphan removal
        }
        for (DataFileMeta f : m.changelogFiles()) {
          if (!listed.contains(f.fileName())) {
            paths.add(store.dataFilePath(m.partition(), m.bucket(), f.fileName()));
          }
        }
      }
    }
    return store.fileIO().deleteAll(paths);
  }

  /** Clock skew allowed between the machines that write files and those that commit them. */
  private static final long CLOCK_SKEW_MILLIS = 10 * 60 * 1000;

  /** The changelog files listed by snapshots of the current abort, read once per abort. */
  private Set<String> changelogCache;

  /**
   * Names of the changelog files that snapshots committed since the messages' changelog files were
   * written list (a snapshot committed before a file existed cannot list it), or null when they
   * cannot be read.
   */
  private Set<String> changelogSince(Optional<Snapshot> latest, List<CommitMessage> messages) {
    if (changelogCache != null || latest.isEmpty()) {
      return changelogCache == null ? Set.of() : changelogCache;
    }
    long written = Long.MAX_VALUE;
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.changelogFiles()) {
        written = Math.min(written, f.creationTimeMillis());
      }
    }
    Set<String> names = new HashSet<>();
    try {
      long last = latest.get().id();
      for (long id = last; id > 0; id--) {
        Optional<Snapshot> s = id == last ? latest : store.snapshotManager().snapshotIfExists(id);
        if (s.isEmpty() || s.get().timeMillis() < written - CLOCK_SKEW_MILLIS) {
          break; // expired, or committed before the files were written
        }
        for (ManifestEntry e : store.newScan().readChangelog(s.get())) {
          names.add(e.file().fileName());
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Cannot read the snapshots' changelog; keeping changelog files: {}", e.toString());
      return null;
    }
    changelogCache = names;
    return names;
  }

  /**
   * Deletes files no snapshot lists (an overwrite's compacted inputs and changelog), logging
   * failures.
   */
  void deleteUnreferenced(List<ManifestEntry> files) {
    List<Path> paths = new ArrayList<>();
    for (ManifestEntry e : files) {
      paths.add(store.dataFilePath(e.partition(), e.bucket(), e.file().fileName()));
    }
    for (IOException x : store.fileIO().deleteAll(paths)) {
      LOG.warn("Could not delete an unused file of an overwrite: {}", x.toString());
    }
  }

  /** Deletes a dropped compaction's outputs, logging what cannot be deleted. */
  void drop(List<CommitMessage> compactOnly) {
    for (IOException x : abort(compactOnly)) {
      LOG.warn("Could not delete a dropped compaction output: {}", x.toString());
    }
  }

  /**
   * After a commit published {@code published} (the snapshot's vectors, null when it wrote no new
   * index manifest): deletes the messages' deletion-vector files that no vector of the snapshot
   * points into, because the commit merged them into new ones. No snapshot ever referenced them.
   */
  void deleteReplacedVectors(List<CommitMessage> messages, List<IndexManifest.Entry> published) {
    if (published == null) {
      return;
    }
    Set<String> referenced = new HashSet<>();
    for (IndexManifest.Entry e : published) {
      referenced.add(e.deletionFile().dvFile());
    }
    Set<String> replaced = new LinkedHashSet<>();
    for (CommitMessage m : messages) {
      for (DeletionFile d : m.deletionFiles()) {
        if (!referenced.contains(d.dvFile())) {
          replaced.add(d.dvFile());
        }
      }
    }
    for (String name : replaced) {
      IOException e = store.fileIO().deleteQuietly(store.paths().index(name));
      if (e != null) {
        LOG.warn("Could not delete the replaced deletion-vector file {}: {}", name, e.toString());
      }
    }
  }

  /**
   * The files the messages add (new files, compaction outputs, deletion-vector files) that do not
   * exist.
   */
  List<String> missingOutputs(List<CommitMessage> messages) {
    List<String> missing = new ArrayList<>();
    Set<String> vectorFiles = new HashSet<>();
    try {
      for (CommitMessage m : messages) {
        for (DeletionFile d : m.deletionFiles()) {
          if (vectorFiles.add(d.dvFile())
              && !store.fileIO().exists(store.paths().index(d.dvFile()))) {
            missing.add(d.dvFile());
          }
        }
        for (DataFileMeta f : m.newFiles()) {
          if (!store.fileIO().exists(store.dataFilePath(m.partition(), m.bucket(), f.fileName()))) {
            missing.add(f.fileName());
          }
        }
        for (DataFileMeta f : m.compactAfter()) {
          if (!store.fileIO().exists(store.dataFilePath(m.partition(), m.bucket(), f.fileName()))) {
            missing.add(f.fileName());
          }
        }
        for (DataFileMeta f : m.changelogFiles()) {
          if (!store.fileIO().exists(store.dataFilePath(m.partition(), m.bucket(), f.fileName()))) {
            missing.add(f.fileName());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check the files to commit", e);
    }
    return missing;
  }

  /**
   * The messages to commit, after checking that every file they add exists. A message whose
   * compaction outputs are gone had its compaction dropped or aborted by an earlier attempt (a
   * conflict): a restored window must not fail on it at every restore, and must not replace live
   * files with missing ones, so that compaction is dropped again (its remaining outputs deleted)
   * and the message's appended files are kept. A missing appended file holds rows nothing else has:
   * the commit is refused.
   */
  List<CommitMessage> withoutLostCompactions(
      List<CommitMessage> messages, String commitUser, long identifier) {
    List<CommitMessage> out = new ArrayList<>();
    List<String> lostAppends = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    for (CommitMessage m : messages) {
      List<String> missing = missingOutputs(List.of(m));
      if (missing.isEmpty()) {
        out.add(m);
        continue;
      }
      Set<String> appended = new HashSet<>();
      m.newFiles().forEach(f -> appended.add(f.fileName()));
      m.inputChangelog().forEach(f -> appended.add(f.fileName()));
      List<String> lost = new ArrayList<>(missing);
      lost.retainAll(appended);
      if (!lost.isEmpty()) {
        lostAppends.addAll(lost);
        continue;
      }
      LOG.warn(
          "Commit {} of user {}: outputs {} of the compaction of bucket {} are gone (an earlier"
              + " attempt dropped it); it is dropped, the bucket's new files are committed",
          describeIdentifier(identifier),
          commitUser,
          missing,
          m.bucket());
      dropped.addAll(missing);
      drop(List.of(m.compactionOutputs()));
      if (!m.newFiles().isEmpty()) {
        out.add(m.appendsOnly());
      }
    }
    if (!lostAppends.isEmpty()) {
      throw new IllegalStateException(
          "Refusing to commit: new files to add are missing (deleted by an earlier abort?): "
              + lostAppends);
    }
    if (!dropped.isEmpty() && out.stream().allMatch(m -> m.newFiles().isEmpty())) {
      // Nothing of the commit is left: say so, as a compaction that conflicts does.
      throw new CommitConflictException(
          "Commit conflicts: outputs of its compaction are missing (an earlier attempt dropped or"
              + " aborted it), so it is dropped; its files are planned again",
          dropped);
    }
    return out;
  }

  /** A commit identifier for logs: "batch commit" for the batch identifier. */
  static String describeIdentifier(long identifier) {
    return identifier == FileStoreCommit.BATCH_IDENTIFIER
        ? "batch commit"
        : "identifier " + identifier;
  }
}
