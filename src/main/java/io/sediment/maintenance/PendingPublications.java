package io.sediment.maintenance;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.TablePaths;
import io.sediment.retention.TableFiles;
import io.sediment.schema.CommitOptions;
import java.io.IOException;
import java.util.Optional;
import java.util.UUID;
import org.apache.flink.core.fs.Path;

/**
 * Staged files of publishes under the commit lock ({@code .<target>.<uuid>.tmp} beside the target,
 * io.sediment.commit.LockedSnapshotCommit): a claimed one is moved into place by the lock's next
 * holder, whatever its age, so it is never an orphan while it may still be published. That is a
 * complete staged snapshot above the latest published one, or, on a table with the lock in its
 * options, a complete staged tag whose tag does not exist. Once a snapshot of its id or a later one
 * is there (the next holder rolls a claim forward before it publishes anything) or the tag is, a
 * staged file is left over; one that is not complete JSON was never claimed (a claim follows the
 * whole write).
 */
final class PendingPublications {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SNAPSHOT_PREFIX = "snapshot-";

  private final FileStore store;
  private final TablePaths paths;
  private final long latest;
  private final boolean locked;

  private PendingPublications(FileStore store) {
    this.store = store;
    this.paths = store.paths();
    this.latest = store.snapshotManager().latestId().orElse(0);
    this.locked = store.options().get(CommitOptions.LOCK_ENABLED);
  }

  /** Reads the latest snapshot id now: list the candidates before. */
  static PendingPublications of(FileStore store) {
    return new PendingPublications(store);
  }

  /** Whether {@code p} is a staged file that the commit lock's next holder may still publish. */
  boolean mayBePublished(Path p) {
    Optional<String> target = target(p.getName());
    if (target.isEmpty() || p.getParent() == null) {
      return false;
    }
    String dir = TableFiles.key(p.getParent());
    String name = target.get();
    boolean pending;
    if (dir.equals(TableFiles.key(paths.snapshotDir())) && name.startsWith(SNAPSHOT_PREFIX)) {
      try {
        pending = Long.parseLong(name.substring(SNAPSHOT_PREFIX.length())) > latest;
      } catch (NumberFormatException e) {
        return false;
      }
    } else if (dir.equals(TableFiles.key(paths.tagDir())) && locked) {
      // Only a claim under the lock is published late; a staged tag of an exclusive create that
      // stopped would otherwise stay for as long as its tag is missing.
      try {
        pending = !store.fileIO().fileExists(new Path(paths.tagDir(), name));
      } catch (IOException e) {
        return true; // cannot tell: keep it
      }
    } else {
      return false;
    }
    return pending && complete(p);
  }

  private boolean complete(Path p) {
    try {
      JSON.readTree(store.fileIO().readUtf8(p));
      return true;
    } catch (IOException e) {
      return false; // torn, or gone meanwhile
    }
  }

  /** The target of a staged file's name {@code .<target>.<uuid>.tmp}. */
  static Optional<String> target(String name) {
    if (!name.startsWith(".") || !name.endsWith(".tmp")) {
      return Optional.empty();
    }
    String core = name.substring(1, name.length() - ".tmp".length());
    int dot = core.lastIndexOf('.');
    if (dot <= 0) {
      return Optional.empty();
    }
    try {
      UUID.fromString(core.substring(dot + 1));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    return Optional.of(core.substring(0, dot));
  }
}
