package io.sediment.marker;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The markers of a compaction job's outputs, {@code .markers/<commit-user>/marker-<output file
 * name>}: written by the rewrite operator before each output file is created (data file or
 * deletion-vector file {@code index/dv-*}), holding the output's path. Deleted by output name once
 * the committer committed the output (it knows the names from its window's messages), or once the
 * output was deleted. Any marker still present when the job (re)starts, or when a batch job's input
 * ended, belongs to an output of a dead attempt: the output is deleted unless a retained snapshot
 * references it ({@link #cleanOrphans}). While a marker exists, {@code remove_orphan_files} leaves
 * its output alone ({@link MarkedOutputs}).
 */
public final class OutputMarkers {

  private static final Logger LOG = LoggerFactory.getLogger(OutputMarkers.class);

  private OutputMarkers() {}

  /** Writes the marker of an output file before it is created; returns the marker's path. */
  public static String write(FileStore store, String commitUser, Path output) throws IOException {
    return MarkerFiles.write(
        store.fileIO(), MarkerLayout.of(store).marker(commitUser, output.getName()), output);
  }

  /** Deletes markers whose output no longer needs one (committed, or deleted). */
  public static void deleteMarkers(FileIO fileIO, Collection<String> markers) {
    List<Path> paths = new ArrayList<>();
    for (String m : markers) {
      paths.add(new Path(m));
    }
    MarkerFiles.deleteLogged(fileIO, paths);
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
  public static void deleteMarkersOfFinishedOutputs(
      FileIO fileIO, Collection<String> markers, Set<String> committedOutputs) {
    MarkerFiles.deleteMarkersOfFinishedOutputs(fileIO, markers, committedOutputs);
  }

  /**
   * Deletes the outputs these markers record, then the markers: outputs known to be in no commit (a
   * rewrite whose result was never emitted). A marker whose output could not be deleted stays for
   * the restart cleanup.
   */
  public static void deleteOutputsAndMarkers(FileIO fileIO, Collection<String> markers) {
    List<String> done = new ArrayList<>();
    for (String m : markers) {
      try {
        Path output = MarkerFiles.outputOf(fileIO, new Path(m));
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

  /**
   * Deletes every output recorded by a marker of {@code commitUser} that no retained snapshot
   * references (data files and deletion-vector files), and the markers. Run only while no task of
   * that commit user is writing (job start or restore, after restored windows were committed; at
   * the end of a batch job's input; after a batch job ended). Returns the number of outputs
   * deleted.
   */
  public static int cleanOrphans(FileStore store, String commitUser) {
    Path dir = MarkerLayout.of(store).jobDir(commitUser);
    try {
      return MarkerFiles.deleteUnreferenced(
          store, MarkerFiles.markersIn(store.fileIO(), dir), Set.of(), Set.of());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot clean compaction outputs under " + dir, e);
    }
  }
}
