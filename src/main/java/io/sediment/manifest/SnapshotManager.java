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
 * Reads and publishes snapshots. The listing of {@code snapshot/} is the truth; {@code LATEST} and
 * {@code EARLIEST} are hints that only shorten the search.
 */
public final class SnapshotManager implements java.io.Serializable {

  private static final long serialVersionUID = 1L;
  private static final String PREFIX = "snapshot-";

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
   * id succeeds; the others get false and must retry on top of the winner.
   */
  public boolean tryCommit(Snapshot snapshot) throws IOException {
    boolean created =
        fileIO.tryCreateExclusive(
            paths.snapshot(snapshot.id()), snapshot.toJson().getBytes(StandardCharsets.UTF_8));
    if (created) {
      try {
        fileIO.overwriteHint(new Path(paths.snapshotDir(), "LATEST"), Long.toString(snapshot.id()));
        if (snapshot.id() == 1) {
          fileIO.overwriteHint(new Path(paths.snapshotDir(), "EARLIEST"), "1");
        }
      } catch (IOException | RuntimeException e) {
        // A hint only; the listing stays the truth.
      }
    }
    return created;
  }

  /**
   * The newest snapshot written by {@code commitUser}, searching back from the latest; used to skip
   * commits that already landed.
   */
  public Optional<Snapshot> latestOfUser(String commitUser) {
    return latestOfUser(commitUser, s -> true);
  }

  /** The newest snapshot written by {@code commitUser} that also matches {@code filter}. */
  public Optional<Snapshot> latestOfUser(
      String commitUser, java.util.function.Predicate<Snapshot> filter) {
    OptionalLong latest = latestId();
    if (latest.isEmpty()) {
      return Optional.empty();
    }
    OptionalLong earliest = earliestId();
    for (long id = latest.getAsLong(); id >= earliest.orElse(1); id--) {
      if (!exists(id)) {
        break; // expired
      }
      Snapshot s = snapshot(id);
      if (commitUser.equals(s.commitUser()) && filter.test(s)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
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
