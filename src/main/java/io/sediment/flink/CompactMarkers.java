package io.sediment.flink;

import io.sediment.fs.FileIO;
import io.sediment.maintenance.TableFiles;
import io.sediment.manifest.FileStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files a compaction job keeps beside a table, under {@code <table>/.markers/<commit-user>/}:
 *
 * <ul>
 *   <li>{@code marker-<data file name>}: written by the rewrite operator before each output file is
 *       created; holds the output's path. Deleted once the output was committed or deleted. Any
 *       marker still present when the job (re)starts belongs to an output of a dead attempt: the
 *       output is deleted unless a retained snapshot references it ({@link #cleanOrphans}).
 *   <li>{@code released/release-<window>-<uuid>}: written by the committer after a commit window
 *       was committed or aborted; lists the ids of the tasks of that window, so the source can hand
 *       their files out again ({@link #takeReleases}).
 * </ul>
 */
public final class CompactMarkers {

  private static final Logger LOG = LoggerFactory.getLogger(CompactMarkers.class);

  static final String MARKER_PREFIX = "marker-";

  private CompactMarkers() {}

  public static Path dir(FileStore store, String commitUser) {
    return new Path(new Path(store.paths().root(), ".markers"), commitUser);
  }

  private static Path releaseDir(FileStore store, String commitUser) {
    return new Path(dir(store, commitUser), "released");
  }

  /** Writes the marker of an output file before it is created; returns the marker's path. */
  static String write(FileStore store, String commitUser, Path dataFile) throws IOException {
    Path marker = new Path(dir(store, commitUser), MARKER_PREFIX + dataFile.getName());
    store.fileIO().writeNew(marker, dataFile.toString().getBytes(StandardCharsets.UTF_8));
    return marker.toString();
  }

  /** Deletes markers whose output no longer needs one (committed, or deleted). */
  static void deleteMarkers(FileIO fileIO, Collection<String> markers) {
    List<Path> paths = new ArrayList<>();
    for (String m : markers) {
      paths.add(new Path(m));
    }
    for (IOException e : fileIO.deleteAll(paths)) {
      LOG.warn(
          "Could not delete a compaction marker (removed at the next restart): {}", e.toString());
    }
  }

  /** Deletes the markers of outputs that do not exist (their task deleted them). */
  static void deleteMarkersOfMissingOutputs(FileIO fileIO, Collection<String> markers) {
    List<String> gone = new ArrayList<>();
    for (String m : markers) {
      try {
        Path data = new Path(fileIO.readUtf8(new Path(m)).trim());
        if (!fileIO.exists(data)) {
          gone.add(m);
        }
      } catch (IOException e) {
        // leave it for the restart cleanup
      }
    }
    deleteMarkers(fileIO, gone);
  }

  /**
   * Deletes the markers of a finished window: those whose output is referenced by the latest
   * snapshot (committed) or no longer exists (deleted). Others stay for the restart cleanup.
   */
  static void deleteMarkersOfMissingOutputsOrLive(FileStore store, Collection<String> markers) {
    if (markers.isEmpty()) {
      return;
    }
    FileIO io = store.fileIO();
    Set<String> live = null;
    List<String> done = new ArrayList<>();
    for (String m : markers) {
      try {
        Path data = new Path(io.readUtf8(new Path(m)).trim());
        if (!io.exists(data)) {
          done.add(m);
          continue;
        }
        if (live == null) {
          live = liveFileNames(store);
        }
        if (live.contains(data.getName())) {
          done.add(m);
        }
      } catch (FileNotFoundException e) {
        // already gone
      } catch (IOException e) {
        LOG.warn("Could not check compaction marker {}: {}", m, e.toString());
      }
    }
    deleteMarkers(io, done);
  }

  /** Records that the tasks of a window finished (committed or aborted). */
  static void writeRelease(
      FileStore store, String commitUser, long window, Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return;
    }
    Path file =
        new Path(
            releaseDir(store, commitUser),
            "release-" + window + "-" + UUID.randomUUID().toString().substring(0, 8));
    try {
      store.fileIO().writeNew(file, String.join("\n", taskIds).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // The source then keeps the files held until the job restarts; log, do not fail.
      LOG.warn("Could not record finished compaction tasks {}: {}", taskIds, e.toString());
    }
  }

  /** Reads and deletes the release records of a table: ids of finished tasks. */
  static List<String> takeReleases(FileStore store, String commitUser) throws IOException {
    List<String> ids = new ArrayList<>();
    Path dir = releaseDir(store, commitUser);
    FileIO io = store.fileIO();
    if (!io.exists(dir)) {
      return ids;
    }
    for (FileStatus st : io.list(dir)) {
      if (st.isDir() || !st.getPath().getName().startsWith("release-")) {
        continue;
      }
      try {
        for (String line : io.readUtf8(st.getPath()).split("\n")) {
          if (!line.isBlank()) {
            ids.add(line.trim());
          }
        }
      } catch (FileNotFoundException e) {
        continue;
      }
      io.deleteQuietly(st.getPath());
    }
    return ids;
  }

  /**
   * Deletes every output recorded by a marker of {@code commitUser} that no retained snapshot
   * references, and the markers. Run only while no task of that commit user is writing (job start
   * or restore, after restored windows were committed; or after a batch job ended). Returns the
   * number of outputs deleted.
   */
  public static int cleanOrphans(FileStore store, String commitUser) {
    Path dir = dir(store, commitUser);
    FileIO io = store.fileIO();
    try {
      if (!io.exists(dir)) {
        return 0;
      }
      List<Path> markers = new ArrayList<>();
      for (FileStatus st : io.list(dir)) {
        if (!st.isDir() && st.getPath().getName().startsWith(MARKER_PREFIX)) {
          markers.add(st.getPath());
        }
      }
      if (markers.isEmpty()) {
        return 0;
      }
      Set<String> live = liveFileNames(store);
      int deleted = 0;
      List<Path> toDelete = new ArrayList<>();
      for (Path m : markers) {
        Path data;
        try {
          data = new Path(io.readUtf8(m).trim());
        } catch (FileNotFoundException e) {
          continue;
        }
        if (!live.contains(data.getName()) && io.exists(data)) {
          IOException err = io.deleteQuietly(data);
          if (err != null) {
            LOG.warn("Could not delete orphaned compaction output {}: {}", data, err.toString());
            continue; // keep the marker, retry at the next start
          }
          deleted++;
          LOG.info("Deleted compaction output {} of an attempt that did not commit it", data);
        }
        toDelete.add(m);
      }
      io.deleteAll(toDelete);
      return deleted;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot clean compaction outputs under " + dir, e);
    }
  }

  /**
   * Names of the data files any retained snapshot references. An output committed by a window and
   * later compacted away by someone else is still referenced by older snapshots and must stay.
   */
  private static Set<String> liveFileNames(FileStore store) {
    return TableFiles.ofRetainedSnapshots(store).dataFileNames();
  }
}
