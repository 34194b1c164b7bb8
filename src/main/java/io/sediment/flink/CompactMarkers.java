package io.sediment.flink;

import io.sediment.commit.CommitMessage;
import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.manifest.TablePaths;
import io.sediment.retention.TableFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files a compaction job or a Flink SQL write job keeps beside a table, under {@code
 * <table>/.markers/<commit-user>/} (the layout is {@link TablePaths}'s and docs/spec.md's):
 *
 * <ul>
 *   <li>{@code marker-<output file name>}: written by the rewrite operator before each output file
 *       is created, data file or deletion-vector file ({@code index/dv-*}); holds the output's
 *       path. Deleted by output name once the committer committed the output (it knows the names
 *       from its window's messages), or once the output was deleted. Any marker still present when
 *       the job (re)starts, or when a batch job's input ended, belongs to an output of a dead
 *       attempt: the output is deleted unless a retained snapshot references it ({@link
 *       #cleanOrphans}). While a marker exists, {@code remove_orphan_files} leaves its output
 *       alone.
 *   <li>{@code write-after-<checkpoint>/marker-<output file name>}: the same, written by a Flink
 *       SQL writer before each file it creates ({@link #writeAfter}), in the directory of the last
 *       checkpoint barrier it passed; deleted by the writer once a checkpoint covering the file
 *       completed (its committer commits the file), and otherwise by the committer's {@link
 *       #cleanWriterOrphans}, which may run while the writers write.
 *   <li>{@code released/release-<window>-<id>}: written by the committer after a commit window was
 *       committed or aborted; lists the ids of the tasks of that window, so the source can hand
 *       their files out again ({@link #takeReleases}).
 * </ul>
 */
public final class CompactMarkers {

  private static final Logger LOG = LoggerFactory.getLogger(CompactMarkers.class);

  private CompactMarkers() {}

  public static Path dir(FileStore store, String commitUser) {
    return store.paths().markerDir(commitUser);
  }

  /** Writes the marker of an output file before it is created; returns the marker's path. */
  static String write(FileStore store, String commitUser, Path output) throws IOException {
    Path marker = store.paths().marker(commitUser, output.getName());
    store.fileIO().writeNew(marker, output.toString().getBytes(StandardCharsets.UTF_8));
    return marker.toString();
  }

  /**
   * The output a marker records, or null when the marker is incomplete (its writer died while
   * writing it, before creating the output): a marker names its output's file name, so a recorded
   * path with another name is a truncated one and must not be acted on.
   */
  private static Path outputOf(FileIO io, Path marker) throws IOException {
    String recorded = io.readUtf8(marker).trim();
    String name = TablePaths.markedOutputName(marker.getName());
    if (name == null || !recorded.endsWith("/" + name)) {
      return null;
    }
    return new Path(recorded);
  }

  /** Deletes markers whose output no longer needs one (committed, or deleted). */
  public static void deleteMarkers(FileIO fileIO, Collection<String> markers) {
    List<Path> paths = new ArrayList<>();
    for (String m : markers) {
      paths.add(new Path(m));
    }
    for (IOException e : fileIO.deleteAll(paths)) {
      LOG.warn("Could not delete a marker (removed by the next cleanup): {}", e.toString());
    }
  }

  /** Deletes the markers of outputs that do not exist (their task deleted them). */
  public static void deleteMarkersOfMissingOutputs(FileIO fileIO, Collection<String> markers) {
    deleteMarkersOfFinishedOutputs(fileIO, markers, Set.of());
  }

  /**
   * Deletes the markers of a finished window's outputs, by output name: markers of the outputs the
   * window committed ({@code committedOutputs}, file names), and markers whose output does not
   * exist (deleted by the abort or by its task). No snapshot is read: a marker whose output exists
   * and was not committed by this window stays for the cleanup at the next (re)start ({@link
   * #cleanOrphans}).
   */
  static void deleteMarkersOfFinishedOutputs(
      FileIO fileIO, Collection<String> markers, Set<String> committedOutputs) {
    List<String> done = new ArrayList<>();
    for (String m : markers) {
      Path marker = new Path(m);
      if (committedOutputs.contains(TablePaths.markedOutputName(marker.getName()))) {
        done.add(m);
        continue;
      }
      try {
        Path output = outputOf(fileIO, marker);
        if (output == null || !fileIO.exists(output)) {
          done.add(m);
        }
      } catch (FileNotFoundException e) {
        // already gone
      } catch (IOException | UncheckedIOException e) {
        // leave it for the restart cleanup
        LOG.warn("Could not check compaction marker {}: {}", m, e.toString());
      }
    }
    deleteMarkers(fileIO, done);
  }

  /**
   * Deletes the outputs these markers record, then the markers: outputs known to be in no commit (a
   * rewrite whose result was never emitted). A marker whose output could not be deleted stays for
   * the restart cleanup.
   */
  static void deleteOutputsAndMarkers(FileIO fileIO, Collection<String> markers) {
    List<String> done = new ArrayList<>();
    for (String m : markers) {
      try {
        Path output = outputOf(fileIO, new Path(m));
        IOException err = output == null ? null : fileIO.deleteQuietly(output);
        if (err != null) {
          LOG.warn("Could not delete compaction output {}: {}", output, err.toString());
          continue;
        }
      } catch (FileNotFoundException e) {
        // no marker, nothing recorded
      } catch (IOException | UncheckedIOException e) {
        LOG.warn("Could not read compaction marker {}: {}", m, e.toString());
        continue;
      }
      done.add(m);
    }
    deleteMarkers(fileIO, done);
  }

  /** Records that the tasks of a window finished (committed or aborted). */
  static void writeRelease(
      FileStore store, String commitUser, long window, Collection<String> taskIds) {
    if (taskIds.isEmpty()) {
      return;
    }
    Path file =
        store.paths().release(commitUser, window, UUID.randomUUID().toString().substring(0, 8));
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
    Path dir = store.paths().releaseDir(commitUser);
    FileIO io = store.fileIO();
    if (!io.exists(dir)) {
      return ids;
    }
    for (FileStatus st : io.list(dir)) {
      if (st.isDir() || !st.getPath().getName().startsWith(TablePaths.RELEASE_PREFIX)) {
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
   * references (data files and deletion-vector files), and the markers. Run only while no task of
   * that commit user is writing (job start or restore, after restored windows were committed; at
   * the end of a batch job's input; after a batch job ended). Returns the number of outputs
   * deleted.
   */
  public static int cleanOrphans(FileStore store, String commitUser) {
    Path dir = dir(store, commitUser);
    FileIO io = store.fileIO();
    try {
      return deleteUnreferenced(store, markersIn(io, dir), Set.of(), Set.of());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot clean compaction outputs under " + dir, e);
    }
  }

  /**
   * Writes the marker of a SQL writer's output before it is created, under {@code
   * write-after-<checkpoint>}: {@code checkpoint} is the last checkpoint barrier the writer passed
   * (its restored checkpoint, or 0, before its first barrier). Returns the marker's path.
   */
  public static String writeAfter(FileStore store, String commitUser, long checkpoint, Path output)
      throws IOException {
    Path marker =
        new Path(
            store.paths().writeMarkerDir(commitUser, checkpoint),
            TablePaths.MARKER_PREFIX + output.getName());
    store.fileIO().writeNew(marker, output.toString().getBytes(StandardCharsets.UTF_8));
    return marker.toString();
  }

  /**
   * The cleanup of a SQL write job: deletes every output recorded by a marker of {@code commitUser}
   * in a {@code write-after-<B>} directory with B &lt; {@code writtenBefore} that no retained
   * snapshot references and whose name is not in {@code keep}, then the markers and the emptied
   * directories. The markers of outputs named in {@code committed} (just committed by the caller)
   * go without reading them or any snapshot. Returns the number of outputs deleted.
   *
   * <p>Safe while the job's writers write: run by the committer once a checkpoint M of its attempt
   * completed and every window up to M was committed, with {@code writtenBefore} = M. A live writer
   * passed barrier M, so an output it created under B &lt; M was sent in a window up to M (now in a
   * snapshot, or in {@code keep}: windows still in state); its later outputs are under B &ge; M.
   * What is left under B &lt; M was written by attempts that died. {@code Long.MAX_VALUE} after
   * every writer ended (end of input).
   */
  public static int cleanWriterOrphans(
      FileStore store,
      String commitUser,
      long writtenBefore,
      Set<String> keep,
      Set<String> committed) {
    Path dir = dir(store, commitUser);
    FileIO io = store.fileIO();
    try {
      List<Path> dirs = new ArrayList<>();
      List<Path> markers = new ArrayList<>();
      for (FileStatus st : io.list(dir)) {
        long b = TablePaths.writeMarkerCheckpoint(st.getPath().getName());
        if (st.isDir() && b >= 0 && b < writtenBefore) {
          dirs.add(st.getPath());
          markers.addAll(markersIn(io, st.getPath()));
        }
      }
      int deleted = markers.isEmpty() ? 0 : deleteUnreferenced(store, markers, keep, committed);
      for (Path d : dirs) {
        deleteIfEmpty(io, d);
      }
      return deleted;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot clean the SQL writers' outputs under " + dir, e);
    }
  }

  /**
   * Deletes the markers of outputs a SQL write job's committer has published (or found published,
   * or dropped): the markers of {@code outputs} (file names) in the {@code write-after-<B>}
   * directories of {@code commitUser}. Only the committer does this, after its publish: until then
   * the markers keep {@code remove_orphan_files} off the outputs. Failures are logged; the job's
   * next clean-up deletes what is left.
   */
  public static void deleteWriterMarkers(FileStore store, String commitUser, Set<String> outputs) {
    if (outputs.isEmpty()) {
      return;
    }
    FileIO io = store.fileIO();
    Path dir = dir(store, commitUser);
    try {
      for (FileStatus st : io.list(dir)) {
        if (!st.isDir() || TablePaths.writeMarkerCheckpoint(st.getPath().getName()) < 0) {
          continue;
        }
        List<Path> done = new ArrayList<>();
        for (Path m : markersIn(io, st.getPath())) {
          if (outputs.contains(TablePaths.markedOutputName(m.getName()))) {
            done.add(m);
          }
        }
        for (IOException e : io.deleteAll(done)) {
          LOG.warn("Could not delete a marker (removed by the next cleanup): {}", e.toString());
        }
        if (!done.isEmpty()) {
          deleteIfEmpty(io, st.getPath());
        }
      }
    } catch (IOException e) {
      LOG.warn("Could not delete the markers of committed files under {}: {}", dir, e.toString());
    }
  }

  /**
   * The largest checkpoint B of a {@code write-after-<B>} directory of {@code commitUser}, or -1:
   * the last barrier a writer of any attempt so far wrote after.
   */
  public static long latestWriteBarrier(FileStore store, String commitUser) {
    long max = -1;
    try {
      for (FileStatus st : store.fileIO().list(dir(store, commitUser))) {
        max = Math.max(max, TablePaths.writeMarkerCheckpoint(st.getPath().getName()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the markers under " + dir(store, commitUser), e);
    }
    return max;
  }

  /** File names of the outputs of commit messages: data files and deletion-vector files. */
  public static Set<String> outputNames(Collection<CommitMessage> messages) {
    Set<String> names = new HashSet<>();
    for (CommitMessage m : messages) {
      names.addAll(m.outputFileNames());
    }
    return names;
  }

  private static List<Path> markersIn(FileIO io, Path dir) throws IOException {
    List<Path> markers = new ArrayList<>();
    for (FileStatus st : io.list(dir)) {
      if (!st.isDir() && TablePaths.markedOutputName(st.getPath().getName()) != null) {
        markers.add(st.getPath());
      }
    }
    return markers;
  }

  /** Object stores have no directories; on file systems an empty marker directory goes too. */
  private static void deleteIfEmpty(FileIO io, Path dir) {
    if (io.isObjectStore()) {
      return;
    }
    try {
      if (io.list(dir).isEmpty()) {
        io.delete(dir, false);
      }
    } catch (IOException e) {
      LOG.debug("Could not delete marker directory {}: {}", dir, e.toString());
    }
  }

  /**
   * Deletes the outputs of {@code markers} that no retained snapshot references and {@code keep}
   * does not name, then the markers (those of referenced, {@code committed} and missing outputs
   * too). A marker whose output could not be deleted stays, for the next cleanup. Returns the
   * outputs deleted.
   */
  private static int deleteUnreferenced(
      FileStore store, List<Path> markers, Set<String> keep, Set<String> committed)
      throws IOException {
    if (markers.isEmpty()) {
      return 0;
    }
    FileIO io = store.fileIO();
    Referenced referenced = new Referenced(store);
    int deleted = 0;
    List<Path> toDelete = new ArrayList<>();
    for (Path m : markers) {
      String name = TablePaths.markedOutputName(m.getName());
      if (keep.contains(name)) {
        continue;
      }
      if (committed.contains(name)) {
        toDelete.add(m);
        continue;
      }
      Path output;
      try {
        output = outputOf(io, m);
      } catch (FileNotFoundException e) {
        continue;
      }
      if (output != null && !referenced.contains(output) && io.exists(output)) {
        IOException err = io.deleteQuietly(output);
        if (err != null) {
          LOG.warn("Could not delete orphaned output {}: {}", output, err.toString());
          continue; // keep the marker, retry at the next cleanup
        }
        deleted++;
        LOG.info("Deleted output {} of an attempt that did not commit it", output);
      }
      toDelete.add(m);
    }
    io.deleteAll(toDelete);
    return deleted;
  }

  /**
   * Whether a retained snapshot references an output: data files by name, files in {@code index/}
   * (deletion vectors) by the retained index manifests. Read once, when first needed.
   */
  private static final class Referenced {
    private final FileStore store;
    private final String indexDir;
    private Set<String> dataFiles;
    private Set<String> indexFiles;

    Referenced(FileStore store) {
      this.store = store;
      this.indexDir = store.paths().indexDir().toUri().normalize().getPath();
    }

    boolean contains(Path output) {
      if (dataFiles == null) {
        TableFiles retained = TableFiles.ofRetainedSnapshots(store);
        dataFiles = retained.dataFileNames();
        indexFiles = retained.indexFileNames();
      }
      Path parent = output.getParent();
      if (parent != null && parent.toUri().normalize().getPath().equals(indexDir)) {
        return indexFiles.contains(output.getName());
      }
      return dataFiles.contains(output.getName());
    }
  }
}
