package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.FileStoreScan;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFile;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.ManifestList;
import io.sediment.manifest.ManifestMerger;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.UserCommit;
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
 * otherwise. A (commit user, identifier) pair that already landed is skipped, except that a retry
 * completes (or drops) a writer's compaction whose COMPACT snapshot did not land after its APPEND
 * did (see {@link #commit}).
 */
public final class FileStoreCommit {

  private static final Logger LOG = LoggerFactory.getLogger(FileStoreCommit.class);

  private final FileStore store;
  private final String commitUser;
  private final SnapshotManager snapshots;
  private final ManifestFile manifestFile;
  private final ManifestList manifestList;
  private final int maxRetries;
  private final IndexManifest indexManifest;

  /**
   * This user's newest stream commit as far as this committer knows (null: none), valid while
   * {@link #resolved}. Resolved from the snapshots once, then kept up to date by this committer's
   * own commits: with one committer per commit user nobody else adds to it, and the user's hint is
   * read on every check so that another committer of the same user is noticed.
   */
  private UserCommit known;

  private boolean resolved;

  public FileStoreCommit(FileStore store, String commitUser) {
    this.store = store;
    this.commitUser = commitUser;
    this.snapshots = store.snapshotManager();
    this.manifestFile = store.manifestFile();
    this.manifestList = store.manifestList();
    this.maxRetries = store.options().get(TableOptions.COMMIT_MAX_RETRIES);
    this.indexManifest = new IndexManifest(store.fileIO(), store.paths());
  }

  public String commitUser() {
    return commitUser;
  }

  /** Whether a commit of this user with this identifier (or a later one) already landed. */
  public boolean isCommitted(long identifier) {
    Optional<UserCommit> last = latestCommit();
    return last.isPresent() && last.get().commitIdentifier() >= identifier;
  }

  /**
   * The newest stream commit of this user (batch commits, identifier Long.MAX_VALUE, say nothing
   * about stream identifiers and are skipped). Reads the user's hint; the snapshots only when this
   * committer does not know yet, or the hint shows a commit it did not make.
   */
  public Optional<UserCommit> latestCommit() {
    Optional<UserCommit> hint = snapshots.readUserHint(commitUser);
    boolean trusted =
        resolved
            && (hint.isEmpty() || (known != null && hint.get().snapshotId() <= known.snapshotId()));
    if (!trusted) {
      known = snapshots.latestCommitOfUser(commitUser, hint).orElse(null);
      resolved = true;
    }
    return Optional.ofNullable(known);
  }

  /** This committer published {@code s}: it is now the user's newest commit. */
  private void published(Snapshot s) {
    if (SnapshotManager.isStreamCommit(s)) {
      known = UserCommit.of(s);
      resolved = true;
    }
  }

  /**
   * Commits the messages; returns the ids of the snapshots made (empty when there was nothing to
   * commit or the identifier already landed). On a conflict nothing is committed and the exception
   * is thrown; the caller decides whether to abort (delete) the new files.
   *
   * <p>Messages with new files and compaction changes (a primary-key writer's own compaction) make
   * two snapshots with the same identifier: APPEND, then COMPACT. The APPEND can land and the
   * COMPACT fail (an I/O error, a crash, an unknown outcome). A retry of that identifier ({@code
   * checkCommitted}) then finds the user's newest commit to be the APPEND of this identifier, and
   * commits only the compaction, so the window ends complete and its outputs are not left
   * unreferenced: the compaction lands if its inputs are still live and its outputs exist;
   * otherwise it is dropped and its outputs are deleted, as on a conflict in the first attempt. The
   * rows are the same either way: the compaction only rewrites them.
   */
  public List<Long> commit(List<CommitMessage> messages, long identifier, boolean checkCommitted) {
    if (messages.stream().allMatch(CommitMessage::isEmpty)) {
      return List.of();
    }
    if (checkCommitted) {
      Optional<UserCommit> last = latestCommit();
      if (last.isPresent() && last.get().commitIdentifier() >= identifier) {
        if (last.get().commitIdentifier() == identifier
            && last.get().commitKind() == CommitKind.APPEND
            && hasCompaction(messages)) {
          LOG.info(
              "Commit {} of user {}: snapshot {} appended the new files, the compaction did not"
                  + " land; committing it now",
              identifier,
              commitUser,
              last.get().snapshotId());
          return commitCompaction(messages, identifier, last.get().snapshotId(), true);
        }
        LOG.info("Commit {} of user {} already landed; skipping", identifier, commitUser);
        return List.of();
      }
    }
    checkOutputsExist(messages);
    List<ManifestEntry> appends = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.newFiles()) {
        appends.add(
            new ManifestEntry(FileKind.ADD, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
    }
    List<Long> ids = new ArrayList<>();
    if (!appends.isEmpty()) {
      ids.add(tryCommit(appends, List.of(), CommitKind.APPEND, identifier));
    }
    ids.addAll(commitCompaction(messages, identifier, ids.isEmpty() ? null : ids.get(0), false));
    return ids;
  }

  private static boolean hasCompaction(List<CommitMessage> messages) {
    for (CommitMessage m : messages) {
      if (!m.compactBefore().isEmpty()
          || !m.compactAfter().isEmpty()
          || !m.deletionFiles().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Commits the compaction part of the messages as one COMPACT snapshot; returns its id, or nothing
   * when there is none or it was dropped. {@code appended} is the APPEND snapshot of the same
   * messages if it landed (null otherwise): then a conflict, or outputs missing on a {@code retry},
   * drop the compaction and delete its outputs instead of failing, so that a caller's abort never
   * touches the appended files and a restored window does not fail again on every restore.
   */
  private List<Long> commitCompaction(
      List<CommitMessage> messages, long identifier, Long appended, boolean retry) {
    List<ManifestEntry> compacts = new ArrayList<>();
    List<IndexManifest.Entry> deletionVectors = new ArrayList<>();
    List<CommitMessage> compactOnly = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DeletionFile d : m.deletionFiles()) {
        deletionVectors.add(IndexManifest.Entry.of(m.partition(), m.bucket(), d));
      }
      for (DataFileMeta f : m.compactBefore()) {
        compacts.add(
            new ManifestEntry(FileKind.DELETE, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
      for (DataFileMeta f : m.compactAfter()) {
        compacts.add(
            new ManifestEntry(FileKind.ADD, m.partition(), m.bucket(), m.totalBuckets(), f));
      }
      // What dropping the compaction deletes: its outputs that are not appended files.
      List<DataFileMeta> outputs = new ArrayList<>(m.compactAfter());
      outputs.removeAll(m.newFiles());
      compactOnly.add(
          new CommitMessage(
              m.partition(),
              m.bucket(),
              m.totalBuckets(),
              List.of(),
              List.of(),
              outputs,
              m.deletionFiles()));
    }
    if (compacts.isEmpty() && deletionVectors.isEmpty()) {
      return List.of();
    }
    if (retry) {
      List<String> missing = missingOutputs(compactOnly);
      if (!missing.isEmpty()) {
        // An earlier attempt dropped this compaction and deleted (some of) its outputs.
        LOG.warn(
            "Commit {} of user {}: the compaction's outputs {} are missing; it is dropped",
            identifier,
            commitUser,
            missing);
        dropCompaction(compactOnly);
        return List.of();
      }
    }
    try {
      return List.of(tryCommit(compacts, deletionVectors, CommitKind.COMPACT, identifier));
    } catch (CommitConflictException e) {
      if (appended == null) {
        throw e;
      }
      // The appended files already landed: never let a caller's abort delete them. Drop only
      // the compaction (a primary-key writer's own) and delete its outputs; a later compaction
      // redoes it.
      LOG.warn(
          "Snapshot {} appended the new files, but the writer's compaction conflicted and is"
              + " dropped: {}",
          appended,
          e.getMessage());
      dropCompaction(compactOnly);
      return List.of();
    }
  }

  private void dropCompaction(List<CommitMessage> compactOnly) {
    for (IOException x : abort(compactOnly)) {
      LOG.warn("Could not delete a dropped compaction output: {}", x.toString());
    }
  }

  /**
   * Overwrites partitions: one OVERWRITE snapshot that deletes every live file of the overwritten
   * partitions and adds the messages' new files. The overwritten partitions are those matching
   * {@code partitionFilter} (a predicate on the partition row type; null means none) plus every
   * partition the messages write to; for an unpartitioned table the whole table is overwritten.
   *
   * <p>Each attempt reads the files to delete from the snapshot it builds on and checks them as
   * compaction does, so a concurrent commit makes the attempt lose the race for the snapshot id and
   * retry on top of it (the new files of a concurrent append into an overwritten partition are then
   * replaced too). Returns the snapshot id, or empty when the identifier already landed.
   */
  public List<Long> overwrite(
      List<CommitMessage> messages,
      Predicate partitionFilter,
      long identifier,
      boolean checkCommitted) {
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
      Optional<Snapshot> latest = snapshots.latestForCommit();
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
        checkNoConflict(latest, changes, List.of());
        Attempt a = prepare(latest, delta, changes, List.of(), CommitKind.OVERWRITE, identifier);
        boolean won = publish(a);
        if (won) {
          published(a.snapshot);
          LOG.info(
              "Committed snapshot {} (OVERWRITE, user {}, identifier {}, {} file(s) replaced)",
              a.snapshot.id(),
              commitUser,
              identifier,
              changes.size() - adds.size());
          return List.of(a.snapshot.id());
        }
        a.cleanup();
        manifestFile.delete(delta);
      } catch (IOException e) {
        resolved = false;
        if (delta != null) {
          manifestFile.delete(delta);
        }
        throw new UncheckedIOException("Overwrite commit failed", e);
      } catch (RuntimeException e) {
        resolved = false;
        if (delta != null && !(e instanceof CommitOutcomeUnknownException)) {
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

  private long tryCommit(
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors,
      CommitKind kind,
      long identifier) {
    List<ManifestFileMeta> delta = null;
    try {
      delta = manifestFile.write(changes);
      boolean deletes =
          !deletionVectors.isEmpty() || changes.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
      boolean levelled =
          store.schema().hasPrimaryKey() && changes.stream().anyMatch(e -> e.file().level() > 0);
      for (int attempt = 0; ; attempt++) {
        Optional<Snapshot> latest = snapshots.latestForCommit();
        if (deletes) {
          checkNoConflict(latest, changes, deletionVectors);
        }
        if (levelled) {
          checkNoOverlap(latest, changes);
        }
        Attempt a = prepare(latest, delta, changes, deletionVectors, kind, identifier);
        boolean won = publish(a);
        if (won) {
          published(a.snapshot);
          LOG.info(
              "Committed snapshot {} ({}, user {}, identifier {})",
              a.snapshot.id(),
              kind,
              commitUser,
              identifier);
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
      resolved = false; // look again next time
      if (delta != null) {
        manifestFile.delete(delta);
      }
      throw new UncheckedIOException("Commit failed", e);
    } catch (RuntimeException e) {
      resolved = false;
      if (delta != null && !(e instanceof CommitOutcomeUnknownException)) {
        manifestFile.delete(delta);
      }
      throw e;
    }
  }

  /**
   * Publishes an attempt's snapshot. When publishing throws, the snapshot may still have been
   * created (a rename that succeeded before its reply was lost): if the snapshot with that id is
   * ours the commit landed; if it is absent or another's, the attempt is cleaned up and the error
   * thrown; if that cannot be told, nothing is cleaned up and {@link CommitOutcomeUnknownException}
   * is thrown.
   */
  private boolean publish(Attempt a) throws IOException {
    try {
      return snapshots.tryCommit(a.snapshot);
    } catch (IOException | RuntimeException e) {
      Boolean ours;
      try {
        ours =
            snapshots.exists(a.snapshot.id())
                && snapshots
                    .snapshot(a.snapshot.id())
                    .baseManifestList()
                    .equals(a.snapshot.baseManifestList());
      } catch (RuntimeException check) {
        e.addSuppressed(check);
        ours = null;
      }
      if (ours == null) {
        throw new CommitOutcomeUnknownException(
            "Could not tell whether snapshot " + a.snapshot.id() + " was published", e);
      }
      if (ours) {
        LOG.warn(
            "Publishing snapshot {} reported an error but it landed: {}",
            a.snapshot.id(),
            e.toString());
        snapshots.writeHints(a.snapshot);
        return true;
      }
      a.cleanup();
      throw e;
    }
  }

  /** One attempt's snapshot and the metadata files written for it. */
  private final class Attempt {
    final Snapshot snapshot;
    final String baseList;
    final String deltaList;
    final List<ManifestFileMeta> merged;
    final String newIndexManifest;

    Attempt(
        Snapshot snapshot,
        String baseList,
        String deltaList,
        List<ManifestFileMeta> merged,
        String newIndexManifest) {
      this.snapshot = snapshot;
      this.baseList = baseList;
      this.deltaList = deltaList;
      this.merged = merged;
      this.newIndexManifest = newIndexManifest;
    }

    void cleanup() {
      manifestList.delete(baseList);
      manifestList.delete(deltaList);
      manifestFile.delete(merged);
      indexManifest.delete(newIndexManifest);
    }
  }

  private Attempt prepare(
      Optional<Snapshot> latest,
      List<ManifestFileMeta> delta,
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors,
      CommitKind kind,
      long identifier)
      throws IOException {
    String previousIndex = latest.map(Snapshot::indexManifest).orElse(null);
    String index = previousIndex;
    String newIndex = null;
    boolean dropsFiles = changes.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
    if (!deletionVectors.isEmpty() || (previousIndex != null && dropsFiles)) {
      // Deletion vectors: previous entries, minus those of data files this commit removes,
      // with this commit's new vectors replacing older ones of the same data file.
      Set<String> removed = new HashSet<>();
      for (ManifestEntry e : changes) {
        if (e.kind() == FileKind.DELETE) {
          removed.add(
              IndexManifest.Entry.of(
                      e.partition(), e.bucket(), new DeletionFile(e.file().fileName(), "", 0, 0, 0))
                  .target());
        }
      }
      java.util.Map<String, IndexManifest.Entry> entries = new java.util.LinkedHashMap<>();
      List<IndexManifest.Entry> previous = indexManifest.read(previousIndex);
      for (IndexManifest.Entry e : previous) {
        if (!removed.contains(e.target())) {
          entries.put(e.target(), e);
        }
      }
      boolean changed = entries.size() != previous.size();
      for (IndexManifest.Entry e : deletionVectors) {
        if (!removed.contains(e.target())) {
          entries.put(e.target(), e);
          changed = true;
        }
      }
      if (changed) {
        newIndex =
            entries.isEmpty() ? null : indexManifest.write(new ArrayList<>(entries.values()));
        index = newIndex;
      }
    }
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
      indexManifest.delete(newIndex);
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
            index,
            commitUser,
            identifier,
            kind,
            System.currentTimeMillis(),
            totalRecords + deltaRecords,
            deltaRecords,
            totalFiles);
    return new Attempt(snapshot, baseList, deltaList, merged.written(), newIndex);
  }

  /**
   * Fails when a file to delete, or a data file given a new deletion vector, is no longer live in
   * the latest snapshot.
   */
  private void checkNoConflict(
      Optional<Snapshot> latest,
      List<ManifestEntry> changes,
      List<IndexManifest.Entry> deletionVectors) {
    Set<ManifestEntry.Identifier> toDelete = new LinkedHashSet<>();
    Set<BinaryRowData> partitions = new HashSet<>();
    for (ManifestEntry e : changes) {
      if (e.kind() == FileKind.DELETE) {
        toDelete.add(e.identifier());
        partitions.add(e.partition());
      }
    }
    int partitionArity = store.partitionType().getFieldCount();
    for (IndexManifest.Entry d : deletionVectors) {
      partitions.add(d.partition(partitionArity));
    }
    Set<ManifestEntry.Identifier> live = new HashSet<>();
    Set<String> liveTargets = new HashSet<>();
    if (latest.isPresent()) {
      FileStoreScan scan =
          store
              .newScan()
              .withPartitionFilter(PartitionPredicates.in(store.partitionType(), partitions));
      for (ManifestEntry e : scan.plan(latest.get())) {
        live.add(e.identifier());
        liveTargets.add(
            IndexManifest.Entry.of(
                    e.partition(), e.bucket(), new DeletionFile(e.file().fileName(), "", 0, 0, 0))
                .target());
      }
    }
    List<String> missing = new ArrayList<>();
    for (ManifestEntry.Identifier id : toDelete) {
      if (!live.contains(id)) {
        missing.add(id.fileName());
      }
    }
    for (IndexManifest.Entry d : deletionVectors) {
      if (!liveTargets.contains(d.target())) {
        missing.add(d.deletionFile().dataFile());
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

  /**
   * Primary-key tables: after applying the changes, the files of one level >= 1 of one bucket must
   * not overlap in key range (each such level is one sorted run).
   */
  private void checkNoOverlap(Optional<Snapshot> latest, List<ManifestEntry> changes) {
    Set<BinaryRowData> partitions = new HashSet<>();
    Set<ManifestEntry.Identifier> buckets = new HashSet<>();
    for (ManifestEntry e : changes) {
      partitions.add(e.partition());
      buckets.add(new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, ""));
    }
    java.util.Map<ManifestEntry.Identifier, ManifestEntry> files = new java.util.LinkedHashMap<>();
    if (latest.isPresent()) {
      for (ManifestEntry e :
          store
              .newScan()
              .withPartitionFilter(PartitionPredicates.in(store.partitionType(), partitions))
              .plan(latest.get())) {
        if (e.file().level() > 0
            && buckets.contains(new ManifestEntry.Identifier(e.partition(), e.bucket(), 0, ""))) {
          files.put(e.identifier(), e);
        }
      }
    }
    for (ManifestEntry e : changes) {
      if (e.file().level() == 0) {
        continue;
      }
      if (e.kind() == FileKind.ADD) {
        files.put(e.identifier(), e);
      } else {
        files.remove(e.identifier());
      }
    }
    java.util.Map<ManifestEntry.Identifier, List<ManifestEntry>> byLevel =
        new java.util.HashMap<>();
    for (ManifestEntry e : files.values()) {
      byLevel
          .computeIfAbsent(
              new ManifestEntry.Identifier(e.partition(), e.bucket(), e.file().level(), ""),
              k -> new ArrayList<>())
          .add(e);
    }
    java.util.Comparator<org.apache.flink.table.data.RowData> keys =
        new io.sediment.mergetree.KeyValueLayout(store.schema()).keyRowComparator();
    for (List<ManifestEntry> level : byLevel.values()) {
      level.sort((a, b) -> keys.compare(a.file().minKey(), b.file().minKey()));
      for (int i = 1; i < level.size(); i++) {
        DataFileMeta prev = level.get(i - 1).file();
        DataFileMeta next = level.get(i).file();
        if (keys.compare(prev.maxKey(), next.minKey()) >= 0) {
          throw new CommitConflictException(
              "Commit would make key ranges of files at level "
                  + next.level()
                  + " of bucket "
                  + level.get(i).bucket()
                  + " overlap",
              List.of(prev.fileName(), next.fileName()));
        }
      }
    }
  }

  /** Deletes every file the messages added (new files, compaction outputs, deletion vectors). */
  public List<IOException> abort(List<CommitMessage> messages) {
    // Never delete what the latest snapshot references: a retried or restored commit that had
    // in fact landed must not lose its files when it then fails (for example on a conflict with
    // itself). Data files and deletion-vector files are checked.
    Set<String> live = new HashSet<>();
    Set<String> liveVectors = new HashSet<>();
    Optional<Snapshot> latest = snapshots.latest();
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
      if (latest.get().indexManifest() != null) {
        try {
          for (IndexManifest.Entry e :
              new IndexManifest(store.fileIO(), store.paths()).read(latest.get().indexManifest())) {
            liveVectors.add(e.deletionFile().dvFile());
          }
        } catch (IOException e) {
          return List.of(new IOException("Cannot read the index manifest; nothing was deleted", e));
        }
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
    }
    return store.fileIO().deleteAll(paths);
  }

  /**
   * Checks that every file the messages add exists. A restored commit window whose outputs were
   * deleted by an earlier abort must not be committed: that would replace live files with missing
   * ones.
   */
  public void checkOutputsExist(List<CommitMessage> messages) {
    List<String> missing = missingOutputs(messages);
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "Refusing to commit: files to add are missing (deleted by an earlier abort?): "
              + missing);
    }
  }

  /**
   * The files the messages add (new files, compaction outputs, deletion-vector files) that do not
   * exist.
   */
  private List<String> missingOutputs(List<CommitMessage> messages) {
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
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot check the files to commit", e);
    }
    return missing;
  }

  /** The id of the latest snapshot, if any. */
  public OptionalLong latestSnapshotId() {
    return snapshots.latestId();
  }
}
