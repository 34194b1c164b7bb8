package io.sediment.commit;

import io.sediment.manifest.CommitKind;
import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.DeletionFile;
import io.sediment.manifest.FileKind;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.IndexManifest;
import io.sediment.manifest.ManifestEntry;
import io.sediment.manifest.ManifestFile;
import io.sediment.manifest.ManifestFileMeta;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import io.sediment.manifest.UserCommit;
import io.sediment.predicate.Predicate;
import io.sediment.schema.CommitOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns commit messages into snapshots. New files become one APPEND snapshot; compaction changes
 * become one COMPACT snapshot. Each attempt writes manifests, then races for the next snapshot id
 * ({@link CommitRetryLoop}); the loser retries on top of the winner. A (commit user, identifier)
 * pair that already landed is skipped, except that a retry completes (or drops) a writer's
 * compaction whose COMPACT snapshot did not land after its APPEND did (see {@link #commit}).
 *
 * <p>Validation against the base snapshot ({@link CommitConflicts}): a commit that deletes files
 * fails with {@link CommitConflictException} when one of them is no longer live, or when the
 * deletion vector of a file a message replaces changed after the snapshot the message's work read
 * ({@link CommitMessage#baseSnapshotId()}); a message without a known base then conflicts when such
 * a file has any deletion vector. Deletion vectors a commit adds to files it does not replace are
 * merged with vectors other commits added since (union, {@link DeletionVectorChanges}), never
 * replaced. Snapshot assembly is {@link SnapshotAssembler}; deleting what is not committed is
 * {@link CommitCleanup}; knowing which of the user's commits landed is {@link LandedCommits}.
 */
public final class FileStoreCommit {

  private static final Logger LOG = LoggerFactory.getLogger(FileStoreCommit.class);

  /**
   * The identifier of every batch commit (writes, overwrites, in-process compaction): batch commits
   * are not deduplicated by identifier, and stream identifiers never reach it.
   */
  public static final long BATCH_IDENTIFIER = Long.MAX_VALUE;

  private final FileStore store;
  private final String commitUser;
  private final SnapshotManager snapshots;
  private final ManifestFile manifestFile;
  private final IndexManifest indexManifest;
  private final CommitConflicts conflicts;
  private final SnapshotAssembler assembler;
  private final CommitCleanup cleanup;
  private final CommitRetryLoop retries;

  /** What this committer knows of its user's commits that landed. */
  private final LandedCommits landedCommits;

  /** The latest snapshot id when the current stream commit checked what landed (-1: batch). */
  private long checkedAfter = -1;

  /** The watermark the current commit records (null: none); see {@link Snapshot#watermark()}. */
  private Long watermark;

  /** An overwrite's attempt conflicts on a replaced file this refuses (see withOverwriteGuard). */
  private java.util.function.Predicate<ManifestEntry> mayReplace = e -> true;

  public FileStoreCommit(FileStore store, String commitUser) {
    this.store = store;
    this.commitUser = commitUser;
    this.snapshots = store.snapshotManager();
    this.landedCommits = new LandedCommits(snapshots, commitUser);
    this.manifestFile = store.manifestFile();
    this.indexManifest = new IndexManifest(store.fileIO(), store.paths());
    this.conflicts = new CommitConflicts(store);
    this.assembler = new SnapshotAssembler(store, commitUser);
    this.cleanup = new CommitCleanup(store);
    this.retries =
        new CommitRetryLoop(
            snapshots,
            SnapshotCommits.forStore(store),
            store.fileIO(),
            store.options().get(CommitOptions.COMMIT_MAX_RETRIES));
  }

  /** Overwrites conflict on a file to replace that {@code guard} refuses (partition expiry). */
  public FileStoreCommit withOverwriteGuard(java.util.function.Predicate<ManifestEntry> guard) {
    this.mayReplace = guard;
    return this;
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
    return landedCommits.latestCommit();
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
   * rows are the same either way: the compaction only rewrites them. A batch commit ({@link
   * #BATCH_IDENTIFIER}) is not retried: it drops such a compaction and returns the APPEND's id
   * (unless the outcome is unknown). It claims its messages ({@link CommitMessage#claimForBatch}).
   *
   * @throws BatchMessagesCommittedException when an earlier batch commit claimed a message
   */
  public List<Long> commit(List<CommitMessage> messages, long identifier, boolean checkCommitted) {
    return commit(messages, identifier, checkCommitted, null);
  }

  /**
   * {@link #commit(List, long, boolean)}, recording {@code watermark} (null: none) in its
   * snapshots: each gets the larger of it and the latest snapshot's ({@link Snapshot#watermark()}).
   */
  public List<Long> commit(
      List<CommitMessage> messages, long identifier, boolean checkCommitted, Long watermark) {
    this.watermark = watermark;
    if (messages.stream().allMatch(CommitMessage::isEmpty)) {
      return List.of();
    }
    if (identifier != BATCH_IDENTIFIER) {
      return commitMessages(messages, identifier, checkCommitted, null);
    }
    return CommitMessage.claimedForBatch(
        messages, claim -> commitMessages(messages, identifier, checkCommitted, claim));
  }

  /** {@link #commit}; {@code claim}: a batch commit's, told when its first snapshot lands. */
  private List<Long> commitMessages(
      List<CommitMessage> messages,
      long identifier,
      boolean checkCommitted,
      CommitMessage.BatchClaim claim) {
    // Snapshots after this one are looked at by the commit's attempts: one of them may be this
    // very commit, claimed by an earlier attempt under the commit lock and published since.
    checkedAfter = identifier == BATCH_IDENTIFIER ? -1 : snapshots.latestId().orElse(0L);
    if (checkCommitted) {
      Optional<UserCommit> last = latestCommit();
      if (last.isPresent() && last.get().commitIdentifier() >= identifier) {
        if (last.get().commitIdentifier() == identifier
            && last.get().commitKind() == CommitKind.APPEND
            && CommitMessage.anyCompaction(messages)) {
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
    if (checkCommitted || CommitMessage.anyCompaction(messages)) {
      // A restored window, or a compaction: a dropped compaction's outputs may be gone.
      messages = cleanup.withoutLostCompactions(messages, commitUser, identifier);
    }
    List<ManifestEntry> appends = new ArrayList<>();
    List<ManifestEntry> inputChangelog = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DataFileMeta f : m.newFiles()) {
        appends.add(m.entry(FileKind.ADD, f));
      }
      for (DataFileMeta f : m.inputChangelog()) {
        inputChangelog.add(m.entry(FileKind.ADD, f));
      }
    }
    List<Long> ids = new ArrayList<>();
    if (!appends.isEmpty() || !inputChangelog.isEmpty()) {
      ids.add(tryCommit(appends, inputChangelog, List.of(), CommitKind.APPEND, identifier));
      if (claim != null) {
        claim.landed(); // the compaction's failure would not undo the append
      }
    }
    ids.addAll(commitCompaction(messages, identifier, ids.isEmpty() ? null : ids.get(0), false));
    return ids;
  }

  /**
   * An APPEND snapshot without changes, recording {@code watermark}, for automatic tags (Paimon's
   * forced snapshot); nothing when this user's {@code identifier} landed already.
   */
  public List<Long> commitEmpty(long identifier, Long watermark) {
    this.watermark = watermark;
    checkedAfter = snapshots.latestId().orElse(0L);
    return isCommitted(identifier)
        ? List.of()
        : List.of(tryCommit(List.of(), List.of(), List.of(), CommitKind.APPEND, identifier));
  }

  /**
   * Commits the compaction part of the messages as one COMPACT snapshot; returns its id, or nothing
   * when there is none or it was dropped. {@code appended} is the APPEND snapshot of the same
   * messages if it landed (null otherwise): then a conflict, a batch commit's failure with a known
   * outcome, or outputs missing on a {@code retry} drop the compaction and delete its outputs
   * instead of failing, so that a restored window does not fail again on every restore.
   */
  private List<Long> commitCompaction(
      List<CommitMessage> messages, long identifier, Long appended, boolean retry) {
    List<ManifestEntry> compacts = new ArrayList<>();
    List<ManifestEntry> changelog = new ArrayList<>();
    boolean addsVectors = false;
    List<CommitMessage> compactOnly = new ArrayList<>();
    for (CommitMessage m : messages) {
      addsVectors |= !m.deletionFiles().isEmpty();
      for (DataFileMeta f : m.compactChangelog()) {
        changelog.add(m.entry(FileKind.ADD, f));
      }
      for (DataFileMeta f : m.compactBefore()) {
        compacts.add(m.entry(FileKind.DELETE, f));
      }
      for (DataFileMeta f : m.compactAfter()) {
        compacts.add(m.entry(FileKind.ADD, f));
      }
      compactOnly.add(m.compactionOutputs());
    }
    if (compacts.isEmpty() && !addsVectors) {
      return List.of();
    }
    if (retry) {
      List<String> missing = cleanup.missingOutputs(compactOnly);
      if (!missing.isEmpty()) {
        // An earlier attempt dropped this compaction and deleted (some of) its outputs.
        LOG.warn(
            "Commit {} of user {}: the compaction's outputs {} are missing; it is dropped",
            identifier,
            commitUser,
            missing);
        cleanup.drop(compactOnly);
        return List.of();
      }
    }
    try {
      return List.of(tryCommit(compacts, changelog, messages, CommitKind.COMPACT, identifier));
    } catch (RuntimeException e) {
      // The appended files landed: a caller's abort, or its guess from the live files, must never
      // delete them, so a batch commit (not retried) that throws has nothing in the table. A
      // stream commit's retry of this identifier completes the compaction instead.
      boolean conflict = e instanceof CommitConflictException;
      if (appended == null
          || !(conflict
              || (identifier == BATCH_IDENTIFIER
                  && !(e instanceof CommitOutcomeUnknownException)))) {
        throw e;
      }
      LOG.warn(
          "Snapshot {} appended the new files, but the writer's compaction {} and is dropped: {}",
          appended,
          conflict ? "conflicted" : "failed",
          e.toString());
      cleanup.drop(compactOnly);
      return List.of();
    }
  }

  /**
   * Removes every live file of the table in one OVERWRITE snapshot ({@code TRUNCATE TABLE}); no
   * snapshot when the table holds no file.
   */
  public List<Long> truncate(long identifier) {
    return overwrite(
        List.of(), PartitionPredicates.every(store.partitionType()), identifier, false);
  }

  /**
   * Overwrites partitions: one OVERWRITE snapshot that deletes every live file of the overwritten
   * partitions and adds the messages' files ({@link OverwriteFiles}: a primary-key writer's own
   * compactions of its new files folded in). The overwritten partitions are those matching {@code
   * partitionFilter} (a predicate on the partition row type; null means none) plus every partition
   * the messages write to; for an unpartitioned table the whole table is overwritten.
   *
   * <p>Each attempt reads the files to delete from the snapshot it builds on and checks them as
   * compaction does, so a concurrent commit makes the attempt lose the race for the snapshot id and
   * retry on top of it (the new files of a concurrent append into an overwritten partition are then
   * replaced too). Returns the snapshot id, or empty when the identifier already landed. A batch
   * overwrite claims its messages as a batch commit does ({@link CommitMessage#claimForBatch}).
   */
  public List<Long> overwrite(
      List<CommitMessage> messages,
      Predicate partitionFilter,
      long identifier,
      boolean checkCommitted) {
    return overwrite(messages, partitionFilter, identifier, checkCommitted, null);
  }

  /** {@link #overwrite(List, Predicate, long, boolean)}, recording {@code watermark}. */
  public List<Long> overwrite(
      List<CommitMessage> messages,
      Predicate partitionFilter,
      long identifier,
      boolean checkCommitted,
      Long watermark) {
    this.watermark = watermark;
    if (checkCommitted && isCommitted(identifier)) {
      LOG.info("Overwrite {} of user {} already landed; skipping", identifier, commitUser);
      return List.of();
    }
    if (identifier != BATCH_IDENTIFIER || messages.isEmpty()) {
      return overwriteMessages(messages, partitionFilter, identifier, null);
    }
    return CommitMessage.claimedForBatch(
        messages, claim -> overwriteMessages(messages, partitionFilter, identifier, claim));
  }

  /** {@link #overwrite}; {@code claim}: a batch commit's, told when its snapshot lands. */
  private List<Long> overwriteMessages(
      List<CommitMessage> messages,
      Predicate partitionFilter,
      long identifier,
      CommitMessage.BatchClaim claim) {
    OverwriteFiles net = OverwriteFiles.of(messages);
    List<ManifestEntry> adds = net.adds();
    Set<BinaryRowData> written = new HashSet<>();
    adds.forEach(e -> written.add(e.partition()));
    Set<String> addedNames = new HashSet<>();
    adds.forEach(e -> addedNames.add(e.file().fileName()));
    boolean partitioned = store.partitionType().getFieldCount() > 0;
    SnapshotVectors vectors = new SnapshotVectors(snapshots, indexManifest);
    int[] replaced = {0}; // by the attempt that lands
    CommitRetryLoop.AttemptBuilder attempt =
        latest -> {
          List<ManifestEntry> changes = new ArrayList<>();
          if (latest.isPresent()) {
            for (ManifestEntry e : store.newScan().plan(latest.get())) {
              if (addedNames.contains(e.file().fileName())) {
                // deleting and adding one file in one snapshot would drop its rows; the files are
                // the table's: no caller deletes them after this refusal
                throw new BatchMessagesCommittedException(
                    "An overwrite adds "
                        + e.file().fileName()
                        + ", which the table holds already (snapshot "
                        + latest.get().id()
                        + "): its messages were committed before; nothing was committed");
              }
              boolean overwritten =
                  !partitioned
                      || written.contains(e.partition())
                      || (partitionFilter != null && partitionFilter.test(e.partition()));
              if (overwritten) {
                if (!mayReplace.test(e)) {
                  throw new CommitConflictException(
                      "Commit conflicts: the overwrite would replace a file written since it"
                          + " decided",
                      List.of(e.file().fileName()));
                }
                changes.add(e.withKind(FileKind.DELETE));
              }
            }
          }
          changes.addAll(adds);
          if (changes.isEmpty()) {
            return null;
          }
          conflicts.checkFilesLive(
              latest, changes, List.of(), conflicts.liveFiles(changes, List.of(), new HashMap<>()));
          List<ManifestFileMeta> delta = manifestFile.write(changes);
          replaced[0] = changes.size() - adds.size();
          try {
            return assembler.prepare(
                latest,
                delta,
                true,
                changes,
                List.of(),
                net.vectorMessages(),
                vectors,
                CommitKind.OVERWRITE,
                identifier,
                watermark);
          } catch (IOException | RuntimeException e) {
            manifestFile.delete(delta);
            throw e;
          }
        };
    try {
      Optional<SnapshotAttempt> landed = retries.run("an overwrite", attempt);
      if (landed.isEmpty()) {
        return List.of();
      }
      if (claim != null) {
        claim.landed();
      }
      Snapshot s = landed.get().snapshot();
      landedCommits.published(s);
      cleanup.deleteUnreferenced(net.unreferenced());
      LOG.info(
          "Committed snapshot {} (OVERWRITE, user {}, {}, {} file(s) replaced)",
          s.id(),
          commitUser,
          CommitCleanup.describeIdentifier(identifier),
          replaced[0]);
      return List.of(s.id());
    } catch (IOException e) {
      landedCommits.forget();
      throw new UncheckedIOException("Overwrite commit failed", e);
    } catch (RuntimeException e) {
      landedCommits.forget();
      throw e;
    }
  }

  /**
   * Commits a rollback ({@code io.sediment.maintenance.Rollback}): one OVERWRITE snapshot, directly
   * on top of snapshot {@code base}, that removes the messages' compaction inputs and adds their
   * outputs with their deletion vectors. Returns its id.
   *
   * @throws CommitConflictException when another snapshot landed after {@code base} (the rollback
   *     was planned on {@code base} and would keep that commit's changes) or a check of a
   *     compaction fails; nothing is committed then, and the caller deletes its outputs
   */
  public long rollback(List<CommitMessage> messages, long base) {
    List<ManifestEntry> changes = new ArrayList<>();
    for (CommitMessage m : messages) {
      if (!m.newFiles().isEmpty() || !m.changelogFiles().isEmpty()) {
        throw new IllegalArgumentException("A rollback replaces files only: " + m);
      }
      for (DataFileMeta f : m.compactBefore()) {
        changes.add(m.entry(FileKind.DELETE, f));
      }
      for (DataFileMeta f : m.compactAfter()) {
        changes.add(m.entry(FileKind.ADD, f));
      }
    }
    checkedAfter = -1;
    watermark = null; // the latest snapshot's is carried: watermarks never go back
    return tryCommit(changes, List.of(), messages, CommitKind.OVERWRITE, BATCH_IDENTIFIER, base);
  }

  private long tryCommit(
      List<ManifestEntry> changes,
      List<ManifestEntry> changelog,
      List<CommitMessage> messages,
      CommitKind kind,
      long identifier) {
    return tryCommit(changes, changelog, messages, kind, identifier, -1);
  }

  /**
   * Commits the changes as one snapshot of {@code kind}; {@code messages} are the messages they
   * come from when the commit replaces files or adds deletion vectors (validated against their base
   * snapshots), else empty. {@code onlyOn}: the snapshot the new one must directly follow (0: the
   * table has none), or -1 for any.
   */
  private long tryCommit(
      List<ManifestEntry> changes,
      List<ManifestEntry> changelog,
      List<CommitMessage> messages,
      CommitKind kind,
      long identifier,
      long onlyOn) {
    List<IndexManifest.Entry> deletionVectors = new ArrayList<>();
    for (CommitMessage m : messages) {
      for (DeletionFile d : m.deletionFiles()) {
        deletionVectors.add(IndexManifest.Entry.of(m.partition(), m.bucket(), d));
      }
    }
    boolean deletes =
        !deletionVectors.isEmpty() || changes.stream().anyMatch(e -> e.kind() == FileKind.DELETE);
    boolean levelled =
        store.schema().hasPrimaryKey() && changes.stream().anyMatch(e -> e.file().level() > 0);
    SnapshotVectors vectors = new SnapshotVectors(snapshots, indexManifest);
    boolean serializable =
        store.schema().hasPrimaryKey()
            && messages.stream().anyMatch(CommitConflicts::changesLevelsOrVectors);
    Map<Long, List<ManifestEntry>> deltas = new HashMap<>(); // read once across attempts
    LiveFiles liveFiles = conflicts.liveFiles(changes, deletionVectors, deltas);
    long[] seen = {checkedAfter}; // snapshots after it may be this commit's (see commit)
    Long[] landed = {null};
    List<ManifestFileMeta> delta = null;
    try {
      List<ManifestFileMeta> written = manifestFile.write(changes);
      delta = written;
      Optional<SnapshotAttempt> attempt =
          retries.run(
              "a " + kind + " commit",
              latest -> {
                // A stream commit whose earlier attempt claimed a snapshot under the commit lock
                // and failed before moving it into place finds it published by the next holder
                // (possibly itself, taking the lock for this attempt): it landed.
                landed[0] = landedCommits.landedSince(seen[0], latest, kind, identifier);
                seen[0] = latest.map(Snapshot::id).orElse(0L);
                if (landed[0] != null) {
                  return null;
                }
                long latestId = latest.map(Snapshot::id).orElse(0L);
                if (onlyOn >= 0 && latestId != onlyOn) {
                  throw new CommitConflictException(
                      "Snapshot "
                          + latestId
                          + " landed after snapshot "
                          + onlyOn
                          + ", which this commit was planned on",
                      List.of(snapshots.paths().snapshot(latestId).getName()));
                }
                if (deletes) {
                  conflicts.checkFilesLive(latest, changes, deletionVectors, liveFiles);
                  conflicts.checkInputVectorsUnchanged(latest, messages, vectors);
                }
                if (levelled) {
                  conflicts.checkNoOverlap(latest, changes, liveFiles);
                }
                if (serializable) {
                  conflicts.checkBucketsSerializable(latest, messages, vectors, deltas);
                }
                return assembler.prepare(
                    latest,
                    written,
                    false,
                    changes,
                    changelog,
                    messages,
                    vectors,
                    kind,
                    identifier,
                    watermark);
              });
      if (attempt.isEmpty()) {
        LOG.info(
            "Commit {} of user {} landed as snapshot {} for an earlier attempt of it",
            CommitCleanup.describeIdentifier(identifier),
            commitUser,
            landed[0]);
        manifestFile.delete(written);
        landedCommits.published(snapshots.snapshot(landed[0]));
        return landed[0];
      }
      SnapshotAttempt a = attempt.get();
      landedCommits.published(a.snapshot());
      LOG.info(
          "Committed snapshot {} ({}, user {}, {})",
          a.snapshot().id(),
          kind,
          commitUser,
          CommitCleanup.describeIdentifier(identifier));
      cleanup.deleteReplacedVectors(messages, a.newVectors());
      return a.snapshot().id();
    } catch (IOException e) {
      landedCommits.forget(); // look again next time
      if (delta != null) {
        manifestFile.delete(delta);
      }
      throw new UncheckedIOException("Commit failed", e);
    } catch (RuntimeException e) {
      landedCommits.forget();
      if (delta != null && !(e instanceof CommitOutcomeUnknownException)) {
        manifestFile.delete(delta);
      }
      throw e;
    }
  }

  /**
   * Whether a commit that failed with {@code failure} may have left snapshots that reference its
   * messages' files: its outcome is unknown ({@link CommitOutcomeUnknownException}), or its
   * messages were committed before ({@link BatchMessagesCommittedException}). Then no caller may
   * {@link #abort} them; after any other failure nothing of the commit is in the table.
   */
  public static boolean filesMayBeReferenced(RuntimeException failure) {
    return failure instanceof CommitOutcomeUnknownException
        || failure instanceof BatchMessagesCommittedException;
  }

  /** Deletes every file the messages added (new files, compaction outputs, deletion vectors). */
  public List<IOException> abort(List<CommitMessage> messages) {
    return cleanup.abort(messages);
  }
}
