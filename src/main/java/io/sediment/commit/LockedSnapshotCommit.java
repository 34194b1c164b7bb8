package io.sediment.commit;

import io.sediment.fs.FileIO;
import io.sediment.manifest.Snapshot;
import io.sediment.manifest.SnapshotManager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes under the table's commit lock, for file systems without an atomic create-if-absent
 * (object stores), fenced for the whole publish by a claim in the lock's database:
 *
 * <ol>
 *   <li>take the lock ({@link JdbcCommitLock}); finish the claim a previous holder left (below);
 *   <li>refuse when the target exists; check the snapshot's new files exist ({@code
 *       beforePublish});
 *   <li>write the content to a staged file, then claim the target in the database, in one statement
 *       that also checks the lease: a holder whose lease ran out (paused, cut off) fails here and
 *       publishes nothing;
 *   <li>move the staged file into place, then clear the claim.
 * </ol>
 *
 * Once claimed, the target's content is decided: a holder that stalls between its claim and its
 * move (longer than {@code lock.expire-time}) may finish late, but the next holder, finding the
 * claim with its staged file, moves that same content into place first ("rolls it forward") and
 * builds on it. A late move then writes the same bytes again. So no two committers ever publish
 * different snapshots under one id, whatever pauses happen. A staged file that is gone (its holder
 * deleted it, having published nothing) leaves an abandoned claim, which the next holder replaces.
 */
final class LockedSnapshotCommit implements SnapshotCommit {

  private static final Logger LOG = LoggerFactory.getLogger(LockedSnapshotCommit.class);

  private final SnapshotManager snapshots;
  private final JdbcCommitLock lock;
  private final String lockKey;
  private final FileIO fileIO;

  LockedSnapshotCommit(
      SnapshotManager snapshots, FileIO fileIO, JdbcCommitLock lock, String lockKey) {
    this.snapshots = snapshots;
    this.fileIO = fileIO;
    this.lock = lock;
    this.lockKey = lockKey;
  }

  @Override
  public boolean tryPublish(Snapshot snapshot, FileIO.PublishFence beforePublish)
      throws IOException {
    boolean published =
        publish(
            snapshots.paths().snapshot(snapshot.id()),
            snapshot.toJson().getBytes(StandardCharsets.UTF_8),
            beforePublish);
    if (published) {
      snapshots.writeHints(snapshot);
    }
    return published;
  }

  @Override
  public boolean tryCreate(Path file, byte[] content) throws IOException {
    return publish(file, content, () -> {});
  }

  @Override
  public void settlePending() throws IOException {
    try (CommitLease lease = lock.acquire(lockKey)) {
      JdbcCommitLock.Claim previous = lease.readClaim();
      if (previous.isNone()) {
        return;
      }
      rollForward(previous);
      try {
        lease.replaceClaim(previous, JdbcCommitLock.Claim.NONE);
      } catch (IOException | CommitOutcomeUnknownException e) {
        // Settled; the next holder finds the staged file gone and the target there.
        LOG.debug("Could not clear the claim of {}: {}", lockKey, e.toString());
      }
    }
  }

  private boolean publish(Path target, byte[] content, FileIO.PublishFence beforePublish)
      throws IOException {
    try (CommitLease lease = lock.acquire(lockKey)) {
      JdbcCommitLock.Claim previous = lease.readClaim();
      rollForward(previous);
      if (fileIO.fileExists(target)) {
        return false;
      }
      beforePublish.check();
      Path staged = FileIO.temporaryPathFor(target);
      fileIO.writeNew(staged, content);
      JdbcCommitLock.Claim claim = new JdbcCommitLock.Claim(relative(target), relative(staged));
      boolean claimed;
      try {
        // Renewed right before the claim: an outage of the database so far fails the commit as a
        // lost lock, with nothing claimed; only one starting during the claim leaves it unknown.
        lease.checkHeld();
        claimed = lease.replaceClaim(previous, claim);
      } catch (CommitLockLostException e) {
        fileIO.deleteQuietly(staged); // lost before the claim: nobody will roll it forward
        throw e;
      } // an unknown claim outcome propagates with the staged file kept
      if (!claimed) {
        fileIO.deleteQuietly(staged);
        lease.checkHeld(); // throws: the lease ran out, another committer holds the lock
        throw new CommitLockLostException(
            "The claim of " + lockKey + " changed while this committer held its lock", null);
      }
      // From here the target will hold `content`: this committer moves it, or the next holder.
      // A failure now is an unknown outcome: the commit's files must stay.
      try {
        if (fileIO.fileExists(target)) {
          if (Arrays.equals(fileIO.readBytes(target), content)) {
            return true; // the next holder moved it: this one stalled past its lease
          }
          // Only a committer not using this lock (another lock.jdbc.url) can have created it.
          if (!lease.replaceClaim(claim, previous)) {
            throw new IOException("the claim could not be withdrawn");
          }
          fileIO.deleteQuietly(staged);
          throw new IllegalStateException(
              target
                  + " appeared while this committer held the commit lock of "
                  + lockKey
                  + ": another committer publishes to this table under another lock (check"
                  + " 'lock.jdbc.url' of every writer and compaction job); nothing was published");
        }
      } catch (IOException e) {
        throw claimedButNotMoved(staged, target, e);
      }
      try {
        if (!fileIO.rename(staged, target)) {
          throw new IOException("the file system did not move it");
        }
      } catch (IOException | RuntimeException e) {
        // The next holder may have moved it already (this one stalled past its lease): the target
        // then holds this claim's content, and nothing else can.
        if (!movedByAnother(target)) {
          throw claimedButNotMoved(staged, target, e);
        }
        LOG.warn("{} was published by the next holder of the lock of {}", target, lockKey);
      }
      try {
        lease.replaceClaim(claim, JdbcCommitLock.Claim.NONE);
      } catch (IOException | CommitOutcomeUnknownException e) {
        // Published; the next holder finds the staged file gone and the target there.
        LOG.debug("Could not clear the claim of {}: {}", lockKey, e.toString());
      }
      return true;
    }
  }

  /**
   * A claim names files relative to the table's root, so that every spelling of the table (the lock
   * key is one for all, {@link LockKeys}) resolves it with its own file system.
   */
  private String relative(Path file) {
    String root = snapshots.paths().root().toUri().getPath();
    String path = file.toUri().getPath();
    String prefix = root.endsWith("/") ? root : root + "/";
    if (!path.startsWith(prefix)) {
      throw new IllegalArgumentException(file + " is not under the table " + root);
    }
    return path.substring(prefix.length());
  }

  private Path resolve(String relative) {
    return new Path(snapshots.paths().root(), relative);
  }

  private boolean movedByAnother(Path target) {
    try {
      return fileIO.fileExists(target);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static CommitOutcomeUnknownException claimedButNotMoved(
      Path staged, Path target, Exception cause) {
    return new CommitOutcomeUnknownException(
        "Could not move "
            + staged
            + " to "
            + target
            + " after claiming it; the next commit to the table publishes it",
        cause);
  }

  /**
   * Finishes what the previous holder claimed: its staged file, if still there, is moved into place
   * (or deleted, if the target exists already). The staged file is looked at first: a holder that
   * moves it deletes it only after the target exists. A staged snapshot whose manifest lists or
   * index manifest are gone (deleted while its claim waited) is abandoned, not published.
   */
  private void rollForward(JdbcCommitLock.Claim claim) throws IOException {
    if (claim.isNone()) {
      return;
    }
    Path staged = resolve(claim.staged());
    Path target = resolve(claim.target());
    if (!fileIO.fileExists(staged)) {
      return; // published, or abandoned by its holder
    }
    if (!fileIO.fileExists(target)) {
      byte[] content = fileIO.readBytes(staged);
      Optional<String> missing = missingMetadata(target, content);
      if (missing.isPresent()) {
        LOG.warn(
            "Abandoning {}, claimed by a committer that stopped before moving it into place: {}"
                + " is gone",
            target,
            missing.get());
      } else {
        LOG.warn(
            "Publishing {} for a committer that claimed it and stopped before moving it into"
                + " place (it stalled past 'lock.expire-time' or died)",
            target);
        fileIO.replaceAtomically(target, content);
      }
    }
    fileIO.deleteQuietly(staged);
  }

  /** For a staged snapshot: the first of its manifest lists and index manifest that is gone. */
  private Optional<String> missingMetadata(Path target, byte[] content) throws IOException {
    if (!target.getName().startsWith("snapshot-")) {
      return Optional.empty();
    }
    Snapshot s = Snapshot.fromJson(new String(content, StandardCharsets.UTF_8));
    List<Path> files = new ArrayList<>();
    files.add(snapshots.paths().manifest(s.baseManifestList()));
    files.add(snapshots.paths().manifest(s.deltaManifestList()));
    if (s.indexManifest() != null) {
      files.add(snapshots.paths().index(s.indexManifest()));
    }
    for (Path f : files) {
      if (!fileIO.exists(f)) {
        return Optional.of(f.toString());
      }
    }
    return Optional.empty();
  }
}
