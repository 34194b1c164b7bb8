package io.sediment.marker;

import io.sediment.fs.FileIO;
import io.sediment.manifest.FileStore;
import io.sediment.retention.TableFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reading, writing and deleting marker files: what the marker classes of this package share. */
final class MarkerFiles {

  private static final Logger LOG = LoggerFactory.getLogger(MarkerFiles.class);

  private MarkerFiles() {}

  /** Writes a marker recording {@code output}; returns the marker's path. */
  static String write(FileIO io, Path marker, Path output) throws IOException {
    io.writeNew(marker, output.toString().getBytes(StandardCharsets.UTF_8));
    return marker.toString();
  }

  /**
   * The output a marker records, or null when the marker is incomplete (its writer died while
   * writing it, before creating the output): a marker names its output's file name, so a recorded
   * path with another name is a truncated one and must not be acted on.
   */
  static Path outputOf(FileIO io, Path marker) throws IOException {
    String recorded = io.readUtf8(marker).trim();
    String name = MarkerLayout.markedOutputName(marker.getName());
    if (name == null || !recorded.endsWith("/" + name)) {
      return null;
    }
    return new Path(recorded);
  }

  /** The marker files directly in {@code dir}. */
  static List<Path> markersIn(FileIO io, Path dir) throws IOException {
    List<Path> markers = new ArrayList<>();
    for (FileStatus st : io.list(dir)) {
      if (!st.isDir() && MarkerLayout.markedOutputName(st.getPath().getName()) != null) {
        markers.add(st.getPath());
      }
    }
    return markers;
  }

  /**
   * Deletes the markers (paths) of finished outputs: those of {@code committedOutputs} (file names)
   * and those whose output does not exist. A marker whose output cannot be checked stays.
   */
  static void deleteMarkersOfFinishedOutputs(
      FileIO fileIO, Collection<String> markers, Set<String> committedOutputs) {
    List<String> done = new ArrayList<>();
    for (String m : markers) {
      Path marker = new Path(m);
      if (committedOutputs.contains(MarkerLayout.markedOutputName(marker.getName()))) {
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
        LOG.warn("Could not check marker {}: {}", m, e.toString());
      }
    }
    List<Path> paths = new ArrayList<>();
    for (String m : done) {
      paths.add(new Path(m));
    }
    deleteLogged(fileIO, paths);
  }

  /** Deletes marker files; a failure is logged (the next cleanup removes what is left). */
  static void deleteLogged(FileIO io, Collection<Path> markers) {
    if (markers.isEmpty()) {
      return; // nothing to do, also for a rewrite whose table could not be loaded (no FileIO)
    }
    for (IOException e : io.deleteAll(markers)) {
      LOG.warn("Could not delete a marker (removed by the next cleanup): {}", e.toString());
    }
  }

  /** Object stores have no directories; on file systems an empty marker directory goes too. */
  static void deleteIfEmpty(FileIO io, Path dir) {
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
  static int deleteUnreferenced(
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
      String name = MarkerLayout.markedOutputName(m.getName());
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
