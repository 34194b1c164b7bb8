package io.sediment.marker;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The markers of a Flink SQL write job's outputs, {@code
 * .markers/<commit-user>/write-after-<B>/marker-<output file name>}: written by a writer before
 * each file it creates, in the directory of the last checkpoint barrier B it passed; deleted by the
 * committer once it published the file ({@link #deleteMarkers}), and otherwise by the committer's
 * {@link #cleanOrphans}, which may run while the writers write.
 */
public final class WriterMarkers {

  private static final Logger LOG = LoggerFactory.getLogger(WriterMarkers.class);

  private WriterMarkers() {}

  /**
   * Writes the marker of a writer's output before it is created, under {@code
   * write-after-<checkpoint>}: {@code checkpoint} is the last checkpoint barrier the writer passed
   * (its restored checkpoint, or 0, before its first barrier). Returns the marker's path.
   */
  public static String write(FileStore store, String commitUser, long checkpoint, Path output)
      throws IOException {
    Path marker =
        new Path(
            MarkerLayout.of(store).writeAfterDir(commitUser, checkpoint),
            MarkerLayout.MARKER_PREFIX + output.getName());
    return MarkerFiles.write(store.fileIO(), marker, output);
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
  public static int cleanOrphans(
      FileStore store,
      String commitUser,
      long writtenBefore,
      Set<String> keep,
      Set<String> committed) {
    Path dir = MarkerLayout.of(store).jobDir(commitUser);
    FileIO io = store.fileIO();
    try {
      List<Path> dirs = new ArrayList<>();
      List<Path> markers = new ArrayList<>();
      for (FileStatus st : io.list(dir)) {
        long b = MarkerLayout.writeAfterCheckpoint(st.getPath().getName());
        if (st.isDir() && b >= 0 && b < writtenBefore) {
          dirs.add(st.getPath());
          markers.addAll(MarkerFiles.markersIn(io, st.getPath()));
        }
      }
      int deleted =
          markers.isEmpty() ? 0 : MarkerFiles.deleteUnreferenced(store, markers, keep, committed);
      for (Path d : dirs) {
        MarkerFiles.deleteIfEmpty(io, d);
      }
      return deleted;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot clean the SQL writers' outputs under " + dir, e);
    }
  }

  /**
   * Deletes the markers (paths, as {@link #write} returned them) whose output does not exist: files
   * a writer replaced or deleted before sending them.
   */
  public static void deleteMarkersOfMissingOutputs(FileIO fileIO, Collection<String> markers) {
    MarkerFiles.deleteMarkersOfFinishedOutputs(fileIO, markers, Set.of());
  }

  /**
   * Deletes the markers of outputs the committer has published (or found published, or dropped):
   * the markers of {@code outputs} (file names) in the {@code write-after-<B>} directories of
   * {@code commitUser}. Only the committer does this, after its publish: until then the markers
   * keep {@code remove_orphan_files} off the outputs. Failures are logged; the job's next clean-up
   * deletes what is left.
   */
  public static void deleteMarkers(FileStore store, String commitUser, Set<String> outputs) {
    if (outputs.isEmpty()) {
      return;
    }
    FileIO io = store.fileIO();
    Path dir = MarkerLayout.of(store).jobDir(commitUser);
    try {
      for (FileStatus st : io.list(dir)) {
        if (!st.isDir() || MarkerLayout.writeAfterCheckpoint(st.getPath().getName()) < 0) {
          continue;
        }
        List<Path> done = new ArrayList<>();
        for (Path m : MarkerFiles.markersIn(io, st.getPath())) {
          if (outputs.contains(MarkerLayout.markedOutputName(m.getName()))) {
            done.add(m);
          }
        }
        MarkerFiles.deleteLogged(io, done);
        if (!done.isEmpty()) {
          MarkerFiles.deleteIfEmpty(io, st.getPath());
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
    Path dir = MarkerLayout.of(store).jobDir(commitUser);
    long max = -1;
    try {
      for (FileStatus st : store.fileIO().list(dir)) {
        max = Math.max(max, MarkerLayout.writeAfterCheckpoint(st.getPath().getName()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the markers under " + dir, e);
    }
    return max;
  }
}
