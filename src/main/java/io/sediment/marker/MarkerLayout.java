package io.sediment.marker;

import io.sediment.manifest.FileStore;
import io.sediment.manifest.TablePaths;
import org.apache.flink.core.fs.Path;

/**
 * Where the markers and release records of a table live (docs/spec.md, section 2.3):
 *
 * <pre>
 * &lt;table&gt;/.markers/&lt;commit-user&gt;/marker-&lt;output file name&gt;
 * &lt;table&gt;/.markers/&lt;commit-user&gt;/released/release-&lt;window&gt;-&lt;id&gt;
 * &lt;table&gt;/.markers/&lt;commit-user&gt;/write-after-&lt;checkpoint&gt;/marker-&lt;output file name&gt;
 * </pre>
 */
public final class MarkerLayout {

  /** File name prefix of a marker: {@code marker-<output file name>}. */
  public static final String MARKER_PREFIX = "marker-";

  /** File name prefix of a release record: {@code release-<window>-<id>}. */
  public static final String RELEASE_PREFIX = "release-";

  /**
   * Directory name prefix of a SQL writer's markers: {@code write-after-<checkpoint>}, the last
   * checkpoint barrier the writer had passed when it created the outputs.
   */
  public static final String WRITE_AFTER_PREFIX = "write-after-";

  private static final String RELEASED_DIR = "released";

  private final Path root;

  public MarkerLayout(TablePaths paths) {
    this.root = paths.markersDir();
  }

  public static MarkerLayout of(FileStore store) {
    return new MarkerLayout(store.paths());
  }

  /** {@code <table>/.markers}: one directory per commit user. */
  public Path root() {
    return root;
  }

  /** Markers and release records of one job (its commit user). */
  public Path jobDir(String commitUser) {
    return new Path(root, commitUser);
  }

  /** The marker of output file {@code outputName} (a data or deletion-vector file name). */
  public Path marker(String commitUser, String outputName) {
    return new Path(jobDir(commitUser), MARKER_PREFIX + outputName);
  }

  /** The output file name a marker file name records, or null if it is no marker's name. */
  public static String markedOutputName(String markerFileName) {
    return markerFileName.startsWith(MARKER_PREFIX)
            && markerFileName.length() > MARKER_PREFIX.length()
        ? markerFileName.substring(MARKER_PREFIX.length())
        : null;
  }

  /**
   * Markers of the outputs a SQL writer of commit user {@code commitUser} created after it passed
   * the barrier of checkpoint {@code checkpointId} (0: before its first checkpoint of a fresh
   * start).
   */
  public Path writeAfterDir(String commitUser, long checkpointId) {
    return new Path(jobDir(commitUser), WRITE_AFTER_PREFIX + checkpointId);
  }

  /** The checkpoint a {@link #writeAfterDir} name records, or -1 if it is no such name. */
  public static long writeAfterCheckpoint(String dirName) {
    if (!dirName.startsWith(WRITE_AFTER_PREFIX)) {
      return -1;
    }
    try {
      long id = Long.parseLong(dirName.substring(WRITE_AFTER_PREFIX.length()));
      return id < 0 ? -1 : id;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Release records of one compaction job. */
  public Path releaseDir(String commitUser) {
    return new Path(jobDir(commitUser), RELEASED_DIR);
  }

  /** A release record of the tasks of commit window {@code window}; {@code id} makes it unique. */
  public Path release(String commitUser, long window, String id) {
    return new Path(releaseDir(commitUser), RELEASE_PREFIX + window + "-" + id);
  }
}
