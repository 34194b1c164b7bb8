package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFile;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.ManifestList;
import io.sediment.manifest.ManifestMerger;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.predicate.Predicate;
import io.sediment.schema.TableOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns commit messages into snapshots. New files become one APPEND snapshot; compaction changes
 * become one COMPACT snapshot. Each attempt writes manifests, then races for the next snapshot id
 * with an exclusive create; the loser retries on top of the winner. A commit that deletes files
 * first checks that all of them are still live, and fails with {@link CommitConflictException}
 * otherwise. A (commit user, identifier) pair that already landed is skipped.
 */
public final class FileStoreCommit {

  private static final Logger LOG = LoggerFactory.getLogger(FileStoreCommit.class);

  private final FileStore store;
  private final String commitUser;
  private final SnapshotManager snapshots;
  private final ManifestFile manifestFile;
  private final ManifestList manifestList;
  private final int maxRetries;

  public FileStoreCommit(FileStore store, String commitUser) {
    this.store = store;
    this.commitUser = commitUser;
    this.snapshots = store.snapshotManager();
    this.manifestFile = store.manifestFile();
    this.manifestList = store.manifestList();
    this.maxRetries = store.options().get(TableOptions.COMMIT_MAX_RETRIES);
  }

  public String commitUser() {
    return commitUser;
  }

  /** Whether a commit of this user with this identifier (or a later one) already landed. */
  public boolean isCommitted(long identifier) {
    Optional<Snapshot> last = snapshots.latestOfUser(commitUser);
    return last.isPresent() && last.get().commitIdentifier() >= identifier;
  }

  /**
   * Commits the messages; returns the ids of the snapshots made (empty when there was nothing to
   * commit or the identifier already landed). On a conflict nothing is committed and the
   * exception is thrown; the caller decides whether to abort (delete) the new files.
   */
  public List<Long> commit(List<CommitMessage> messages, long identifier, boolean checkCommitted) {
    if (checkCommitted && isCommitted(identifier)) {
      LOG.info("Commit {} of user {} already landed; skipping", identifier, commitUser);
      return List.of();
    }
    List<ManifestEntry> appends = new ArrayList<>();
    List<ManifestEntry> compacts = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.newFiles()) {
        appends.add(new ManifestEntry(FileKind.ADD, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
      for (DataFileMeta f : m.compactBefore()) {
        compacts.add(new ManifestEntry(FileKind.DELETE, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
      for (DataFileMeta f : m.compactAfter()) {
        compacts.add(new ManifestEntry(FileKind.ADD, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
    }
    List<Long> ids = new ArrayList<>();
    if (!appends.isEmpty()) {
      ids.add(tryCommit(appends, CommitKind.APPEND, identifier));
    }
    if (!compacts.isEmpty()) {
      ids.add(tryCommit(compacts, CommitKind.COMPACT, identifier));
    }
    return ids;
  }

  /**
   * Overwrites partitions: one OVERWRITE snapshot that deletes every live file of the overwritten
   * partitions and adds the messages' new files. The overwritten partitions are those matching
   * {@code partitionFilter} (a predicate on the partition row type; null means none) plus every
   * partition the messages write to; for an unpartitioned table the whole table is overwritten.
   *
   * <p>Each attempt reads the files to delete from the snapshot it builds on and checks them as
   * compaction does, so a concurrent commit makes the attempt lose the race for the snapshot id and
   * retry on top of it (the new files of a concurrent append into an overwritten partition are
   * then replaced too). Returns the snapshot id, or empty when the identifier already landed.
   */
  public List<Long> overwrite(
      List<CommitMessage> messages, Predicate partitionFilter, long identifier, boolean checkCommitted) {
    if (checkCommitted && isCommitted(identifier)) {
      LOG.info("Overwrite {} of user {} already landed; skipping", identifier, commitUser);
      return List.of();
    }
    List<ManifestEntry> adds = new ArrayList<>();
    Set<BinaryRowData> written = new HashSet<>();
    for (CommitMessage m : messages) {
      if (!m.compactBefore().isEmpty() || !m.compactAfter().isEmpty()) {
        throw new IllegalArgumentException("An overwrite commit takes only new files: " + m);
      }
      for (DataFileMeta f : m.newFiles()) {
        adds.add(new ManifestEntry(FileKind.ADD, m.partition(), m.bucket(), m.totalBuckets(), f));
        written.add(m.partition());
      }
    }
    boolean partitioned = store.partitionType().getFieldCount() > 0;
    for (int attempt = 0; ; attempt++) {
      Optional<Snapshot> latest = snapshots.latest();
      List<ManifestEntry> changes = new ArrayList<>();
      if (latest.isPresent()) {
        for (ManifestEntry e : store.newScan().plan(latest.get())) {
          boolean overwritten =
              !partitioned
                  || written.contains(e.partition())
                  || (partitionFilter != null && partitionFilter.test(e.partition()));
          if (overwritten) {
            changes.add(e.withKind(FileKind.DELETE));
          }
        }
      }
      changes.addAll(adds);
      if (changes.isEmpty()) {
        return List.of();
      }
      List<ManifestFileMeta> delta = null;
      try {
        delta = manifestFile.write(changes);
        checkNoConflict(latest, changes);
        Attempt a = prepare(latest, delta, changes, CommitKind.OVERWRITE, identifier);
        boolean won;
        try {
          won = snapshots.tryCommit(a.snapshot);
        } catch (IOException | RuntimeException e) {
          a.cleanup();
          throw e;
        }
        if (won) {
          LOG.info(
              "Committed snapshot {} (OVERWRITE, user {}, identifier {}, {} file(s) replaced)",
              a.snapshot.id(), commitUser, identifier, changes.size() - adds.size());
          return List.of(a.snapshot.id());
        }
        a.cleanup();
        manifestFile.delete(delta);
      } catch (IOException e) {
        if (delta != null) {
          manifestFile.delete(delta);
        }
        throw new UncheckedIOException("Overwrite commit failed", e);
      } catch (RuntimeException e) {
        if (delta != null) {
          manifestFile.delete(delta);
        }
        throw e;
      }
      if (attempt >= maxRetries) {
        throw new IllegalStateException(
            "Gave up committing an overwrite after "
                + (attempt + 1)
                + " attempts: other committers kept taking the next snapshot id");
      }
    }
  }

  private long tryCommit(List<ManifestEntry> changes, CommitKind kind, long identifier) {
    List<ManifestFileMeta> delta = null;
    try {
      delta = manifestFile.write(changes);
      boolean deletes = changes.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
      for (int attempt = 0; ; attempt++) {
        Optional<Snapshot> latest = snapshots.latest();
        if (deletes) {
          checkNoConflict(latest, changes);
        }
        Attempt a = prepare(latest, delta, changes, kind, identifier);
        boolean won;
        try {
          won = snapshots.tryCommit(a.snapshot);
        } catch (IOException | RuntimeException e) {
          a.cleanup();
          throw e;
        }
        if (won) {
          LOG.info(
              "Committed snapshot {} ({}, user {}, identifier {})",
              a.snapshot.id(), kind, commitUser, identifier);
          return a.snapshot.id();
        }
        a.cleanup();
        if (attempt >= maxRetries) {
          throw new IllegalStateException(
              "Gave up committing after "
                  + (attempt + 1)
                  + " attempts: other committers kept taking the next snapshot id");
        }
      }
    } catch (IOException e) {
      if (delta != null) {
        manifestFile.delete(delta);
      }
      throw new UncheckedIOException("Commit failed", e);
    } catch (RuntimeException e) {
      if (delta != null) {
        manifestFile.delete(delta);
      }
      throw e;
    }
  }

  /** One attempt's snapshot and the metadata files written for it. */
  private final class Attempt {
    final Snapshot snapshot;
    final String baseList;
    final String deltaList;
    final List<ManifestFileMeta> merged;

    Attempt(Snapshot snapshot, String baseList, String deltaList, List<ManifestFileMeta> merged) {
      this.snapshot = snapshot;
      this.baseList = baseList;
      this.deltaList = deltaList;
      this.merged = merged;
    }

    void cleanup() {
      manifestList.delete(baseList);
      manifestList.delete(deltaList);
      manifestFile.delete(merged);
    }
  }

  private Attempt prepare(
      Optional<Snapshot> latest,
      List<ManifestFileMeta> delta,
      List<ManifestEntry> changes,
      CommitKind kind,
      long identifier)
      throws IOException {
    List<ManifestFileMeta> base = new ArrayList<>();
    long totalRecords = 0;
    long totalFiles = 0;
    if (latest.isPresent()) {
      base.addAll(manifestList.read(latest.get().baseManifestList()));
      base.addAll(manifestList.read(latest.get().deltaManifestList()));
      totalRecords = latest.get().totalRecordCount();
      totalFiles = latest.get().totalFileCount();
    }
    ManifestMerger.Result merged =
        new ManifestMerger(
                manifestFile,
                store.options().get(TableOptions.MANIFEST_TARGET_FILE_SIZE).getBytes(),
                store.options().get(TableOptions.MANIFEST_MERGE_MIN_COUNT))
            .maybeMerge(base);
    long deltaRecords = 0;
    for (ManifestEntry e : changes) {
      long rows = e.file().rowCount() - e.file().deleteRowCount();
      if (e.kind() == FileKind.ADD) {
        deltaRecords += rows;
        totalFiles++;
      } else {
        deltaRecords -= rows;
        totalFiles--;
      }
    }
    String baseList = null;
    String deltaList = null;
    try {
      baseList = manifestList.write(merged.manifests());
      deltaList = manifestList.write(delta);
    } catch (IOException | RuntimeException e) {
      if (baseList != null) {
        manifestList.delete(baseList);
      }
      manifestFile.delete(merged.written());
      throw e;
    }
    long id = latest.map(s -> s.id() + 1).orElse(1L);
    Snapshot snapshot =
        new Snapshot(
            Snapshot.CURRENT_VERSION,
            id,
            store.schema().id(),
            baseList,
            deltaList,
            null,
            commitUser,
            identifier,
            kind,
            System.currentTimeMillis(),
            totalRecords + deltaRecords,
            deltaRecords,
            totalFiles);
    return new Attempt(snapshot, baseList, deltaList, merged.written());
  }

  /** Fails when a file to delete is no longer live in the latest snapshot. */
  private void checkNoConflict(Optional<Snapshot> latest, List<ManifestEntry> changes) {
    Set<ManifestEntry.Identifier> toDelete = new LinkedHashSet<>();
    Set<BinaryRowData> partitions = new HashSet<>();
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.DELETE) {
        toDelete.add(e.identifier());
        partitions.add(e.partition());
      }
    }
    Set<ManifestEntry.Identifier> live = new HashSet<>();
    if (latest.isPresent()) {
      FileStoreScan scan = store.newScan().withPartitionFilter(partitionIn(partitions));
      for (ManifestEntry e : scan.plan(latest.get())) {
        live.add(e.identifier());
      }
    }
    List<String> missing = new ArrayList<>();
    for (ManifestEntry.Identifier id : toDelete) {
      if (!live.contains(id)) {
        missing.add(id.fileName());
      }
    }
    if (!missing.isEmpty()) {
      throw new CommitConflictException(
          "Commit conflicts with a concurrent commit: files to replace are no longer in the latest"
              + " snapshot "
              + latest.map(Snapshot::id).orElse(0L),
          missing);
    }
  }

  /** A partition-row predicate that accepts exactly the given partitions. */
  private static Predicate partitionIn(Set<BinaryRowData> partitions) {
    return PartitionSetPredicate.of(partitions);
  }

  /** Deletes every file the messages added (new files and compaction outputs). */
  public List<IOException> abort(List<CommitMessage> messages) {
    List<Path> paths = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.newFiles()) {
        paths.add(store.dataFilePath(m.partition(), m.bucket(), f.fileName()));
      }
      for (DataFileMeta f : m.compactAfter()) {
        paths.add(store.dataFilePath(m.partition(), m.bucket(), f.fileName()));
      }
    }
    return store.fileIO().deleteAll(paths);
  }

  /** The id of the latest snapshot, if any. */
  public OptionalLong latestSnapshotId() {
    return snapshots.latestId();
  }
}
