package io.sediment.manifest;

import io.sediment.fs.FileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

/**
 * Reads and publishes snapshots. The listing of {@code snapshot/} is the truth; {@code LATEST},
 * {@code EARLIEST} and the per-user hints {@code user-<user>} only shorten searches (a user hint
 * also outlives the expiry of the snapshot it names, see {@link #latestCommitOfUser}).
 */
public final class SnapshotManager implements java.io.Serializable {

  private static final long serialVersionUID = 1L;
  private static final String PREFIX = "snapshot-";
  private static final String USER_PREFIX = "user-";

  private final FileIO fileIO;
  private final TablePaths paths;

  public SnapshotManager(FileIO fileIO, TablePaths paths) {
    this.fileIO = fileIO;
    this.paths = paths;
  }

  public TablePaths paths() {
    return paths;
  }

  /** Id of the newest snapshot, if any. */
  public OptionalLong latestId() {
    try {
      Long hint = readHint("LATEST");
      if (hint != null && fileIO.exists(paths.snapshot(hint))) {
        long id = hint;
        while (fileIO.exists(paths.snapshot(id + 1))) {
          id++;
        }
        return OptionalLong.of(id);
      }
      List<Long> ids = listIds();
      return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(ids.size() - 1));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot find the latest snapshot under " + paths.snapshotDir(), e);
    }
  }

  /** Id of the oldest snapshot still present, if any. */
  public OptionalLong earliestId() {
    List<Long> ids = listIds();
    return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(0));
  }

  public Optional<Snapshot> latest() {
    OptionalLong id = latestId();
    return id.isPresent() ? Optional.of(snapshot(id.getAsLong())) : Optional.empty();
  }

  public Snapshot snapshot(long id) {
    try {
      return Snapshot.fromJson(fileIO.readUtf8(paths.snapshot(id)));
    } catch (FileNotFoundException e) {
      throw new IllegalStateException("Snapshot " + id + " does not exist in " + paths.root(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read snapshot " + id + " of " + paths.root(), e);
    }
  }

  public boolean exists(long id) {
    try {
      return fileIO.exists(paths.snapshot(id));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every snapshot id present, ascending. */
  public List<Long> listIds() {
    try {
      List<Long> ids = new ArrayList<>();
      for (FileStatus st : fileIO.list(paths.snapshotDir())) {
        String name = st.getPath().getName();
        if (name.startsWith(PREFIX)) {
          try {
            ids.add(Long.parseLong(name.substring(PREFIX.length())));
          } catch (NumberFormatException ignored) {
            // not a snapshot file
          }
        }
      }
      ids.sort(null);
      return ids;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list snapshots under " + paths.snapshotDir(), e);
    }
  }

  /**
   * Publishes a snapshot if its id is free. Exactly one of several committers racing for the same
   * id succeeds; the others get false and must retry on top of the winner. The winner updates the
   * hints ({@link #writeHints}).
   */
  public boolean tryCommit(Snapshot snapshot) throws IOException {
    boolean created =
        fileIO.tryCreateExclusive(
            paths.snapshot(snapshot.id()), snapshot.toJson().getBytes(StandardCharsets.UTF_8));
    if (created) {
      writeHints(snapshot);
    }
    return created;
  }

  /**
   * Best effort, after {@code snapshot} was published: {@code LATEST}, {@code EARLIEST} for
   * snapshot 1, and for a stream commit the commit user's hint. The listing stays the truth.
   */
  public void writeHints(Snapshot snapshot) {
    try {
      fileIO.overwriteHint(new Path(paths.snapshotDir(), "LATEST"), Long.toString(snapshot.id()));
      if (snapshot.id() == 1) {
        fileIO.overwriteHint(new Path(paths.snapshotDir(), "EARLIEST"), "1");
      }
    } catch (IOException | RuntimeException e) {
      // A hint only; the listing stays the truth.
    }
    if (isStreamCommit(snapshot)) {
      try {
        writeUserHint(UserCommit.of(snapshot));
      } catch (IOException | RuntimeException e) {
        // A hint only: readers search above it, and expiry records what it deletes.
      }
    }
  }

  /** A stream commit carries an identifier; batch commits carry {@code Long.MAX_VALUE}. */
  public static boolean isStreamCommit(Snapshot s) {
    return s.commitIdentifier() != Long.MAX_VALUE;
  }

  /**
   * The hint file of a commit user: {@code snapshot/user-<user>}, the user escaped like a partition
   * value (section 8.4 of docs/spec.md); a name that would be too long is cut and made unique by a
   * SHA-256 of the user. The file names its user, so a reader can tell whose it is.
   */
  public Path userHintPath(String commitUser) {
    String name = TablePaths.escape(commitUser);
    if (name.length() > 200) {
      try {
        byte[] sha =
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(commitUser.getBytes(StandardCharsets.UTF_8));
        name = name.substring(0, 100) + "~" + java.util.HexFormat.of().formatHex(sha);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
    return new Path(paths.snapshotDir(), USER_PREFIX + name);
  }

  /** The commit user's hint, if present, readable and naming that user. */
  public Optional<UserCommit> readUserHint(String commitUser) {
    Path p = userHintPath(commitUser);
    try {
      UserCommit c = UserCommit.fromJson(fileIO.readUtf8(p));
      return commitUser.equals(c.commitUser()) ? Optional.of(c) : Optional.empty();
    } catch (FileNotFoundException e) {
      return Optional.empty(); // no hint (one read: no separate existence check)
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the hint of commit user " + commitUser, e);
    } catch (RuntimeException e) {
      return Optional.empty(); // unparsable: as if missing
    }
  }

  /** Replaces the commit user's hint (temporary file and rename, last writer wins). */
  public void writeUserHint(UserCommit commit) throws IOException {
    fileIO.overwriteHint(userHintPath(commit.commitUser()), commit.toJson());
  }

  /**
   * The newest stream commit of {@code commitUser}: from the snapshots, searched back from the
   * latest, with the user's hint as a shortcut. The hint is written after a publish, so it can be
   * behind (a writer that died in between) but never ahead: the search stops at the hint's
   * snapshot, never before it, and then reads that snapshot to check it. A hint whose snapshot is
   * another's is ignored and the search goes on down. A hint whose snapshot has expired is all that
   * is left of that commit and is taken as it is ({@code ExpireSnapshots} records each user's
   * newest expired stream commit in the hint before deleting it). Without a hint the search goes
   * down to the earliest snapshot. Batch commits are ignored.
   *
   * @param userHint the user's hint as the caller just read it ({@link #readUserHint})
   */
  public Optional<UserCommit> latestCommitOfUser(String commitUser, Optional<UserCommit> userHint) {
    OptionalLong latestId = latestId();
    if (latestId.isEmpty()) {
      return Optional.empty();
    }
    long latest = latestId.getAsLong();
    UserCommit hint = userHint.orElse(null);
    if (hint != null && hint.snapshotId() > latest) {
      hint = null; // not of this history
    }
    Search above = search(commitUser, latest, hint == null ? 0 : hint.snapshotId());
    if (above.found != null) {
      return Optional.of(above.found);
    }
    if (above.expiredBelow >= 0) {
      // Expiry ran below this point: it recorded what it deleted in the hint; read it again.
      UserCommit again = readUserHint(commitUser).orElse(null);
      if (again != null && (hint == null || again.snapshotId() > hint.snapshotId())) {
        hint = again;
      }
    }
    if (hint == null) {
      return Optional.empty();
    }
    Snapshot s = readIfExists(hint.snapshotId());
    if (s == null) {
      return Optional.of(hint); // expired: the hint is the record
    }
    if (commitUser.equals(s.commitUser()) && isStreamCommit(s)) {
      return Optional.of(UserCommit.of(s));
    }
    return Optional.ofNullable(search(commitUser, hint.snapshotId() - 1, 0).found);
  }

  /** Result of searching snapshots down from an id. */
  private static final class Search {
    UserCommit found;
    long expiredBelow = -1; // the first missing id met, or -1
  }

  /**
   * Searches ids {@code from} down to {@code stopAbove + 1} for the user's newest stream commit.
   */
  private Search search(String commitUser, long from, long stopAbove) {
    Search r = new Search();
    for (long id = from; id > stopAbove; id--) {
      Snapshot s = readIfExists(id);
      if (s == null) {
        r.expiredBelow = id; // ids are contiguous: everything below is gone too
        return r;
      }
      if (commitUser.equals(s.commitUser()) && isStreamCommit(s)) {
        r.found = UserCommit.of(s);
        return r;
      }
    }
    return r;
  }

  private Snapshot readIfExists(long id) {
    try {
      return Snapshot.fromJson(fileIO.readUtf8(paths.snapshot(id)));
    } catch (FileNotFoundException e) {
      return null; // expired meanwhile
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read snapshot " + id + " of " + paths.root(), e);
    }
  }

  private Long readHint(String name) throws IOException {
    Path p = new Path(paths.snapshotDir(), name);
    try {
      if (!fileIO.exists(p)) {
        return null;
      }
      return Long.parseLong(fileIO.readUtf8(p).trim());
    } catch (NumberFormatException | FileNotFoundException e) {
      return null;
    }
  }
}
