package io.sediment.manifest;

import io.sediment.fs.FileIO;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads and publishes snapshots. The listing of {@code snapshot/} is the truth; {@code LATEST},
 * {@code EARLIEST} and the per-user hints {@code user-<user>} only shorten searches (a user hint
 * also outlives the expiry of the snapshot it names, see {@link #latestCommitOfUser}).
 */
public final class SnapshotManager implements Serializable {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(SnapshotManager.class);
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
        while (fileIO.fileExists(paths.snapshot(id + 1))) {
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

  /**
   * The {@code EARLIEST} hint, if present: never above the oldest snapshot still present (an
   * expiration moves it up after deleting), possibly below it (an expiration that stopped between
   * the two). Found without listing the snapshot directory.
   */
  public OptionalLong earliestHint() {
    try {
      Long hint = readHint("EARLIEST");
      return hint == null ? OptionalLong.empty() : OptionalLong.of(hint);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the EARLIEST hint under " + paths.snapshotDir(), e);
    }
  }

  /** Id of the oldest snapshot still present, if any. */
  public OptionalLong earliestId() {
    List<Long> ids = listIds();
    return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(0));
  }

  /**
   * The newest valid snapshot, for readers. A snapshot file that does not parse is skipped (with a
   * warning naming it): committers write snapshot files whole and exclusively, so such a file was
   * never published by one, and it must not make the committed snapshots below it unreadable. When
   * no snapshot file is valid, the error names the newest one. Committers use {@link
   * #latestForCommit}, which refuses instead.
   */
  public Optional<Snapshot> latest() {
    OptionalLong top = latestId();
    if (top.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(snapshot(top.getAsLong()));
    } catch (InvalidMetadataFileException invalid) {
      List<Long> ids = listIds();
      for (int i = ids.size() - 1; i >= 0; i--) {
        long id = ids.get(i);
        if (id >= top.getAsLong()) {
          continue;
        }
        try {
          Snapshot s = snapshot(id);
          LOG.warn(
              "Reading snapshot {}, the newest valid one; ignoring the invalid snapshot file(s)"
                  + " above it ({}). Commits are refused until it is removed, see"
                  + " docs/operations.md",
              id,
              invalid.getMessage());
          return Optional.of(s);
        } catch (InvalidMetadataFileException below) {
          invalid.addSuppressed(below);
        }
      }
      throw invalid;
    }
  }

  /**
   * The snapshot a new commit builds on: the latest, read strictly. The next commit needs the id
   * above the newest snapshot file; when that file is invalid, no commit can take its id, and
   * skipping past it could drop a commit whose file was damaged, so this refuses with an error
   * naming the file instead (see docs/operations.md, "An invalid snapshot file").
   */
  public Optional<Snapshot> latestForCommit() {
    OptionalLong top = latestId();
    if (top.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(snapshot(top.getAsLong()));
    } catch (InvalidMetadataFileException e) {
      throw new IllegalStateException(
          "Refusing to commit to "
              + paths.root()
              + ": the newest snapshot file is invalid and the next commit would build on it ("
              + e.getMessage()
              + "). Move the file out of "
              + paths.snapshotDir()
              + " once it is known not to be a damaged commit; see docs/operations.md",
          e);
    }
  }

  /**
   * Reads a snapshot.
   *
   * @throws IllegalStateException when it does not exist
   * @throws InvalidMetadataFileException naming the file when it does not hold a valid snapshot
   */
  public Snapshot snapshot(long id) {
    try {
      return read(id);
    } catch (FileNotFoundException e) {
      throw new IllegalStateException(
          "Snapshot " + id + " does not exist: no file " + paths.snapshot(id), e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read snapshot file " + paths.snapshot(id), e);
    }
  }

  /**
   * Reads a snapshot, or empty when its file does not exist (expired, or never written).
   *
   * @throws InvalidMetadataFileException naming the file when it does not hold a valid snapshot
   */
  public Optional<Snapshot> snapshotIfExists(long id) {
    try {
      return Optional.of(read(id));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read snapshot file " + paths.snapshot(id), e);
    }
  }

  private Snapshot read(long id) throws IOException {
    Path file = paths.snapshot(id);
    String json = fileIO.readUtf8(file);
    Snapshot s;
    try {
      s = Snapshot.fromJson(json);
    } catch (IllegalArgumentException e) {
      throw new InvalidMetadataFileException(file, e.getMessage(), e);
    }
    if (s.id() != id) {
      throw new InvalidMetadataFileException(file, "it holds snapshot id " + s.id(), null);
    }
    return s;
  }

  public boolean exists(long id) {
    try {
      return fileIO.fileExists(paths.snapshot(id));
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
            long id = Long.parseLong(name.substring(PREFIX.length()));
            // Only the exact name a commit writes: not "snapshot-+3", "snapshot-0001", "-1".
            if (id > 0 && name.equals(PREFIX + id)) {
              ids.add(id);
            }
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
   * The staged snapshot files ({@code .snapshot-<id>.<uuid>.tmp}) present: a committer under the
   * commit lock writes its snapshot there before it claims and moves it; a claimed one is published
   * by the next commit if its committer stopped (docs/spec.md section 9.6).
   */
  public List<Path> listStaged() {
    try {
      List<Path> staged = new ArrayList<>();
      for (FileStatus st : fileIO.list(paths.snapshotDir())) {
        String name = st.getPath().getName();
        if (name.startsWith("." + PREFIX) && name.endsWith(".tmp")) {
          staged.add(st.getPath());
        }
      }
      return staged;
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
   * The newest batch commit ({@code Long.MAX_VALUE} identifier) of {@code commitUser} among the
   * snapshots still there, newest first. For a job whose commit user is its own (a SQL sink, a
   * compaction job), it tells a restarted committer that its one commit landed already; batch
   * commits write no user hint, so an expired one is not found.
   */
  public Optional<Snapshot> latestBatchCommitOfUser(String commitUser) {
    List<Long> ids = listIds();
    for (int i = ids.size() - 1; i >= 0; i--) {
      Optional<Snapshot> s = snapshotIfExists(ids.get(i));
      if (s.isPresent() && commitUser.equals(s.get().commitUser()) && !isStreamCommit(s.get())) {
        return s;
      }
    }
    return Optional.empty();
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
            MessageDigest.getInstance("SHA-256")
                .digest(commitUser.getBytes(StandardCharsets.UTF_8));
        name = name.substring(0, 100) + "~" + HexFormat.of().formatHex(sha);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
    return new Path(paths.snapshotDir(), USER_PREFIX + name);
  }

  /**
   * The commit user's hint, if present. A hint that exists but cannot be read as this user's is an
   * error naming the file, never "no hint": once the user's snapshots have expired the hint is all
   * that is left of its last commit, and taking it as missing would let a restored writer commit
   * that window again.
   *
   * @throws InvalidMetadataFileException when the hint does not parse or names another user
   */
  public Optional<UserCommit> readUserHint(String commitUser) {
    Path p = userHintPath(commitUser);
    String json;
    try {
      json = fileIO.readUtf8(p);
    } catch (FileNotFoundException e) {
      return Optional.empty(); // no hint (one read: no separate existence check)
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the hint " + p + " of commit user " + commitUser, e);
    }
    UserCommit c;
    try {
      c = UserCommit.fromJson(json);
    } catch (IllegalArgumentException e) {
      throw invalidHint(p, commitUser, e.getMessage(), e);
    }
    if (!commitUser.equals(c.commitUser())) {
      throw invalidHint(p, commitUser, "it names commit user " + c.commitUser(), null);
    }
    return Optional.of(c);
  }

  private static InvalidMetadataFileException invalidHint(
      Path p, String commitUser, String problem, Throwable cause) {
    return new InvalidMetadataFileException(
        p,
        problem
            + "; it may be the only record of the last commit of "
            + commitUser
            + ", so whether a commit already landed cannot be told and committing is refused"
            + " (see docs/operations.md, \"A damaged commit user hint\")",
        cause);
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
    Snapshot s = snapshotIfExists(hint.snapshotId()).orElse(null);
    if (s == null) {
      return Optional.of(hint); // expired: the hint is the record
    }
    if (commitUser.equals(s.commitUser()) && isStreamCommit(s)) {
      return Optional.of(UserCommit.of(s));
    }
    return Optional.ofNullable(search(commitUser, hint.snapshotId() - 1, 0).found);
  }

  /**
   * Which of {@code commitUsers} have a stream commit among snapshots {@code above + 1} to {@code
   * from}: one walk down from {@code from}, which stops once every user is found (users that commit
   * often are found among the first few). All of them when one of those snapshots is gone: an
   * expiration is retiring them, and it records each user's newest commit in the user's hint before
   * it deletes anything.
   */
  public Set<String> usersWithStreamCommitBetween(Set<String> commitUsers, long above, long from) {
    Set<String> found = new HashSet<>();
    for (long id = from; id > above && found.size() < commitUsers.size(); id--) {
      Snapshot s = snapshotIfExists(id).orElse(null);
      if (s == null) {
        return commitUsers;
      }
      if (isStreamCommit(s) && commitUsers.contains(s.commitUser())) {
        found.add(s.commitUser());
      }
    }
    return found;
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
      Snapshot s = snapshotIfExists(id).orElse(null); // null: expired
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

  private Long readHint(String name) throws IOException {
    Path p = new Path(paths.snapshotDir(), name);
    // Read, not exists-then-read: on an object store the check costs a request (HEAD, and a LIST
    // when the hint is missing) that the read's "not found" answers as well.
    try {
      return Long.parseLong(fileIO.readUtf8(p).trim());
    } catch (NumberFormatException | FileNotFoundException e) {
      return null;
    }
  }
}
