package io.sediment.marker;

import io.sediment.fs.FileIO;
import io.sediment.manifest.TablePaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.Path;

/**
 * The markers of a table as {@code remove_orphan_files} sees them ({@code .markers/<commit-user>/},
 * see {@link MarkerLayout}): per compaction job or SQL write job, the markers of the outputs it is
 * writing or has not committed yet (a SQL writer's under {@code write-after-<checkpoint>/}), and a
 * compaction job's release records.
 *
 * <p>A job is <em>live</em> when one of its markers or release records was modified at or after the
 * liveness threshold orphan removal passes (the older of its orphan threshold and one day ago):
 * then every one of its markers protects its output, whatever the output's age. A job with no such
 * file is <em>stale</em> (cancelled for good, or stopped for longer than that): its markers protect
 * nothing, its outputs are judged like any other file, and its markers whose outputs are gone or
 * committed, and its release records, are deleted.
 */
public final class MarkedOutputs {

  private record Job(List<FileStatus> markers, List<Path> releases, boolean live) {}

  private final FileIO io;
  private final List<Job> jobs;

  private MarkedOutputs(FileIO io, List<Job> jobs) {
    this.io = io;
    this.jobs = jobs;
  }

  /** Lists the markers of every job; files modified at or after {@code liveSince} make it live. */
  public static MarkedOutputs list(FileIO io, TablePaths paths, long liveSince) throws IOException {
    List<Job> jobs = new ArrayList<>();
    Path root = paths.markersDir();
    if (!io.exists(root)) {
      return new MarkedOutputs(io, jobs);
    }
    for (FileStatus dir : io.list(root)) {
      if (!dir.isDir()) {
        continue;
      }
      List<FileStatus> markers = new ArrayList<>();
      List<Path> releases = new ArrayList<>();
      boolean live = false;
      for (FileStatus st : io.list(dir.getPath())) {
        if (st.isDir()) {
          for (FileStatus r : io.list(st.getPath())) {
            if (r.isDir()) {
              continue;
            }
            if (r.getPath().getName().startsWith(MarkerLayout.RELEASE_PREFIX)) {
              releases.add(r.getPath());
              live |= r.getModificationTime() >= liveSince;
            } else if (MarkerLayout.markedOutputName(r.getPath().getName()) != null) {
              // a SQL writer's marker, under write-after-<checkpoint>/
              markers.add(r);
              live |= r.getModificationTime() >= liveSince;
            }
          }
        } else if (MarkerLayout.markedOutputName(st.getPath().getName()) != null) {
          markers.add(st);
          live |= st.getModificationTime() >= liveSince;
        }
      }
      jobs.add(new Job(markers, releases, live));
    }
    return new MarkedOutputs(io, jobs);
  }

  /** Names of the outputs that markers of live jobs protect (file names are unique in a table). */
  public Set<String> protectedNames() {
    Set<String> names = new HashSet<>();
    for (Job job : jobs) {
      if (job.live()) {
        for (FileStatus m : job.markers()) {
          names.add(MarkerLayout.markedOutputName(m.getPath().getName()));
        }
      }
    }
    return names;
  }

  /**
   * Deletes the bookkeeping of stale jobs: markers whose output {@code settled} (deleted, missing
   * or used by a snapshot), and release records. Returns the files deleted.
   */
  public List<Path> deleteStale(Predicate<String> settled) {
    List<Path> paths = new ArrayList<>();
    for (Job job : jobs) {
      if (job.live()) {
        continue;
      }
      for (FileStatus m : job.markers()) {
        if (settled.test(MarkerLayout.markedOutputName(m.getPath().getName()))) {
          paths.add(m.getPath());
        }
      }
      paths.addAll(job.releases());
    }
    List<IOException> errors = io.deleteAll(paths);
    if (!errors.isEmpty()) {
      IOException e =
          new IOException("Could not delete " + errors.size() + " stale compaction marker(s)");
      errors.forEach(e::addSuppressed);
      throw new UncheckedIOException(e);
    }
    return paths;
  }
}
